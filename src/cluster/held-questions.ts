/**
 * Questions of a worker that the primary does not answer yet: the worker `serve` forks before the primary has
 * loaded its modules (src/cli/serve-early.ts) may ask before the primary answers any topic. They are kept
 * here, in order, until the primary takes the worker on (`releaseQuestions`) and answers them. Loads nothing
 * but node:cluster's types, so that it can run before the other modules load.
 */
import type { Worker } from "node:cluster"

const held = new Map<number, { readonly messages: Array<unknown>; readonly stop: () => void }>()

/** Keeps `worker`'s messages from now until they are released. */
export const holdQuestions = (worker: Worker) => {
  const messages: Array<unknown> = []
  const hold = (message: unknown) => messages.push(message)
  worker.on("message", hold)
  held.set(worker.id, { messages, stop: () => worker.off("message", hold) })
}

/** Whether `worker`'s messages are being kept (the primary's answerer leaves them alone meanwhile). */
export const questionsHeld = (worker: Worker) => held.has(worker.id)

/** Stops keeping `worker`'s messages; returns the ones kept so far, in order. */
export const releaseQuestions = (worker: Worker): ReadonlyArray<unknown> => {
  const holding = held.get(worker.id)
  held.delete(worker.id)
  holding?.stop()
  return holding?.messages ?? []
}
