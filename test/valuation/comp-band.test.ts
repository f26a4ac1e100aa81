/**
 * A comp band no single sale can capture (ANS-7): one sale per parcel, no sale above
 * MAX_COMP_WEIGHT_SHARE of the weight, and withheld when the capped weights are worth fewer than
 * MIN_EFFECTIVE_COMPS_FOR_BAND sales. Property-based: duplicating a comp changes nothing; one extreme sale
 * moves the middle no further than the band's own low or high.
 */
import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import {
  cappedWeights,
  type ComparableSale,
  compBand,
  compBandOf,
  latestSalePerParcel,
  weightedCompDistance
} from "../../src/valuation/comps.js"
import { MAX_COMP_WEIGHT_SHARE } from "../../src/valuation/policy.js"

const sale = (i: number, price: number, weight: number, saleDate = "2026-05-01"): ComparableSale => ({
  propertyId: `p-${i}`,
  address: `${i} OAK AVE`,
  saleDate,
  salePrice: price,
  timeAdjustedPrice: price,
  facts: { living_area_square_feet: 1_500 },
  similarity: weight,
  weight
})

const comps = fc.array(
  fc.record({
    price: fc.integer({ min: 100_000, max: 900_000 }),
    weight: fc.double({ min: 0.01, max: 1, noNaN: true })
  }),
  { minLength: 5, maxLength: 40 }
).map((rows) => rows.map((row, i) => sale(i, row.price, row.weight)))

