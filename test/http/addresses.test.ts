/**
 * Addresses as people type them, through every door: REST predict, a batch entry, history and the MCP tool
 * match the same way, say how they matched, and refuse with suggestions rather than guess. On the real
 * scoring engine over the synthetic demo county, with the real Ledger.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Ledger } from "../../src/services/ledger.js"
import { demoCountyServices } from "../harness/demo-county.js"
import { newAccount, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

const services = demoCountyServices({ parcels: 3_000 })

const mcpHeaders = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }
const jsonRpcResult = (text: string) => {
  const data = text.split("\n").find((line) => line.startsWith("data: "))
  return JSON.parse(data === undefined ? text : data.slice("data: ".length)).result
}

layer(serverWith(services), { timeout: "120 seconds", excludeTestServices: true })("addresses", (it) => {
  it.effect("REQ-1 ANS-2: a typed variant finds the property, and the answer says how it matched, on every door", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount({ credits: 10 })
      // The street's type left out (a unit on this one-family house would be refused: it may be a unit of its own).
      const typed = "3 pine riverton zz 99103"
      const predict = yield* request("/v1/predict", { key: apiKey, body: { address: typed } })
      expect(predict.status).toBe(200)
      const match = predict.body.subject_property.match
      expect(match).toMatchObject({
        method: "normalized",
        address_sent: typed,
        recorded_address: "3 PINE CT, RIVERTON, ZZ 99103"
      })
      expect(match.notes).toContainEqual({ kind: "normalized", part: "street_type", sent: "", used: "CT" })

      const batch = yield* request("/v1/predict/batch", {
        key: apiKey,
        body: { properties: [{ address: typed }, { address: "3 Pine Ct, Riverton" }] }
      })
      expect(batch.body.results[0].subject_property).toEqual(predict.body.subject_property)
      expect(batch.body.results[1].subject_property.match.method).toBe("exact")

      const history = yield* request("/v1/history", { key: apiKey, body: { address: typed } })
      expect(history.status).toBe(200)
      expect(history.body.match).toEqual(match)
      const byId = yield* request("/v1/history", { key: apiKey, body: { property_id: history.body.property_id } })
      expect(byId.body).not.toHaveProperty("match")

      const tool = yield* request("/mcp", {
        key: apiKey,
        headers: mcpHeaders,
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "score_property", arguments: { address: typed } }
        }
      })
      expect(jsonRpcResult(tool.text).structuredContent.subject_property.match).toEqual(match)
    }))

  it.effect("ERR-3: a house number not on the street is unscorable with the nearest numbers as suggestions, refunded", () =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* newAccount({ credits: 5 })
      const response = yield* request("/v1/predict", { key: apiKey, body: { address: "9999 Pine Ct, Riverton" } })
      expect(response.status).toBe(422)
      expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/unscorable-address`)
      expect(response.body.suggestions.length).toBeGreaterThan(0)
      expect(response.body.suggestions.length).toBeLessThanOrEqual(5)
      for (const suggestion of response.body.suggestions) expect(suggestion).toMatch(/ PINE CT, RIVERTON, ZZ 99103$/)
      // A PO box, an intersection, a lone ZIP code: covered refusals, refunded.
      for (const address of ["PO Box 12, Riverton ZZ", "Pine Ct & Oak Ave, Riverton", "99103"]) {
        const refused = yield* request("/v1/predict", { key: apiKey, body: { address } })
        expect(refused.status, address).toBe(422)
      }
      expect(yield* Effect.flatMap(Ledger, (ledger) => ledger.balance(accountId))).toBe(5)
      // Shapes validate judges alone are a 400 before any Spend.
      for (const address of ["", "   ", "x".repeat(10_000), "🏠🏠🏠", "3 Pine Ct\u0000"]) {
        expect((yield* request("/v1/predict", { key: apiKey, body: { address } })).status, address).toBe(400)
        expect((yield* request("/v1/validate", { key: apiKey, body: { address } })).status, address).toBe(400)
      }
    }))
})
