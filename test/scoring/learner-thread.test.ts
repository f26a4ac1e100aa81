/**
 * The server's engine serves on the comps model at once and joins in the learners fitted on a worker thread
 * (the real thread, from source through tsx): the same stack as one fitted in place, and no request waits.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { ScoringLocalServing } from "../../layers/scoring/local.js"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import { ScoringEngine } from "../../src/scoring/engine.js"
import { fitLearnersOnWorker } from "../../src/scoring/learner-thread.js"
import { defaultStackOptions } from "../../src/scoring/stack.js"
import { Scoring } from "../../src/services/scoring.js"
import { dataStore } from "../harness/demo-county.js"

// The county every first start loads: its last three months hold enough sales for a blend of their own.
const county = generateDemoCounty()
const data = { parcels: county.parcels, sales: county.sales }
const house = county.parcels.find((parcel) =>
  parcel.propertyType === "single_family" && parcel.unit === "" && parcel.source === "demo-county"
)!
const address = `${house.street}, ${house.city}`

describe("learners on a worker thread", () => {
  it("a stack fitted on a worker values exactly as one fitted in place", async () => {
    // Fewer trees than served, on both sides: fitted in place, the served learners would hold this test's
    // thread past vitest's limit (test/harness/event-loop.ts); what crosses the thread is the same data.
    const options = { stack: { learner: { ...defaultStackOptions.learner, trees: 60 } } }
    const later = ScoringEngine.build(data, { ...options, learners: "later" })
    expect(later.stack.hasLearners).toBe(false)
    const joined = later.withStack(await fitLearnersOnWorker(later.sales, options).result)
    const inPlace = ScoringEngine.build(data, options)
    expect(joined.stack.hasLearners).toBe(true)
    const asOf = "2026-11-01"
    const a = inPlace.score(address, undefined, asOf)
    const b = joined.score(address, undefined, asOf)
    expect(a._tag === "Right" && b._tag === "Right").toBe(true)
    if (a._tag === "Right" && b._tag === "Right") expect(b.right.model).toEqual(a.right.model)
  }, 120_000)

  it.live("the serving layer answers before the learners are in, then with them", () => {
    const store = dataStore(data)
    return Effect.gen(function*() {
      const scoring = yield* Scoring
      const first = yield* scoring.score(address)
      expect(first.subject.propertyId).toBe(house.id)
      // Wait for the condition (the learner's part in the answer), never a fixed time.
      yield* scoring.score(address).pipe(
        Effect.repeat({
          schedule: Schedule.spaced("50 millis"),
          until: (outcome) => outcome.model.parts?.learner !== undefined
        }),
        Effect.timeout("120 seconds")
      )
      const joined = yield* scoring.score(address)
      expect(joined.model.parts?.learner).toBeGreaterThan(0)
    }).pipe(Effect.provide(ScoringLocalServing.pipe(Layer.provide(store))))
  }, 150_000)
})
