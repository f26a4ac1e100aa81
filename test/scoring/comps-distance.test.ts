/**
 * In a market with coordinates the comps are searched by distance: within `maxMiles` (15) of the subject,
 * weighted by `exp(-miles / mileBandwidth)`. Distances are measured on one projection per market: each
 * point's own latitude once shifted a sale east or west by its longitude times the change in the cosine,
 * about a mile for every 0.01° north at Melbourne's 145° E, so a Sunbury house was given comps in Reservoir,
 * 19.7 miles away (an investor's audit on the real Melbourne file).
 */
import { describe, expect, it } from "@effect/vitest"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { milesPerDegreeLongitudeOf, toMiles } from "../../src/scoring/comps/comps-index.js"
import { modelSales } from "../../src/scoring/engine.js"
import { fitModel } from "../../src/scoring/model.js"
import { seededRandom } from "../../src/seeded-random.js"

/** Great-circle miles (the distance an answer's comps carry). */
const haversine = (a: readonly [number, number], b: readonly [number, number]) => {
  const rad = Math.PI / 180
  const h = Math.sin(((b[0] - a[0]) * rad) / 2) ** 2 +
    Math.cos(a[0] * rad) * Math.cos(b[0] * rad) * Math.sin(((b[1] - a[1]) * rad) / 2) ** 2
  return 2 * 3958.8 * Math.asin(Math.sqrt(h))
}

describe("the distance between a subject and a comp", () => {
  it("is the great-circle distance within a market's extent, whatever the latitudes", () => {
    const points: ReadonlyArray<readonly [number, number]> = [
      [-37.58, 144.73], // Sunbury
      [-37.71, 145.01], // Reservoir
      [-37.7, 145.0],
      [-37.69, 145.0],
      [-37.95, 145.3]
    ]
    const perDegree = milesPerDegreeLongitudeOf(points.map(([latitude, longitude]) => ({ latitude, longitude })))
    for (const a of points) {
      for (const b of points) {
        const [pa, pb] = [toMiles(a[0], a[1], perDegree), toMiles(b[0], b[1], perDegree)]
        const planar = Math.hypot(pa.x - pb.x, pa.y - pb.y)
        expect(Math.abs(planar - haversine(a, b))).toBeLessThan(0.02 * haversine(a, b) + 0.01)
      }
    }
  })

  it("keeps every comp within 15 miles: a town 16–18 miles away lends none, however its latitude differs", () => {
    const county = generateDemoCounty()
    const houses = modelSales({ parcels: county.parcels, sales: county.sales })
      .filter((sale) => sale.propertyType === "single_family")
      .slice(0, 3_000)
    const random = seededRandom(3)
    const subjectAt = [-37.7, 145.0] as const
    // Most sales in a town north-west of the subject (Sunbury from Reservoir: 16–18 miles), a few 2–3 miles east.
    const located = houses.map((sale, i) => {
      const near = i % 50 === 0
      const [latitude, longitude] = near
        ? [subjectAt[0] + (random() - 0.5) * 0.01, subjectAt[1] + 0.04 + random() * 0.015]
        : [-37.58 + (random() - 0.5) * 0.02, 144.73 + (random() - 0.5) * 0.02]
      return { ...sale, latitude, longitude }
    })
    const model = fitModel([...located], {})
    const subject = { ...located[1]!, parcelKey: "subject", latitude: subjectAt[0], longitude: subjectAt[1] }
    const valuation = model.value(subject, "2015-10-01")
    if ("reason" in valuation) throw new Error(valuation.reason)
    expect(valuation.comps.length).toBeGreaterThan(0)
    for (const comp of valuation.comps) {
      expect(haversine(subjectAt, [comp.sale.latitude!, comp.sale.longitude!])).toBeLessThanOrEqual(15)
    }
  })
})
