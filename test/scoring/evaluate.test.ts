/**
 * `evaluate` shows everything: a `--predictions` row for every recorded sale on or after the split, scored,
 * refused with the engine's reason, or excluded as not arm's-length with the rule that excluded it.
 */
import { describe, expect, it } from "@effect/vitest"
import { generateDemoCounty } from "../../src/property/demo-county.js"
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

  it("the CSV has a row per prediction with the status column", () => {
    const { predictions } = evaluate({ parcels: county.parcels, sales: county.sales }, split)
    const lines = predictionsCsv(predictions).trimEnd().split("\n")
    expect(lines[0]).toBe("market,address,sale_date,sale_price,status,q05,q10,q25,q50,q75,q90,q95,reason")
    expect(lines).toHaveLength(predictions.length + 1)
    expect(lines.some((line) => line.includes(",excluded,"))).toBe(true)
  })
})
