import { describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Duration, Effect, Exit, Fiber, Layer, TestClock } from "effect"
import { IdempotencyControl, IdempotencyMemory } from "../../layers/idempotency/memory.js"
import { LedgerControl, LedgerMemory } from "../../layers/ledger/memory.js"
import type { IdempotencyKey } from "../../schema/idempotency-key.js"
import { OutsideCoverage, type UpstreamTimeout } from "../../schema/problems.js"
import { metered, type MeteredRequest, pastCallDeadline, type WorkFailure } from "../../src/operations/metered.js"
import { NODE_LEASE, NodeLease, SettlementLive } from "../../src/operations/settlement.js"
import { PURGE_MARGIN, sweepAbandoned } from "../../src/operations/sweeper.js"
import {
  IdempotencyStore,
  REPLAY_WINDOW_MILLIS,
  type StoredResponse,
  withJson
} from "../../src/services/idempotency.js"
import { Ledger, type Spend } from "../../src/services/ledger.js"
import { reconciles } from "../harness/ledger.js"

const services = SettlementLive.pipe(
  Layer.provideMerge(Layer.mergeAll(LedgerMemory({ acct_crash: { balance: 5 } }), IdempotencyMemory))
)

const request = {
  accountId: "acct_crash",
  pendingTerms: null,
  operation: "predict" as const,
  units: 1,
  traceId: "t",
  idempotencyKey: "crash-key" as IdempotencyKey,
  fingerprint: "POST /v1/predict {}",
  subjects: ["1 Main St"]
}
const keyless = { ...request, idempotencyKey: undefined }
// With its JSON text, as the pipeline hands answers on (withJson returns it as it is).
const answer: StoredResponse = withJson({ status: 200, body: { ok: true } })

const run = <E extends WorkFailure>(req: MeteredRequest, work: (spend: Spend) => Effect.Effect<StoredResponse, E>) =>
  metered<E | UpstreamTimeout, never>(req, work, pastCallDeadline)

/** What a request of another process left behind when that process died after its Spend: a claim and a Spend. */
const diedElsewhere = (keyed: boolean) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const deadline = now + 60_000
    if (keyed) {
      const store = yield* IdempotencyStore
      yield* store.claim({
        accountId: "acct_crash",
        key: "crash-key",
        fingerprint: request.fingerprint,
        now,
        deadline,
        claimId: "claim-crashed"
      })
    }
    const ledger = yield* Ledger
    yield* ledger.spend({
      accountId: "acct_crash",
      operation: "predict",
      units: 1,
      traceId: "t",
      settleBy: deadline,
      nodeId: "node_crashed",
      subjects: ["1 Main St"],
      attemptId: "attempt-crashed"
    })
  })

const nothingSwept = { spends: 0, claims: 0, refunded: 0, purged: 0 }

