/**
 * Valuation dates over HTTP (docs/decisions.md, "Valuation dates"): every scored answer, single, batch entry
 * and MCP tool, says the date its value applies to and how old its evidence is. On the real scoring engine over
 * the synthetic demo county, its recorded sales either ended years ago or moved to end three days before today.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { SaleRecord } from "../../src/property/records.js"
import { addDays, daysBetween } from "../../src/valuation/dates.js"
import { demoCountyServices } from "../harness/demo-county.js"
import { newAccount, request, serverWith } from "../harness/server.js"

const today = new Date().toISOString().slice(0, 10)
const address = "3 Pine Ct, Riverton"

const latestArmsLength = (sales: ReadonlyArray<SaleRecord>) =>
  sales.filter((sale) => sale.armsLength && sale.price > 0).map((sale) => sale.saleDate).sort().at(-1)!

const mcpHeaders = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" }
const jsonRpcResult = (text: string) => {
  const data = text.split("\n").find((line) => line.startsWith("data: "))
  return JSON.parse(data === undefined ? text : data.slice("data: ".length)).result
}

/** The predict answer, the batch entry and the MCP tool's structured answer for one address. */
const everyDoor = Effect.gen(function*() {
  const { apiKey } = yield* newAccount({ credits: 10 })
  const predict = yield* request("/v1/predict", { key: apiKey, body: { address } })
  expect(predict.status, predict.text).toBe(200)
  const batch = yield* request("/v1/predict/batch", { key: apiKey, body: { properties: [{ address }] } })
  expect(batch.status, batch.text).toBe(200)
  const tool = yield* request("/mcp", {
    key: apiKey,
    headers: mcpHeaders,
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "score_property", arguments: { address } } }
  })
  return [predict.body, batch.body.results[0], jsonRpcResult(tool.text).structuredContent] as const
})

// The county's sales up to the end of 2019: years old on any day this test runs.
let oldThrough = ""
const oldCounty = demoCountyServices({
  parcels: 3_000,
  sales: (sales) => {
    const kept = sales.filter((sale) => sale.saleDate < "2020-01-01")
    oldThrough = latestArmsLength(kept)
    return kept
  }
})

layer(serverWith(oldCounty), { timeout: "120 seconds", excludeTestServices: true })("old data", (it) => {
  it.effect("VER-2 BAT-2 MCP-3: the value is as of the data's last day, not today, and every door says so", () =>
    Effect.gen(function*() {
      for (const answer of yield* everyDoor) {
        expect(answer.valuation_date).toBe(oldThrough)
        expect(answer.evidence.data_through).toBe(oldThrough)
        expect(answer.evidence.note).toContain(`end on ${oldThrough}`)
        expect(answer.evidence.note).toContain(today)
        expect(answer.evidence.newest_comparable_sale <= oldThrough).toBe(true)
      }
      const [predict] = yield* everyDoor
      const listed = predict.comps.map((comp: { sale_date: string }) => comp.sale_date).sort().at(-1)
      expect(predict.evidence.newest_comparable_sale >= listed).toBe(true)
    }))
})

// The county's sales moved in time so that the latest recorded sale was three days ago.
let currentThrough = ""
const currentCounty = demoCountyServices({
  parcels: 3_000,
  sales: (sales) => {
    const shift = daysBetween(latestArmsLength(sales), addDays(today, -3))
    const moved = sales.map((sale) => ({ ...sale, saleDate: addDays(sale.saleDate, shift) }))
    currentThrough = latestArmsLength(moved)
    return moved
  }
})

layer(serverWith(currentCounty), { timeout: "120 seconds", excludeTestServices: true })("current data", (it) => {
  it.effect("VER-2 BAT-2 MCP-3: the value is as of today, with no note, and the evidence's age on every door", () =>
    Effect.gen(function*() {
      expect(currentThrough).toBe(addDays(today, -3))
      for (const answer of yield* everyDoor) {
        expect(answer.valuation_date).toBe(today)
        expect(answer.evidence).not.toHaveProperty("note")
        expect(answer.evidence.data_through).toBe(currentThrough)
        expect(answer.evidence.newest_comparable_sale <= currentThrough).toBe(true)
      }
    }))
})
