/**
 * Housekeeping of the sign-in tables, off the request path: on start and every minute, on every node.
 * Authorization requests go once expired. Codes and tokens go 30 days past their expiry: until then a used
 * code or a rotated refresh token presented again is recognised and revokes its grant (src/oauth/tokens.ts), so
 * that window is kept as long as a refresh token lives when it is issued. A replay later than that is
 * refused as unknown, without the revocation. Grant revocations go after the same 30 days: they matter
 * only to a token request racing the revocation.
 */
import { Clock, Duration, Effect, Layer, Schedule } from "effect"
import { REFRESH_TOKEN_LIFETIME_SECONDS } from "../oauth/tokens.js"
import { Connections } from "../services/connections.js"
import { PURGE_BATCH, purgeInBatches } from "./sweeper.js"

export const HOUSEKEEPING_INTERVAL = Duration.minutes(1)

export const purgeExpiredSignIns = Effect.gen(function*() {
  const connections = yield* Connections
  const now = yield* Clock.currentTimeMillis
  const purged = yield* purgeInBatches(connections.purgeExpired({
    requestsBefore: new Date(now),
    codesAndTokensBefore: new Date(now - REFRESH_TOKEN_LIFETIME_SECONDS * 1000),
    limit: PURGE_BATCH
  }))
  if (purged > 0) yield* Effect.logDebug(`purged ${purged} expired sign-in rows`)
  return purged
})

export const HousekeepingLive = Layer.scopedDiscard(
  purgeExpiredSignIns.pipe(
    // A failure (the database away, say) only postpones the purge: the next round tries again.
    Effect.catchAllCause((cause) => Effect.logWarning("sign-in housekeeping failed; trying again next round", cause)),
    Effect.repeat(Schedule.spaced(HOUSEKEEPING_INTERVAL)),
    Effect.forkScoped
  )
)
