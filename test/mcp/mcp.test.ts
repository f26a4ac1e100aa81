import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { OutsideCoverage } from "../../schema/problems.js"
import { REPLAYED_META } from "../../src/mcp/tools.js"
import { Ledger } from "../../src/services/ledger.js"
import { type ScriptEntry, sqlServicesWithFakeScoring } from "../harness/fake-scoring.js"
import { elmStreetHistory, outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { connect, type McpClient, type ToolResult } from "../harness/mcp-client.js"
import { newAccount, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

const script: Record<string, ScriptEntry> = {
  "42 Elm St": { answer: { _tag: "Outcome", outcome } },
  "outside": { answer: { _tag: "Failure", error: new OutsideCoverage({ detail: "outside" }) } }
}
const services = sqlServicesWithFakeScoring(script, { "42 Elm St": elmStreetHistory })

/** A tool error's Problem Detail: the JSON of its text (no `structuredContent`, which is for answers). */
const problemOf = (result: ToolResult) => {
  expect(result.structuredContent).toBeUndefined()
  return JSON.parse(result.content[0]!.text!)
}

const call = (client: McpClient, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

for (const generation of ["2026-07-28", "2025"] as const) {
  layer(serverWith(services), { timeout: "120 seconds", excludeTestServices: true })(
    `MCP tools, ${generation} client`,
    (it) => {
      it.effect("AUTH-2 MCP-1: with the API key in the same header, tool discovery lists exactly the four tools, with argument schemas from the REST schemas", () =>
        Effect.gen(function*() {
          const { apiKey } = yield* newAccount()
          const client = yield* connect(generation, apiKey)
          const { tools } = yield* Effect.promise(() => client.listTools())
          expect(tools.map((t) => t.name).sort()).toEqual([
            "property_history",
            "score_property",
            "score_property_batch",
            "validate_request"
          ])
          for (const tool of tools) expect(tool.inputSchema.type).toBe("object")
          const score = tools.find((t) => t.name === "score_property")!
          expect(Object.keys(score.inputSchema.properties)).toEqual(
            expect.arrayContaining(["address", "condition", "overrides", "idempotency_key"])
          )
          // IDEM-10: the key's length is in the schema, not only in its description (an agent's audit, 2026-11-29).
          for (const tool of tools.filter((t) => t.name !== "validate_request")) {
            expect(tool.inputSchema.properties?.["idempotency_key"]).toMatchObject({ minLength: 1, maxLength: 255 })
          }
          yield* Effect.promise(() => client.close())
        }))

      it.effect("AUTH-2: the Account's Balance, tier and rate limit are read from GET /v1/account and the MCP resource propscore://account, free; the tools stay four", () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 7 })
          const expected = {
            account_id: accountId,
            balance: 7,
            tier: "public",
            rate_limit_per_minute: expect.any(Number),
            terms_accepted: true
          }
          const rest = yield* request("/v1/account", { method: "GET", key: apiKey })
          expect(rest.status).toBe(200)
          expect(rest.body).toEqual(expected)
          const client = yield* connect(generation, apiKey)
          const { resources } = yield* Effect.promise(() => client.listResources())
          expect(resources.map((r) => r.uri)).toEqual(["propscore://account"])
          const read = yield* Effect.promise(() => client.readResource({ uri: "propscore://account" }))
          expect(JSON.parse(read.contents[0]!.text!)).toEqual(expected)
          expect(yield* reconciles(accountId)).toBe(7)
          expect((yield* request("/v1/account", { method: "GET" })).status).toBe(401)
          yield* Effect.promise(() => client.close())
        }))

      it.effect("MCP-2 SVC-3: each tool costs what its REST call costs; a covered failure is a tool error with its Problem Detail, refunded", () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 10 })
          const ledger = yield* Ledger
          const client = yield* connect(generation, apiKey)

          const scored = yield* call(client, "score_property", { address: "42 Elm St" })
          expect(scored.isError).toBeFalsy()
          expect(scored.structuredContent).toMatchObject({ subject_property: { property_id: "demo-000042" } })
          expect(JSON.parse(scored.content[0]!.text!)).toEqual(scored.structuredContent)
          expect(yield* ledger.balance(accountId)).toBe(9)

          const batch = yield* call(client, "score_property_batch", {
            properties: [{ address: "42 Elm St" }, { address: "outside" }]
          })
          expect(batch.structuredContent.results).toHaveLength(2)
          expect(batch.structuredContent.results[1]).toMatchObject({
            type: `${TEST_BASE_URL}/docs/errors/outside-coverage`
          })
          expect(yield* ledger.balance(accountId)).toBe(8)
          // What it cost, in words, as a model reads content (an agent's audit, 2026-11-30).
          expect(batch.content.at(-1)?.text).toBe(
            "Charged 1 Credit, one for each property answered (1). The 1 failed entry's Credit was refunded " +
              "(each such entry is a Problem Detail with `type`)."
          )
          const allFailed = yield* call(client, "score_property_batch", { properties: [{ address: "outside" }] })
          expect(allFailed.content.at(-1)?.text).toBe(
            "Nothing was charged: every entry failed, and its Credit was refunded."
          )
          expect(yield* ledger.balance(accountId)).toBe(8)

          const story = yield* call(client, "property_history", { address: "42 Elm St" })
          expect(story.structuredContent).toMatchObject({ property_id: "p-42" })
          expect(yield* ledger.balance(accountId)).toBe(7)

          const valid = yield* call(client, "validate_request", { address: "42 Elm St" })
          expect(valid.structuredContent).toEqual({ valid: true })
          expect(yield* ledger.balance(accountId)).toBe(7)

          const refused = yield* call(client, "score_property", { address: "outside" })
          expect(refused.isError).toBe(true)
          expect(problemOf(refused)).toMatchObject({
            type: `${TEST_BASE_URL}/docs/errors/outside-coverage`,
            status: 422,
            trace_id: expect.stringMatching(/^[0-9a-f]{32}$/)
          })
          expect(refused.content.at(-1)?.text).toBe("The Credit this call took was refunded: it cost nothing.")
          // One text for an answer of one property: its one Credit is the tool's description's.
          expect(scored.content).toHaveLength(1)
          expect(yield* reconciles(accountId)).toBe(7)
          yield* Effect.promise(() => client.close())
        }))

      it.effect("MCP-3 IDEM-10: the same validation as REST: a bad argument, tear_down or a bad idempotency_key is a 400 invalid-request tool error, nothing charged", () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 3 })
          const client = yield* connect(generation, apiKey)
          const bad = yield* call(client, "score_property", { address: "42 Elm St", condition: "tear_down" })
          expect(bad.isError).toBe(true)
          expect(problemOf(bad)).toMatchObject({
            type: `${TEST_BASE_URL}/docs/errors/invalid-request`,
            status: 400
          })
          expect(bad.content.at(-1)?.text).toBe("Nothing was charged for this call.")
          const both = yield* call(client, "property_history", { address: "42 Elm St", property_id: "p-42" })
          expect(problemOf(both)).toMatchObject({ status: 400 })
          const badKey = yield* call(client, "score_property", { address: "42 Elm St", idempotency_key: 123 })
          expect(problemOf(badKey)).toMatchObject({ status: 400, errors: [{ pointer: "/idempotency_key" }] })
          const blankKey = yield* call(client, "score_property", { address: "42 Elm St", idempotency_key: "   " })
          // Named as the argument it is, not as a header the tool call never sent.
          expect(problemOf(blankKey)).toMatchObject({
            status: 400,
            detail: "idempotency_key must not be blank.",
            errors: [{ pointer: "/idempotency_key", detail: "must not be blank" }]
          })
          // A bad key and refused arguments: both in one answer (an agent's audit, 2026-11-29: the key's hid the rest).
          const twice = yield* call(client, "score_property", { address: "", condition: "bad", idempotency_key: "" })
          expect(problemOf(twice)).toMatchObject({
            status: 400,
            detail: "3 problems were found in the request; see errors.",
            errors: [{ pointer: "/address" }, { pointer: "/condition" }, { pointer: "/idempotency_key" }]
          })
          const twiceToValidate = yield* call(client, "validate_request", { address: "", idempotency_key: "" })
          expect(problemOf(twiceToValidate)).toMatchObject({
            errors: [{ pointer: "/address" }, { pointer: "/idempotency_key" }]
          })
          const invalid = yield* call(client, "validate_request", { address: "" })
          expect(problemOf(invalid)).toMatchObject({ status: 400, errors: [{ pointer: "/address" }] })
          // validate_request takes the exact arguments meant for a paid tool, its idempotency_key judged alike.
          const withKey = yield* call(client, "validate_request", { address: "42 Elm St", idempotency_key: "k-1" })
          expect(withKey.isError).toBeFalsy()
          expect(withKey.structuredContent).toEqual({ valid: true })
          const blankToValidate = yield* call(client, "validate_request", { address: "42 Elm St", idempotency_key: "" })
          expect(problemOf(blankToValidate)).toMatchObject({ errors: [{ pointer: "/idempotency_key" }] })
          expect(yield* reconciles(accountId)).toBe(3)
          yield* Effect.promise(() => client.close())
        }))

      it.effect("ERR-6 LIM-4: a tool call over the rate limit is a rate-limited tool error with retry_after, not charged", () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 5, rateLimitPerMinute: 4 })
          const client = yield* connect(generation, apiKey)
          const results: Array<ToolResult> = []
          // However many of the four requests connecting took, the sixth call at the latest is over the limit.
          for (let i = 0; i < 6; i++) results.push(yield* call(client, "score_property", { address: "42 Elm St" }))
          const limited = results.filter((result) => result.isError)
          expect(limited.length).toBeGreaterThan(0)
          for (const result of limited) {
            expect(problemOf(result)).toMatchObject({
              type: `${TEST_BASE_URL}/docs/errors/rate-limited`,
              status: 429,
              retry_after: expect.any(Number)
            })
            expect(result.content.at(-1)?.text).toBe("Nothing was charged for this call.")
          }
          // Only the answered calls were charged.
          expect(yield* reconciles(accountId)).toBe(5 - (results.length - limited.length))
          yield* Effect.promise(() => client.close())
        }))

      it.effect("MCP-4 IDEM-3: an idempotency_key argument makes a retry a replay, charged once", () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 5 })
          const client = yield* connect(generation, apiKey)
          const first = yield* call(client, "score_property", { address: "42 Elm St", idempotency_key: "mcp-retry" })
          const again = yield* call(client, "score_property", { address: "42 Elm St", idempotency_key: "mcp-retry" })
          expect(again.structuredContent).toEqual(first.structuredContent)
          // The replay says so, as Idempotent-Replayed does over REST (an audit's agent could not tell).
          expect(again._meta?.[REPLAYED_META]).toBe(true)
          expect(first._meta?.[REPLAYED_META]).toBeUndefined()
          // And in words, as hosts pass a model the content only.
          expect(again.content.at(-1)?.text).toMatch(/stored answer of an earlier call .* no Credit was charged/)
          expect(first.content).toHaveLength(1)
          expect(yield* reconciles(accountId)).toBe(4)
          yield* Effect.promise(() => client.close())
        }))
    }
  )
}

