/**
 * The scoring engine's fitted models, kept between starts so that a restart does not fit them again: the
 * comps model (seconds of the serving thread's start) and the learners fitted after it (a worker thread's
 * minute), with the parcels and sales they were fitted on. What is kept is only ever used for exactly the
 * data it was made from: the kept data only while the store's version is the one it was read at, the comps
 * model only when the digest of the engine's own sales is the kept one (`ScoringEngine.build`), and the
 * learners only with that comps model.
 */
import { Context, type Effect, type Option } from "effect"
import type { AddressIndexData } from "../scoring/address-index.js"
import type { KeptComps } from "../scoring/engine.js"
import type { StackData } from "../scoring/stack.js"
import type { PropertyData } from "./property-store.js"

/** The store's parcels and sales as they were at `version` (`PropertyStore.version`). */
export interface KeptData extends PropertyData {
  readonly version: string
  /**
   * The digest of the engine's sales of these data (`salesDigest(modelSales(data))`), where the keeper had it:
   * an engine built from them takes it instead of computing it again (a tenth of a second on the demo county).
   */
  readonly salesDigest?: string | undefined
  /**
   * The address index of these parcels, where the keeper had it: an engine built from them restores it
   * instead of reading every parcel's address again (about a third of a restart's engine build). Kept in the
   * same structured clone as the parcels, so that it refers to the same records.
   */
  readonly addressIndex?: AddressIndexData | undefined
}

export interface KeptEngineModels {
  readonly comps: KeptComps
  /** The learners fitted on the same sales, once they were. */
  readonly learners?: StackData | undefined
  /** What the engine was built from, read from the store (none when the comps model was fitted ahead). */
  readonly data?: KeptData | undefined
}

export class KeptModels extends Context.Tag("propscore/KeptModels")<KeptModels, {
  /** What was kept last by this same code, if anything (none when it cannot be read). */
  readonly read: Effect.Effect<Option.Option<KeptEngineModels>>
  /**
   * Keeps these models instead of the ones kept before, and their `data` where given (else the data kept
   * before stays: the learners join a comps model whose data is kept already). A failure to keep them is
   * logged, never fatal.
   */
  readonly keep: (models: KeptEngineModels) => Effect.Effect<void>
}>() {}
