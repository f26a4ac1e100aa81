/**
 * Which count a refused credential is counted in (LIM-1, AUTH-4): a missing or unknown one in the count all
 * such requests share; a connected app's token refused though its Account is known (expired, or issued for
 * another resource) in its Account's, and always answered 401, which is what an MCP client refreshes on.
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

it.effect("AUTH-4 LIM-1: a connected app's expired token, after the shared count of unknown credentials is spent, is still 401 'expired' (counted against its Account), not 429", () =>
  Effect.gen(function*() {
    for (let i = 0; i < UNAUTHENTICATED_LIMIT; i++) expect((yield* attempt("nope")).tag).toBe("InvalidKey")
    const spent = yield* attempt("nope")
    expect(spent.tag).toBe("RateLimited")
    expect(spent.counted?.policy).toBe("unauthenticated")
    // The Account's limit is 2: its third expired call is counted there too, and still answered 401.
    for (const remaining of [1, 0, 0]) {
      const expired = yield* attempt(newAccessToken())
      expect(expired).toEqual({
        tag: "InvalidKey",
        detail: "The access token has expired: refresh it, or sign in again.",
        counted: expect.objectContaining({ policy: "account", remaining })
      })
    }
  }).pipe(Effect.provide(withLedgerFinding(app(new Date(0))))))

it.effect("AUTH-4 LIM-1: a token issued for another resource is 401 naming it, counted against its Account; an unknown one in the shared count", () =>
  Effect.gen(function*() {
    const other = yield* attempt(newAccessToken())
    expect(other).toEqual({
      tag: "InvalidKey",
      detail: `The access token was issued for http://elsewhere/mcp, not ${MCP}.`,
      counted: expect.objectContaining({ policy: "account" })
    })
    expect((yield* attempt("nope")).counted?.policy).toBe("unauthenticated")
  }).pipe(Effect.provide(withLedgerFinding(app(new Date(8.64e15), "http://elsewhere/mcp")))))
