/**
 * Valuation dates (docs/decisions.md, "Valuation dates"): a call is valued as of its own date when the
 * market's data is current (its latest recorded sale at most 31 days earlier), else as of the day the data runs
 * through, and the answer says which, with the age of its evidence. The rule alone, then on the real engine over
 * the synthetic demo county, then through the local Scoring layer under a clock the test sets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Layer, TestClock } from "effect"
import fc from "fast-check"
import { ScoringLocal } from "../../layers/scoring/local.js"
import { DEMO_MARKET, generateDemoCounty } from "../../src/property/demo-county.js"
import type { ParcelRecord } from "../../src/property/records.js"
import { ScoringEngine } from "../../src/scoring/engine.js"
import type { PropertyData } from "../../src/services/property-store.js"
import { Scoring } from "../../src/services/scoring.js"
import { scoredAnswer, scoredEntry } from "../../src/valuation/answer.js"
import { addDays, daysBetween, isCurrent, isIsoDate, valuationDateFor } from "../../src/valuation/dates.js"
import { CURRENT_DATA_DAYS } from "../../src/valuation/policy.js"
import { dataStore } from "../harness/demo-county.js"

/** A clock that always reads `millis`. */
const stoppedClock = (millis: number): Clock.Clock => ({
  ...Clock.make(),
  unsafeCurrentTimeMillis: () => millis,
  unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
  currentTimeMillis: Effect.succeed(millis),
  currentTimeNanos: Effect.succeed(BigInt(millis) * 1_000_000n)
})

const right = <A, E>(either: Either.Either<A, E>): A => {
  if (Either.isLeft(either)) throw new Error(`expected a value, got ${JSON.stringify(either.left)}`)
  return either.right
}

describe("the valuation-date rule", () => {
  it("a calendar date is YYYY-MM-DD of a day that exists: every day from 1900 to 2100 is, no other form is", () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 73_000 }), (days) => {
      const date = addDays("1900-01-01", days)
      expect(isIsoDate(date)).toBe(true)
    }))
    for (const text of ["2019-13-45", "2019-02-29", "2019-1-1", "2019-01-01T00:00:00Z", "", "20190101", "2019-00-10"]) {
      expect(isIsoDate(text), text).toBe(false)
    }
    expect(isIsoDate("2020-02-29")).toBe(true)
  })

  it("VER-2: data at most 31 days old is current and the call is valued as of its own date; older data as of its last day", () => {
    expect(CURRENT_DATA_DAYS).toBe(31)
    expect(valuationDateFor("2020-01-31", "2019-12-31")).toBe("2020-01-31")
    expect(valuationDateFor("2020-02-01", "2019-12-31")).toBe("2019-12-31")
    expect(valuationDateFor("2026-11-23", "2019-12-31")).toBe("2019-12-31")
    // A clock behind the data values as of the call's date: nothing is carried past the data.
    expect(valuationDateFor("2019-06-01", "2019-12-31")).toBe("2019-06-01")
    fc.assert(fc.property(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: -400, max: 4_000 }), (day, late) => {
      const dataThrough = addDays("1990-01-01", day)
      const callDate = addDays(dataThrough, late)
      expect(daysBetween(dataThrough, callDate)).toBe(late)
      const date = valuationDateFor(callDate, dataThrough)
      expect(date).toBe(late <= CURRENT_DATA_DAYS ? callDate : dataThrough)
      expect(isCurrent(dataThrough, callDate)).toBe(date === callDate)
      // Never a date past both the call and the data.
      expect(date <= callDate || date <= dataThrough).toBe(true)
    }))
  })
})

const county = generateDemoCounty({ parcels: 3_000 })
const house = county.parcels.find((p) =>
  p.source === "demo-county" && p.unit === "" && p.propertyType === "single_family" && !!p.livingAreaSquareFeet &&
  !!p.lotSizeSquareFeet && county.parcels.filter((q) => q.street === p.street).length === 1
)!
const located = { parcel: house as ParcelRecord }
const latestArmsLength = (sales: PropertyData["sales"]) =>
  sales.filter((sale) => sale.armsLength && sale.price > 0).map((sale) => sale.saleDate).sort().at(-1)!

