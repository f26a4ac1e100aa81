/**
 * The real HTTP application on an ephemeral port, over a fresh test database (or with services swapped for
 * fakes), and a small black-box client that speaks plain HTTP to it with `fetch`.
 */
import { HttpServer } from "@effect/platform"
import { Effect, Layer } from "effect"
import { IdempotencyMemory } from "../../layers/idempotency/memory.js"
import { LedgerMemory, type MemoryAccount } from "../../layers/ledger/memory.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import type { HistoryAnswer } from "../../schema/history.js"
import { ServicesFromSql } from "../../src/app.js"
import { AppConfig } from "../../src/config.js"
import { HttpAppLive, nodeServer } from "../../src/http/server.js"
import { SettlementLive } from "../../src/operations/settlement.js"
import { Accounts } from "../../src/services/accounts.js"
import type { IdempotencyStore } from "../../src/services/idempotency.js"
import type { Ledger } from "../../src/services/ledger.js"
import { FaultyTestDatabase, TestDatabase } from "./database.js"
import { fakeScoringLayer, type ScriptEntry } from "./fake-scoring.js"
import { NoSignIn } from "./no-sign-in.js"

export const TEST_BASE_URL = "http://propscore.test"

export const TestConfig = Layer.succeed(AppConfig, AppConfig.make({ port: 0, publicBaseUrl: TEST_BASE_URL }))

/** The HTTP app on port 0 with the given services; exposes the `HttpServer` to find its address. */
export const serverWith = <ROut, E>(services: Layer.Layer<ROut | Ledger | IdempotencyStore, E, AppConfig>) =>
  HttpAppLive.pipe(
    Layer.provideMerge(nodeServer(0)),
    // The node's Settlement over the services' Ledger and idempotency store, as a serving process has.
    Layer.provideMerge(SettlementLive.pipe(Layer.provideMerge(services))),
    // Only what `services` left out: a server of fakes has no account store.
    Layer.provide(NoSignIn),
    Layer.provideMerge(TestConfig)
  )

/**
 * The application built from fakes: in-memory credentials, Ledger and idempotency store, and the scripted
 * Scoring fake. Deterministic and fast; `LedgerControl` switches the Ledger's faults.
 */
export const fakeServices = <ROut, E>(
  credentials: Layer.Layer<ROut, E>,
  options: {
    readonly accounts?: Record<string, MemoryAccount>
    readonly script?: Record<string, ScriptEntry>
    readonly histories?: Record<string, HistoryAnswer>
  } = {}
) =>
  Layer.mergeAll(
    credentials,
    LedgerMemory(options.accounts ?? {}),
    IdempotencyMemory,
    RateLimitsMemory,
    fakeScoringLayer(options.script ?? {}, options.histories ?? {})
  )

/** The real application over a fresh database. */
export const TestServer = serverWith(ServicesFromSql.pipe(Layer.provideMerge(TestDatabase)))

/** The real application over a fresh database the test can cut (`DatabaseFaultsTag`). */
export const FaultyTestServer = serverWith(ServicesFromSql.pipe(Layer.provideMerge(FaultyTestDatabase)))

export interface TestResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (undefined when it is not JSON). */
  readonly body: any
}

export interface RequestOptions {
  readonly method?: string
  readonly key?: string | undefined
  /** A value is sent as JSON; a string is sent as it is. */
  readonly body?: unknown
  readonly headers?: Record<string, string>
}

export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  return `http://127.0.0.1:${address.port}`
})

/** One HTTP request to the test server. */
export const request = (
  path: string,
  options: RequestOptions = {}
): Effect.Effect<TestResponse, never, HttpServer.HttpServer> =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    const headers: Record<string, string> = { ...options.headers }
    if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
    let body: string | undefined
    if (options.body !== undefined) {
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
      if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
        headers["content-type"] = "application/json"
      }
    }
    const response = yield* Effect.promise(() =>
      fetch(`${base}${path}`, {
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        headers,
        body: body ?? null
      })
    )
    const text = yield* Effect.promise(() => response.text())
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    return { status: response.status, headers: response.headers, text, body: parsed as any }
  })

/**
 * A new account with a key, through the real Accounts service. Its rate limit is lifted (a test's clock
 * may stand still, so its window would never end) unless the test asks for one: `rateLimitPerMinute:
 * "tier"` keeps the tier's default.
 */
export const newAccount = (
  options: {
    readonly credits?: number
    readonly tier?: "public" | "reseller"
    readonly rateLimitPerMinute?: number | "tier"
  } = {}
) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const account = yield* accounts.create({
      name: "Test account",
      tier: options.tier ?? "public",
      credits: options.credits ?? 10,
      rateLimitPerMinute: options.rateLimitPerMinute === "tier" ? undefined : options.rateLimitPerMinute ?? 1_000_000
    })
    const key = yield* accounts.issueKey(account.account_id, "test")
    return { accountId: account.account_id, apiKey: key.api_key, keyId: key.key_id }
  })
