import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { maximumAllowableOffer, rehabAdjustedArv, rehabBudgetFor } from "../../src/valuation/offer.js"

const sum = (stack: Record<string, number>) => Object.values(stack).reduce((total, line) => total + line, 0)

const arv = fc.integer({ min: 0, max: 50_000_000 })
const rehab = fc.integer({ min: 0, max: 10_000_000 })
const margin = fc.double({ min: 0.001, max: 0.899, noNaN: true })
const area = fc.integer({ min: 100, max: 100_000 })

/** The largest gap rounding the price to the nearest thousand (and each line to a dollar) can make. */
const ROUNDING_GAP = 500 * 1.0875 + 4

describe("cost stack", () => {
  it("COST-1: down_payment + loan equals the MAO exactly, clamped or not", () => {
    fc.assert(fc.property(arv, rehab, margin, (a, r, m) => {
      const offer = maximumAllowableOffer(a, r, m)
      expect(offer.costStack.down_payment + offer.costStack.loan).toBe(offer.price)
    }))
  })

  it("COST-2: not clamped, the seven lines add up to rehab_adjusted_arv up to rounding only", () => {
    fc.assert(fc.property(arv, rehab, margin, (a, r, m) => {
      const offer = maximumAllowableOffer(a, r, m)
      fc.pre(!offer.clamped)
      expect(Math.abs(sum(offer.costStack) - a)).toBeLessThanOrEqual(ROUNDING_GAP)
    }))
  })

  it("COST-2: across the bracketed budgets, the gap stays within a thousand dollars", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 150_000, max: 3_000_000 }),
        area,
        fc.constantFrom("light_rehab", "moderate_rehab", "major_rehab") as fc.Arbitrary<"light_rehab">,
        (a, livingArea, condition) => {
          const budget = rehabBudgetFor({ condition }, livingArea)
          const offer = maximumAllowableOffer(a, budget, 0.2)
          fc.pre(!offer.clamped)
          expect(Math.abs(sum(offer.costStack) - a)).toBeLessThan(1_000)
        }
      )
    )
  })

  it("COST-3: clamped, the price is the 1,000 floor and the lines describe it, not the ARV", () => {
    fc.assert(fc.property(fc.integer({ min: 10_000, max: 2_000_000 }), margin, (a, m) => {
      const offer = maximumAllowableOffer(a, a, m)
      expect(offer.clamped).toBe(true)
      expect(offer.price).toBe(1_000)
      expect(offer.costStack).toMatchObject({ down_payment: 100, loan: 900, rehab_budget: a })
      expect(sum(offer.costStack)).not.toBe(a)
    }))
  })

  it("ANS-11: the MAO is a whole thousand within [1,000, ARV], and clamped exactly when no price clears the margin", () => {
    fc.assert(fc.property(arv, rehab, margin, (a, r, m) => {
      const offer = maximumAllowableOffer(a, r, m)
      expect(offer.price % 1_000).toBe(0)
      expect(offer.price).toBeGreaterThanOrEqual(1_000)
      if (!offer.clamped) expect(offer.price).toBeLessThanOrEqual(Math.max(1_000, a + 500))
      const outlayAtFloor = 1_000 * 1.0875 + r * 1.055 + a * (0.08 + m)
      expect(offer.clamped).toBe(outlayAtFloor > a)
    }))
  })

  it("SVC-1: the MAO falls as the margin or the repair budget rises", () => {
    fc.assert(fc.property(fc.integer({ min: 100_000, max: 5_000_000 }), rehab, margin, margin, (a, r, m1, m2) => {
      const [low, high] = m1 < m2 ? [m1, m2] : [m2, m1]
      expect(maximumAllowableOffer(a, r, high).price).toBeLessThanOrEqual(maximumAllowableOffer(a, r, low).price)
      expect(maximumAllowableOffer(a, r + 10_000, low).price).toBeLessThanOrEqual(
        maximumAllowableOffer(a, r, low).price
      )
    }))
  })

  it("worked example, by hand: ARV $300,000, repairs $60,000, margin 20%", () => {
    // price = (300,000 × (1 − 0.08 − 0.20) − 1.055 × 60,000) / 1.0875 = 140,413.79 → 140,000
    const offer = maximumAllowableOffer(300_000, 60_000, 0.2)
    expect(offer).toEqual({
      price: 140_000,
      clamped: false,
      costStack: {
        down_payment: 14_000,
        loan: 126_000,
        rehab_budget: 60_000,
        interest: 10_230, // 11% a year for 6 months on 126,000 + 60,000
        points: 2_520, // 2% of the loan
        closing_costs: 26_800, // 2% of 140,000 + 8% of 300,000
        target_profit: 60_000 // 20% of 300,000
      }
    })
    expect(sum(offer.costStack)).toBe(299_550)
  })

  it("worked example, by hand: ARV $80,000, repairs $90,000 cannot clear any margin: clamped at $1,000", () => {
    const offer = maximumAllowableOffer(80_000, 90_000, 0.2)
    expect(offer).toEqual({
      price: 1_000,
      clamped: true,
      costStack: {
        down_payment: 100,
        loan: 900,
        rehab_budget: 90_000,
        interest: 5_000, // 5.5% of 90,900 = 4,999.50, rounded half up
        points: 18,
        closing_costs: 6_420, // 2% of 1,000 + 8% of 80,000
        target_profit: 16_000
      }
    })
  })
})

