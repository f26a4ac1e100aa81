/**
 * Authentication, then the rate count (LIM-1, AUTH-4), for every counted route (the API and `/mcp`): a
 * valid key counts against its Account, a missing or incorrect one against the count all such requests
 * share, so a burst of them may get 429 instead of 401. A key that cannot be checked (503
 * `call-not-started`) is not counted. The count is recorded for the front door's RateLimit headers.
 */
import { Effect, FiberRef } from "effect"
import { InvalidKey } from "../../schema/problems.js"
import { Credentials } from "../services/credentials.js"
import { RateLimits, type RateSubject, subjectOf } from "../services/rate-limits.js"
import { CurrentRateCount } from "./rate-limit-headers.js"

const counted = (subject: RateSubject) =>
  Effect.gen(function*() {
    const cell = yield* FiberRef.get(CurrentRateCount)
    const limits = yield* RateLimits
    return yield* limits.count(subject).pipe(
      Effect.tap((count) => {
        cell.current = count
      }),
      Effect.catchAll(({ count, problem }) => {
        cell.current = count
        return Effect.fail(problem)
      })
    )
  })

/** The caller of a bearer token ("" when none was sent), counted. */
export const authenticateAndCount = (token: string) =>
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const caller = token === ""
      ? Effect.fail(new InvalidKey({ detail: "Send the API key as `Authorization: Bearer <API_KEY>`." }))
      : credentials.authenticate(token)
    return yield* caller.pipe(
      Effect.tap((caller) => counted(subjectOf(caller))),
      Effect.tapErrorTag("InvalidKey", () => counted({ _tag: "Unauthenticated" }))
    )
  })

/** The token of an `Authorization: Bearer …` header; "" when there is none. */
export const bearerToken = (header: string | undefined): string => {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? "")
  return match?.[1]?.trim() ?? ""
}
