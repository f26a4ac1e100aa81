/**
 * Rate limits (LIM-1…4): requests are counted per Account across every endpoint, validate included, never
 * per key; requests with a missing or incorrect key share one count across all senders. Over the limit the
 * request is refused with 429 `rate-limited` before anything that charges. The count lives in the
 * `@effect/experimental` RateLimiter's store: in memory on one node (the primary's memory for the workers of
 * `serve --workers N`), in Redis when `REDIS_URL` is set.
 */
import { Context, type Effect } from "effect"
import type { RateLimited } from "../../schema/problems.js"
import type { Tier } from "./accounts.js"
import type { Caller } from "./credentials.js"

/** Requests per minute by tier (LIM-2); an Account's own `rate_limit_per_minute` overrides its tier's. */
export const TIER_LIMITS: Record<Tier, number> = { public: 60, reseller: 300 }
/** The one count shared by every request without a valid key (AUTH-4). */
export const UNAUTHENTICATED_LIMIT = 30
export const WINDOW_SECONDS = 60

/** Password attempts per email per minute on the sign-in page, whatever request they come with. */
export const SIGN_IN_ATTEMPTS_PER_MINUTE = 10

export type RateSubject =
  | { readonly _tag: "Account"; readonly accountId: string; readonly limit: number }
  | { readonly _tag: "Unauthenticated" }
  | { readonly _tag: "SignIn"; readonly email: string }
  /**
   * A connected app's access token refused though its connection is known (expired, or for another resource):
   * its own count, of UNAUTHENTICATED_LIMIT, neither the shared one (which anyone's made-up keys fill) nor the
   * Account's (which a leaked expired token would then fill).
   */
  | { readonly _tag: "RefusedToken"; readonly connectionId: string }

export const subjectOf = (caller: Caller): RateSubject => ({
  _tag: "Account",
  accountId: caller.accountId,
  limit: caller.rateLimitPerMinute ?? TIER_LIMITS[caller.tier]
})

/** One counted request: what the RateLimit headers report. */
export interface RateCount {
  /** The policy's name in `RateLimit-Policy` and `RateLimit`. */
  readonly policy: "account" | "unauthenticated" | "sign-in" | "refused-token"
  readonly limit: number
  readonly windowSeconds: number
  readonly remaining: number
  /** Whole seconds until the count is back to the full limit. */
  readonly resetSeconds: number
}

export class RateLimits extends Context.Tag("propscore/RateLimits")<RateLimits, {
  /**
   * Counts one request of `subject`: its count after it, or `RateLimited` (with the count, for the headers)
   * when the limit is reached; a refused request is not counted.
   */
  readonly count: (subject: RateSubject) => Effect.Effect<RateCount, RateLimitedWithCount>
}>() {}

export interface RateLimitedWithCount {
  readonly problem: RateLimited
  readonly count: RateCount
}
