/**
 * Answered means charged, once (BAT-10): how this node (one service process) finishes its paid calls with
 * the Ledger, and how its sweeper tells an answered open Spend from a dead one.
 *
 * A call that produced its answer stores it under its Idempotency-Key (if any) and settles its Spend. When
 * the database cannot take that now, the answer still goes to the caller, charged, and this node keeps
 * trying in the background until both are done. Meanwhile the Spend is "answered": this node's sweeper
 * never refunds it, and every node notes in the Ledger that it is alive (a heartbeat), so other nodes'
 * sweepers leave its Spends alone while it is. A node that stops (a crash, a kill) stops beating; once it has
 * been silent for `NODE_LEASE` its open Spends are refunded by the others (a pending settle it could not
 * finish becomes the customer's gain, never a double charge). After an outage of the whole database every
 * node waits a lease of its own heartbeats before judging another node dead, so the one that answered has
 * time to settle first.
 */
import { Clock, Context, Duration, Effect, Layer, Option, Schedule } from "effect"
import { randomBytes } from "node:crypto"
import { IdempotencyStore, type StoredResponse } from "../services/idempotency.js"
import { JointSteps } from "../services/joint-steps.js"
import { Ledger } from "../services/ledger.js"

/** How often a node says it is alive, and how long it may go unseen before it is presumed dead. */
export class NodeLease extends Context.Reference<NodeLease>()("propscore/NodeLease", {
  defaultValue: () => ({ heartbeat: Duration.seconds(2), lease: Duration.seconds(10) })
}) {}
/** The default lease. */
export const NODE_LEASE = NodeLease.defaultValue().lease
/** How often unfinished settles are tried again. */
export const SETTLE_RETRY_INTERVAL = Duration.seconds(1)
/** How long a stopping node keeps trying to finish its settles. */
export const SETTLE_ON_STOP = Duration.seconds(5)
/**
 * Attempts given up on that a node remembers at most; past this (a long outage under heavy traffic) the
 * oldest are left to their deadline.
 */
export const MAX_GAVE_UP = 10_000
/** How long past its deadline a failed call's refund reason is kept for the sweep that refunds it. */
const REFUND_REASONS_KEPT_MILLIS = 60 * 60 * 1000

/** How a refund is recorded: its reason (a problem's slug) and the trace id it is filed under. */
export interface Refund {
  readonly reason: string
  readonly traceId: string
}

/** An answered call still to be finished with the database. */
interface Unsettled {
  readonly spendId: number
  /** The claim its answer is stored under; undefined once stored (apart from the settle), or for a call without a key. */
  claimId: string | undefined
  readonly response: StoredResponse
}