describe("the comp band", () => {
  it("ANS-7: the band's likeness is its sales' similarity averaged with their capped weights, one sale per parcel", () => {
    const withSimilarity = (comp: ComparableSale, similarity: number): ComparableSale => ({ ...comp, similarity })
    const five = [1, 2, 3, 4, 5].map((i) => withSimilarity(sale(i, 500_000 + i * 1_000, 1), 0.2))
    // A sixth sale with a hundred times the weight is capped at a fifth of the total: weights 1, 1, 1, 1, 1 and
    // 1.25 (t = 0.2 × (5 + t)); likeness (5 × 0.2 + 1.25 × 1) / 6.25 = 0.36.
    const heavy = withSimilarity(sale(6, 510_000, 100), 1)
    expect(compBandOf([...five, heavy], 1_500).likeness).toBeCloseTo(0.36, 10)
    // The same parcel's earlier sale (a duplicate) changes nothing.
    expect(compBandOf([...five, heavy, { ...heavy, saleDate: "2025-01-01" }], 1_500).likeness).toBeCloseTo(0.36, 10)
    expect(compBandOf(five, 1_500).likeness).toBeCloseTo(0.2, 10)
    // No band, no likeness.
    expect(compBandOf(five.slice(0, 2), 1_500).likeness).toBeUndefined()
  })

  it("ANS-7: the comps' distance is averaged with the band's capped weights, one sale per parcel; none without distances", () => {
    const at = (comp: ComparableSale, distanceMiles: number | undefined): ComparableSale => ({ ...comp, distanceMiles })
    const five = [1, 2, 3, 4, 5].map((i) => at(sale(i, 500_000, 1), 2))
    // As for the likeness: a sixth sale with a hundred times the weight is capped at 1.25 of 6.25; its 12 miles
    // count for a fifth: (5 × 2 + 1.25 × 12) / 6.25 = 4.
    const heavy = at(sale(6, 510_000, 100), 12)
    expect(weightedCompDistance([...five, heavy])).toBeCloseTo(4, 10)
    // The same parcel's earlier sale changes nothing, nor does a sale with no weight.
    expect(weightedCompDistance([...five, heavy, { ...heavy, saleDate: "2025-01-01" }])).toBeCloseTo(4, 10)
    expect(weightedCompDistance([...five, heavy, at(sale(7, 1, 0), 90)])).toBeCloseTo(4, 10)
    // A market without coordinates (a sale without a distance), or no comps: no distance.
    expect(weightedCompDistance([...five, at(sale(8, 500_000, 1), undefined)])).toBeUndefined()
    expect(weightedCompDistance([])).toBeUndefined()
  })

  it("ANS-7: no weight above the share once capped (or all equal when there are too few), order kept", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.001, max: 1000, noNaN: true }), { minLength: 1, maxLength: 50 }),
        (weights) => {
          const capped = cappedWeights(weights, MAX_COMP_WEIGHT_SHARE)
          const total = capped.reduce((sum, weight) => sum + weight, 0)
          const limit = Math.max(MAX_COMP_WEIGHT_SHARE, 1 / weights.length)
          for (const weight of capped) expect(weight / total).toBeLessThanOrEqual(limit + 1e-9)
          // Never reorders: a heavier sale stays at least as heavy.
          for (let i = 0; i < weights.length; i++) {
            for (let j = 0; j < weights.length; j++) {
              if (weights[i]! >= weights[j]!) expect(capped[i]!).toBeGreaterThanOrEqual(capped[j]! - 1e-9)
            }
          }
        }
      )
    )
  })

  it("ANS-7: a parcel counts once, by its latest sale", () => {
    const list = [sale(1, 500_000, 1, "2025-01-01"), sale(1, 300_000, 0.5, "2026-01-01"), sale(2, 400_000, 0.7)]
    expect(latestSalePerParcel(list).map((comp) => [comp.propertyId, comp.saleDate])).toEqual([
      ["p-1", "2026-01-01"],
      ["p-2", "2026-05-01"]
    ])
  })

  it("ANS-7: duplicating a comp (the same parcel's sale listed again) does not move the band", () => {
    fc.assert(fc.property(comps, fc.nat(), (list, pick) => {
      const duplicate = list[pick % list.length]!
      expect(compBand([...list, duplicate, duplicate], 1_500)).toEqual(compBand(list, 1_500))
    }))
  })

  it("ANS-7: one extreme sale, however similar, moves the middle no further than the band's own low or high", () => {
    fc.assert(fc.property(comps, fc.boolean(), (list, high) => {
      const before = compBand(list, 1_500)
      if (before === undefined) return
      const extreme = sale(999, high ? 50_000_000 : 1_000, 1_000)
      const after = compBand([...list, extreme], 1_500)!
      expect(after.middle).toBeGreaterThanOrEqual(before.low)
      expect(after.middle).toBeLessThanOrEqual(before.high)
    }))
  })

  it("ANS-7: one dominant sale cannot set both the low and the middle (the issue's $184k comp)", () => {
    const list = [sale(0, 184_000, 1), ...[1, 2, 3, 4, 5, 6].map((i) => sale(i, 620_000 + i * 10_000, 0.05))]
    const band = compBand(list, 1_500)!
    expect(band.middle).toBeGreaterThan(600_000)
  })

  it("ANS-7: thin evidence withholds the band: three sales of two parcels are not three comparable sales", () => {
    const two = [sale(1, 300_000, 1, "2025-01-01"), sale(1, 305_000, 1), sale(2, 310_000, 1)]
    expect(compBand(two, 1_500)).toBeUndefined()
    expect(compBand([sale(1, 300_000, 1), sale(2, 310_000, 1), sale(3, 320_000, 1)], 1_500)).toBeDefined()
  })

  it("ANS-7: a size-normalised band uses only sales within 1.5 times the subject's area; too few, no band (the audit's 11,224 sq ft house)", () => {
    const sized = (i: number, price: number, area: number) => ({
      ...sale(i, price, 1),
      facts: { living_area_square_feet: area }
    })
    const small = [sized(1, 900_000, 2_400), sized(2, 1_000_000, 2_800), sized(3, 1_100_000, 3_200)]
    expect(compBandOf(small, 11_224)).toEqual({ reason: "too-few-of-similar-size" })
    expect(compBandOf(small, 2_800).band).toMatchObject({ middle: 1_000_000, method: "price_per_square_foot" })
    // Too few priced sales at all is the other reason.
    expect(compBandOf(small.slice(0, 2), 2_800)).toEqual({ reason: "too-few-priced-comps" })
    // Exactly 1.5 times either way is within; a square foot more is not.
    const edge = [sized(4, 1_000_000, 2_000), sized(5, 1_000_000, 4_500), sized(6, 1_000_000, 3_000)]
    expect(compBandOf(edge, 3_000).band).toMatchObject({ comp_count: 3 })
    expect(compBandOf([...edge.slice(1), sized(4, 1_000_000, 1_999)], 3_000)).toEqual({
      reason: "too-few-of-similar-size"
    })
    // By sale price (fewer than 3 areas on record), a recorded area beyond the ratio is left out too.
    const unsized = (i: number, price: number) => ({ ...sale(i, price, 1), facts: {} })
    const byPrice = [sized(1, 900_000, 2_400), sized(2, 1_000_000, 2_800), unsized(3, 1_100_000), unsized(4, 1_200_000)]
    expect(compBandOf(byPrice, 11_224)).toEqual({ reason: "too-few-of-similar-size" })
    expect(compBandOf([...byPrice, unsized(5, 1_300_000)], 11_224).band).toMatchObject({
      comp_count: 3,
      method: "sale_price"
    })
  })

  it("ANS-7: sales of a size beyond 1.5 times the subject's never move its size-normalised band", () => {
    const area = fc.integer({ min: 400, max: 8_000 })
    fc.assert(fc.property(comps, area, fc.array(fc.tuple(fc.integer({ min: 50_000, max: 9_000_000 }), fc.boolean())), (
      list,
      subject,
      extras
    ) => {
      const near = list.map((comp) => ({ ...comp, facts: { living_area_square_feet: subject } }))
      const far = extras.map(([price, larger], i) => ({
        ...sale(500 + i, price, 1_000),
        facts: { living_area_square_feet: larger ? Math.ceil(subject * 1.5) + 1 : Math.floor(subject / 1.5) - 1 }
      }))
      expect(compBand([...near, ...far], subject)).toEqual(compBand(near, subject))
    }))
  })
})
