/**
 * The Scoring service on the local engine over the imported property data. The engine is built when the
 * layer starts and rebuilt in the background when the store's data changes (an import while serving). Its
 * deadline and what a crash means are the operations' (`src/operations/upstream.ts`).
 *
 * `ScoringLocal` fits everything before it serves (the CLI, the tests). `ScoringLocalServing` (the server)
 * serves on the comps model as soon as it is fitted and fits the stack's learners on a worker thread, joining
 * them in when they are ready (logged): the port answers in seconds, and no request waits on a fit. The
 * workers of `serve --workers N` share one fit (`LearnerFitting`).
 *
 * Where `KeptModels` is provided (the server), the fitted models are kept, and a start over the same sales
 * restores them instead of fitting them again: the comps model before the port answers, the learners at once.
 */
import { Clock, Config, Duration, Effect, Layer, Option, Schedule, SynchronizedRef } from "effect"
import { UpstreamUnavailable } from "../../schema/problems.js"
import { FAULT_DRILL_SOURCE } from "../../src/property/demo-county.js"
import { ScoringEngine } from "../../src/scoring/engine.js"
import { LearnerFitting } from "../../src/scoring/learner-thread.js"
import { KeptModels } from "../../src/services/kept-models.js"
import { PropertyStore } from "../../src/services/property-store.js"
import { Scoring } from "../../src/services/scoring.js"
import { propertyHistory } from "../../src/valuation/history.js"

export const RELOAD_CHECK_INTERVAL = Duration.seconds(30)

const isoDay = (millis: number) => new Date(millis).toISOString().slice(0, 10)

interface Built {
  readonly engine: ScoringEngine
  readonly version: string
  /** The learners are in (kept ones), and no worker fits them. */
  readonly learnersJoined: boolean
}

/**
 * The learners for `built` (`LearnerFitting`: a worker thread's, or one fit shared by the workers), joined in
 * if the data has not changed meanwhile (and kept with the comps model, where models are kept).
 */
const fitLearnersInBackground = (
  current: SynchronizedRef.SynchronizedRef<Built>,
  built: Built,
  kept: Option.Option<KeptModels["Type"]>
) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const fitting = yield* LearnerFitting
    const { data, fittedBy } = yield* fitting.fit(built.version, built.engine.sales)
    const joined = yield* SynchronizedRef.modify(
      current,
      (state) =>
        state.engine === built.engine
          ? [true, { ...state, engine: state.engine.withStack(data) }] as const
          : [false, state] as const
    )
    if (!joined) return
    // Kept with the comps model; the data they were both fitted on was kept with it.
    if (Option.isSome(kept)) yield* kept.value.keep({ comps: built.engine.keptComps(), learners: data })
    const took = (yield* Clock.currentTimeMillis) - started
    yield* Effect.logInfo(
      `scoring engine: learners fitted by ${fittedBy} and joined in after ${took} ms` +
        (Option.isSome(kept) ? " (and kept)" : "")
    )
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.logWarning("scoring engine: the learners could not be fitted; the comps model serves alone", cause)
    )
  )

/**
 * `LEARNERS` for the server: `background` (the default) fits them on a worker thread; `off` serves on the
 * comps model alone (a machine that cannot spare the thread, or tests of something else than the value).
 */
const learnersSetting = Config.literal("background", "off")("LEARNERS").pipe(Config.withDefault("background"))

const scoringLocal = (requested: "fit" | "background") =>
  Layer.scoped(
    Scoring,
    Effect.gen(function*() {
      const learners = requested === "fit" ? "fit" : yield* learnersSetting
      const store = yield* PropertyStore
      const kept = yield* Effect.serviceOption(KeptModels)
      const build = Effect.gen(function*() {
        // Read before the data: a change in between makes the next look rebuild, never the reverse.
        const version = yield* store.version
        const keptModels = Option.isSome(kept) ? Option.getOrUndefined(yield* kept.value.read) : undefined
        const keptData = keptModels?.data?.version === version ? keptModels.data : undefined
        const data = keptData ?? (yield* store.loadAll)
        const started = yield* Clock.currentTimeMillis
        const built = ScoringEngine.build(data, {
          learners: learners === "fit" ? "fit" : "later",
          kept: keptModels?.comps
        })
        // Kept learners belong to the kept comps model: joined only when it was the one restored.
        const keptLearners = built.compsRestored && learners === "background" ? keptModels?.learners : undefined
        const engine = keptLearners === undefined ? built : built.withStack(keptLearners)
        const took = (yield* Clock.currentTimeMillis) - started
        yield* Effect.logInfo(
          `scoring engine built over ${data.parcels.length} parcels and ${data.sales.length} sales in ${took} ms` +
            (keptData !== undefined ? ", read from the kept data" : "") +
            (engine.compsRestored ? ", the comps model restored from the kept one" : "") +
            (learners === "fit"
              ? ""
              : learners === "off"
              ? " (comps model alone: LEARNERS=off)"
              : keptLearners !== undefined
              ? " (with the kept learners)"
              : " (comps model; the learners follow from a worker thread)")
        )
        if (Option.isSome(kept) && (!engine.compsRestored || keptData === undefined)) {
          // What was restored is kept again with the data it is now known to fit (learners included).
          yield* kept.value.keep({
            comps: engine.keptComps(),
            learners: engine.compsRestored ? keptModels?.learners : undefined,
            data: { version, parcels: data.parcels, sales: data.sales }
          })
        }
        return { engine, version, learnersJoined: keptLearners !== undefined } satisfies Built
      })
      const current = yield* SynchronizedRef.make<Built>(yield* build)
      const withLearners = (built: Built) =>
        learners === "background" && !built.learnersJoined
          ? Effect.forkScoped(fitLearnersInBackground(current, built, kept))
          : Effect.void
      yield* withLearners(yield* SynchronizedRef.get(current))
      yield* SynchronizedRef.updateEffect(
        current,
        (state) =>
          Effect.flatMap(store.version, (version) =>
            version === state.version
              ? Effect.succeed(state)
              : Effect.tap(build, (built) => withLearners(built)))
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

/** Fits everything, learners included, before it serves (the CLI, the tests). */
export const ScoringLocal = scoringLocal("fit")

/** Serves on the comps model at once; the learners are fitted on a worker thread and joined in (the server). */
export const ScoringLocalServing = scoringLocal("background")
