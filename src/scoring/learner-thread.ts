/**
 * Fits the stack's learners on a worker thread (`learner-worker.ts`): the sales go over by structured clone
 * and the fitted stack comes back as data. From source (tsx, tests) the worker starts at
 * `learner-worker-source.mjs`, which registers tsx's loader; in the built bundle it runs `learner-worker.mjs`.
 */
import { Context, Effect } from "effect"
import { Worker } from "node:worker_threads"
import type { EngineOptions } from "./engine.js"
import type { Sale } from "./model.js"
import type { StackData } from "./stack.js"

const fromSource = import.meta.url.endsWith(".ts")
const workerUrl = new URL(fromSource ? "./learner-worker-source.mjs" : "./learner-worker.mjs", import.meta.url)

/** Starts the fit; `cancel` stops the thread (a scope closing, a newer build). */
export const fitLearnersOnWorker = (
  sales: ReadonlyArray<Sale>,
  options: EngineOptions = {}
): { readonly result: Promise<StackData>; readonly cancel: () => void } => {
  const worker = new Worker(workerUrl, { workerData: { sales, options } })
  const result = new Promise<StackData>((resolve, reject) => {
    worker.once("message", (data: StackData) => {
      resolve(data)
      void worker.terminate()
    })
    worker.once("error", reject)
    worker.once("exit", (code) => reject(new Error(`the learner thread exited with code ${code}`)))
  })
  return { result, cancel: () => void worker.terminate() }
}

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
