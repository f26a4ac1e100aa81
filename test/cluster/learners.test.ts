import { describe, expect, it } from "@effect/vitest"
import type { Worker } from "node:cluster"
import { shareLearners } from "../../src/cluster/learners.js"
import type { StackData } from "../../src/scoring/stack.js"

/** Stand-ins for cluster workers: the primary's side reads only their identity and pid. */
const worker = (pid: number) => ({ id: pid, process: { pid } }) as unknown as Worker
const stack: StackData = { learners: [], blends: [], drifts: [], sizeRanges: [] }

/** Whether a promise has settled yet (after the microtasks queued so far). */
const settled = async <A>(promise: Promise<A>) => {
  let done = false
  void promise.then(() => (done = true))
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

describe("the learners shared by the workers of serve --workers N (the primary's side)", () => {
  it("one fit per version: the first to ask fits, the others wait for its stack, a later one gets it at once", async () => {
    const { answerers } = shareLearners()
    const [a, b, c] = [worker(1), worker(2), worker(3)]
    expect(await answerers["learners/ask"]!({ version: "v1" }, a)).toEqual({ _tag: "FitThem" })
    const waiting = answerers["learners/ask"]!({ version: "v1" }, b)
    expect(await settled(waiting)).toBe(false)
    await answerers["learners/fitted"]!({ version: "v1", data: stack }, a)
    expect(await waiting).toEqual({ _tag: "Fitted", data: stack, fitterPid: 1 })
    expect(await answerers["learners/ask"]!({ version: "v1" }, c)).toEqual({
      _tag: "Fitted",
      data: stack,
      fitterPid: 1
    })
    // A new version of the data is fitted anew.
    expect(await answerers["learners/ask"]!({ version: "v2" }, b)).toEqual({ _tag: "FitThem" })
  })

  it("a fitter that dies hands the fit to one that waits; a failed fit is every waiter's failure", async () => {
    const { answerers, workerGone } = shareLearners()
    const [a, b, c] = [worker(1), worker(2), worker(3)]
    await answerers["learners/ask"]!({ version: "v1" }, a)
    const second = answerers["learners/ask"]!({ version: "v1" }, b)
    const third = answerers["learners/ask"]!({ version: "v1" }, c)
    workerGone(a)
    expect(await second).toEqual({ _tag: "FitThem" })
    expect(await settled(third)).toBe(false)
    await answerers["learners/failed"]!({ version: "v1", message: "out of memory" }, b)
    expect(await third).toEqual({ _tag: "Failed", message: "out of memory" })
  })

  it("a fitter that dies with nobody waiting leaves the fit to the next worker that asks", async () => {
    const { answerers, workerGone } = shareLearners()
    await answerers["learners/ask"]!({ version: "v1" }, worker(1))
    // Another object for the same worker: the primary knows workers by their id.
    workerGone(worker(1))
    expect(await answerers["learners/ask"]!({ version: "v1" }, worker(4))).toEqual({ _tag: "FitThem" })
  })
})
