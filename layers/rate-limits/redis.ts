/**
 * Counts shared by every node through Redis (`REDIS_URL`, `redis://` or `rediss://` for TLS), with the RateLimiter's own Redis store (atomic
 * Lua scripts). A Redis outage neither opens the gates nor refuses the service: while Redis does not
 * answer within 250 ms, each node counts in its own memory (so an Account gets at most its limit per node
 * instead of per service), logs the switch once, and goes back to Redis as soon as it answers again.
 * Nothing about the Balance depends on the store, so an outage never charges anyone.
 */
import { RateLimiter } from "@effect/experimental"
import * as RedisStore from "@effect/experimental/RateLimiter/Redis"
import { Duration, Effect, Exit, Layer, Redacted, Schedule, Scope } from "effect"
import { RateLimitsLive } from "./live.js"

export const REDIS_TIMEOUT = Duration.millis(250)

const redisOptions = (url: string) => {
  const parsed = new URL(url)
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    db: Number(parsed.pathname.slice(1) || 0),
    ...(parsed.protocol === "rediss:" ? { tls: { servername: parsed.hostname } } : {}),
    // Fail fast while disconnected instead of queueing: the memory fallback answers meanwhile.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1_000,
    retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
    prefix: "propscore:ratelimit:"
  }
}

const storeWithFallback = (url: Redacted.Redacted) =>
  Layer.scoped(
    RateLimiter.RateLimiterStore,
    Effect.gen(function*() {
      // The client's own scope: its `quit()` rejects while Redis is down, which must not fail the shutdown.
      const clientScope = yield* Scope.make()
      yield* Effect.addFinalizer(() =>
        Scope.close(clientScope, Exit.void).pipe(Effect.catchAllCause(() => Effect.void))
      )
      const redis = yield* RedisStore.make(redisOptions(Redacted.value(url))).pipe(Scope.extend(clientScope))
      const memory = yield* RateLimiter.RateLimiterStore.pipe(Effect.provide(RateLimiter.layerStoreMemory))
      let degraded = false
      const withFallback = <A>(
        primary: Effect.Effect<A, RateLimiter.RateLimiterError>,
        secondary: Effect.Effect<A, RateLimiter.RateLimiterError>
      ) =>
        primary.pipe(
          Effect.timeoutFail({
            duration: REDIS_TIMEOUT,
            onTimeout: () => new RateLimiter.RateLimitStoreError({ message: "Redis did not answer in time" })
          }),
          Effect.tap(() => {
            if (!degraded) return Effect.void
            degraded = false
            return Effect.logWarning("Redis answers again: rate limits are shared across nodes again")
          }),
          Effect.catchIf((error) => error.reason === "StoreError", (error) => {
            const note = degraded
              ? Effect.void
              : Effect.logError("Redis unreachable: rate limits are counted per node until it answers", error)
            degraded = true
            return Effect.zipRight(note, secondary)
          })
        )
      // Wait (briefly) for the first connection, so a fresh node does not start on its memory counts.
      yield* redis.tokenBucket({
        key: "ready",
        tokens: 0,
        limit: 1,
        refillRate: Duration.seconds(1),
        allowOverflow: false
      }).pipe(
        Effect.retry(Schedule.spaced(Duration.millis(50)).pipe(Schedule.upTo(Duration.seconds(2)))),
        Effect.catchAll((error) =>
          Effect.logError("Redis unreachable at start: rate limits are counted per node", error)
        )
      )
      return RateLimiter.RateLimiterStore.of({
        fixedWindow: (options) => withFallback(redis.fixedWindow(options), memory.fixedWindow(options)),
        tokenBucket: (options) => withFallback(redis.tokenBucket(options), memory.tokenBucket(options))
      })
    })
  )

export const RateLimitsRedis = (url: Redacted.Redacted) => RateLimitsLive.pipe(Layer.provide(storeWithFallback(url)))
