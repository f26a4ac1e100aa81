/**
 * The Scoring service on the local engine over the imported property data. The engine is built when the
 * layer starts and rebuilt in the background when the store's data changes (an import while serving). Its
 * deadline and what a crash means are the operations' (`src/operations/upstream.ts`).
 */
import { Clock, Duration, Effect, Layer, Schedule, SynchronizedRef } from "effect"
import { UpstreamUnavailable } from "../../schema/problems.js"
import { FAULT_DRILL_SOURCE } from "../../src/property/demo-county.js"
import { ScoringEngine } from "../../src/scoring/engine.js"
import { PropertyStore } from "../../src/services/property-store.js"
import { Scoring } from "../../src/services/scoring.js"
import { propertyHistory } from "../../src/valuation/history.js"

export const RELOAD_CHECK_INTERVAL = Duration.seconds(30)

const isoDay = (millis: number) => new Date(millis).toISOString().slice(0, 10)

export const ScoringLocal = Layer.scoped(
  Scoring,
  Effect.gen(function*() {
    const store = yield* PropertyStore
    const build = Effect.gen(function*() {
      const data = yield* store.loadAll
      const started = yield* Clock.currentTimeMillis
      const engine = ScoringEngine.build(data)
      const took = (yield* Clock.currentTimeMillis) - started
      yield* Effect.logInfo(
        `scoring engine built over ${data.parcels.length} parcels and ${data.sales.length} sales in ${took} ms`
      )
      return { engine, version: yield* store.version }
    })
    const current = yield* SynchronizedRef.make(yield* build)
    yield* SynchronizedRef.updateEffect(
      current,
      (state) => Effect.flatMap(store.version, (version) => (version === state.version ? Effect.succeed(state) : build))
    ).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("scoring engine reload failed", cause)),
      Effect.repeat(Schedule.spaced(RELOAD_CHECK_INTERVAL)),
      Effect.forkScoped
    )
    const engine = Effect.map(SynchronizedRef.get(current), (state) => state.engine)

    return Scoring.of({
      score: (address, overrides) =>
        Effect.gen(function*() {
          const scoring = yield* engine
          const located = yield* scoring.locate(address)
          if (located.parcel.source === FAULT_DRILL_SOURCE) {
            // The demo county's fault drill: a failing and a stalled scoring step (docs/demo-county.md).
            if (located.parcel.id === "demo-fault-timeout") yield* Effect.never
            return yield* Effect.die(new Error("fault drill: scoring failed on purpose"))
          }
          const today = isoDay(yield* Clock.currentTimeMillis)
          return yield* scoring.valueForCall(located, overrides, today)
        }),
      history: (query) =>
        Effect.gen(function*() {
          const scoring = yield* engine
          const { match, parcel } = "address" in query
            ? yield* scoring.locate(query.address)
            : { parcel: yield* scoring.parcelById(query.propertyId), match: undefined }
          const records = yield* store.history(parcel.id).pipe(
            Effect.mapError(() => new UpstreamUnavailable({ detail: "The property's records could not be read." }))
          )
          if (!records) return yield* Effect.die(new Error(`parcel ${parcel.id} vanished from the store`))
          return { ...propertyHistory(records), ...(match === undefined ? {} : { match }) }
        })
    })
  })
)
