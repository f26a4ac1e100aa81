/**
 * `evaluate` shows everything: a `--predictions` row for every recorded sale on or after the split, scored,
 * refused with the engine's reason, or excluded as not arm's-length with the rule that excluded it.
 */
import { describe, expect, it } from "@effect/vitest"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { recordedAddress } from "../../src/scoring/engine.js"
import { evaluate, predictionsCsv } from "../../src/scoring/evaluate.js"

const county = generateDemoCounty({ parcels: 2_000 })
const split = "2023-01-01"

describe("evaluate", () => {
  it("every sale on or after the split has one row, with its status and, unless scored, its reason", () => {
    const { predictions } = evaluate({ parcels: county.parcels, sales: county.sales }, split)
    const parcels = new Set(county.parcels.map((parcel) => parcel.id))
    const after = county.sales.filter((sale) => sale.saleDate >= split && parcels.has(sale.parcelId))
    expect(predictions).toHaveLength(after.length)
    const statuses = new Set(predictions.map((row) => row.status))
    expect(statuses).toContain("scored")
    expect(statuses).toContain("excluded")
    for (const row of predictions) {
      if (row.status === "scored") {
        expect(row.quantiles?.["0.5"]).toBeGreaterThan(0)
        expect(row.reason).toBeUndefined()
      } else {
        expect(row.quantiles).toBeUndefined()
        expect(row.reason).toBeTruthy()
      }
      if (row.status === "excluded") expect(row.reason).toMatch(/^not arm's-length: /)
    }
    const excluded = after.filter((sale) => !sale.armsLength || sale.price <= 0).length
    expect(predictions.filter((row) => row.status === "excluded")).toHaveLength(excluded)
  })

  it("a repeat record of a sale (its price again within 31 days) is excluded with that rule, not valued twice", () => {
    const sold = county.sales.find((sale) => sale.saleDate >= split && sale.armsLength && sale.price > 0)!
    const address = recordedAddress(county.parcels.find((parcel) => parcel.id === sold.parcelId)!)
    const day = new Date(Date.parse(sold.saleDate) + 10 * 86_400_000).toISOString().slice(0, 10)
    const again = { ...sold, saleDate: day, sourceKey: "recorded-again" }
    const before = evaluate({ parcels: county.parcels, sales: county.sales }, split).predictions
    const { predictions } = evaluate({ parcels: county.parcels, sales: [...county.sales, again] }, split)
    expect(predictions).toHaveLength(before.length + 1)
    const rows = predictions.filter((row) => row.address === address && row.sale_price === sold.price)
    expect(rows.map((row) => [row.sale_date, row.status])).toEqual([[sold.saleDate, "scored"], [day, "excluded"]])
    expect(rows[1]!.reason).toBe(
      `not arm's-length: the price of the market sale of ${sold.saleDate}, recorded again 10 days later: a repeat ` +
        "record of that sale, not a second one"
    )
  })

  it("the CSV has a row per prediction with the status column", () => {
    const { predictions } = evaluate({ parcels: county.parcels, sales: county.sales }, split)
    const lines = predictionsCsv(predictions).trimEnd().split("\n")
    expect(lines[0]).toBe("market,address,sale_date,sale_price,status,q05,q10,q25,q50,q75,q90,q95,reason")
    expect(lines).toHaveLength(predictions.length + 1)
    expect(lines.some((line) => line.includes(",excluded,"))).toBe(true)
  })
})
