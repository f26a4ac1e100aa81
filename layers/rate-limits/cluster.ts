/**
 * Rate counts of `serve --workers N` without `REDIS_URL`: the memory store lives in the primary process and
 * every worker asks it (one IPC round trip a request), so an Account's limit holds across the whole
 * service exactly as with one process, not once per worker. With `REDIS_URL` the workers use Redis.
 */
import { RateLimiter } from "@effect/experimental"
import { Duration, Effect, Layer, Runtime } from "effect"
import { answerWorkers, askPrimary } from "../../src/cluster/ipc.js"
import { RateLimitsLive } from "./live.js"

interface FixedWindowQuestion {
  readonly key: string
  readonly tokens: number
  readonly refillRateMillis: number
  readonly limit: number | undefined
}

interface TokenBucketQuestion {
  readonly key: string
  readonly tokens: number
  readonly limit: number
  readonly refillRateMillis: number
  readonly allowOverflow: boolean
}

const FIXED_WINDOW = "rate-limits/fixed-window"
const TOKEN_BUCKET = "rate-limits/token-bucket"

const storeError = (error: { readonly message: string }) =>
  new RateLimiter.RateLimitStoreError({ message: `the primary process's rate counts: ${error.message}` })

/** A worker's store: the primary's counts. */
const storeInPrimary = Layer.succeed(
  RateLimiter.RateLimiterStore,
  RateLimiter.RateLimiterStore.of({
    fixedWindow: ({ refillRate, ...options }) =>
      askPrimary<readonly [number, number]>(
        FIXED_WINDOW,
        { ...options, refillRateMillis: Duration.toMillis(refillRate) } satisfies FixedWindowQuestion
      ).pipe(Effect.mapError(storeError)),
    tokenBucket: ({ refillRate, ...options }) =>
      askPrimary<number>(
        TOKEN_BUCKET,
        { ...options, refillRateMillis: Duration.toMillis(refillRate) } satisfies TokenBucketQuestion
      ).pipe(Effect.mapError(storeError))
  })
)

/** A cluster worker's RateLimits: counted by the primary (`answerRateCounts`). */
export const RateLimitsClusterWorker = RateLimitsLive.pipe(Layer.provide(storeInPrimary))

/** In the primary: holds the counts in its memory and answers the workers' questions, for the scope's life. */
export const answerRateCounts = Effect.gen(function*() {
  const store = yield* RateLimiter.RateLimiterStore
  const run = Runtime.runPromise(yield* Effect.runtime<never>())
  yield* Effect.acquireRelease(
    Effect.sync(() =>
      answerWorkers({
        [FIXED_WINDOW]: (body) => {
          const { refillRateMillis, ...options } = body as FixedWindowQuestion
          return run(store.fixedWindow({ ...options, refillRate: Duration.millis(refillRateMillis) }))
        },
        [TOKEN_BUCKET]: (body) => {
          const { refillRateMillis, ...options } = body as TokenBucketQuestion
          return run(store.tokenBucket({ ...options, refillRate: Duration.millis(refillRateMillis) }))
        }
      })
    ),
    (stop) => Effect.sync(stop)
  )
}).pipe(Effect.provide(RateLimiter.layerStoreMemory))
