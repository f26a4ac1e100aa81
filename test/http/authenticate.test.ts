/**
 * Which count a refused credential is counted in (LIM-1, AUTH-4): a missing or unknown one in the count all
 * such requests share; a connected app's token refused though its connection is known (expired, or issued for
 * another resource) in that connection's own count, so that neither anyone's made-up keys (the shared count)
 * nor a leaked expired token (the Account's) can turn its 401, which an MCP client refreshes on, into a 429.
 */
import { expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { newAccessToken } from "../../src/domain/oauth-token.js"
import { authenticateAndCountWith, type AuthenticationServices } from "../../src/http/authenticate.js"
import { CurrentRateCount, type RateCountCell } from "../../src/http/rate-limit-headers.js"
import { type ConnectedApp, Ledger } from "../../src/services/ledger.js"
import { UNAUTHENTICATED_LIMIT } from "../../src/services/rate-limits.js"

const MCP = "http://localhost/mcp"

/** A connected app whose token the Ledger finds: expired at the TestClock's start, for `resource`. */
const app = (expiresAt: Date, resource = MCP): ConnectedApp => ({
  accountId: "acct_connected",
  connectionId: "conn_1",
  clientId: "client_1",
  resource,
  expiresAt,
  tier: "public",
  rateLimitPerMinute: 2,
  pendingTerms: null
})

const withLedgerFinding = (found: ConnectedApp) =>
  Layer.mergeAll(
    makeCredentialsMemory([{ accountId: "acct_key", tier: "public" }]).layer,
    RateLimitsMemory,
    // (Only the one read a token's check makes: the rest of the Ledger is not reached here.)
    Layer.succeed(Ledger, { confirmConnection: () => Effect.succeed(Option.some(found)) } as unknown as Ledger["Type"])
  )

/** Authenticates `token` for `/mcp`: its failure's tag and detail, and the count it was counted in. */
const attempt = (token: string) =>
  Effect.gen(function*() {
    const services = yield* Effect.context<AuthenticationServices>()
    const cell: RateCountCell = { current: undefined }
    const refused = yield* authenticateAndCountWith(services)(token, MCP)
      .pipe(Effect.flip, Effect.locally(CurrentRateCount, cell))
    return { tag: refused._tag, detail: refused.detail, counted: cell.current }
  })

it.effect("AUTH-4 LIM-1: a connected app's expired token, after the shared count of unknown credentials is spent, is still 401 'expired', counted in its connection's own count (not its Account's)", () =>
  Effect.gen(function*() {
    for (let i = 0; i < UNAUTHENTICATED_LIMIT; i++) expect((yield* attempt("nope")).tag).toBe("InvalidKey")
    const spent = yield* attempt("nope")
    expect(spent.tag).toBe("RateLimited")
    expect(spent.counted?.policy).toBe("unauthenticated")
    // The Account's limit is 2, and is not touched: the refused token has a count of its own.
    for (let i = 0; i < UNAUTHENTICATED_LIMIT; i++) {
      expect(yield* attempt(newAccessToken())).toEqual({
        tag: "InvalidKey",
        detail: "The access token has expired: refresh it, or sign in again.",
        counted: expect.objectContaining({ policy: "refused-token", remaining: UNAUTHENTICATED_LIMIT - 1 - i })
      })
    }
    // Past its own count, the token is rate limited like any other.
    const flooded = yield* attempt(newAccessToken())
    expect(flooded.tag).toBe("RateLimited")
    expect(flooded.detail).toMatch(/with this connection's refused access token/)
  }).pipe(Effect.provide(withLedgerFinding(app(new Date(0))))))

it.effect("AUTH-4 LIM-1: a token issued for another resource is 401 naming it, counted in its connection's count; an unknown one in the shared count", () =>
  Effect.gen(function*() {
    const other = yield* attempt(newAccessToken())
    expect(other).toEqual({
      tag: "InvalidKey",
      detail: `The access token was issued for http://elsewhere/mcp, not ${MCP}.`,
      counted: expect.objectContaining({ policy: "refused-token" })
    })
    expect((yield* attempt("nope")).counted?.policy).toBe("unauthenticated")
  }).pipe(Effect.provide(withLedgerFinding(app(new Date(8.64e15), "http://elsewhere/mcp")))))
