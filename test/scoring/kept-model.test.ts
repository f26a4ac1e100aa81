import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Deferred, Effect, Either, Layer, Logger, Option, Ref, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { deserialize, serialize } from "node:v8"
import { KeptModelsFiles } from "../../layers/kept-models/files.js"
import { keptModelsMemory, type KeptModelsMemoryState } from "../../layers/kept-models/memory.js"
import { ScoringLocal, ScoringLocalServing } from "../../layers/scoring/local.js"
import { FAULT_DRILL_SOURCE, generateDemoCounty } from "../../src/property/demo-county.js"
import {
  AddressIndex,
  type AddressIndexData,
  type AddressMatch,
  parcelDisplayAddress
} from "../../src/scoring/address-index.js"
import { fitStackData, type KeptComps, ScoringEngine } from "../../src/scoring/engine.js"
import {
  fitCompsOnWorker,
  fitLearnersOnThread,
  type FittedLearners,
  LearnerFitting
} from "../../src/scoring/learner-thread.js"
import { type KeptEngineModels, KeptModels } from "../../src/services/kept-models.js"
import { type PropertyData, PropertyStore } from "../../src/services/property-store.js"
import { Scoring } from "../../src/services/scoring.js"
import { dataStore } from "../harness/demo-county.js"

const county = generateDemoCounty({ parcels: 3_000 })
const data: PropertyData = { parcels: county.parcels, sales: county.sales }
const asOf = "2026-11-01"
const fitted = ScoringEngine.build(data, { learners: "later" })
/** As a restart reads it: through the serialization the kept file uses. */
const kept = deserialize(serialize(fitted.keptComps())) as KeptComps

/** Every outcome (value, distribution, comps, match) of every 20th parcel, as of one date. */
const outcomes = (engine: ScoringEngine) =>
  county.parcels.filter((_, i) => i % 20 === 0).map((parcel) =>
    Either.match(engine.score(parcelDisplayAddress(parcel), undefined, asOf), {
      onLeft: (error) => ({ failed: error._tag }),
      onRight: (outcome) => outcome
    })
  )

describe("a kept comps model", () => {
  it("restored over the same sales, values every property exactly as the fitted one", () => {
    const restored = ScoringEngine.build(data, { learners: "later", kept })
    expect(restored.compsRestored).toBe(true)
    expect(fitted.compsRestored).toBe(false)
    const expected = outcomes(fitted)
    expect(expected.filter((outcome) => "model" in outcome).length).toBeGreaterThan(100)
    expect(outcomes(restored)).toEqual(expected)
    expect(restored.keptComps()).toEqual(kept)
  })

  it("restores its comps index and each parcel's own sales from the kept ones, or builds them where none were kept", () => {
    const restored = ScoringEngine.build(data, { learners: "later", kept })
    expect(restored.model.indexRestored).toBe(true)
    expect(kept.comps.index?.comps.sales).toBe(restored.sales.length)
    // An older build's kept model has no index: the index is built, and values the same.
    const { index: _index, ...withoutIndex } = kept.comps
    const rebuilt = ScoringEngine.build(data, { learners: "later", kept: { ...kept, comps: withoutIndex } })
    expect([rebuilt.compsRestored, rebuilt.model.indexRestored]).toEqual([true, false])
    expect(outcomes(rebuilt)).toEqual(outcomes(restored))
    expect(rebuilt.keptComps()).toEqual(kept)
  })

  it(
    "fitted on a worker thread (a first start fits it there), is restored: it values as the one fitted here",
    async () => {
      const onWorker = await fitCompsOnWorker(fitted.sales).result
      expect(onWorker.salesDigest).toBe(kept.salesDigest)
      const restored = ScoringEngine.build(data, { learners: "later", kept: onWorker })
      expect(restored.compsRestored).toBe(true)
      expect(outcomes(restored)).toEqual(outcomes(fitted))
    },
    120_000
  )

  it("is not used once the data changed (one sale's price): the model is fitted on the new data", () => {
    const changedSale = data.sales.findIndex((sale) => sale.armsLength && sale.price > 0)
    const changed: PropertyData = {
      ...data,
      sales: data.sales.map((sale, i) => (i === changedSale ? { ...sale, price: sale.price + 1_000 } : sale))
    }
    const engine = ScoringEngine.build(changed, { learners: "later", kept })
    expect(engine.compsRestored).toBe(false)
    expect(engine.keptComps().salesDigest).not.toBe(kept.salesDigest)
    expect(outcomes(engine)).toEqual(outcomes(ScoringEngine.build(changed, { learners: "later" })))
  })

  it("is restored on the digest kept with the data, without computing it again; a kept digest that is not the model's is not", () => {
    const withDigest = ScoringEngine.build(data, { learners: "later", kept, salesDigest: kept.salesDigest })
    expect(withDigest.compsRestored).toBe(true)
    expect(outcomes(withDigest)).toEqual(outcomes(fitted))
    const otherDigest = ScoringEngine.build(data, { learners: "later", kept, salesDigest: "0".repeat(64) })
    expect(otherDigest.compsRestored).toBe(false)
    // Only for every sale: on the sales before a date the digest is computed (and differs).
    const earlier = ScoringEngine.build(data, {
      learners: "later",
      kept,
      salesDigest: kept.salesDigest,
      salesBefore: "2026-01-01"
    })
    expect(earlier.compsRestored).toBe(false)
  })

  it("is not used by an engine built with other model options, nor on the sales before a date", () => {
    const otherOptions = ScoringEngine.build(data, { learners: "later", kept, model: { resaleMonths: 0 } })
    expect(otherOptions.compsRestored).toBe(false)
    const earlier = ScoringEngine.build(data, { learners: "later", kept, salesBefore: "2026-01-01" })
    expect(earlier.compsRestored).toBe(false)
  })
})

