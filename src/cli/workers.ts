/**
 * `serve --workers N`: the primary process forks N workers (node:cluster) that each build the services and
 * listen on the one port, the primary handing them its connections in turn. The primary restarts a worker
 * that dies, and stops them all (each finishing its settles) when it is told to stop. A worker stops with
 * its primary.
 */
import { Data, Deferred, Duration, Effect, Exit, Runtime } from "effect"
import type { Worker } from "node:cluster"
import cluster from "node:cluster"
import { type Answerer, answerWorkers, askPrimary } from "../cluster/ipc.js"

/** A worker's exit before every worker answered: the service does not start. */
export class WorkersDidNotStart extends Data.TaggedError("WorkersDidNotStart")<{ readonly message: string }> {}

/** How long the primary waits for its workers to stop before it kills them. */
export const WORKERS_STOP_GRACE = Duration.seconds(30)
/** How long the primary waits before replacing a worker that died before it ever answered. */
export const FAILED_START_DELAY = Duration.seconds(5)

const READY = "workers/ready"

/** Set in the environment of the workers this primary forks (another cluster manager's workers are not ours). */
const WORKER_MARK = "PROPSCORE_SERVE_WORKER"

/** Whether this process is a worker of `serve --workers N`. */
export const isServeWorker = () => cluster.isWorker && process.env[WORKER_MARK] === "1"

const exitDescription = (code: number | null, signal: string | null) =>
  signal !== null ? `was killed by ${signal}` : `exited with code ${code}`

/**
 * In the primary: runs `count` workers for the life of the scope, answering their questions with
 * `answerers`; succeeds once every one of them answers HTTP. `workerGone` hears of every worker that exits.
 */
export const runWorkers = (
  count: number,
  answerers: Readonly<Record<string, Answerer>>,
  workerGone: (worker: Worker) => void
) =>
  Effect.gen(function*() {
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const allAnswering = yield* Deferred.make<void, WorkersDidNotStart>()
    const live = new Map<number, Worker>()
    const answering = new Set<number>()
    let started = false
    let stopping = false
    let restartTimer: ReturnType<typeof setTimeout> | undefined

    const fork = () => {
      if (stopping) return
      const worker = cluster.fork({ [WORKER_MARK]: "1" })
      live.set(worker.id, worker)
      worker.on("exit", (code: number | null, signal: string | null) => exited(worker, code, signal))
    }

    const ready: Answerer = (_, worker) => {
      answering.add(worker.id)
      if (started) {
        runFork(Effect.logInfo(`worker ${worker.process.pid} answers`))
      } else if (answering.size === count) {
        started = true
        Deferred.unsafeDone(allAnswering, Exit.void)
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
          allAnswering,
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
        cluster.setupPrimary({ serialization: "advanced" })
        const stopAnswering = answerWorkers({ ...answerers, [READY]: ready })
        for (let i = 0; i < count; i++) fork()
        return stopAnswering
      }),
      (stopAnswering) => Effect.ensuring(stopAll, Effect.sync(stopAnswering))
    )
    yield* Deferred.await(allAnswering)
  })

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