export class Settlement extends Effect.Service<Settlement>()("propscore/Settlement", {
  scoped: Effect.gen(function*() {
    const ledger = yield* Ledger
    const store = yield* IdempotencyStore
    // Where the store and the Ledger share a database, an answer is stored and settled in one step.
    const answered = yield* Effect.serviceOption(JointSteps)
    const timing = yield* NodeLease
    const nodeId = `node_${randomBytes(9).toString("base64url")}`
    const unsettled = new Map<number, Unsettled>()
    /** Attempts this node gave up on (a 503), each until its deadline, oldest first. */
    const gaveUp = new Map<string, number>()
    /** Of those, the failed calls' refunds the database could not take: by Spend, what to record. */
    const refunds = new Map<number, { readonly until: number } & Refund>()
    /** Since when this node's heartbeats have been reaching the Ledger without a miss; undefined after one. */
    let seenSince: number | undefined

    /** Stores the answer (once), then settles the Spend; what fails is left for the next try. */
    const finishOne = (job: Unsettled) =>
      Effect.gen(function*() {
        if (job.claimId !== undefined && Option.isSome(answered)) {
          yield* answered.value.storeAndSettle(job.spendId, job.claimId, job.response)
        } else {
          if (job.claimId !== undefined) {
            yield* store.complete(job.claimId, job.response, job.spendId)
            job.claimId = undefined
          }
          yield* ledger.settle(job.spendId)
        }
        unsettled.delete(job.spendId)
      })

    const retryUnsettled = Effect.suspend(() =>
      Effect.forEach([...unsettled.values()], (job) => Effect.ignore(finishOne(job)), { discard: true })
    )

    // One retrying fiber while anything is unsettled, none otherwise.
    const scope = yield* Effect.scope
    let retrying = false
    const keepRetrying = Effect.suspend(() => {
      if (retrying) return Effect.void
      retrying = true
      return Effect.sleep(SETTLE_RETRY_INTERVAL).pipe(
        Effect.zipRight(retryUnsettled),
        Effect.repeat({ while: () => unsettled.size > 0 }),
        Effect.ensuring(Effect.sync(() => (retrying = false))),
        Effect.forkIn(scope),
        Effect.asVoid
      )
    })

    const heartbeat = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      yield* ledger.heartbeat(nodeId, now).pipe(
        Effect.tap(() => Effect.sync(() => (seenSince ??= now))),
        Effect.tapError(() => Effect.sync(() => (seenSince = undefined))),
        Effect.ignore
      )
    })

    yield* heartbeat.pipe(Effect.repeat(Schedule.spaced(timing.heartbeat)), Effect.forkScoped)
    // A stopping node finishes what it can; what it cannot is refunded by the others after its lease.
    yield* Effect.addFinalizer(() =>
      retryUnsettled.pipe(
        Effect.timeout(SETTLE_ON_STOP),
        Effect.ignore,
        Effect.zipRight(
          Effect.suspend(() =>
            unsettled.size === 0
              ? Effect.void
              : Effect.logWarning(`stopping with ${unsettled.size} answered calls not settled; other nodes refund them`)
          )
        )
      )
    )

    return {
      nodeId,
      /**
       * Stores a produced answer under its claim (if any) and settles its Spend. Never fails: what the
       * database cannot take now is finished in the background, and the Spend is never refunded meanwhile.
       */
      finish: (spendId: number, claimId: string | undefined, response: StoredResponse) =>
        Effect.suspend(() => {
          const job: Unsettled = { spendId, claimId, response }
          unsettled.set(spendId, job)
          return finishOne(job).pipe(
            Effect.catchAll((error) =>
              Effect.zipRight(
                Effect.logWarning("an answered call could not be settled yet; retrying in the background", error),
                keepRetrying
              )
            )
          )
        }).pipe(Effect.uninterruptible),
      /**
       * Notes an attempt (a claim's id, a Spend's `attemptId`) whose call gave up on the database's answer and
       * answered 503: had the database taken its statement after all (delivered late, after a stall), the
       * sweeper's next round undoes it (`gaveUpOn`); until `until`, when its deadline lets any sweeper.
       */
      giveUp: (attemptId: string, until: number, refund?: { readonly spendId: number } & Refund) =>
        Effect.sync(() => {
          gaveUp.set(attemptId, until)
          if (refund !== undefined) {
            refunds.set(refund.spendId, { until, reason: refund.reason, traceId: refund.traceId })
          }
          if (gaveUp.size > MAX_GAVE_UP) gaveUp.delete(gaveUp.keys().next().value!)
          if (refunds.size > MAX_GAVE_UP) refunds.delete(refunds.keys().next().value!)
        }),
      /** The attempts given up on whose deadline has not passed at `now` (older ones are forgotten). */
      gaveUpOn: (now: number) =>
        Effect.sync(() => {
          for (const [attemptId, until] of gaveUp) if (until <= now) gaveUp.delete(attemptId)
          // Kept past the deadline (the database may stay away longer): the deadline's sweep records them too.
          for (const [spendId, { until }] of refunds) {
            if (until + REFUND_REASONS_KEPT_MILLIS <= now) refunds.delete(spendId)
          }
          return [...gaveUp.keys()]
        }),
      /**
       * How to record the sweeper's refund of a Spend: the call's own reason and trace id where the call
       * failed and could not refund it itself, else the sweeper's (`abandoned-request`: the call died or
       * its answer was lost).
       */
      refundOf: (spendId: number): Refund =>
        refunds.get(spendId) ?? { reason: "abandoned-request", traceId: "sweeper" },
      /** The Spends this node answered and is still settling, and the claims whose answers are not stored yet. */
      unfinished: Effect.sync(() => ({
        spendIds: [...unsettled.keys()],
        claimIds: [...unsettled.values()].flatMap((job) => (job.claimId === undefined ? [] : [job.claimId]))
      })),
      /**
       * The time before which another node unseen is presumed dead: set once this node has itself been
       * seen for a whole lease (so an outage of the database never makes every node look dead to the first
       * one back).
       */
      othersSilentSince: (now: number) =>
        Effect.sync(() => {
          const lease = Duration.toMillis(timing.lease)
          return seenSince !== undefined && now - seenSince >= lease ? now - lease : undefined
        })
    }
  })
}) {}

/** The Settlement of this node, over the Ledger and the idempotency store provided to it. */
export const SettlementLive: Layer.Layer<Settlement, never, Ledger | IdempotencyStore> = Settlement.Default
