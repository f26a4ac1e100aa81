/**
 * Fits models on a worker thread (`learner-worker.ts`): the stack's learners, or a first start's comps model.
 * The sales go over by structured clone and the fitted models come back as data. From source (tsx, tests)
 * the worker starts at `learner-worker-source.mjs`, which registers tsx's loader; in the built bundle it runs
 * `learner-worker.mjs`.
 */
import { Context, Effect } from "effect"
import { Worker } from "node:worker_threads"
import type { EngineOptions, KeptComps } from "./engine.js"
import type { Sale } from "./model.js"
import type { StackData } from "./stack.js"

const fromSource = import.meta.url.endsWith(".ts")
const workerUrl = new URL(fromSource ? "./learner-worker-source.mjs" : "./learner-worker.mjs", import.meta.url)

/** A fit running on a worker thread; `cancel` stops the thread (a scope closing, a newer build). */
export interface WorkerFit<A> {
  readonly result: Promise<A>
  readonly cancel: () => void
}

const onWorker = <A>(
  task: "learners" | "comps" | "demo county comps",
  sales: ReadonlyArray<Sale>,
  options: EngineOptions
): WorkerFit<A> => {
  const worker = new Worker(workerUrl, { workerData: { task, sales, options } })
  const result = new Promise<A>((resolve, reject) => {
    worker.once("message", (data: A) => {
      resolve(data)
      void worker.terminate()
    })
    worker.once("error", reject)
    worker.once("exit", (code) => reject(new Error(`the worker thread exited with code ${code}`)))
  })
  return { result, cancel: () => void worker.terminate() }
}

/** The stack's learners (over a comps model fitted there on the same sales), as `withStack` joins them. */
export const fitLearnersOnWorker = (
  sales: ReadonlyArray<Sale>,
  options: EngineOptions = {}
): WorkerFit<StackData> => onWorker("learners", sales, options)

/** The comps model alone, as it is kept (`EngineOptions.kept`). */
export const fitCompsOnWorker = (sales: ReadonlyArray<Sale>, options: EngineOptions = {}): WorkerFit<KeptComps> =>
  onWorker("comps", sales, options)

/** The comps model of the demo county's sales as a first start stores them (generated there: none sent over). */
export const fitDemoCountyCompsOnWorker = (options: EngineOptions = {}): WorkerFit<KeptComps> =>
  onWorker("demo county comps", [], options)

/** The learners fitted on a worker thread of this process, as an Effect (interrupting it stops the thread). */
export const fitLearnersOnThread = (sales: ReadonlyArray<Sale>): Effect.Effect<StackData, Error> =>
  Effect.async<StackData, Error>((resume) => {
    const fit = fitLearnersOnWorker(sales)
    fit.result.then((stack) => resume(Effect.succeed(stack)), (error) => resume(Effect.fail(error as Error)))
    return Effect.sync(fit.cancel)
  })

/** Fitted learners, and where they were fitted (for the log). */
export interface FittedLearners {
  readonly data: StackData
  readonly fittedBy: string
}

/**
 * How the server gets its learners for a build of the data (`version`, the store's) and its sales: by
 * default fitted on a thread of this process. The workers of `serve --workers N` share one fit instead
 * (`src/cluster/learners.ts`).
 */
export class LearnerFitting extends Context.Reference<LearnerFitting>()("propscore/LearnerFitting", {
  defaultValue: () => ({
    fit: (_version: string, sales: ReadonlyArray<Sale>): Effect.Effect<FittedLearners, Error> =>
      Effect.map(fitLearnersOnThread(sales), (data) => ({ data, fittedBy: "a worker thread" }))
  })
}) {}
