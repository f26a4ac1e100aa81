/**
 * Fits models on a worker thread (`learner-worker.ts`): the stack's learners, or a first start's comps model.
 * The sales go over by structured clone and the fitted models come back as data. From source (tsx, tests)
 * the worker starts at `learner-worker-source.mjs`, which registers tsx's loader; in the built bundle it runs
 * `learner-worker.mjs`.
 */
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
