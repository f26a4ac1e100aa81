import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { revokeApiKey } from "../../src/operations/keys.js"
import { Accounts } from "../../src/services/accounts.js"
import { DatabaseFaultsTag } from "../harness/fault-proxy.js"
import { FaultyTestServer, newAccount, request, TEST_BASE_URL, TestServer } from "../harness/server.js"

const validate = (key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  request("/v1/validate", { key, body, headers })

const ledgerBalance = (accountId: string) =>
  Effect.flatMap(Accounts, (accounts) => accounts.show(accountId)).pipe(Effect.map((account) => account.balance))

layer(TestServer, { timeout: "120 seconds" })("POST /v1/validate", (it) => {
  it.effect("VAL-6: a valid Scored Call body answers 200 {valid: true} with a trace-id", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const response = yield* validate(apiKey, { address: "12 Elm Street, Springfield", condition: "major_rehab" })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ valid: true })
      expect(response.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
    }))

  it.effect("VAL-6: a valid batch envelope answers 200 {valid: true}", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const response = yield* validate(apiKey, {
        properties: [{ address: "1 Main St" }, { address: "1 Main St", rehab_budget: 40000, target_margin: 0.25 }]
      })
      expect(response.status).toBe(200)
      expect(response.body).toEqual({ valid: true })
    }))

  it.effect("OVR-3 VAL-6: overrides.latitude is a 400 problem whose first pointer is /overrides/latitude", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const response = yield* validate(apiKey, { address: "1 Main St", overrides: { latitude: 1 } })
      expect(response.status).toBe(400)
      expect(response.headers.get("content-type")).toBe("application/problem+json")
      expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/invalid-request`)
      expect(response.body.errors[0].pointer).toBe("/overrides/latitude")
      expect(response.body.trace_id).toBe(response.headers.get("trace-id"))
    }))

  it.effect("REQ-3 VAL-6: condition tear_down is refused with 400, even with a rehab_budget, single and in a batch", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const single = yield* validate(apiKey, { address: "1 Main St", condition: "tear_down", rehab_budget: 50000 })
      expect(single.status).toBe(400)
      expect(single.body.errors).toEqual([expect.objectContaining({ pointer: "/condition" })])
      const batch = yield* validate(apiKey, {
        properties: [{ address: "1 Main St" }, { address: "2 Main St", condition: "tear_down" }]
      })
      expect(batch.status).toBe(400)
      expect(batch.body.errors).toEqual([expect.objectContaining({ pointer: "/properties/1/condition" })])
    }))

  it.effect("BAT-11 VAL-6: a batch over the cap is a 413 batch-too-large with honest limit and submitted", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const properties = Array.from({ length: 101 }, (_, i) => ({ address: `${i} Main St` }))
      const response = yield* validate(apiKey, { properties })
      expect(response.status).toBe(413)
      expect(response.body).toMatchObject({
        type: `${TEST_BASE_URL}/docs/errors/batch-too-large`,
        status: 413,
        limit: 100,
        submitted: 101
      })
    }))

  it.effect("BAT-5 VAL-4: the batch envelope accepts no other member; entries are judged with pointers", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const extra = yield* validate(apiKey, { properties: [{ address: "1 Main St" }], priority: "high" })
      expect(extra.status).toBe(400)
      expect(extra.body.errors).toEqual([expect.objectContaining({ pointer: "/priority" })])
      const entry = yield* validate(apiKey, { properties: [{ address: "1 Main St" }, { adress: "2 Main St" }] })
      expect(entry.status).toBe(400)
      expect(entry.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
        "/properties/1/address",
        "/properties/1/adress"
      ])
    }))

  it.effect("VAL-1: validate is free and answers at a zero Balance", () =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* newAccount({ credits: 0 })
      const response = yield* validate(apiKey, { address: "1 Main St" })
      expect(response.status).toBe(200)
      expect(yield* ledgerBalance(accountId)).toBe(0)
    }))

  it.effect("VAL-1: validating leaves the Balance unchanged", () =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* newAccount({ credits: 5 })
      for (let i = 0; i < 3; i++) yield* validate(apiKey, { address: `${i} Main St` })
      yield* validate(apiKey, { address: "" })
      expect(yield* ledgerBalance(accountId)).toBe(5)
    }))

  it.effect("VAL-5 IDEM-10: validate ignores the Idempotency-Key header, even an invalid one", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const blank = yield* validate(apiKey, { address: "1 Main St" }, { "idempotency-key": "x".repeat(300) })
      expect(blank.status).toBe(200)
      expect(blank.body).toEqual({ valid: true })
    }))

  it.effect("VAL-5 AUTH-4: without a key, with a malformed, unknown or revoked key, validate is a 401 invalid-key", () =>
    Effect.gen(function*() {
      const { apiKey, keyId } = yield* newAccount()
      const body = { address: "1 Main St" }
      const missing = yield* validate(undefined, body)
      const malformed = yield* validate("not-a-key", body)
      const unknown = yield* validate(apiKey.slice(0, -4) + "aaaa", body)
      yield* revokeApiKey(keyId)
      const revoked = yield* validate(apiKey, body)
      for (const response of [missing, malformed, unknown, revoked]) {
        expect(response.status).toBe(401)
        expect(response.headers.get("content-type")).toBe("application/problem+json")
        const challenge = `Bearer resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource"`
        // A presented key that is refused is also an RFC 6750 invalid_token; no key at all, the bare challenge.
        expect(response.headers.get("www-authenticate")).toBe(
          response === missing
            ? challenge
            : `${challenge}, error="invalid_token", error_description="${response.body.detail}"`
        )
        expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/invalid-key`)
        expect(response.body.trace_id).toBe(response.headers.get("trace-id"))
      }
    }))

  it.effect("VAL-5: a missing key is refused before the body is judged", () =>
    Effect.gen(function*() {
      const response = yield* validate(undefined, "{not json")
      expect(response.status).toBe(401)
    }))
})

describe("validate during a database outage", () => {
  layer(FaultyTestServer, { timeout: "120 seconds" })("with the database cut", (it) => {
    it.effect("VAL-2: with an API key, validate answers 200 while the database is unreachable", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* newAccount()
        // The key is known to the node's credential snapshot once it has been used or refreshed.
        expect((yield* validate(apiKey, { address: "1 Main St" })).status).toBe(200)
        const faults = yield* DatabaseFaultsTag
        yield* faults.cut
        const during = yield* validate(apiKey, { address: "1 Main St", overrides: { bedrooms: 3 } })
        const invalid = yield* validate(apiKey, { address: "1 Main St", overrides: { bedrooms: -1 } })
        yield* faults.restore
        expect(during.status).toBe(200)
        expect(during.body).toEqual({ valid: true })
        expect(invalid.status).toBe(400)
      }))

    it.effect("VAL-2: a key the node has never seen cannot be checked during the outage: 503 call-not-started", () =>
      Effect.gen(function*() {
        const faults = yield* DatabaseFaultsTag
        yield* faults.cut
        const response = yield* validate("ps_aaaaaaaaaaaa_" + "b".repeat(40), { address: "1 Main St" })
        yield* faults.restore
        expect(response.status).toBe(503)
        expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/call-not-started`)
      }))
  })
})
