/**
 * A regression's levels no training sale has (a year-built bin, the unknown year, a property type) take their
 * known neighbours' effects: left at 0 they stood against effects measured from the intercept, and a market of
 * houses all built after 1940 valued a 1925 house at a tenth of its comps (a generality audit, 2026-11-30:
 * Melbourne's South-Eastern Metro as a market of its own, a $1.5M house valued at $143k).
 */
import { describe, expect, it } from "@effect/vitest"
import { characteristics, fitHedonic } from "../../src/scoring/comps/hedonic.js"
import { DEFAULT_OPTIONS } from "../../src/scoring/comps/options.js"
import type { PropertyType, Sale } from "../../src/scoring/comps/types.js"
import { fitModel } from "../../src/scoring/model.js"
import { seededRandom } from "../../src/seeded-random.js"

/** 240 houses of one market sold over a year, built in the years given, about $500k for 1,500 sq ft. */
const market = (years: ReadonlyArray<number | undefined>, types: ReadonlyArray<PropertyType> = ["single_family"]) => {
  const random = seededRandom(11)
  return Array.from({ length: 240 }, (_, i): Sale => {
    const livingArea = 1_200 + Math.round(random() * 600)
    return {
      parcelKey: `m-${i}`,
      market: "Somewhere",
      neighborhood: `N${i % 4}`,
      block: 100 + (i % 40),
      lot: i,
      zip: "99999",
      buildingClass: "A1",
      propertyType: types[i % types.length]!,
      livingArea,
      lotSize: 4_000 + Math.round(random() * 2_000),
      yearBuilt: years[i % years.length],
      price: Math.round(500_000 * (livingArea / 1_500) * Math.exp((random() - 0.5) * 0.2)),
      date: `2018-${String(1 + (i % 12)).padStart(2, "0")}-15`,
      armsLength: true
    }
  })
}
const effectOf = (sales: Array<Sale>, property: { propertyType: PropertyType; yearBuilt?: number | undefined }) => {
  const hedonic = fitHedonic(sales, DEFAULT_OPTIONS, true)!
  return characteristics(hedonic, { ...property, lotSize: 5_000, livingArea: 1_500 })
}

describe("a regression's levels without sales", () => {
  it("a year bin takes the nearest bin's effect, the unknown year the known years' mean", () => {
    const sales = market([1955, 1975, 1995, 2005, 2015])
    const of = (yearBuilt: number | undefined) => effectOf(sales, { propertyType: "single_family", yearBuilt })
    expect(of(1925)).toBeCloseTo(of(1955), 9)
    expect(of(1905)).toBeCloseTo(of(1955), 9)
    const mean = (of(1955) + of(1975) + of(1995) + of(2005) + of(2015)) / 5
    expect(of(undefined)).toBeCloseTo(mean, 9)
  })

  it("with no sale's year known, a year typed for the subject changes nothing", () => {
    const sales = market([undefined])
    const of = (yearBuilt: number | undefined) => effectOf(sales, { propertyType: "single_family", yearBuilt })
    for (const year of [1905, 1950, 2015]) expect(of(year)).toBeCloseTo(of(undefined), 9)
  })

  it("a type without sales takes a close type's effect, else the mean of those with sales", () => {
    const sales = market([1955, 1975], ["two_family", "two_family", "townhouse"])
    const of = (propertyType: PropertyType) => effectOf(sales, { propertyType, yearBuilt: 1955 })
    // One-family: as its close type, the townhouse. Three-family: as the two-family house.
    expect(of("single_family")).toBeCloseTo(of("townhouse"), 9)
    expect(of("three_family")).toBeCloseTo(of("two_family"), 9)
  })

  it("values a house built in a decade no sale has like its neighbours, not at a fraction of them", () => {
    const sales = market([1955, 1975, 1995, 2005, 2015])
    const model = fitModel([...sales], {})
    const subject = { ...sales[0]!, parcelKey: "subject", yearBuilt: 1925 }
    const valuation = model.value(subject, "2019-01-01")
    if ("reason" in valuation) throw new Error(valuation.reason)
    const median = valuation.quantiles["0.5"]
    expect(median).toBeGreaterThan(400_000)
    expect(median).toBeLessThan(650_000)
  })
})