layer(serverWith(services), { timeout: "120 seconds", excludeTestServices: true })(
  "the /mcp endpoint over HTTP",
  (it) => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
    }
    const mcpHeaders = { accept: "application/json, text/event-stream" }

    it.effect("AUTH-4 MCP-5: no credential is a 401 pointing at the /mcp protected-resource metadata, which answers", () =>
      Effect.gen(function*() {
        const response = yield* request("/mcp", { body: initialize, headers: mcpHeaders })
        expect(response.status).toBe(401)
        expect(response.headers.get("www-authenticate")).toBe(
          `Bearer resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp"`
        )
        expect(response.body).toMatchObject({ type: `${TEST_BASE_URL}/docs/errors/invalid-key` })
        // An assistant may sign in instead of holding a key: the detail says so (it spoke of keys only).
        expect((response.body as { detail: string }).detail).toMatch(/or sign in: .*resource_metadata/)
        const metadata = yield* request("/.well-known/oauth-protected-resource/mcp")
        expect(metadata.status).toBe(200)
        expect(metadata.body).toMatchObject({
          resource: `${TEST_BASE_URL}/mcp`,
          authorization_servers: [TEST_BASE_URL]
        })
      }))

    it.effect("MCP-6: GET and DELETE on /mcp answer 405 with Allow: POST", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* newAccount()
        for (const method of ["GET", "DELETE"]) {
          const response = yield* request("/mcp", { method, key: apiKey })
          expect(response.status).toBe(405)
          expect(response.headers.get("allow")).toBe("POST")
        }
      }))

    it.effect("MCP-7: a request from a foreign Origin is refused before anything else (DNS rebinding)", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* newAccount()
        const response = yield* request("/mcp", {
          key: apiKey,
          body: initialize,
          headers: { ...mcpHeaders, origin: "https://evil.example" }
        })
        expect(response.status).toBe(403)
        const allowed = yield* request("/mcp", { key: apiKey, body: initialize, headers: mcpHeaders })
        expect(allowed.status).toBe(200)
        expect(allowed.headers.get("ratelimit-policy")).toBe(`"account";q=1000000;w=60`)
      }))

    it.effect("MCP-6: an Accept of */* (or none; fetch sends */*) is answered, as it accepts both types the transport lists; a narrower one the SDK judges", () =>
      Effect.gen(function*() {
        const { apiKey } = yield* newAccount()
        for (const accept of ["*/*", "application/json;q=0.9, */*;q=0.8", undefined]) {
          const response = yield* request("/mcp", {
            key: apiKey,
            body: initialize,
            headers: accept === undefined ? {} : { accept }
          })
          expect(response.status, String(accept)).toBe(200)
          expect(response.text).toContain(`"serverInfo"`)
        }
        // Only HTML: not an MCP client; the SDK's 406 stands.
        const html = yield* request("/mcp", { key: apiKey, body: initialize, headers: { accept: "text/html" } })
        expect(html.status).toBe(406)
      }))

    it.effect("LIM-1 MCP-8: a JSON-RPC batch is refused with 400 before any tool runs: one request, one count, one call at most", () =>
      Effect.gen(function*() {
        const { accountId, apiKey } = yield* newAccount({ credits: 5 })
        const call = (id: number) => ({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "score_property", arguments: { address: "42 Elm St" } }
        })
        const response = yield* request("/mcp", {
          key: apiKey,
          body: [call(1), call(2), call(3)],
          headers: { ...mcpHeaders, "mcp-protocol-version": "2025-03-26" }
        })
        expect(response.status).toBe(400)
        expect(response.body).toMatchObject({ type: `${TEST_BASE_URL}/docs/errors/invalid-request` })
        expect(yield* reconciles(accountId)).toBe(5)
      }))
  }
)