describe("a kept address index", () => {
  // As a restart reads the kept data: the parcels and their index in one structured clone.
  const keptData = deserialize(serialize({ version: "v1", ...data, addressIndex: fitted.index.toData() })) as
    & PropertyData
    & { readonly addressIndex: AddressIndexData }
  const restored = ScoringEngine.build(keptData, { learners: "later", kept, addressIndex: keptData.addressIndex })

  it("is restored, not built, and refers to the kept parcel records themselves", () => {
    expect(restored.index.toData().byName).toBe(keptData.addressIndex.byName)
    const records = new Set(keptData.parcels)
    for (const parcel of restored.index.toData().parcels.keys()) expect(records.has(parcel)).toBe(true)
  })

  it("matches every address, typed any way, and values every property exactly as the index built again", () => {
    expect(outcomes(restored)).toEqual(outcomes(fitted))
    const built = new AddressIndex(keptData.parcels)
    const typed = county.parcels.filter((_, i) => i % 7 === 0).flatMap((parcel) => {
      const address = parcelDisplayAddress(parcel)
      return [address, address.toLowerCase().replace(/,/g, ""), parcel.street, `${parcel.street} ${parcel.zipCode}`]
    })
    const reading = (match: AddressMatch) => match._tag === "Found" ? { ...match, parcel: match.parcel.id } : match
    for (const address of typed) {
      expect(reading(restored.index.match(address)), address).toEqual(reading(built.match(address)))
    }
  })
})

