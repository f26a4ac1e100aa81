/**
 * A scripted Scoring fake: each address answers what the test scripted (an outcome, a covered failure, a
 * delay before either, or a defect), every call is recorded, and unscripted addresses are unscorable.
 */
import { Duration, Effect, Layer, Ref } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { JointStepsPg } from "../../layers/joint-steps/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import type { HistoryAnswer } from "../../schema/history.js"
import type { Overrides } from "../../schema/overrides.js"
import { UnknownProperty, UnscorableAddress } from "../../schema/problems.js"
import { type HistoryError, type HistoryQuery, Scoring, type ScoringError } from "../../src/services/scoring.js"
import type { ScoringOutcome } from "../../src/valuation/answer.js"
import { TestDatabase } from "./database.js"

export type ScriptedAnswer =
  | { readonly _tag: "Outcome"; readonly outcome: ScoringOutcome }
  | { readonly _tag: "Failure"; readonly error: ScoringError }
  | { readonly _tag: "Defect"; readonly message: string }

export interface ScriptEntry {
  readonly answer: ScriptedAnswer
  readonly delay?: Duration.DurationInput
  /** Waited for before answering: a gate the test opens when it is ready (timing the test controls). */
  readonly gate?: Effect.Effect<void>
}

export interface FakeScoringCall {
  readonly address: string
  readonly overrides: Overrides | undefined
}

export const makeFakeScoring = (script: Record<string, ScriptEntry>, histories: Record<string, HistoryAnswer> = {}) =>
  Effect.gen(function*() {
    const calls = yield* Ref.make<ReadonlyArray<FakeScoringCall>>([])
    const answer = (entry: ScriptEntry | undefined): Effect.Effect<ScoringOutcome, ScoringError> => {
      const result: Effect.Effect<ScoringOutcome, ScoringError> = entry === undefined
        ? Effect.fail(new UnscorableAddress({ detail: "Not in the fake's script." }))
        : entry.answer._tag === "Outcome"
        ? Effect.succeed(entry.answer.outcome)
        : entry.answer._tag === "Failure"
        ? Effect.fail(entry.answer.error)
        : Effect.die(new Error(entry.answer.message))
      const delayed = entry?.delay === undefined ? result : Effect.zipRight(Effect.sleep(entry.delay), result)
      return entry?.gate === undefined ? delayed : Effect.zipRight(entry.gate, delayed)
    }
    const service = Scoring.of({
      coverage: Effect.succeed("Demo County (synthetic) (ZZ), records through 2026-10-30"),
      score: (address, overrides) =>
        Effect.zipRight(Ref.update(calls, (all) => [...all, { address, overrides }]), answer(script[address])),
      history: (query: HistoryQuery): Effect.Effect<HistoryAnswer, HistoryError> => {
        const key = "address" in query ? query.address : query.propertyId
        const found = histories[key]
        return found
          ? Effect.succeed(found)
          : Effect.fail(new UnknownProperty({ detail: `No property ${key} in the fake's script.` }))
      }
    })
    return { service, calls: Ref.get(calls) }
  })

export const fakeScoringLayer = (script: Record<string, ScriptEntry>, histories: Record<string, HistoryAnswer> = {}) =>
  Layer.effect(Scoring, Effect.map(makeFakeScoring(script, histories), ({ service }) => service))

/** The real SQL-backed services (accounts, credentials, Ledger, idempotency) on the test database, scoring scripted. */
export const sqlServicesWithFakeScoring = (
  script: Record<string, ScriptEntry>,
  histories: Record<string, HistoryAnswer> = {},
  database: typeof TestDatabase = TestDatabase
) =>
  Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, JointStepsPg, RateLimitsMemory).pipe(
    Layer.provideMerge(database),
    Layer.merge(fakeScoringLayer(script, histories))
  )
