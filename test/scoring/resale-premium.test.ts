/**
 * Which valuations carry the recent-resale premium (docs/pricing-model.md, "Recent-resale premium"): a parcel whose
 * own market sale lies 3 to 24 months before the valuation date, unless that sale was of a house new then (within two years of its year built).
 */
import { describe, expect, it } from "@effect/vitest"
import { dayNumber } from "../../src/scoring/comps/calendar.js"
import { DEFAULT_OPTIONS } from "../../src/scoring/comps/options.js"
import { indexOwnSales, isRecentResale } from "../../src/scoring/comps/resale-premium.js"
import type { Sale } from "../../src/scoring/comps/types.js"

describe("the recent-resale premium's subjects", () => {
  const own = indexOwnSales([{ parcelKey: "jerome-1235", date: "2019-05-22" } as Sale])
  const asOf = dayNumber("2019-12-31")

  it("a sale 3 to 24 months before is a likely renovation resale; not a house sold new, within two years of the year it was built (an agent's audit: 1235 Jerome St, built 2017, sold new in 2019)", () => {
    expect(isRecentResale(own, "jerome-1235", asOf, DEFAULT_OPTIONS)).toBe(true)
    expect(isRecentResale(own, "jerome-1235", asOf, DEFAULT_OPTIONS, 1925)).toBe(true)
    expect(isRecentResale(own, "jerome-1235", asOf, DEFAULT_OPTIONS, 2016)).toBe(true)
    expect(isRecentResale(own, "jerome-1235", asOf, DEFAULT_OPTIONS, 2017)).toBe(false)
    expect(isRecentResale(own, "jerome-1235", asOf, DEFAULT_OPTIONS, 2019)).toBe(false)
    // Too soon or too long before: none, as before.
    expect(isRecentResale(own, "jerome-1235", dayNumber("2019-07-01"), DEFAULT_OPTIONS)).toBe(false)
    expect(isRecentResale(own, "jerome-1235", dayNumber("2021-07-01"), DEFAULT_OPTIONS)).toBe(false)
    // 13 months before: a likely renovation resale since 2026-12-01 (12 months was the limit before).
    expect(isRecentResale(own, "jerome-1235", dayNumber("2020-07-01"), DEFAULT_OPTIONS)).toBe(true)
  })
})