describe("the server's Scoring layer with kept models", () => {
  const addresses = county.parcels.filter((parcel, i) => i % 100 === 0 && parcel.source !== FAULT_DRILL_SOURCE)
    .map(parcelDisplayAddress)
  /** What the layer answers for a few addresses. */
  const answers = Effect.flatMap(
    Scoring,
    (scoring) => Effect.forEach(addresses, (address) => Effect.either(scoring.score(address, undefined)))
  )
  // The clock is set before any layer starts: its periodic reload is scheduled from then on.
  const today = TestClock.setTime(Date.parse(`${asOf}T12:00:00Z`))
  const serving = (kept: Ref.Ref<KeptModelsMemoryState>, learners: "off" | "background") =>
    ScoringLocalServing.pipe(
      Layer.provide(Layer.merge(dataStore(data), keptModelsMemory(kept))),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["LEARNERS", learners]]))))
    )

  it.scoped(
    "ANS-7 cautions: served on the comps model while a worker fits the learners, every answer says so (pricing-model-incomplete); once they are joined in, or their fit failed, none does (an investor audit, 2026-11-29)",
    () =>
      Effect.gen(function*() {
        yield* today
        // A county large enough for a learner (this file's 3,000 parcels are not: their answers are the comps
        // model's however long one waits, and say nothing); fitted on a worker thread, as the server does.
        const larger = generateDemoCounty({ parcels: 20_000 })
        const largerData: PropertyData = { parcels: larger.parcels, sales: larger.sales }
        const engine = ScoringEngine.build(largerData, { learners: "later" })
        expect(engine.learnerExpected(larger.parcels[0]!.market)).toBe(true)
        expect(fitted.learnerExpected(county.parcels[0]!.market)).toBe(false)
        const learnersOf = yield* fitLearnersOnThread(engine.sales)
        const sampled = larger.parcels.filter((parcel, i) => i % 400 === 0 && parcel.source !== FAULT_DRILL_SOURCE)
          .map(parcelDisplayAddress)
        const servingWith = (fit: Effect.Effect<FittedLearners, Error>) =>
          ScoringLocalServing.pipe(
            Layer.provide(
              Layer.mergeAll(
                dataStore(largerData),
                keptModelsMemory(Ref.unsafeMake<KeptModelsMemoryState>({ kept: Option.none(), keeps: 0 })),
                Layer.succeed(LearnerFitting, { fit: () => fit })
              )
            ),
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["LEARNERS", "background"]]))))
          )
        // The answers among them (a few of these properties lack a fact the valuation needs).
        const scoreEach = Effect.flatMap(
          Scoring,
          (scoring) =>
            Effect.map(
              Effect.forEach(sampled, (address) => Effect.either(scoring.score(address, undefined))),
              (results) => results.flatMap((result) => Either.isRight(result) ? [result.right] : [])
            )
        )
        // Scored again until the fit's fiber has joined them in (or given up): it runs as soon as this one yields.
        const afterFit = scoreEach.pipe(
          Effect.zipLeft(Effect.yieldNow()),
          Effect.repeat({ until: (outcomes) => outcomes.every((outcome) => outcome.learnersPending !== true) })
        )
        for (const ending of ["joined", "failed"] as const) {
          const release = yield* Deferred.make<FittedLearners, Error>()
          const context = yield* Layer.build(servingWith(Deferred.await(release)))
          const before = yield* Effect.provide(scoreEach, context)
          expect(before.length).toBeGreaterThan(20)
          expect(before.map((outcome) => outcome.learnersPending)).toEqual(before.map(() => true))
          // Each answer's caution, as the answer is built.
          expect(before.every((outcome) => outcome.model.parts?.learner === undefined)).toBe(true)
          yield* ending === "joined"
            ? Deferred.succeed(release, { data: learnersOf, fittedBy: "this test" })
            : Deferred.fail(release, new Error("the worker thread stopped"))
          const after = yield* Effect.provide(afterFit, context)
          expect({ ending, learners: after.every((outcome) => outcome.model.parts?.learner !== undefined) })
            .toEqual({ ending, learners: ending === "joined" })
        }
      }),
    { timeout: 300_000 }
  )

  it.scoped("a first start keeps the comps model it fitted; a restart over the same data restores it", () =>
    Effect.gen(function*() {
      yield* today
      const kept = yield* Ref.make<KeptModelsMemoryState>({ kept: Option.none(), keeps: 0 })
      const first = yield* answers.pipe(Effect.provide(serving(kept, "off")))
      const afterFirst = yield* Ref.get(kept)
      expect(afterFirst.keeps).toBe(1)
      expect(Option.getOrThrow(afterFirst.kept).comps).toEqual(fitted.keptComps())
      // The address index is kept with the data it indexes, and the restart restores it.
      const keptIndex = Option.getOrThrow(afterFirst.kept).data?.addressIndex
      expect(keptIndex?.parcels.size).toBe(fitted.index.toData().parcels.size)
      // The restart keeps nothing new: it fitted nothing.
      const restarted = yield* answers.pipe(Effect.provide(serving(kept, "off")))
      expect((yield* Ref.get(kept)).keeps).toBe(1)
      expect(restarted).toEqual(first)
    }))

  it.scoped(
    "the command line's layer keeps the learners it fitted with the comps model; a second run restores every model",
    () =>
      Effect.gen(function*() {
        yield* today
        const kept = yield* Ref.make<KeptModelsMemoryState>({ kept: Option.none(), keeps: 0 })
        const logged: Array<string> = []
        const run = answers.pipe(
          Effect.provide(ScoringLocal.pipe(Layer.provide(Layer.merge(dataStore(data), keptModelsMemory(kept))))),
          Effect.provide(
            Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message))))
          )
        )
        const first = yield* run
        const afterFirst = Option.getOrThrow((yield* Ref.get(kept)).kept)
        expect((yield* Ref.get(kept)).keeps).toBe(1)
        // (This county's markets are too small for learners of their own: what is kept is the stack's data.)
        expect(afterFirst.learners).toBeDefined()
        expect(logged.join("\n")).toMatch(/with its learners, fitted by a worker thread/)
        // Learners fitted again would be kept again: the second run keeps nothing, and answers the same.
        logged.length = 0
        expect(yield* run).toEqual(first)
        expect((yield* Ref.get(kept)).keeps).toBe(1)
        expect(logged.join("\n")).toMatch(
          /the comps model restored from the kept one with its index \(with the kept learners\)/
        )
      }),
    { timeout: 300_000 }
  )

  it.scoped("a restart reads the data it kept while the store's version is the one it was read at", () =>
    Effect.gen(function*() {
      yield* today
      const version = yield* Ref.make("v1")
      const loads = yield* Ref.make(0)
      const store = Layer.succeed(
        PropertyStore,
        PropertyStore.of({
          importParsed: () => Effect.die("not used"),
          loadAll: Effect.as(Ref.update(loads, (n) => n + 1), data),
          history: () => Effect.succeed(undefined),
          parcelCount: Effect.succeed(data.parcels.length),
          version: Ref.get(version)
        })
      )
      const kept = yield* Ref.make<KeptModelsMemoryState>({ kept: Option.none(), keeps: 0 })
      const logged: Array<string> = []
      const start = answers.pipe(
        Effect.provide(ScoringLocalServing.pipe(
          Layer.provide(Layer.merge(store, keptModelsMemory(kept))),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["LEARNERS", "off"]]))))
        )),
        Effect.provide(Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => logged.push(String(message)))))
      )
      const first = yield* start
      expect([yield* Ref.get(loads), (yield* Ref.get(kept)).keeps]).toEqual([1, 1])
      // With the digest of its sales and its address index, for the restart not to compute them again.
      const { addressIndex, ...keptData } = Option.getOrThrow((yield* Ref.get(kept)).kept).data!
      expect(keptData).toEqual({ version: "v1", ...data, salesDigest: fitted.keptComps().salesDigest })
      expect(addressIndex?.parcels.size).toBe(fitted.index.toData().parcels.size)
      // Same version: the kept data and its address index, nothing read from the store, nothing kept anew.
      logged.length = 0
      expect(yield* start).toEqual(first)
      expect(logged.join("\n")).toMatch(/read from the kept data with its address index/)
      expect([yield* Ref.get(loads), (yield* Ref.get(kept)).keeps]).toEqual([1, 1])
      // Another version: the store is read (the comps model, fitted on the same sales, is still restored).
      yield* Ref.set(version, "v2")
      expect(yield* start).toEqual(first)
      expect([yield* Ref.get(loads), (yield* Ref.get(kept)).keeps]).toEqual([2, 2])
      expect(Option.getOrThrow((yield* Ref.get(kept)).kept).data?.version).toBe("v2")
    }))

  it.scoped("a kept model of other data is not used: the model is fitted and kept in its place", () =>
    Effect.gen(function*() {
      yield* today
      const other = ScoringEngine.build(
        { parcels: data.parcels, sales: data.sales.slice(0, 1_000) },
        { learners: "later" }
      )
      const kept = yield* Ref.make<KeptModelsMemoryState>({
        kept: Option.some({ comps: other.keptComps() }),
        keeps: 0
      })
      const restarted = yield* answers.pipe(Effect.provide(serving(kept, "off")))
      const now = yield* Ref.get(kept)
      expect(now.keeps).toBe(1)
      expect(Option.getOrThrow(now.kept).comps).toEqual(fitted.keptComps())
      const fresh = yield* Ref.make<KeptModelsMemoryState>({ kept: Option.none(), keeps: 0 })
      expect(restarted).toEqual(yield* answers.pipe(Effect.provide(serving(fresh, "off"))))
    }))

  it.scoped(
    "kept learners are joined at once: the first answers are those of the engine with every model fitted",
    () =>
      Effect.gen(function*() {
        yield* today
        // The county every first start loads: its last months hold enough sales for the learners to count.
        const full = generateDemoCounty()
        const fullData: PropertyData = { parcels: full.parcels, sales: full.sales }
        const engine = ScoringEngine.build(fullData, { learners: "later" })
        // On a worker thread, as the server fits them: fitted here they would hold this test's thread for a minute
        // on a slow machine, past vitest's fixed 60 s limit for its worker's messages to the runner.
        const models: KeptEngineModels = {
          comps: engine.keptComps(),
          learners: yield* fitLearnersOnThread(engine.sales)
        }
        const answersOn = <E>(layer: Layer.Layer<Scoring, E>) =>
          Effect.flatMap(
            Scoring,
            (scoring) =>
              Effect.forEach(
                full.parcels.filter((parcel, i) => i % 500 === 0 && parcel.source !== FAULT_DRILL_SOURCE),
                (parcel) => Effect.either(scoring.score(parcelDisplayAddress(parcel), undefined))
              )
          ).pipe(Effect.provide(layer))
        const servingOn = (kept: Ref.Ref<KeptModelsMemoryState>, learners: "off" | "background") =>
          ScoringLocalServing.pipe(
            Layer.provide(Layer.merge(dataStore(fullData), keptModelsMemory(kept))),
            Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["LEARNERS", learners]]))))
          )
        const kept = yield* Ref.make<KeptModelsMemoryState>({ kept: Option.some(models), keeps: 0 })
        const restarted = yield* answersOn(servingOn(kept, "background"))
        // The engine fitted anew over the same data, the same learners joined before it serves (that a worker's
        // learners value as ones fitted in place is test/scoring/learner-thread.test.ts's).
        const sameLearners = Layer.succeed(LearnerFitting, {
          fit: () => Effect.succeed({ data: models.learners!, fittedBy: "this test" })
        })
        expect(restarted).toEqual(
          yield* answersOn(ScoringLocal.pipe(Layer.provide(Layer.merge(dataStore(fullData), sameLearners))))
        )
        // Kept again, with the data they were fitted on: the same models, nothing fitted anew.
        const keptNow = Option.getOrThrow((yield* Ref.get(kept)).kept)
        expect(keptNow.comps).toEqual(models.comps)
        expect(keptNow.learners).toBe(models.learners)
        // The learners count: the comps model alone answers otherwise.
        expect(restarted).not.toEqual(yield* answersOn(servingOn(kept, "off")))
      }),
    { timeout: 300_000 }
  )
})