describe("the sweeper", () => {
  it.effect("SVC-4 ERR-5: a request whose process died after its Spend is refunded once its deadline has passed and its node is silent; its key is freed", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      yield* diedElsewhere(true)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      // Before the deadline the request may still be running: nothing is touched.
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 1, refunded: 1, purged: 0 })
      expect(yield* ledger.balance("acct_crash")).toBe(5)
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      // The key is free again: a retry runs and is charged.
      const retried = yield* run(request, () => Effect.succeed(answer))
      expect(retried.replayed).toBe(false)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: a request without an Idempotency-Key whose process died after its Spend is refunded too", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      yield* diedElsewhere(false)
      // An answered call and a refunded one are settled: the sweeper never touches them.
      yield* run(keyless, () => Effect.succeed(answer))
      yield* Effect.exit(run(keyless, () => Effect.fail(new OutsideCoverage({ detail: "not here" }))))
      expect(yield* ledger.balance("acct_crash")).toBe(3)
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 0, refunded: 1, purged: 0 })
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-5: a defect in the work refunds the call at once (internal-error) and frees its key", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const died = yield* Effect.exit(run(request, () => Effect.die(new Error("a bug"))))
      expect(Exit.isFailure(died) && Cause.isDie(died.cause)).toBe(true)
      expect(yield* ledger.balance("acct_crash")).toBe(5)
      const refund = (yield* ledger.entries("acct_crash")).find((e) => e.kind === "refund")
      expect(refund?.detail).toBe("internal-error")
      const retried = yield* run(request, () => Effect.succeed(answer))
      expect(retried.replayed).toBe(false)
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  // A day passes in this test: the node beats once an hour (TestClock runs every beat of the day).
  const hourlyBeats = Layer.succeed(NodeLease, { heartbeat: Duration.hours(1), lease: Duration.hours(5) })
  it.effect("IDEM-5: the sweeper purges a key once its 24-hour window has ended; the key then runs as a new one", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const answered = yield* run(request, () => Effect.succeed(answer))
      expect(answered.replayed).toBe(false)
      // Inside the window the stored answer is kept, and replayed.
      yield* TestClock.adjust(REPLAY_WINDOW_MILLIS - 1)
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      const replayed = yield* run(request, () => Effect.die(new Error("a replay must not run")))
      expect(replayed).toEqual({ response: answer, replayed: true })
      // The window has ended, and the key is kept a margin longer (other nodes' clocks), then purged.
      yield* TestClock.adjust(1 + Duration.toMillis(PURGE_MARGIN) - 1)
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
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
    }).pipe(Effect.provide(services), Effect.provide(hourlyBeats)))

  it.effect("SVC-4 IDEM-5: a refund, and a key's release, the database could not take when the call failed are made by the sweeper's next round, not at their deadline, recorded under the call's reason and trace id", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const control = yield* LedgerControl
      const store = yield* IdempotencyControl
      const failed = yield* Effect.exit(
        run(request, () =>
          Effect.zipRight(
            Effect.all([control.setFaults({ unreachable: true }), store.setFaults({ unreachable: true })]),
            Effect.fail(new OutsideCoverage({ detail: "not here" }))
          ))
      )
      expect(Exit.isFailure(failed)).toBe(true)
      yield* Effect.all([control.setFaults({ unreachable: false }), store.setFaults({ unreachable: false })])
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      // The key is held meanwhile: a retry waits, then 409.
      const held = yield* Effect.fork(Effect.flip(run(request, () => Effect.succeed(answer))))
      yield* TestClock.adjust("3 seconds")
      expect(yield* Fiber.join(held)).toMatchObject({ _tag: "DuplicateRequestInFlight" })
      // The next round (5 s after the call, its deadline 60 s) refunds the Credit and frees the key.
      yield* TestClock.adjust("2 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 1, refunded: 1, purged: 0 })
      expect(yield* reconciles("acct_crash")).toBe(5)
      // As the call would have recorded it: its own reason, its trace id (not the sweeper's abandoned-request).
      expect((yield* control.allEntries).filter((entry) => entry.kind === "refund")).toMatchObject([
        { detail: "outside-coverage", traceId: "t", amount: 1 }
      ])
      const retried = yield* run(request, () => Effect.succeed(answer))
      expect(retried.replayed).toBe(false)
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: a failed call's refund the Ledger could not take until past the call's deadline is still recorded under the call's reason and trace id", () =>
    Effect.gen(function*() {
      const control = yield* LedgerControl
      yield* Effect.exit(
        run(keyless, () =>
          Effect.zipRight(
            control.setFaults({ unreachable: true }),
            Effect.fail(new OutsideCoverage({ detail: "not here" }))
          ))
      )
      // Away for the whole deadline: the rounds meanwhile fail.
      yield* TestClock.adjust("61 seconds")
      expect(yield* Effect.either(sweepAbandoned)).toMatchObject({ _tag: "Left" })
      yield* control.setFaults({ unreachable: false })
      expect(yield* sweepAbandoned).toMatchObject({ spends: 1, refunded: 1 })
      expect((yield* control.allEntries).filter((entry) => entry.kind === "refund")).toMatchObject([
        { detail: "outside-coverage", traceId: "t", amount: 1 }
      ])
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: after the database was away, a dead node's key past its deadline waits, as its Spend does, until this node has been seen for a lease", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const control = yield* LedgerControl
      yield* diedElsewhere(true)
      // The Ledger is away while the deadline passes: this node's heartbeats miss.
      yield* control.setFaults({ unreachable: true })
      yield* TestClock.adjust("61 seconds")
      yield* control.setFaults({ unreachable: false })
      // Neither the Spend nor the key yet: a key freed first lets a retry be charged while the Spend stands.
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      yield* TestClock.adjust("11 seconds")
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 1, refunded: 1, purged: 0 })
      expect(yield* ledger.balance("acct_crash")).toBe(5)
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
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
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
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      const retried = yield* run(request, () => Effect.succeed(answer))
      expect(retried.replayed).toBe(false)
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("ERR-5 SVC-4: a Ledger that records the Spend and then fails answers ledger-unreachable; the Spend it did record is refunded by the sweeper's next round, not at its deadline", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const control = yield* LedgerControl
      yield* control.setFaults({ failAfterSpend: true })
      const failed = yield* Effect.flip(run(request, () => Effect.succeed(answer)))
      yield* control.setFaults({ failAfterSpend: false })
      expect(failed._tag).toBe("LedgerUnreachable")
      // The caller was told nothing was charged; the Ledger holds the Spend it recorded all the same...
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      // ...until the sweeper's next round, long before the Spend's deadline: the call gave its attempt up.
      yield* TestClock.adjust("5 seconds")
      expect(yield* sweepAbandoned).toMatchObject({ spends: 1, refunded: 1 })
      expect(yield* reconciles("acct_crash")).toBe(5)
      // The key was released with the failure: the retry runs.
      const retried = yield* run(request, () => Effect.succeed(answer))
      expect(retried.replayed).toBe(false)
    }).pipe(Effect.provide(services)))

  it.effect("BAT-10: an answered call whose settle fails stays charged: the sweeper leaves it alone while the node retries the settle, which lands once the Ledger takes it", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const control = yield* LedgerControl
      yield* control.setFaults({ failSettle: true })
      const answered = yield* run(keyless, () => Effect.succeed(answer))
      expect(answered.response).toEqual(answer)
      expect(yield* control.openSpends).toHaveLength(1)
      // Long past its deadline, the sweeper still leaves the answered Spend alone.
      yield* TestClock.adjust("2 minutes")
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      yield* control.setFaults({ failSettle: false })
      yield* TestClock.adjust("1 second")
      expect(yield* control.openSpends).toEqual([])
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      expect(yield* reconciles("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("BAT-10 IDEM-3: an answered keyed call whose answer cannot be stored yet stays charged, its key is not freed, and the answer is stored (and replayed) once the store takes it", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const store = yield* IdempotencyControl
      const answered = yield* run(request, () => Effect.as(store.setFaults({ unreachable: true }), answer))
      expect(answered).toEqual({ response: answer, replayed: false })
      yield* TestClock.adjust("2 minutes")
      yield* store.setFaults({ unreachable: false })
      // The sweeper's round may come before the retry: it neither refunds the call nor frees its key.
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      yield* TestClock.adjust("1 second")
      const replayed = yield* run(request, () => Effect.die(new Error("a replay must not run")))
      expect(replayed).toEqual({ response: answer, replayed: true })
      expect(yield* reconciles("acct_crash")).toBe(4)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: another node's overdue Spend is left alone while that node beats, and refunded once it has been silent for a lease", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      yield* diedElsewhere(false)
      // The other node is alive: it beats every few seconds, past the Spend's deadline.
      for (let beat = 0; beat < 35; beat++) {
        yield* ledger.heartbeat("node_crashed", yield* Clock.currentTimeMillis)
        yield* TestClock.adjust("2 seconds")
      }
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      yield* TestClock.adjust(Duration.toMillis(NODE_LEASE) + 1)
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 0, refunded: 1, purged: 0 })
      expect(yield* reconciles("acct_crash")).toBe(5)
    }).pipe(Effect.provide(services)))

  it.effect("SVC-4: after the Ledger was away, a node waits a lease of its own heartbeats before judging another node dead", () =>
    Effect.gen(function*() {
      const control = yield* LedgerControl
      yield* diedElsewhere(false)
      yield* control.setFaults({ unreachable: true })
      yield* TestClock.adjust("61 seconds")
      yield* control.setFaults({ unreachable: false })
      // Back, but this node has not been seen for a lease yet: it judges its own Spends only.
      yield* TestClock.adjust("1 second")
      expect(yield* sweepAbandoned).toEqual(nothingSwept)
      yield* TestClock.adjust(NODE_LEASE)
      expect(yield* sweepAbandoned).toEqual({ spends: 1, claims: 0, refunded: 1, purged: 0 })
      expect(yield* reconciles("acct_crash")).toBe(5)
    }).pipe(Effect.provide(services)))
})
