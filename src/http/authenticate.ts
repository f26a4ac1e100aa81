/**
 * Authentication, then the rate count (LIM-1, AUTH-4), for every counted route (the API and `/mcp`): a
 * valid credential counts against its Account, a missing or incorrect one against the count all such
 * requests share, so a burst of them may get 429 instead of 401; a connected app's token refused though its
 * connection is known in that connection's own count (`RefusedKnownToken`). A credential that cannot be
 * checked (503 `call-not-started`) is not counted. The count is recorded for the front door's RateLimit headers.
 *
 * Two credentials: an API key (everywhere), and on `/mcp` the access token of an app the account holder
 * connected by signing in. The token is confirmed by one Ledger read (VAL-3), which also finds it revoked
 * or its connection disconnected (AUTH-3), and must have been issued for the resource it is presented to
 * (RFC 8707 audience).
 */
import { Context, Data, Effect, FiberRef } from "effect"
import { CallNotStarted, InvalidKey, type RateLimited } from "../../schema/problems.js"
import { parseApiKey } from "../domain/api-key.js"
import { isAccessToken } from "../domain/oauth-token.js"
import { verifyAccessToken } from "../oauth/tokens.js"
import { type Caller, Credentials } from "../services/credentials.js"
import { Ledger } from "../services/ledger.js"
import { RateLimits, type RateSubject, subjectOf } from "../services/rate-limits.js"
import { CurrentRateCount } from "./rate-limit-headers.js"

const counted = (limits: RateLimits["Type"], subject: RateSubject) =>
  Effect.gen(function*() {
    const cell = yield* FiberRef.get(CurrentRateCount)
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

/**
 * A connected app's token refused though its connection is known (expired, or issued for another resource):
 * counted in that connection's own count of refused tokens (`RefusedToken`), not the count unknown
 * credentials share: there, 30 requests a minute with a made-up key from anyone turned every connected
 * assistant's expired token into a 429 without a challenge, and an MCP client refreshes its token on the 401
 * only (an assistant developer's audit, 2026-11-30). Nor the Account's: a leaked expired token would then use
 * up the Account's count, and its RateLimit headers show it (a review of the change).
 */
class RefusedKnownToken extends Data.TaggedError("RefusedKnownToken")<{
  readonly problem: InvalidKey
  readonly connectionId: string
}> {}

/** A connected app's access token, confirmed by the Ledger for `resource` (src/oauth/tokens.ts decides). */
const connectedApp = (
  token: string,
  resource: string | undefined
): Effect.Effect<Caller, InvalidKey | CallNotStarted | RefusedKnownToken, Ledger> => {
  if (resource === undefined) {
    return Effect.fail(
      new InvalidKey({ detail: "Access tokens from account sign-in are accepted on /mcp only; /v1 takes API keys." })
    )
  }
  return verifyAccessToken(token, resource).pipe(
    Effect.map((app): Caller => ({
      accountId: app.accountId,
      tier: app.tier,
      keyId: app.connectionId,
      connectionId: app.connectionId,
      rateLimitPerMinute: app.rateLimitPerMinute,
      pendingTerms: app.pendingTerms
    })),
    Effect.catchTags({
      LedgerUnreachable: () =>
        new CallNotStarted({
          detail: "The connection could not be confirmed because the Ledger is unreachable; nothing was charged."
        }),
      InvalidAccessToken: (refusal) => {
        const problem = new InvalidKey({
          detail: refusal.reason === "other-resource"
            ? `The access token was issued for ${refusal.issuedFor}, not ${resource}.`
            : refusal.reason === "expired"
            ? "The access token has expired: refresh it, or sign in again."
            : "The access token is not known: it was revoked, its connection was disconnected, or it was never issued. Sign in again."
        })
        return refusal.connectionId === undefined
          ? problem
          : new RefusedKnownToken({ problem, connectionId: refusal.connectionId })
      }
    })
  )
}

const notAcceptedOnMcp = new InvalidKey({
  detail:
    "The bearer token was not accepted: it is neither a current access token from account sign-in nor a current API key. Sign in again."
})

/**
 * An API key refused on `/mcp`: what was wrong with it (unknown, revoked) and both ways on. "Sign in again"
 * alone misled an agent holding a revoked key (an agent's audit, 2026-11-28).
 */
const keyNotAcceptedOnMcp = (refusal: InvalidKey) =>
  new InvalidKey({
    detail: `${refusal.detail} Send a current API key (an account holder issues one in the Portal), or sign in: ` +
      "the `WWW-Authenticate` header's `resource_metadata` leads an MCP client to this server's account sign-in."
  })

/**
 * The caller of a bearer token ("" when none was sent), counted. `resource` is the protected resource the
 * request is for, when it accepts connected apps' access tokens (`/mcp`); undefined elsewhere.
 */
export const authenticateAndCount = (token: string, resource?: string) =>
  Effect.flatMap(
    Effect.context<AuthenticationServices>(),
    (services) => authenticateAndCountWith(services)(token, resource)
  )

/** What authenticating and counting a request reads. */
export type AuthenticationServices = Credentials | RateLimits | Ledger

/**
 * `authenticateAndCount` over services taken once (the API's middleware): nothing is provided to the
 * request for it, which would copy all of the request's services on every call.
 */
export const authenticateAndCountWith =
  (services: Context.Context<AuthenticationServices>) =>
  (token: string, resource?: string): Effect.Effect<Caller, InvalidKey | CallNotStarted | RateLimited> => {
    const credentials = Context.get(services, Credentials)
    const limits = Context.get(services, RateLimits)
    const caller: Effect.Effect<Caller, InvalidKey | CallNotStarted | RefusedKnownToken> = token === ""
      ? Effect.fail(
        new InvalidKey({
          detail: resource === undefined
            ? "Send the API key as `Authorization: Bearer <API_KEY>`."
            // On /mcp an assistant may sign in instead (an agent audit: the 401 spoke of keys only).
            : "Send an API key as `Authorization: Bearer <API_KEY>`, or sign in: the `WWW-Authenticate` header's " +
              "`resource_metadata` leads an MCP client to this server's account sign-in (OAuth)."
        })
      )
      : isAccessToken(token)
      ? connectedApp(token, resource).pipe(Effect.provideService(Ledger, Context.get(services, Ledger)))
      : resource === undefined
      ? credentials.authenticate(token)
      : credentials.authenticate(token).pipe(
        Effect.catchTag(
          "InvalidKey",
          (refusal) => Effect.fail(parseApiKey(token) === undefined ? notAcceptedOnMcp : keyNotAcceptedOnMcp(refusal))
        )
      )
    return caller.pipe(
      Effect.tap((caller) => counted(limits, subjectOf(caller))),
      Effect.tapErrorTag("InvalidKey", () => counted(limits, { _tag: "Unauthenticated" })),
      Effect.catchTag(
        "RefusedKnownToken",
        ({ connectionId, problem }) =>
          counted(limits, { _tag: "RefusedToken", connectionId }).pipe(Effect.zipRight(Effect.fail(problem)))
      )
    )
  }

/** The token of an `Authorization: Bearer …` header; "" when there is none. */
export const bearerToken = (header: string | undefined): string => {
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? "")
  return match?.[1]?.trim() ?? ""
}
