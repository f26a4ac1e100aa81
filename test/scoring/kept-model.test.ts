import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { deserialize, serialize } from "node:v8"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { parcelDisplayAddress } from "../../src/scoring/address-index.js"
import { type KeptComps, ScoringEngine } from "../../src/scoring/engine.js"
import type { PropertyData } from "../../src/services/property-store.js"

const county = generateDemoCounty({ parcels: 3_000 })
const data: PropertyData = { parcels: county.parcels, sales: county.sales }
const asOf = "2026-11-01"
const fitted = ScoringEngine.build(data, { learners: "later" })
/** As a restart reads it: through the serialization the kept file uses. */
const kept = deserialize(serialize(fitted.keptComps())) as KeptComps

/** Every outcome (value, distribution, comps, match) of every 20th parcel, as of one date. */
const outcomes = (engine: ScoringEngine) =>
  county.parcels.filter((_, i) => i % 20 === 0).map((parcel) =>
    Either.match(engine.score(parcelDisplayAddress(parcel), undefined, asOf), {
      onLeft: (error) => ({ failed: error._tag }),
      onRight: (outcome) => outcome
    })
  )

describe("a kept comps model", () => {
  it("restored over the same sales, values every property exactly as the fitted one", () => {
    const restored = ScoringEngine.build(data, { learners: "later", kept })
    expect(restored.compsRestored).toBe(true)
    expect(fitted.compsRestored).toBe(false)
    const expected = outcomes(fitted)
    expect(expected.filter((outcome) => "model" in outcome).length).toBeGreaterThan(100)
    expect(outcomes(restored)).toEqual(expected)
    expect(restored.keptComps()).toEqual(kept)
  })

  it("is not used once the data changed (one sale's price): the model is fitted on the new data", () => {
    const changedSale = data.sales.findIndex((sale) => sale.armsLength && sale.price > 0)
    const changed: PropertyData = {
      ...data,
      sales: data.sales.map((sale, i) => (i === changedSale ? { ...sale, price: sale.price + 1_000 } : sale))
    }
    const engine = ScoringEngine.build(changed, { learners: "later", kept })
    expect(engine.compsRestored).toBe(false)
    expect(engine.keptComps().salesDigest).not.toBe(kept.salesDigest)
    expect(outcomes(engine)).toEqual(outcomes(ScoringEngine.build(changed, { learners: "later" })))
  })

  it("is not used by an engine built with other model options, nor on the sales before a date", () => {
    const otherOptions = ScoringEngine.build(data, { learners: "later", kept, model: { resaleMonths: 0 } })
    expect(otherOptions.compsRestored).toBe(false)
    const earlier = ScoringEngine.build(data, { learners: "later", kept, salesBefore: "2026-01-01" })
    expect(earlier.compsRestored).toBe(false)
  })
})
