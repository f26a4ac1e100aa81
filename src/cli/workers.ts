/**
 * `serve --workers N`: the primary process forks N workers (node:cluster) that each build the services and
 * listen on the one port, the primary handing them its connections in turn. The first worker is forked at
 * once (by the entry, src/cli/serve-early.ts, before this process loads its modules, where it can) and loads
 * its modules while the primary loads its own and prepares the start, and builds its services once the start is
 * prepared; the port answers from its answer on. The others are forked then: until then they would only take
 * cores from the preparation and the first worker's build, and after it they read the models and data it
 * kept instead of the database. The primary restarts a worker that dies, and stops them all (each finishing
 * its settles) when it is told to stop. A worker stops with its primary.
 */
import { Data, Deferred, Duration, Effect, Exit, Runtime, type Scope } from "effect"
import type { Worker } from "node:cluster"
import cluster from "node:cluster"
import { releaseQuestions } from "../cluster/held-questions.js"
import { type Answerer, answerQuestion, answerWorkers, askPrimary } from "../cluster/ipc.js"
import { workerExecArgv } from "./node-flags.js"
import { adoptEarlyWorker, WORKER_MARK } from "./serve-early.js"

/** A worker's exit before the first one answered: the service does not start. */
export class WorkersDidNotStart extends Data.TaggedError("WorkersDidNotStart")<{ readonly message: string }> {}

/** How long the primary waits for its workers to stop before it kills them. */
export const WORKERS_STOP_GRACE = Duration.seconds(30)
/** How long the primary waits before replacing a worker that died before it ever answered. */
export const FAILED_START_DELAY = Duration.seconds(5)

const READY = "workers/ready"
const PREPARED = "workers/prepared"

/** Whether this process is a worker of `serve --workers N`. */
export const isServeWorker = () => cluster.isWorker && process.env[WORKER_MARK] === "1"

const exitDescription = (code: number | null, signal: string | null) =>
  signal !== null ? `was killed by ${signal}` : `exited with code ${code}`

/** The workers of the primary, running for the life of the scope. */
export interface RunningWorkers {
  /** The start is prepared: the workers may build their services. */
  readonly startServing: Effect.Effect<void>
  /** Succeeds once the first worker answers HTTP; fails if it exits before that. */
  readonly firstAnswering: Effect.Effect<void, WorkersDidNotStart>
  /**
   * Stops the workers, each finishing its settles, and waits for them (as the scope's end does). For what the
   * primary opens after forking them and the workers use: its finalizer runs first, so it is closed only
   * after this (the embedded database was closed under workers still settling answered calls).
   */
  readonly stop: Effect.Effect<void>
}

/**
 * In the primary: forks the first of `count` workers at once, the others once it answers, and runs them for
 * the life of the scope, answering their questions with `answerers`. `workerGone` hears of every worker that
 * exits.
 */
export const runWorkers = (
  count: number,
  answerers: Readonly<Record<string, Answerer>>,
  workerGone: (worker: Worker) => void
): Effect.Effect<RunningWorkers, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const firstAnswering = yield* Deferred.make<void, WorkersDidNotStart>()
    const prepared = yield* Deferred.make<void>()
    const live = new Map<number, Worker>()
    const answering = new Set<number>()
    let started = false
    let stopping = false
    let restartTimer: ReturnType<typeof setTimeout> | undefined

    const run = (worker: Worker) => {
      live.set(worker.id, worker)
      worker.on("exit", (code: number | null, signal: string | null) => exited(worker, code, signal))
    }

    const fork = () => {
      if (!stopping) run(cluster.fork({ [WORKER_MARK]: "1" }))
    }

    /** The worker the entry forked before this process loaded its modules, if any, else a new one. */
    const runFirst = () => {
      const early = adoptEarlyWorker()
      if (early === undefined) return fork()
      if (early.exit !== undefined) {
        live.set(early.worker.id, early.worker)
        releaseQuestions(early.worker)
        return exited(early.worker, early.exit.code, early.exit.signal)
      }
      run(early.worker)
      for (const question of releaseQuestions(early.worker)) answerQuestion(early.worker, question)
    }

    const whenPrepared: Answerer = () => Runtime.runPromise(runtime, Deferred.await(prepared))

    const ready: Answerer = (_, worker) => {
      answering.add(worker.id)
      runFork(Effect.logInfo(`worker ${worker.process.pid} answers`))
      if (!started) {
        started = true
        Deferred.unsafeDone(firstAnswering, Exit.void)
        for (let i = 1; i < count; i++) fork()
      }
      return Promise.resolve(null)
    }

    const exited = (worker: Worker, code: number | null, signal: string | null) => {
      live.delete(worker.id)
      const hadAnswered = answering.delete(worker.id)
      workerGone(worker)
      if (stopping) return
      const how = exitDescription(code, signal)
      if (!started) {
        Deferred.unsafeDone(
          firstAnswering,
          Exit.fail(new WorkersDidNotStart({ message: `worker ${worker.process.pid} ${how} before it answered` }))
        )
        return
      }
      runFork(Effect.logWarning(`worker ${worker.process.pid} ${how}; starting another`))
      // A worker that never answered may fail again at once: its replacement waits a little.
      if (hadAnswered) fork()
      else restartTimer = setTimeout(fork, Duration.toMillis(FAILED_START_DELAY))
    }

    const stopAll = Effect.async<void>((resume) => {
      stopping = true
      clearTimeout(restartTimer)
      if (live.size === 0) return resume(Effect.void)
      const kill = setTimeout(() => {
        for (const worker of live.values()) worker.process.kill("SIGKILL")
      }, Duration.toMillis(WORKERS_STOP_GRACE))
      for (const worker of live.values()) {
        worker.on("exit", () => {
          if (live.size > 0) return
          clearTimeout(kill)
          resume(Effect.void)
        })
        // As a signal to one process would: each worker stops serving and finishes its settles.
        worker.process.kill("SIGTERM")
      }
    })

    yield* Effect.acquireRelease(
      Effect.sync(() => {
        cluster.setupPrimary({ serialization: "advanced", execArgv: workerExecArgv() })
        const stopAnswering = answerWorkers({ ...answerers, [READY]: ready, [PREPARED]: whenPrepared })
        runFirst()
        return stopAnswering
      }),
      (stopAnswering) => Effect.ensuring(stopAll, Effect.sync(stopAnswering))
    )
    return {
      startServing: Effect.asVoid(Deferred.done(prepared, Exit.void)),
      firstAnswering: Deferred.await(firstAnswering),
      stop: stopAll
    }
  })

/** In a worker: waits until the start is prepared (`RunningWorkers.startServing`). */
export const awaitStartPrepared = Effect.orDie(askPrimary(PREPARED))

/** In a worker: tells the primary that this worker answers HTTP. */
export const tellPrimaryReady = Effect.orDie(askPrimary(READY))

/**
 * In a worker: it stops (as on a signal: it finishes its settles) when its primary goes away, and a second
 * signal (Ctrl-C reaches every process of the terminal's group, and the primary then stops each worker)
 * does not cut that short.
 */
export const stopWithPrimary = Effect.sync(() => {
  const ignore = () => {}
  process.on("SIGINT", ignore)
  process.on("SIGTERM", ignore)
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"))
})
