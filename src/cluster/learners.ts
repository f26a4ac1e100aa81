/**
 * The learners of `serve --workers N`, fitted once for all the workers instead of once each: the first
 * worker to ask for a build of the data (the store's version) fits them on a thread of its own and hands
 * the fitted stack (`StackData`) to the primary, which gives it to every other worker that asks for the
 * same version, at once to one that asks later (a replacement for a worker that died). A fit that fails is
 * a failure for every worker of that version (each serves on the comps model alone, as one process would);
 * if the fitting worker dies first, one of those waiting fits them instead.
 */
import { Context, Effect } from "effect"
import type { Worker } from "node:cluster"
import { fitLearnersOnThread, type LearnerFitting } from "../scoring/learner-thread.js"
import type { StackData } from "../scoring/stack.js"
import { type Answerer, askPrimary } from "./ipc.js"

type LearnersAnswer =
  | { readonly _tag: "FitThem" }
  | { readonly _tag: "Fitted"; readonly data: StackData; readonly fitterPid: number | undefined }
  | { readonly _tag: "Failed"; readonly message: string }

const ASK = "learners/ask"
const FITTED = "learners/fitted"
const FAILED = "learners/failed"

const fitThem: LearnersAnswer = { _tag: "FitThem" }

/** A worker's `LearnerFitting`: the primary's fit of the version, or this worker fits it for all. */
export const sharedLearnerFitting: Context.Tag.Service<typeof LearnerFitting> = {
  fit: (version, sales) =>
    Effect.gen(function*() {
      const answer = yield* askPrimary<LearnersAnswer>(ASK, { version })
      if (answer._tag === "Fitted") {
        return { data: answer.data, fittedBy: `worker ${answer.fitterPid} (shared through the primary)` }
      }
      if (answer._tag === "Failed") return yield* Effect.fail(new Error(answer.message))
      const data = yield* fitLearnersOnThread(sales).pipe(
        Effect.tapError((error) => Effect.ignore(askPrimary(FAILED, { version, message: error.message })))
      )
      yield* Effect.ignore(askPrimary(FITTED, { version, data }))
      return { data, fittedBy: "a worker thread (shared with the other workers)" }
    })
}

interface Fit {
  /** The worker fitting them; undefined once done, or while nobody is. */
  fitter: Worker | undefined
  readonly waiting: Array<{ readonly worker: Worker; readonly answer: (answer: LearnersAnswer) => void }>
  result: LearnersAnswer | undefined
}

/** Builds of the data the primary remembers the learners of (the newest ones). */
const REMEMBERED_VERSIONS = 3

/** In the primary: the answers to the workers' questions about learners, and what a worker's exit changes. */
export const shareLearners = (): {
  readonly answerers: Readonly<Record<string, Answerer>>
  readonly workerGone: (worker: Worker) => void
} => {
  const fits = new Map<string, Fit>()

  const settle = (version: string, result: LearnersAnswer) => {
    const fit = fits.get(version)
    if (fit === undefined || fit.result !== undefined) return
    fit.result = result
    fit.fitter = undefined
    for (const { answer } of fit.waiting.splice(0)) answer(result)
  }

  const remember = (version: string, fit: Fit) => {
    fits.set(version, fit)
    for (const [old, { result }] of fits) {
      if (fits.size <= REMEMBERED_VERSIONS) break
      if (result !== undefined) fits.delete(old)
    }
  }

  const ask: Answerer = (body, worker) => {
    const { version } = body as { readonly version: string }
    const fit = fits.get(version)
    if (fit === undefined) {
      remember(version, { fitter: worker, waiting: [], result: undefined })
      return Promise.resolve(fitThem)
    }
    if (fit.result !== undefined) return Promise.resolve(fit.result)
    if (fit.fitter === undefined) {
      fit.fitter = worker
      return Promise.resolve(fitThem)
    }
    return new Promise((answer) => fit.waiting.push({ worker, answer }))
  }

  return {
    answerers: {
      [ASK]: ask,
      [FITTED]: (body, worker) => {
        const { data, version } = body as { readonly version: string; readonly data: StackData }
        settle(version, { _tag: "Fitted", data, fitterPid: worker.process.pid })
        return Promise.resolve(null)
      },
      [FAILED]: (body) => {
        const { message, version } = body as { readonly version: string; readonly message: string }
        settle(version, { _tag: "Failed", message })
        return Promise.resolve(null)
      }
    },
    workerGone: (worker) => {
      for (const fit of fits.values()) {
        const index = fit.waiting.findIndex((waiting) => waiting.worker.id === worker.id)
        if (index !== -1) fit.waiting.splice(index, 1)
        if (fit.fitter?.id !== worker.id) continue
        // Its fit died with it: the next one waiting fits them (or the next to ask, if none is waiting).
        const next = fit.waiting.shift()
        fit.fitter = next?.worker
        next?.answer(fitThem)
      }
    }
  }
}
