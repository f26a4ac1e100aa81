import { describe, expect, it } from "@effect/vitest"
import { monthIndex } from "../../src/scoring/comps/calendar.js"
import { leaveOneOutRows } from "../../src/scoring/comps/calibration.js"
import type { Sale } from "../../src/scoring/comps/types.js"

const sale = (market: string, parcel: number, date: string): Sale => ({
  parcelKey: `${market}-${parcel}`,
  market,
  neighborhood: "N",
  block: parcel,
  lot: 1,
  zip: "99999",
  buildingClass: "A1",
  propertyType: "single_family",
  livingArea: 1_500,
  lotSize: 3_000,
  price: 300_000,
  date,
  armsLength: true
})

describe("the comps calibration's leave-one-out valuations", () => {
  // Every sale before the window is taken for a recent resale; the window is 2024-10 on.
  const windowStart = monthIndex("2024-10-01")
  const earlier = ["2024-01-10", "2024-03-10", "2024-02-10", "2024-05-10", "2024-04-10"]
  const sales = [
    ...earlier.map((date, i) => sale("A", i, date)),
    ...earlier.map((date, i) => sale("B", i, date)),
    sale("A", 10, "2024-11-05"),
    sale("A", 11, "2024-12-05")
  ]
  const valuedDates = (maxEarlierResales: number) => {
    const rows = leaveOneOutRows(
      sales,
      windowStart,
      () => true,
      () => ({ center: Math.log(300_000), scale: 0.2, ess: 10, basis: "sqft", resale: true, premium: 0 }),
      (market) => (market === "A" ? maxEarlierResales : 100)
    )
    return rows.map((row) => `${row.sale.market} ${row.sale.date}${row.inWindow ? " window" : ""}`).sort()
  }

  it("value every window sale and, for the resale premium, only the most recent earlier resales of each market up to its bound", () => {
    expect(valuedDates(2)).toEqual([
      "A 2024-04-10",
      "A 2024-05-10",
      "A 2024-11-05 window",
      "A 2024-12-05 window",
      ...earlier.map((date) => `B ${date}`).sort()
    ])
    expect(valuedDates(100)).toHaveLength(12)
  })
})
