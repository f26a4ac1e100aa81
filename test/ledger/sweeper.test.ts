import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { IdempotencyMemory } from "../../layers/idempotency/memory.js"
import { LedgerControl, LedgerMemory } from "../../layers/ledger/memory.js"
import type { IdempotencyKey } from "../../schema/idempotency-key.js"
import { OutsideCoverage, type Problem } from "../../schema/problems.js"
import { metered, type MeteredRequest, pastCallDeadline } from "../../src/operations/metered.js"
import { PURGE_MARGIN, sweepAbandoned } from "../../src/operations/sweeper.js"
import { REPLAY_WINDOW_MILLIS, type StoredResponse } from "../../src/services/idempotency.js"
import { Ledger, type Spend } from "../../src/services/ledger.js"
import { reconciles } from "../harness/ledger.js"

const services = Layer.mergeAll(LedgerMemory({ acct_crash: { balance: 5 } }), IdempotencyMemory)

const request = {
  accountId: "acct_crash",
  pendingTerms: null,
  operation: "predict" as const,
  units: 1,
  traceId: "t",
  idempotencyKey: "crash-key" as IdempotencyKey,
  fingerprint: "POST /v1/predict {}"
}

const run = <E extends Problem>(req: MeteredRequest, work: (spend: Spend) => Effect.Effect<StoredResponse, E>) =>
  metered(req, work, pastCallDeadline)

describe("the sweeper", () => {
  it.effect("SVC-4 ERR-5: a request that dies after its Spend is refunded once its claim's deadline has passed", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const died = yield* Effect.exit(run(request, () => Effect.die(new Error("the process died here"))))
      expect(Exit.isFailure(died)).toBe(true)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      // Before the deadline the request may still be running: nothing is touched.
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 1, refunded: 1, purged: 0 })
      expect(yield* ledger.balance("acct_crash")).toBe(5)
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      // The key is free again: a retry runs and is charged.
      const retried = yield* run(request, () => Effect.succeed({ status: 200, body: { ok: true } }))
      expect(retried.replayed).toBe(false)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("IDEM-5: the sweeper purges a key once its 24-hour window has ended; the key then runs as a new one", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const answered = yield* run(request, () => Effect.succeed({ status: 200, body: { ok: true } }))
      expect(answered.replayed).toBe(false)
      // Inside the window the stored answer is kept, and replayed.
      yield* TestClock.adjust(REPLAY_WINDOW_MILLIS - 1)
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      const replayed = yield* run(request, () => Effect.die(new Error("a replay must not run")))
      expect(replayed).toEqual({ response: { status: 200, body: { ok: true } }, replayed: true })
      // The window has ended, and the key is kept a margin longer (other nodes' clocks), then purged.
      yield* TestClock.adjust(1 + Duration.toMillis(PURGE_MARGIN) - 1)
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      yield* TestClock.adjust(1)
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 1 })
      // Another body under the key is no conflict now: it runs and is charged.
      const taken = yield* run(
        { ...request, fingerprint: "POST /v1/predict {\"other\":1}" },
        () => Effect.succeed({ status: 200, body: { other: true } })
      )
      expect(taken.replayed).toBe(false)
      expect(yield* ledger.balance("acct_crash")).toBe(3)
      expect(yield* reconciles("acct_crash")).toBe(3)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: a request without an Idempotency-Key that dies after its Spend is refunded too", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const keyless = { ...request, idempotencyKey: undefined }
      yield* Effect.exit(run(keyless, () => Effect.die(new Error("the process died here"))))
      // An answered call and a refunded one are settled: the sweeper never touches them.
      yield* run(keyless, () => Effect.succeed({ status: 200, body: { ok: true } }))
      yield* Effect.exit(run(keyless, () => Effect.fail(new OutsideCoverage({ detail: "not here" }))))
      expect(yield* ledger.balance("acct_crash")).toBe(3)
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 0, refunded: 1, purged: 0 })
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: a refund the Ledger could not take when the call failed is made by the sweeper", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const control = yield* LedgerControl
      const keyless = { ...request, idempotencyKey: undefined }
      const failed = yield* Effect.exit(
        run(keyless, () =>
          Effect.zipRight(
            control.setFaults({ unreachable: true }),
            Effect.fail(new OutsideCoverage({ detail: "not here" }))
          ))
      )
      expect(Exit.isFailure(failed)).toBe(true)
      yield* control.setFaults({ unreachable: false })
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 0, refunded: 1, purged: 0 })
      expect(yield* reconciles("acct_crash")).toBe(5)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: a call still running at its share of the deadline stops and refunds itself before the sweeper could", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const fiber = yield* Effect.fork(Effect.exit(run(request, () => Effect.never)))
      yield* TestClock.adjust("47 seconds")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("2 seconds")
      const exit = yield* Fiber.join(fiber)
      expect(exit).toMatchObject({ _tag: "Failure" })
      expect(Exit.isFailure(exit) && Cause.failureOption(exit.cause)).toMatchObject({
        _tag: "Some",
        value: { _tag: "UpstreamTimeout" }
      })
      expect(yield* ledger.balance("acct_crash")).toBe(5)
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      const entries = yield* ledger.entries("acct_crash")
      expect(entries.filter((e) => e.kind === "refund")).toHaveLength(1)
      expect(yield* reconciles("acct_crash")).toBe(5)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: a call interrupted mid-work (the caller went away) is refunded at once and its key freed", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const fiber = yield* Effect.fork(run(request, () => Effect.never))
      yield* TestClock.adjust("1 second")
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      yield* Fiber.interrupt(fiber)
      expect(yield* ledger.balance("acct_crash")).toBe(5)
      // Nothing is left for the sweeper, and the key runs again at once.
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 0, claims: 0, refunded: 0, purged: 0 })
      const retried = yield* run(request, () => Effect.succeed({ status: 200, body: { ok: true } }))
      expect(retried.replayed).toBe(false)
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("ERR-5 SVC-4: a Ledger that records the Spend and then fails answers ledger-unreachable; the Spend it did record is refunded by the sweeper", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const control = yield* LedgerControl
      yield* control.setFaults({ failAfterSpend: true })
      const failed = yield* Effect.flip(run(request, () => Effect.succeed({ status: 200, body: { ok: true } })))
      yield* control.setFaults({ failAfterSpend: false })
      expect(failed._tag).toBe("LedgerUnreachable")
      // The caller was told nothing was charged; the Ledger holds an open Spend until the deadline.
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toMatchObject({ spends: 1, refunded: 1 })
      expect(yield* reconciles("acct_crash")).toBe(5)
      // The key was released with the failure: the retry runs.
      const retried = yield* run(request, () => Effect.succeed({ status: 200, body: { ok: true } }))
      expect(retried.replayed).toBe(false)
    }).pipe(Effect.provide(services)))
})
