/**
 * Nothing lost on a crash (SVC-4): a request that died after its Spend and before it was settled leaves
 * its Spend open, and, when it had an Idempotency-Key, its claim in flight. Once the deadline has passed,
 * the sweeper refunds what is left of every such Spend that no live node answers for (`Settlement`: this
 * node's answered calls still settling, and every Spend of another node still seen alive) and releases
 * every such key, on start and every few seconds after. A refund that fails is tried again next round;
 * refunding what is left is idempotent, so two nodes sweeping at once refund each Credit once.
 *
 * Nor on a stall: a call that gave up on the database's answer (503) and whose statement the database took
 * late has its Spend refunded and its key freed at the first round that reaches the database, before their
 * deadline; the round first records the attempts given up on (`Ledger.abandon`), so a statement arriving
 * later still records nothing.
 *
 * Each round also purges Idempotency-Keys whose 24-hour window has ended (a stored success older than
 * that, or a key released that long ago): a claim would take them over anyway, so the store keeps only
 * what can still be replayed or conflict.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { IdempotencyStore, REPLAY_WINDOW_MILLIS } from "../services/idempotency.js"
import { Ledger } from "../services/ledger.js"
import { Settlement } from "./settlement.js"

export const SWEEP_INTERVAL = Duration.seconds(5)
/** Spends refunded per round at most: a backlog drains over several rounds instead of one long one. */
export const SWEEP_BATCH = 500
/**
 * Rows deleted per statement, and statements per round at most. For Idempotency-Keys: up to 10,000 a
 * round, 1,000 a second at the 10-second interval, well above the keyed calls one node answers.
 */
export const PURGE_BATCH = 1000
export const PURGE_BATCHES_PER_ROUND = 10
/**
 * A key is purged this long after its window ended, not at once: a claim judges the window by its own
 * node's clock and the moment it started, so clocks a little apart or a slow claim never see a key vanish
 * that still had a replay or a conflict to answer.
 */
export const PURGE_MARGIN = Duration.minutes(5)
/** A node not seen for this long, holding no open Spend, is forgotten. */
export const NODE_RETENTION = Duration.days(1)

/**
 * Runs a bounded purge (one batch a run, returning how many rows it deleted) until a run deletes nothing,
 * or the round's share is used; the rest waits for the next round. Returns the rows deleted.
 */
export const purgeInBatches = <E, R>(batch: Effect.Effect<number, E, R>) =>
  Effect.gen(function*() {
    let purged = 0
    for (let run = 0; run < PURGE_BATCHES_PER_ROUND; run++) {
      const deleted = yield* batch
      purged += deleted
      if (deleted === 0) break
    }
    return purged
  })

export const sweepAbandoned = Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const ledger = yield* Ledger
  const settlement = yield* Settlement
  const now = yield* Clock.currentTimeMillis
  const unfinished = yield* settlement.unfinished
  // Attempts this node answered 503 for: whatever of them the database took late is undone now, not at the
  // deadline, and whatever arrives later is not recorded.
  const gaveUp = yield* settlement.gaveUpOn(now)
  if (gaveUp.length > 0) yield* ledger.abandon(gaveUp, now)
  // Spends first: a key released before its Spend is refunded could be retried and charged again while the
  // first charge still stands (it would be refunded a moment later, but the Balance would dip meanwhile).
  const othersSilentSince = yield* settlement.othersSilentSince(now)
  const overdue = yield* ledger.overdue({
    now,
    limit: SWEEP_BATCH,
    nodeId: settlement.nodeId,
    answered: unfinished.spendIds,
    othersSilentSince,
    gaveUp
  })
  let refunded = 0
  for (const spendId of overdue) {
    const { reason, traceId } = settlement.refundOf(spendId)
    refunded += yield* ledger.refundRemaining(spendId, reason, traceId)
  }
  // A key whose answer this node is still storing is not abandoned.
  // Keys past their deadline wait, as another node's Spends do, until this node has been seen for a lease: a
  // key freed before its Spend is refunded lets a retry be charged while that Spend still stands (an audit saw
  // it 10 s apart after a restart). The claims this node gave up on are its own: freed at once.
  const keysPastDeadline = othersSilentSince === undefined ? 0 : now
  const abandoned = (yield* store.abandoned(keysPastDeadline, gaveUp)).filter((claim) =>
    !unfinished.claimIds.includes(claim.claimId)
  )
  // A claim's Spend shares its deadline and was refunded above (or settled earlier): only the key is left.
  for (const claim of abandoned) yield* store.release(claim.claimId)
  if (overdue.length > 0 || abandoned.length > 0) {
    yield* Effect.logWarning(
      `swept ${overdue.length} unsettled Spends and ${abandoned.length} abandoned keys, refunded ${refunded} Credits`
    )
  }
  const purged = yield* purgeInBatches(
    store.purge(now - REPLAY_WINDOW_MILLIS - Duration.toMillis(PURGE_MARGIN), PURGE_BATCH)
  )
  if (purged > 0) yield* Effect.logDebug(`purged ${purged} Idempotency-Keys whose 24-hour window had ended`)
  yield* ledger.forgetNodes(now - Duration.toMillis(NODE_RETENTION))
  return { spends: overdue.length, claims: abandoned.length, refunded, purged }
})

export const SweeperLive = Layer.scopedDiscard(
  sweepAbandoned.pipe(
    // Whatever failed (the database away: a Ledger error, or a store's defect), the next round tries again.
    Effect.catchAllCause((cause) => Effect.logWarning("sweep failed; trying again next round", cause)),
    Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)),
    Effect.forkScoped
  )
)
