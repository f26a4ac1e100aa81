import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { ScoringEngine } from "../../src/scoring/engine.js"
import { fitLearnersOnWorker } from "../../src/scoring/learner-thread.js"
import { propertyHistory } from "../../src/valuation/history.js"

// The documented demo addresses (docs/demo-county.md) keep doing what the documentation says.
const county = generateDemoCounty()
// Its learners fitted on a worker thread, as the server fits them (test/harness/event-loop.ts).
const comps = ScoringEngine.build({ parcels: county.parcels, sales: county.sales }, { learners: "later" })
const engine = comps.withStack(await fitLearnersOnWorker(comps.sales).result)

describe("the demo county's documented addresses", () => {
  const score = (address: string, overrides?: Record<string, number>) => engine.score(address, overrides, "2026-11-22")
  const failure = (address: string) => {
    const result = score(address)
    return Either.isLeft(result) ? result.left : undefined
  }

  it("is labelled synthetic and about 20,000 parcels", () => {
    expect(county.parcels.length).toBeGreaterThanOrEqual(20_000)
    expect(county.parcels.every((parcel) => parcel.synthetic && parcel.market === "Demo County (synthetic)")).toBe(true)
  })

  it("HIS-2: 3 Pine Dr, Maple Falls shows a flip and its renovation permit", () => {
    const { parcel } = Either.getOrThrow(engine.locate("3 Pine Dr, Maple Falls"))
    const history = propertyHistory({
      parcel,
      sales: county.sales.filter((sale) => sale.parcelId === parcel.id),
      listing: county.listings.find((listing) => listing.parcelId === parcel.id),
      permits: county.permits.filter((permit) => permit.parcelId === parcel.id)
    })
    expect(history.flips.length).toBeGreaterThan(0)
    expect(history.permits.some((permit) => permit.permit_type === "alteration")).toBe(true)
  })

  it("scores the two example houses", () => {
    expect(Either.isRight(score("3 Pine Ct, Riverton"))).toBe(true)
    expect(Either.isRight(score("3 Pine Dr, Maple Falls"))).toBe(true)
  })

  it("ERR-3: reaches each covered address reason", () => {
    expect(failure("2 Maple St")).toMatchObject({ _tag: "AmbiguousAddress" })
    expect((failure("2 Maple St") as unknown as { candidates: Array<string> }).candidates).toHaveLength(5)
    expect(failure("1 Main St, Springfield, IL 62701")).toMatchObject({ _tag: "OutsideCoverage" })
    expect(failure("99999 Nowhere Rd, Riverton, ZZ 99103")).toMatchObject({ _tag: "UnscorableAddress" })
  })

  it("OVR-5: the missing-fact addresses are refused until an override supplies the fact", () => {
    expect(failure("5 Holly Ave, Maple Falls")).toMatchObject({
      _tag: "MissingValuationFact",
      missing: ["living_area_square_feet"]
    })
    expect(failure("3 Valley Ct, Maple Falls")).toMatchObject({
      _tag: "MissingValuationFact",
      missing: ["lot_size_square_feet"]
    })
    expect(Either.isRight(score("5 Holly Ave, Maple Falls", { living_area_square_feet: 1_400 }))).toBe(true)
    expect(Either.isRight(score("3 Valley Ct, Maple Falls", { lot_size_square_feet: 4_000 }))).toBe(true)
  })

  it("the fault-drill parcels are there to be found", () => {
    expect(Either.getOrThrow(engine.locate("1 Fault Drill Way, Cedar Grove")).parcel.id).toBe("demo-fault-unavailable")
    expect(Either.getOrThrow(engine.locate("2 Fault Drill Way, Cedar Grove")).parcel.id).toBe("demo-fault-timeout")
  })
})
