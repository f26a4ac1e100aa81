/**
 * Properties of unusual size (a living area or lot outside the middle 95% of their market × group's sales):
 * which they are, and how much wider their ranges must be, measured on a calibration window's residuals.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  MAX_SPREAD_FACTOR,
  MIN_SIZE_RANGE_SALES,
  sizeRangesOf,
  SPREAD_PSEUDO_COUNT,
  spreadFactor,
  unusualSizeFacts
} from "../../src/scoring/unusual-size.js"

const house = (livingArea: number | undefined, lotSize: number | undefined, market = "Riverton") => ({
  market,
  propertyType: "single_family" as const,
  livingArea,
  lotSize
})

describe("a property of unusual size", () => {
  // Living areas 1,001 … 2,000 and lots 3,001 … 5,000: the middle 95% is about 1,026–1,975 and 3,051–4,950.
  const sales = Array.from({ length: 1_000 }, (_, i) => house(1_001 + i, 3_001 + 2 * i))
  const ranges = sizeRangesOf(sales)

  it("lies outside the middle 95% of its market × group's living areas or lot sizes", () => {
    const range = ranges.get("Riverton|house")!
    expect(range.livingArea![0]).toBeCloseTo(1_026, 0)
    expect(range.livingArea![1]).toBeCloseTo(1_975, 0)
    expect(unusualSizeFacts(ranges, house(1_500, 4_000))).toEqual([])
    expect(unusualSizeFacts(ranges, house(900, 4_000))).toEqual(["living_area_square_feet"])
    expect(unusualSizeFacts(ranges, house(1_500, 9_000))).toEqual(["lot_size_square_feet"])
    expect(unusualSizeFacts(ranges, house(3_000, 1_000))).toEqual(["living_area_square_feet", "lot_size_square_feet"])
  })

  it("is judged only on facts recorded, against its own market and group, where enough sales record them", () => {
    expect(unusualSizeFacts(ranges, house(undefined, 0))).toEqual([])
    expect(unusualSizeFacts(ranges, house(900, 4_000, "Elsewhere"))).toEqual([])
    expect(unusualSizeFacts(ranges, { ...house(900, 4_000), propertyType: "condo" })).toEqual([])
    const few = sizeRangesOf(sales.slice(0, MIN_SIZE_RANGE_SALES - 1))
    expect(unusualSizeFacts(few, house(1, 1))).toEqual([])
    // Lots not recorded at all (a market like Sacramento's file): judged on the living area alone.
    const noLots = sizeRangesOf(sales.map((sale) => ({ ...sale, lotSize: undefined })))
    expect(unusualSizeFacts(noLots, house(900, 1))).toEqual(["living_area_square_feet"])
  })
})

describe("a property of unusual size for its market's houses but usual for its type (an investor's audit, 2026-11-30)", () => {
  // Detached houses on lots of 3,001 … 5,996 sq ft with 1,201 … 2,399 sq ft of living area; townhouses on lots
  // of 401 … 999 sq ft with 1,601 … 3,395 sq ft: a third of the houses are townhouses, so the houses' middle
  // 95% of lots begins about 445 sq ft, the townhouses' own about 416.
  const detached = Array.from({ length: 600 }, (_, i) => house(1_201 + 2 * i, 3_001 + 5 * i))
  const townhouses = Array.from({ length: 300 }, (_, i) => ({
    ...house(1_601 + 6 * i, 401 + 2 * i),
    propertyType: "townhouse" as const
  }))
  const ranges = sizeRangesOf([...detached, ...townhouses])
  const townhouse = (livingArea: number, lotSize: number) => ({
    ...house(livingArea, lotSize),
    propertyType: "townhouse" as const
  })

  it("is not of unusual size: a townhouse's lot small for a house, a townhouse's area small for a townhouse", () => {
    expect(ranges.get("Riverton|house")!.lotSize![0]).toBeGreaterThan(430)
    expect(ranges.get("Riverton|type|townhouse")!.lotSize![0]).toBeLessThan(430)
    expect(unusualSizeFacts(ranges, townhouse(2_000, 430))).toEqual([])
    // 1,400 sq ft is below the townhouses' middle 95% (from about 1,646) but a house's size.
    expect(ranges.get("Riverton|type|townhouse")!.livingArea![0]).toBeGreaterThan(1_400)
    expect(unusualSizeFacts(ranges, townhouse(1_400, 700))).toEqual([])
  })

  it("is of unusual size outside both: a townhouse on a lot of 300 sq ft, a detached house on one of 300", () => {
    expect(unusualSizeFacts(ranges, townhouse(2_000, 300))).toEqual(["lot_size_square_feet"])
    expect(unusualSizeFacts(ranges, house(1_800, 300))).toEqual(["lot_size_square_feet"])
    // A type with too few sales of its own is judged by its group's range alone.
    const few = sizeRangesOf([...detached, ...townhouses.slice(0, MIN_SIZE_RANGE_SALES - 1)])
    expect(unusualSizeFacts(few, townhouse(2_000, 430))).toEqual(["lot_size_square_feet"])
  })
})

describe("the factor an unusual size widens a range by", () => {
  /** Residuals of 1,000 window sales, the first `count` of unusual size and `spread` times as far out. */
  const window = (count: number, spread: number) => {
    const residuals = Array.from({ length: 1_000 }, (_, i) => ((i * 0.618) % 1) * 2 - 1)
    const unusual = residuals.map((_, i) => i < count)
    return { residuals: residuals.map((r, i) => (unusual[i] ? r * spread : r)), unusual }
  }

  it("is their distances from the middle over everyone's (80th percentiles), shrunk toward 1 when they are few", () => {
    // 60 of 1,000 twice as far out: everyone's 80th percentile is about 0.8, theirs about 1.6 (ratio about 2),
    // shrunk by 30 pseudo-sales to about (60 × 2 + 30) / 90.
    const many = window(60, 2)
    expect(spreadFactor(many.residuals, many.unusual)).toBeCloseTo(
      (60 * 2 + SPREAD_PSEUDO_COUNT) / (60 + SPREAD_PSEUDO_COUNT),
      1
    )
    // The same spread shown by fewer is trusted less; a smaller spread widens less.
    const few = window(20, 2)
    expect(spreadFactor(few.residuals, few.unusual)).toBeLessThan(
      spreadFactor(many.residuals, many.unusual) - 0.1
    )
    const milder = window(60, 1.3)
    expect(spreadFactor(milder.residuals, milder.unusual)).toBeLessThan(
      spreadFactor(many.residuals, many.unusual) - 0.1
    )
  })

  it("is at most MAX_SPREAD_FACTOR, however far out a window's unusual sales lie", () => {
    const extreme = window(100, 50)
    expect(spreadFactor(extreme.residuals, extreme.unusual)).toBe(MAX_SPREAD_FACTOR)
  })

  it("is 1 when none is unusual, and never narrows a range", () => {
    const none = window(0, 1)
    expect(spreadFactor(none.residuals, none.unusual)).toBe(1)
    const closer = window(300, 0.5)
    expect(spreadFactor(closer.residuals, closer.unusual)).toBe(1)
  })

  it("is at least 1 and the same in any unit of the residuals (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -500, max: 500 }).map((r) => r / 100), fc.boolean()), {
          minLength: 1,
          maxLength: 200
        }),
        fc.integer({ min: 1, max: 100 }).map((unit) => unit / 10),
        (rows, unit) => {
          const residuals = rows.map(([r]) => r)
          const unusual = rows.map(([, u]) => u)
          const factor = spreadFactor(residuals, unusual)
          expect(factor).toBeGreaterThanOrEqual(1)
          expect(factor).toBeLessThanOrEqual(MAX_SPREAD_FACTOR)
          expect(spreadFactor(residuals.map((r) => r * unit), unusual)).toBeCloseTo(factor, 6)
        }
      )
    )
  })
})
