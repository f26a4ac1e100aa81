import { describe, expect, it } from "@effect/vitest"
import { accuracy, coverage80 } from "../../src/scoring/metrics.js"

describe("evaluation metrics", () => {
  it("MdAPE, PPE10 and PPE20 by hand", () => {
    const sales = [
      { actual: 100, predicted: 105 }, // 5%
      { actual: 200, predicted: 170 }, // 15%
      { actual: 300, predicted: 300 }, // 0%
      { actual: 400, predicted: 500 } // 25%
    ]
    expect(accuracy(sales)).toEqual({ mdape: 0.1, ppe10: 0.5, ppe20: 0.75 })
    expect(accuracy([])).toBeUndefined()
  })

  it("coverage of the 0.1-0.9 interval by hand", () => {
    expect(coverage80([
      { actual: 100, predicted: 100, q10: 90, q90: 110 },
      { actual: 100, predicted: 100, q10: 101, q90: 110 },
      { actual: 100, predicted: 100, q10: 80, q90: 100 },
      { actual: 100, predicted: 100 }
    ])).toBeCloseTo(2 / 3)
  })
})
