/**
 * The `RateLimits` service on `@effect/experimental`'s RateLimiter, fixed-window algorithm: each request
 * takes one token and pushes the window's end out by window/limit, so a full burst waits one whole window
 * and a steady pace never does. Whatever store is provided holds the counts (memory or Redis).
 */
import { RateLimiter } from "@effect/experimental"
import { Duration, Effect, Layer } from "effect"
import { RateLimited } from "../../schema/problems.js"
import {
  type RateCount,
  RateLimits,
  type RateSubject,
  SIGN_IN_ATTEMPTS_PER_MINUTE,
  UNAUTHENTICATED_LIMIT,
  WINDOW_SECONDS
} from "../../src/services/rate-limits.js"

const wholeSeconds = (duration: Duration.Duration) => Math.max(1, Math.ceil(Duration.toMillis(duration) / 1000))

export const RateLimitsLive = Layer.effect(
  RateLimits,
  Effect.gen(function*() {
    const limiter = yield* RateLimiter.RateLimiter
    return RateLimits.of({
      count: (subject: RateSubject) => {
        const { key, limit, policy } = subject._tag === "Account"
          ? { policy: "account" as const, limit: subject.limit, key: `account:${subject.accountId}` }
          : subject._tag === "SignIn"
          ? { policy: "sign-in" as const, limit: SIGN_IN_ATTEMPTS_PER_MINUTE, key: `sign-in:${subject.email}` }
          : subject._tag === "RefusedToken"
          ? {
            policy: "refused-token" as const,
            limit: UNAUTHENTICATED_LIMIT,
            key: `refused-token:${subject.connectionId}`
          }
          : { policy: "unauthenticated" as const, limit: UNAUTHENTICATED_LIMIT, key: "unauthenticated" }
        return limiter.consume({
          algorithm: "fixed-window",
          onExceeded: "fail",
          window: Duration.seconds(WINDOW_SECONDS),
          limit,
          key
        }).pipe(
          Effect.map((result): RateCount => ({
            policy,
            limit,
            windowSeconds: WINDOW_SECONDS,
            remaining: result.remaining,
            resetSeconds: wholeSeconds(result.resetAfter)
          })),
          Effect.catchAll((error) => {
            // The store never fails here: the Redis store falls back to memory on its own (redis.ts).
            if (error.reason === "StoreError") return Effect.die(error)
            const retryAfter = wholeSeconds(error.retryAfter)
            return Effect.fail({
              problem: new RateLimited({
                detail: `More than ${limit} ${
                  policy === "sign-in" ? "sign-in attempts" : "requests"
                } in ${WINDOW_SECONDS} seconds${
                  policy === "account"
                    ? " for this Account"
                    : policy === "sign-in"
                    ? " for this email"
                    : policy === "refused-token"
                    ? " with this connection's refused access token (refresh it, or sign in again)"
                    : " without a valid API key"
                }. Retry after ${retryAfter} seconds${
                  // (A sign-in is never charged: "nothing was charged" read oddly on the Portal's sign-in page, a
                  // Portal audit, 2026-11-30.)
                  policy === "sign-in" ? "" : "; nothing was charged"}.`,
                retry_after: retryAfter
              }),
              count: { policy, limit, windowSeconds: WINDOW_SECONDS, remaining: 0, resetSeconds: retryAfter }
            })
          })
        )
      }
    })
  })
).pipe(Layer.provide(RateLimiter.layer))

/** Counts held by this node alone: the default, and the test harness's store (it follows the Effect Clock). */
export const RateLimitsMemory = RateLimitsLive.pipe(Layer.provide(RateLimiter.layerStoreMemory))
