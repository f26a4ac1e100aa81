import { expect, layer } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { Accounts } from "../../src/services/accounts.js"
import { Credentials } from "../../src/services/credentials.js"
import { Ledger } from "../../src/services/ledger.js"
import { TestDatabase } from "../harness/database.js"
import type { ScriptEntry } from "../harness/fake-scoring.js"
import { fakeScoringLayer } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { fakeServices, newAccount, request, serverWith, TEST_BASE_URL, type TestResponse } from "../harness/server.js"

const script: Record<string, ScriptEntry> = { "42 Elm St": { answer: { _tag: "Outcome", outcome } } }
const predict = (key: string, headers: Record<string, string> = {}) =>
  request("/v1/predict", { key, body: { address: "42 Elm St" }, headers })

const rateHeaders = (response: TestResponse) => ({
  policy: response.headers.get("ratelimit-policy"),
  state: response.headers.get("ratelimit"),
  limit: response.headers.get("ratelimit-limit"),
  remaining: response.headers.get("ratelimit-remaining"),
  reset: response.headers.get("ratelimit-reset")
})

// Callers at their tier's default (rateLimitPerMinute null), except where a test sets the operator's own.
const credentials = makeCredentialsMemory([
  { accountId: "acct_public", tier: "public", rateLimitPerMinute: null },
  { accountId: "acct_shared", tier: "reseller", rateLimitPerMinute: 4 },
  { accountId: "acct_shared", tier: "reseller", rateLimitPerMinute: 4 },
  { accountId: "acct_other", tier: "public", rateLimitPerMinute: null },
  { accountId: "acct_keyed", tier: "public", rateLimitPerMinute: 1 },
  { accountId: "acct_terms", tier: "public", pendingTerms: "2026-11" },
  { accountId: "acct_reseller", tier: "reseller", rateLimitPerMinute: null }
])
const key = (i: number) => credentials.keys[i]!.apiKey
const services = fakeServices(credentials.layer, {
  accounts: {
    acct_public: { balance: 100 },
    acct_shared: { balance: 100 },
    acct_other: { balance: 100 },
    acct_keyed: { balance: 10 },
    acct_terms: { balance: 10 },
    acct_reseller: { balance: 1000 }
  },
  script,
  histories: {
    "42 Elm St": {
      property_id: "p",
      address: "42 ELM ST",
      chain_of_title: [],
      flips: [],
      listing: { status: "unknown" },
      permits: []
    }
  }
})

