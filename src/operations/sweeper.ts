/**
 * Nothing lost on a crash: a request that died after its Spend and before its answer was stored leaves its
 * claim in flight. Once the claim's deadline has passed, the sweeper refunds what is left of the Spend and
 * releases the key, on start and every few seconds after. A refund that fails is tried again next round;
 * refunding what is left is idempotent.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { IdempotencyStore } from "../services/idempotency.js"
import { Ledger } from "../services/ledger.js"

export const SWEEP_INTERVAL = Duration.seconds(10)

export const sweepAbandonedClaims = Effect.gen(function*() {
  const store = yield* IdempotencyStore
  const ledger = yield* Ledger
  const abandoned = yield* store.abandoned(yield* Clock.currentTimeMillis)
  let refunded = 0
  for (const claim of abandoned) {
    if (claim.spendId !== null) refunded += yield* ledger.refundRemaining(claim.spendId, "abandoned-request", "sweeper")
    yield* store.release(claim.claimId)
  }
  if (abandoned.length > 0) yield* Effect.logWarning(`swept ${abandoned.length} abandoned requests, refunded ${refunded} Credits`)
  return { claims: abandoned.length, refunded }
})

export const SweeperLive = Layer.scopedDiscard(
  sweepAbandonedClaims.pipe(
    Effect.catchAll((error) => Effect.logWarning("sweep failed; trying again next round", error)),
    Effect.repeat(Schedule.spaced(SWEEP_INTERVAL)),
    Effect.forkScoped
  )
)
