/**
 * The rate-limit headers of a counted response (CONTRACT.md "Limits and headers"): the IETF HTTPAPI
 * draft's `RateLimit-Policy` and `RateLimit` fields, and the legacy `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` most clients still read. The authentication middleware records
 * the request's count in the cell the front door gave the request; the front door writes the headers on
 * whatever response leaves, success or Problem Detail.
 */
import { FiberRef } from "effect"
import type { RateCount } from "../services/rate-limits.js"

export interface RateCountCell {
  current: RateCount | undefined
}

export const CurrentRateCount = FiberRef.unsafeMake<RateCountCell>({ current: undefined })

export const rateLimitHeaders = (count: RateCount): Record<string, string> => ({
  "ratelimit-policy": `"${count.policy}";q=${count.limit};w=${count.windowSeconds}`,
  "ratelimit": `"${count.policy}";r=${count.remaining};t=${count.resetSeconds}`,
  "ratelimit-limit": String(count.limit),
  "ratelimit-remaining": String(count.remaining),
  "ratelimit-reset": String(count.resetSeconds)
})