// Under the TestClock: the minute only passes when a test moves the clock.
layer(serverWith(services), { timeout: "120 seconds" })("rate limits", (it) => {
  it.effect("LIM-2 LIM-3 LIM-4 ERR-6: 61 rapid predicts from one Public Account: 60 answers, one 429 with Retry-After = retry_after, no charge for it", () =>
    Effect.gen(function*() {
      const responses: Array<TestResponse> = []
      for (let i = 0; i < 61; i++) responses.push(yield* predict(key(0)))
      expect(responses.slice(0, 60).every((r) => r.status === 200)).toBe(true)
      const refused = responses[60]!
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ type: `${TEST_BASE_URL}/docs/errors/rate-limited`, status: 429 })
      expect(refused.headers.get("retry-after")).toBe(String(refused.body.retry_after))
      expect(refused.body.retry_after).toBe(60)
      // Every counted response carries the draft's fields and the legacy trio.
      expect(rateHeaders(responses[0]!)).toEqual({
        policy: `"account";q=60;w=60`,
        state: `"account";r=59;t=1`,
        limit: "60",
        remaining: "59",
        reset: "1"
      })
      expect(rateHeaders(responses[59]!)).toMatchObject({ state: `"account";r=0;t=60`, remaining: "0" })
      expect(rateHeaders(refused)).toEqual({
        policy: `"account";q=60;w=60`,
        state: `"account";r=0;t=60`,
        limit: "60",
        remaining: "0",
        reset: "60"
      })
      // The Ledger shows sixty Spends and nothing for the 429.
      const ledger = yield* Ledger
      const entries = yield* ledger.entries("acct_public")
      expect(entries.filter((e) => e.kind === "spend")).toHaveLength(60)
      expect(yield* reconciles("acct_public")).toBe(40)
      // Once Retry-After has passed, the Account is served again.
      yield* TestClock.adjust("60 seconds")
      expect((yield* predict(key(0))).status).toBe(200)
    }))

  it.effect("LIM-1: one count per Account across every endpoint (validate too) and every key, never per key", () =>
    Effect.gen(function*() {
      expect((yield* request("/v1/validate", { key: key(1), body: { address: "42 Elm St" } })).status).toBe(200)
      expect((yield* request("/v1/history", { key: key(2), body: { address: "42 Elm St" } })).status).toBe(200)
      expect((yield* predict(key(1))).status).toBe(200)
      // A body refused with 400 is still a counted request.
      const invalid = yield* request("/v1/predict", { key: key(2), body: { address: "" } })
      expect(invalid.status).toBe(400)
      expect(rateHeaders(invalid).remaining).toBe("0")
      const fifth = yield* request("/v1/validate", { key: key(2), body: { address: "42 Elm St" } })
      expect(fifth.status).toBe(429)
      expect(rateHeaders(fifth).policy).toBe(`"account";q=4;w=60`)
      // Another Account has its own count.
      expect((yield* predict(key(3))).status).toBe(200)
    }))

  it.effect("LIM-2: a Reseller Account gets 300 requests a minute by default", () =>
    Effect.gen(function*() {
      const first = yield* request("/v1/validate", { key: key(6), body: { address: "42 Elm St" } })
      expect(rateHeaders(first)).toMatchObject({ policy: `"account";q=300;w=60`, remaining: "299" })
    }))

  it.effect("AUTH-4 LIM-2: requests without a valid key share one count of 30 across all senders, then get 429 instead of 401", () =>
    Effect.gen(function*() {
      const senders = [
        () => request("/v1/predict", { body: { address: "42 Elm St" } }),
        () => request("/v1/validate", { key: "ps_nosuchkeyid_secretsecretsecret", body: { address: "42 Elm St" } }),
        () => request("/v1/history", { key: "not-a-propscore-key", body: { address: "42 Elm St" } })
      ]
      const responses: Array<TestResponse> = []
      for (let i = 0; i < 31; i++) responses.push(yield* senders[i % 3]!())
      expect(responses.slice(0, 30).map((r) => r.status)).toEqual(Array(30).fill(401))
      expect(rateHeaders(responses[0]!)).toMatchObject({ policy: `"unauthenticated";q=30;w=60`, remaining: "29" })
      const refused = responses[30]!
      expect(refused.status).toBe(429)
      expect(refused.headers.get("retry-after")).toBe(String(refused.body.retry_after))
      // A valid key is counted against its own Account, not the shared count.
      expect((yield* predict(key(3))).status).toBe(200)
      yield* TestClock.adjust("60 seconds")
      expect((yield* senders[0]!()).status).toBe(401)
    }))

  it.effect("LIM-3: the Idempotency-Key of a refused request stays valid: after Retry-After it runs and is charged once", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      expect((yield* predict(key(4))).status).toBe(200)
      const refused = yield* predict(key(4), { "idempotency-key": "after-the-429" })
      expect(refused.status).toBe(429)
      expect(yield* ledger.balance("acct_keyed")).toBe(9)
      yield* TestClock.adjust(`${refused.body.retry_after} seconds`)
      const retried = yield* predict(key(4), { "idempotency-key": "after-the-429" })
      expect(retried.status).toBe(200)
      expect(retried.headers.get("idempotent-replayed")).toBeNull()
      expect(yield* reconciles("acct_keyed")).toBe(8)
    }))

  it.effect("AUTH-5: an Account that has not accepted the current terms gets 403 on every Metered Call, with nothing charged; validate still answers", () =>
    Effect.gen(function*() {
      for (
        const [path, body] of [
          ["/v1/predict", { address: "42 Elm St" }],
          ["/v1/predict/batch", { properties: [{ address: "42 Elm St" }] }],
          ["/v1/history", { address: "42 Elm St" }]
        ] as const
      ) {
        const response = yield* request(path, { key: key(5), body })
        expect(response.status).toBe(403)
        expect(response.body).toMatchObject({
          type: `${TEST_BASE_URL}/docs/errors/terms-not-accepted`,
          terms_version: "2026-11"
        })
      }
      expect((yield* request("/v1/validate", { key: key(5), body: { address: "42 Elm St" } })).status).toBe(200)
      expect(yield* reconciles("acct_terms")).toBe(10)
    }))

  it.effect("documentation routes are not counted and carry no rate-limit headers", () =>
    Effect.gen(function*() {
      const docs = yield* request("/openapi.json")
      expect(docs.status).toBe(200)
      expect(docs.headers.get("ratelimit-policy")).toBeNull()
      expect(docs.headers.get("ratelimit")).toBeNull()
    }))
})