describe("kept models in files", () => {
  const models: KeptEngineModels = { comps: fitted.keptComps() }
  const withFolder = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "kept-"))),
      use,
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
  const read = (dir: string, code: string) =>
    Effect.flatMap(KeptModels, (kept) => kept.read).pipe(Effect.provide(KeptModelsFiles(dir, code)))
  const keep = (dir: string, code: string, kept: KeptEngineModels) =>
    Effect.flatMap(KeptModels, (files) => files.keep(kept)).pipe(Effect.provide(KeptModelsFiles(dir, code)))

  it.effect("are read back by the same code exactly as they were kept (maps, typed arrays, every number)", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        expect(yield* read(dir, "code-1")).toEqual(Option.none())
        yield* keep(path.join(dir, "kept"), "code-1", models)
        expect(Option.getOrThrow(yield* read(path.join(dir, "kept"), "code-1"))).toEqual(models)
      })
    ))

  it.effect("keep the data they were fitted on until other data is kept (the learners are kept without it)", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        const keptData = { version: "v1", ...data }
        yield* keep(dir, "code-1", { ...models, data: keptData })
        const learners = fitStackData(fitted.sales.slice(0, 2_000))
        yield* keep(dir, "code-1", { ...models, learners })
        expect(Option.getOrThrow(yield* read(dir, "code-1"))).toEqual({ ...models, learners, data: keptData })
      })
    ))

  it.effect("are not read by other code (another build), nor when the file is damaged", () =>
    withFolder((dir) =>
      Effect.gen(function*() {
        yield* keep(dir, "code-1", models)
        expect(yield* read(dir, "code-2")).toEqual(Option.none())
        for (const file of fs.readdirSync(dir)) {
          fs.writeFileSync(path.join(dir, file), fs.readFileSync(path.join(dir, file)).subarray(0, 100))
        }
        expect(yield* read(dir, "code-1")).toEqual(Option.none())
      })
    ))
})