describe("the engine's valuation date", () => {
  // The county's data as it stood at the end of 2019: six years old on the day of a call in 2026.
  const old = ScoringEngine.build({ parcels: county.parcels, sales: county.sales }, { salesBefore: "2020-01-01" })
  const oldThrough = latestArmsLength(county.sales.filter((sale) => sale.saleDate < "2020-01-01"))

  it("VER-2: data_through is the market's latest recorded arm's-length sale the engine was built on", () => {
    expect(oldThrough < "2020-01-01").toBe(true)
    expect(old.dataThrough(DEMO_MARKET)).toBe(oldThrough)
    expect(old.dataThrough("no such market")).toBeUndefined()
  })

  it("VER-2 ANS-5: old data is valued as of its last day, not today, and the answer says so", () => {
    const outcome = right(old.valueForCall(located, undefined, "2026-11-23"))
    expect(outcome.dates).toEqual({ callDate: "2026-11-23", valuationDate: oldThrough, dataThrough: oldThrough })
    // The same value as one asked for on the data's last day: nothing is carried past the data.
    const onLastDay = right(old.valueForCall(located, undefined, oldThrough))
    expect(onLastDay.dates.valuationDate).toBe(oldThrough)
    expect(outcome.model.quantiles).toEqual(onLastDay.model.quantiles)
    expect(outcome.comps.every((comp) => comp.saleDate <= oldThrough)).toBe(true)

    const answer = scoredAnswer(outcome, { address: "x" })
    expect(answer.valuation_date).toBe(oldThrough)
    expect(answer.evidence.data_through).toBe(oldThrough)
    expect(answer.evidence.note).toContain(`end on ${oldThrough}`)
    expect(answer.evidence.note).toContain("not the day of the call")
    expect(answer.evidence.newest_comparable_sale).toBe(outcome.comps.map((comp) => comp.saleDate).sort().at(-1))
    expect(answer.evidence.newest_comparable_sale! <= oldThrough).toBe(true)
    // Sales on the data's last day count: the value is as of the close of that day.
    expect(outcome.comps.length).toBeGreaterThan(3)
  })

  it("VER-2: current data is valued as of the day of the call, with no note", () => {
    const callDate = addDays(oldThrough, CURRENT_DATA_DAYS)
    const outcome = right(old.valueForCall(located, undefined, callDate))
    expect(outcome.dates).toEqual({ callDate, valuationDate: callDate, dataThrough: oldThrough })
    const answer = scoredAnswer(outcome, { address: "x" })
    expect(answer.valuation_date).toBe(callDate)
    expect(answer.evidence).not.toHaveProperty("note")
    expect(answer.evidence.data_through).toBe(oldThrough)
    // One day later the data is no longer current.
    const late = scoredAnswer(right(old.valueForCall(located, undefined, addDays(callDate, 1))), { address: "x" })
    expect(late.valuation_date).toBe(oldThrough)
    expect(late.evidence.note).toBeDefined()
  })

  it("BAT-2 VER-2: newest_comparable_sale is the latest sale among the comparable sales used, listed or not", () => {
    const outcome = right(old.valueForCall(located, undefined, "2020-01-10"))
    const newest = outcome.comps.map((comp) => comp.saleDate).sort().at(-1)
    const answer = scoredAnswer(outcome, { address: "x" })
    expect(answer.evidence.newest_comparable_sale).toBe(newest)
    const listed = answer.comps!.map((comp) => comp.sale_date).sort().at(-1)!
    expect(newest! >= listed).toBe(true)
    // A batch entry carries the same dates (it only lacks `comps`).
    expect(scoredEntry(outcome, { address: "x" })).toMatchObject({
      valuation_date: "2020-01-10",
      evidence: answer.evidence
    })
  })
})

describe("the local Scoring layer's valuation date", () => {
  const data: PropertyData = { parcels: county.parcels, sales: county.sales }
  const dataThrough = latestArmsLength(county.sales)
  const store = dataStore(data)
  const layer = ScoringLocal.pipe(Layer.provide(store))
  const address = `${house.street}, ${house.city}`

  // The clock is set before the layer starts (its periodic reload is scheduled from then on).
  it.scoped(
    "VER-2: the call's date is the clock's UTC day; past the data's 31 days, the data's last day",
    () =>
      Effect.zipRight(
        TestClock.setTime(Date.parse(`${addDays(dataThrough, 10)}T23:30:00Z`)),
        Effect.gen(function*() {
          const scoring = yield* Scoring
          const current = yield* scoring.score(address)
          expect(current.dates).toEqual({
            callDate: addDays(dataThrough, 10),
            valuationDate: addDays(dataThrough, 10),
            dataThrough
          })
          // 120 days on, read through a clock that stands still (the TestClock would run every reload check).
          const later = Date.parse(`${addDays(dataThrough, 130)}T00:10:00Z`)
          const stale = yield* Effect.withClock(scoring.score(address), stoppedClock(later))
          expect(stale.dates).toEqual({ callDate: addDays(dataThrough, 130), valuationDate: dataThrough, dataThrough })
          expect(scoredAnswer(stale, { address }).evidence.note).toContain(dataThrough)
        }).pipe(Effect.provide(layer))
      ),
    { timeout: 60_000 }
  )
})
