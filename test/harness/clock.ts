/** A Clock that reads `ahead` later than the real one: a sweeper's round as it will run once deadlines have passed. */
import { Clock, Duration, Effect } from "effect"

export const clockAhead = (ahead: Duration.DurationInput): Clock.Clock => {
  const live = Clock.make()
  const millis = Duration.toMillis(ahead)
  return {
    ...live,
    unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis() + millis,
    unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos() + BigInt(millis) * 1_000_000n,
    currentTimeMillis: Effect.sync(() => live.unsafeCurrentTimeMillis() + millis),
    currentTimeNanos: Effect.sync(() => live.unsafeCurrentTimeNanos() + BigInt(millis) * 1_000_000n)
  }
}

/** A Clock stopped at `at` (epoch milliseconds): a sweeper's round as it runs before any later deadline. */
export const clockAt = (at: number): Clock.Clock => {
  const live = Clock.make()
  return {
    ...live,
    unsafeCurrentTimeMillis: () => at,
    unsafeCurrentTimeNanos: () => BigInt(at) * 1_000_000n,
    currentTimeMillis: Effect.succeed(at),
    currentTimeNanos: Effect.succeed(BigInt(at) * 1_000_000n)
  }
}
