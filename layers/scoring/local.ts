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
 * Where `KeptModels` is provided (the server, the CLI's `score`), the fitted models are kept, and a start over
 * the same sales restores them instead of fitting them again: the comps model before the port answers, the
 * learners at once.
 * Where an `EngineHeadStart` is provided (a worker of `serve --workers N`, which builds one from the kept
 * models and data while its primary prepares the start), it is the engine, if the store's version is still
 * the one its data was read at; else the engine is built as usual.
 */
import { Clock, Config, Context, Duration, Effect, Layer, Option, Ref, Schedule, SynchronizedRef } from "effect"
import { UpstreamTimeout, UpstreamUnavailable } from "../../schema/problems.js"
import { FAULT_DRILL_SOURCE } from "../../src/property/demo-county.js"
import type { AddressIndexData } from "../../src/scoring/address-index.js"
import { ScoringEngine } from "../../src/scoring/engine.js"
import { LearnerFitting } from "../../src/scoring/learner-thread.js"
import { type KeptEngineModels, KeptModels } from "../../src/services/kept-models.js"
import { PropertyStore } from "../../src/services/property-store.js"
import { Scoring } from "../../src/services/scoring.js"
import { propertyHistory } from "../../src/valuation/history.js"

export const RELOAD_CHECK_INTERVAL = Duration.seconds(30)

const isoDay = (millis: number) => new Date(millis).toISOString().slice(0, 10)

interface Built {
  readonly engine: ScoringEngine
  readonly version: string
  /** The learners are in (kept ones, or fitted before it served), and no worker fits them. */
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

/** An engine, and the kept learners it was joined with, if any. */
interface BuiltEngine {
  readonly engine: ScoringEngine
  readonly keptLearners: KeptEngineModels["learners"]
}

/**
 * The engine over `data`, restoring `keptModels`' comps model where it was fitted on the same sales, and
 * joining its kept learners where that one was restored and the learners are fitted in the background.
 */
const engineFrom = (
  data: Parameters<typeof ScoringEngine.build>[0] & {
    readonly salesDigest?: string | undefined
    readonly addressIndex?: AddressIndexData | undefined
  },
  keptModels: KeptEngineModels | undefined,
  learners: "fit" | "background" | "off"
): BuiltEngine => {
  // Never fitted in place: the caller joins fitted learners (`fit`: fitted on a thread before it serves).
  const built = ScoringEngine.build(data, {
    learners: "later",
    kept: keptModels?.comps,
    salesDigest: data.salesDigest,
    addressIndex: data.addressIndex
  })
  // Kept learners belong to the kept comps model: joined only when it was the one restored.
  const keptLearners = built.compsRestored && learners !== "off" ? keptModels?.learners : undefined
  return { engine: keptLearners === undefined ? built : built.withStack(keptLearners), keptLearners }
}

/**
 * An engine built before the store could be read: from the kept models and the kept data, for the version of
 * the store they were read at. `ScoringLocalServing` takes it if the store is still at that version.
 */
export class EngineHeadStart extends Context.Tag("propscore/EngineHeadStart")<EngineHeadStart, {
  readonly version: string
  readonly learners: "background" | "off"
  readonly keptModels: KeptEngineModels
  readonly built: BuiltEngine
  readonly tookMillis: number
}>() {}

/**
 * The server's engine from what is kept, if data is kept (none on a first start), for `EngineHeadStart`: a
 * worker builds it while its primary prepares the start (the build takes the thread for about half a second).
 */
export const headStartFromKept: Effect.Effect<Option.Option<EngineHeadStart["Type"]>, never, KeptModels> = Effect
  .gen(function*() {
    const learners = yield* learnersSetting
    const keptModels = Option.getOrUndefined(yield* Effect.flatMap(KeptModels, (kept) => kept.read))
    const data = keptModels?.data
    if (keptModels === undefined || data === undefined) return Option.none()
    const started = yield* Clock.currentTimeMillis
    const built = engineFrom(data, keptModels, learners)
    const tookMillis = (yield* Clock.currentTimeMillis) - started
    return Option.some({ version: data.version, learners, keptModels, built, tookMillis })
  }).pipe(
    // It costs a build, never a start.
    Effect.catchAllCause((cause) =>
      Effect.as(Effect.logWarning("scoring engine: no head start from the kept models", cause), Option.none())
    )
  )

const scoringLocal = (requested: "fit" | "background") =>
  Layer.scoped(
    Scoring,
    Effect.gen(function*() {
      const learners = requested === "fit" ? "fit" : yield* learnersSetting
      const store = yield* PropertyStore
      const kept = yield* Effect.serviceOption(KeptModels)
      // Taken by the first build only, and only for the version its data was read at.
      let headStart = Option.filter(
        yield* Effect.serviceOption(EngineHeadStart),
        (early) => early.learners === learners
      )
      const build = Effect.gen(function*() {
        // Read before the data: a change in between makes the next look rebuild, never the reverse.
        const version = yield* store.version
        const early = Option.getOrUndefined(headStart)
        headStart = Option.none()
        const ahead = early?.version === version ? early : undefined
        const keptModels = ahead !== undefined
          ? ahead.keptModels
          : Option.isSome(kept)
          ? Option.getOrUndefined(yield* kept.value.read)
          : undefined
        const keptData = keptModels?.data?.version === version ? keptModels.data : undefined
        const data = keptData ?? (yield* store.loadAll)
        const started = yield* Clock.currentTimeMillis
        const built = ahead?.built ?? engineFrom(data, keptModels, learners)
        const { keptLearners } = built
        // `fit`: the learners too before it serves (unless kept ones were joined), on a thread
        // (`LearnerFitting`), so that this one never stops for the minute a large market's learners take.
        const fitted = learners === "fit" && keptLearners === undefined
          ? yield* Effect.orDie(Effect.flatMap(LearnerFitting, (fitting) => fitting.fit(version, built.engine.sales)))
          : undefined
        const engine = fitted === undefined ? built.engine : built.engine.withStack(fitted.data)
        const took = ahead?.tookMillis ?? (yield* Clock.currentTimeMillis) - started
        yield* Effect.logInfo(
          `scoring engine built over ${data.parcels.length} parcels and ${data.sales.length} sales in ${took} ms` +
            (ahead !== undefined ? " while the start was prepared" : "") +
            (keptData !== undefined ? ", read from the kept data" : "") +
            (engine.addressIndexRestored ? " with its address index" : "") +
            (engine.compsRestored
              ? `, the comps model restored from the kept one${engine.model.indexRestored ? " with its index" : ""}`
              : "") +
            (fitted !== undefined
              ? ` with its learners, fitted by ${fitted.fittedBy}`
              : keptLearners !== undefined
              ? " (with the kept learners)"
              : learners === "off"
              ? " (comps model alone: LEARNERS=off)"
              : " (comps model; the learners follow from a worker thread)")
        )
        if (Option.isSome(kept)) {
          const comps = engine.keptComps()
          // Learners fitted here belong to this comps model; kept ones to the restored one.
          const learnersOf = fitted?.data ?? (engine.compsRestored ? keptModels?.learners : undefined)
          if (!engine.compsRestored || keptData === undefined) {
            // What was restored is kept again with the data it is now known to fit (learners included).
            yield* kept.value.keep({
              comps,
              learners: learnersOf,
              data: {
                version,
                parcels: data.parcels,
                sales: data.sales,
                salesDigest: comps.salesDigest,
                addressIndex: engine.index.toData()
              }
            })
          } else if (fitted !== undefined) {
            yield* kept.value.keep({ comps, learners: fitted.data })
          }
        }
        return {
          engine,
          version,
          learnersJoined: keptLearners !== undefined || fitted !== undefined
        } satisfies Built
      })
      const current = yield* SynchronizedRef.make<Built>(yield* build)
      // The engine whose learners a worker is fitting, until they are joined in or the fit fails.
      const fitting = yield* Ref.make<ScoringEngine | undefined>(undefined)
      const withLearners = (built: Built) =>
        learners === "background" && !built.learnersJoined
          ? Effect.zipRight(
            Ref.set(fitting, built.engine),
            Effect.forkScoped(
              fitLearnersInBackground(current, built, kept).pipe(
                Effect.ensuring(Ref.update(fitting, (engine) => engine === built.engine ? undefined : engine))
              )
            )
          )
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
      // Serving on the comps model alone while a worker fits the learners: the answers of a market that will have
      // one say so (`pricing-model-incomplete`); with LEARNERS=off, or once a fit failed, the comps model is all
      // there is.
      const learnersPending = (engine: ScoringEngine, market: string) =>
        Effect.map(Ref.get(fitting), (fitted) => fitted === engine && engine.learnerExpected(market))

      return Scoring.of({
        coverage: Effect.map(engine, (scoring) => scoring.coveredMarkets() || undefined),
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
            const outcome = yield* scoring.valueForCall(located, overrides, today)
            return (yield* learnersPending(scoring, located.parcel.market))
              ? { ...outcome, learnersPending: true }
              : outcome
          }),
        history: (query) =>
          Effect.gen(function*() {
            const scoring = yield* engine
            const { match, parcel } = "address" in query
              ? yield* scoring.locate(query.address)
              : { parcel: yield* scoring.parcelById(query.propertyId), match: undefined }
            // A database that did not answer in time is a timeout (504), one that failed the read a failure (502).
            const records = yield* store.history(parcel.id).pipe(
              Effect.mapError((error) =>
                error.timedOut === true
                  ? new UpstreamTimeout({
                    detail: "The property's records were not read in time; the Credit is refunded. Retry it."
                  })
                  : new UpstreamUnavailable({
                    detail: "The property's records could not be read; the Credit is refunded. Retry it."
                  })
              )
            )
            if (!records) return yield* Effect.die(new Error(`parcel ${parcel.id} vanished from the store`))
            return {
              ...propertyHistory(
                records,
                scoring.dataThrough(parcel.market),
                (sale) => scoring.isMarketSale(records.parcel, sale),
                scoring.recordsFrom(parcel.market)
              ),
              ...(match === undefined ? {} : { match })
            }
          })
      })
    })
  )

/**
 * Serves with every model from the start, learners included: restored where kept (`KeptModels`), else fitted
 * before it serves, the learners on a thread (the CLI, the tests).
 */
export const ScoringLocal = scoringLocal("fit")

/** Serves on the comps model at once; the learners are fitted on a worker thread and joined in (the server). */
export const ScoringLocalServing = scoringLocal("background")