// The real Accounts, credentials, Ledger and idempotency store (scripted scoring): what the operator changes
// reaches the counts and the terms check.
const onDatabase = serverWith(
  Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, RateLimitsMemory).pipe(
    Layer.provideMerge(TestDatabase),
    Layer.merge(fakeScoringLayer(script))
  )
)

layer(onDatabase, { timeout: "120 seconds" })("rate limits and terms on the database", (it) => {
  const refresh = Effect.flatMap(Credentials, (credentials) => credentials.refresh)

  it.effect("LIM-1 LIM-2: the operator's per-Account rate limit applies; issuing or revoking keys does not reset the count", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { accountId, apiKey, keyId } = yield* newAccount({ rateLimitPerMinute: "tier" })
      const validate = (k: string) => request("/v1/validate", { key: k, body: { address: "1 Main St" } })
      expect(rateHeaders(yield* validate(apiKey)).policy).toBe(`"account";q=60;w=60`)
      const updated = yield* accounts.update(accountId, { rateLimitPerMinute: 3 })
      expect(updated.rate_limit_per_minute).toBe(3)
      yield* refresh
      // One request counted already: two more, then 429.
      expect((yield* validate(apiKey)).status).toBe(200)
      expect((yield* validate(apiKey)).status).toBe(200)
      expect((yield* validate(apiKey)).status).toBe(429)
      const second = yield* accounts.issueKey(accountId, "second")
      expect((yield* validate(second.api_key)).status).toBe(429)
      yield* accounts.revokeKey(keyId)
      yield* refresh
      expect((yield* validate(second.api_key)).status).toBe(429)
      // Back to the tier's default: the count so far still stands, under the larger limit.
      yield* accounts.update(accountId, { rateLimitPerMinute: null })
      yield* refresh
      const after = yield* validate(second.api_key)
      expect(after.status).toBe(200)
      expect(rateHeaders(after).policy).toBe(`"account";q=60;w=60`)
    }))

  it.effect("LIM-4: a 429 changes nothing about the Account: Balance, tier, limits and terms acceptance stay as they were", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { accountId, apiKey } = yield* newAccount({ credits: 5, rateLimitPerMinute: 1 })
      expect((yield* request("/v1/validate", { key: apiKey, body: { address: "1 Main St" } })).status).toBe(200)
      const before = yield* accounts.show(accountId)
      for (let i = 0; i < 3; i++) {
        expect((yield* request("/v1/predict", { key: apiKey, body: { address: "42 Elm St" } })).status).toBe(429)
      }
      expect(yield* accounts.show(accountId)).toEqual(before)
      expect(yield* reconciles(accountId)).toBe(5)
    }))

  it.effect("AUTH-5 IDEM-8: a material terms change refuses even a replay before the key is looked at; accepting restores the replay", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { accountId, apiKey } = yield* newAccount({ credits: 5 })
      const send = () =>
        request("/v1/predict", {
          key: apiKey,
          body: { address: "42 Elm St" },
          headers: { "idempotency-key": "terms-replay" }
        })
      const first = yield* send()
      expect(first.status).toBe(200)
      yield* accounts.publishTerms(`terms-${accountId}`)
      yield* refresh
      const refused = yield* send()
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ terms_version: `terms-${accountId}` })
      expect((yield* request("/v1/validate", { key: apiKey, body: { address: "1 Main St" } })).status).toBe(200)
      expect((yield* accounts.show(accountId)).terms).toMatchObject({ accepted: false })
      yield* accounts.acceptTerms(accountId)
      yield* refresh
      const again = yield* send()
      expect(again.status).toBe(200)
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(again.text).toBe(first.text)
      // One charge in all: the 403 and the replay cost nothing.
      expect(yield* reconciles(accountId)).toBe(4)
      const shown = yield* accounts.show(accountId)
      expect(shown.terms).toMatchObject({ accepted: true })
    }))
})