describe("repair budget and rehab-adjusted ARV", () => {
  it("ANS-8 REQ-2 REQ-5: the caller's budget wins; else the bracket's whole-project midpoint; else zero", () => {
    fc.assert(
      fc.property(
        rehab,
        area,
        fc.constantFrom(undefined, "turn_key", "light_rehab", "moderate_rehab", "major_rehab") as fc.Arbitrary<
          "major_rehab" | undefined
        >,
        (budget, livingArea, condition) => {
          expect(rehabBudgetFor({ rehabBudget: budget, condition }, livingArea)).toBe(budget)
        }
      )
    )
    expect(rehabBudgetFor({}, 1_500)).toBe(0)
    expect(rehabBudgetFor({ condition: "turn_key" }, 1_500)).toBe(0)
    expect(rehabBudgetFor({ condition: "light_rehab" }, 1_500)).toBe(26_250) // 17.5 × 1,500
    expect(rehabBudgetFor({ condition: "moderate_rehab" }, 1_500)).toBe(52_500) // 35 × 1,500
    expect(rehabBudgetFor({ condition: "major_rehab" }, 1_500)).toBe(93_750) // 62.5 × 1,500
    expect(rehabBudgetFor({ condition: "major_rehab" }, 1_333)).toBe(83_313) // round(83,312.5)
  })

  it("ANS-9: the ARV is the band middle with no repairs, rises with the budget, and never passes the upper end", () => {
    const band = fc.tuple(
      fc.integer({ min: 1_000, max: 5_000_000 }),
      fc.integer({ min: 0, max: 1_000_000 }),
      fc.integer({ min: 0, max: 1_000_000 })
    )
      .map(([low, up1, up2]) => ({
        low,
        middle: low + up1,
        high: low + up1 + up2,
        comp_count: 5,
        method: "price_per_square_foot" as const
      }))
    fc.assert(fc.property(band, rehab, rehab, area, (b, r1, r2, livingArea) => {
      expect(rehabAdjustedArv(b, 0, livingArea)).toBe(b.middle)
      const [smaller, larger] = r1 < r2 ? [r1, r2] : [r2, r1]
      const a1 = rehabAdjustedArv(b, smaller, livingArea)
      const a2 = rehabAdjustedArv(b, larger, livingArea)
      expect(a1).toBeLessThanOrEqual(a2)
      expect(a2).toBeLessThanOrEqual(b.high)
      expect(a1).toBeGreaterThanOrEqual(b.middle)
      expect(rehabAdjustedArv(b, 60 * livingArea, livingArea)).toBe(b.high)
    }))
  })

  it("ANS-9 worked example: band 400k/450k/520k, 1,500 sq ft, $45,000 of repairs lifts half way: 485,000", () => {
    const band = {
      low: 400_000,
      middle: 450_000,
      high: 520_000,
      comp_count: 6,
      method: "price_per_square_foot" as const
    }
    expect(rehabAdjustedArv(band, 45_000, 1_500)).toBe(485_000)
  })
})
