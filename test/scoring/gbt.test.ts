import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { binFeatures, featureCuts } from "../../src/scoring/learner/binning.js"
import { fitGbt, gbtModelFromJson, type GbtModelJson, quantileInPlace } from "../../src/scoring/learner/gbt.js"
import { seededRandom } from "../../src/seeded-random.js"

/** A standard normal draw (Box–Muller). */
const normal = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())

/** Columns of `rowCount` rows, each value drawn by `draw(feature)`. */
const columnsOf = (rowCount: number, featureCount: number, draw: (feature: number) => number) => {
  const columns = Array.from({ length: featureCount }, () => new Float64Array(rowCount))
  for (let row = 0; row < rowCount; row++) {
    for (let feature = 0; feature < featureCount; feature++) columns[feature]![row] = draw(feature)
  }
  return columns
}

const meanSquaredError = (predictions: Float64Array, target: Float64Array) => {
  let sum = 0
  for (let row = 0; row < target.length; row++) sum += (predictions[row]! - target[row]!) ** 2
  return sum / target.length
}

const variance = (values: Float64Array) => {
  const mean = values.reduce((sum, value) => sum + value, 0) / values.length
  return values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / values.length
}

/** y = x0·x1 + sin(x2) + noise, with two features that carry no signal. */
const nonlinearProblem = (rowCount: number, seed: number) => {
  const random = seededRandom(seed)
  const columns = columnsOf(rowCount, 5, () => random() * 4 - 2)
  const target = new Float64Array(rowCount)
  for (let row = 0; row < rowCount; row++) {
    target[row] = columns[0]![row]! * columns[1]![row]! + Math.sin(columns[2]![row]!) + 0.2 * normal(random)
  }
  return { columns, target }
}

describe("binning", () => {
  it("cuts half-way between distinct values, and at quantiles when there are more values than bins", () => {
    expect(Array.from(featureCuts(Float64Array.from([3, 1, 2, 2, NaN, 1]), 64))).toEqual([1.5, 2.5])
    const grid = Float64Array.from({ length: 1000 }, (_, index) => (index + 0.5) / 1000)
    const cuts = featureCuts(grid, 64)
    expect(cuts.length).toBe(63)
    expect(cuts).toContain(0.5)
  })

  it("gives missing values a bin of their own after the numeric bins", () => {
    const binned = binFeatures([Float64Array.from([1, NaN, 2, 3])], 4, 64)
    expect(binned.features[0]!.numericBins).toBe(3)
    expect(Array.from(binned.bins)).toEqual([0, 3, 1, 2])
  })
})

describe("quantiles", () => {
  it("quantileInPlace agrees with sorting (R's type 7 interpolation)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e9, max: 1e9, noNaN: true }), { minLength: 1, maxLength: 200 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (values, level) => {
          const sorted = [...values].sort((left, right) => left - right)
          const position = level * (sorted.length - 1)
          const lower = sorted[Math.floor(position)]!
          const upper = sorted[Math.ceil(position)]!
          const expected = lower + (position - Math.floor(position)) * (upper - lower)
          const actual = quantileInPlace(Float64Array.from(values), 0, values.length, level)
          return Math.abs(actual - expected) <= 1e-9 * Math.max(1, Math.abs(expected))
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("gradient-boosted trees", () => {
  it("one stump with learning rate 1 fits a noiseless step exactly (0 below 0.5, 10 above)", () => {
    const x = Float64Array.from({ length: 1000 }, (_, index) => (index + 0.5) / 1000)
    const y = x.map((value) => (value > 0.5 ? 10 : 0))
    const model = fitGbt([x], y, { trees: 1, maxDepth: 1, learningRate: 1, l2: 0, subsample: 1, loss: "squared" })
    // The mean is 5; the split at 0.5 leaves residuals of exactly -5 and +5 on either side.
    expect(model.initialPrediction).toBe(5)
    expect(Array.from(model.nodeThreshold.subarray(0, 1))).toEqual([0.5])
    for (const value of [0, 0.1, 0.4995, 0.5]) expect(model.predict([value])).toBe(0)
    for (const value of [0.5005, 0.7, 1, 2]) expect(model.predict([value])).toBe(10)
  })

  it("learns y = x0·x1 + sin(x2) + noise: training error falls as trees are added, test R² > 0.9", () => {
    const train = nonlinearProblem(5_000, 1)
    const test = nonlinearProblem(2_000, 2)
    const model = fitGbt(train.columns, train.target, { trees: 300, learningRate: 0.1, seed: 7 })
    const trainingErrors = [0, 10, 25, 50, 100, 200, 300].map((trees) =>
      meanSquaredError(model.predictMany(train.columns, trees), train.target)
    )
    for (let index = 1; index < trainingErrors.length; index++) {
      expect(trainingErrors[index]!).toBeLessThan(trainingErrors[index - 1]!)
    }
    // Tree by tree the training error may wobble (row sampling) but never climbs by much.
    let previous = Infinity
    for (let trees = 0; trees <= 300; trees += 5) {
      const error = meanSquaredError(model.predictMany(train.columns, trees), train.target)
      expect(error).toBeLessThan(previous * 1.01)
      previous = error
    }
    const testR2 = 1 - meanSquaredError(model.predictMany(test.columns), test.target) / variance(test.target)
    expect(testR2).toBeGreaterThan(0.9)
  })

  it("quantile models at 0.1 and 0.9 cover 10% and 90% of held-out data under heteroscedastic noise", () => {
    const problem = (rowCount: number, seed: number) => {
      const random = seededRandom(seed)
      const x = Float64Array.from({ length: rowCount }, () => random() * 10)
      const y = x.map((value) => value + (0.2 + 0.3 * value) * normal(random))
      return { x, y }
    }
    const train = problem(10_000, 3)
    const test = problem(5_000, 4)
    for (const level of [0.1, 0.9]) {
      const model = fitGbt([train.x], train.y, {
        trees: 200,
        learningRate: 0.1,
        maxDepth: 4,
        loss: { quantile: level }
      })
      const predictions = model.predictMany([test.x])
      const below = test.y.filter((value, row) => value <= predictions[row]!).length / test.y.length
      expect(below).toBeGreaterThan(level - 0.03)
      expect(below).toBeLessThan(level + 0.03)
      // The band widens with x, as the noise does.
      const width = (value: number) => Math.abs(model.predict([value]) - value)
      expect(width(9)).toBeGreaterThan(2 * width(1))
    }
  })

  it("absolute loss starts at the median and fits the median", () => {
    const random = seededRandom(5)
    const x = Float64Array.from({ length: 4_000 }, () => random())
    const y = x.map((value) => (value > 0.5 ? 100 : 0) + (random() < 0.2 ? 1_000 : 0)) // 20% gross outliers
    const model = fitGbt([x], y, { trees: 100, learningRate: 0.2, loss: "absolute" })
    expect(model.initialPrediction).toBeLessThan(200)
    expect(model.predict([0.2])).toBeCloseTo(0, 0)
    expect(model.predict([0.8])).toBeCloseTo(100, 0)
  })

  it("the same data, options and seed give the same model; another seed a different one", () => {
    const { columns, target } = nonlinearProblem(3_000, 6)
    const options = { trees: 40, subsample: 0.7, seed: 11 }
    const first = fitGbt(columns, target, options)
    const second = fitGbt(columns, target, options)
    expect(JSON.stringify(second)).toBe(JSON.stringify(first))
    expect(Array.from(second.predictMany(columns))).toEqual(Array.from(first.predictMany(columns)))
    const reseeded = fitGbt(columns, target, { ...options, seed: 12 })
    expect(Array.from(reseeded.predictMany(columns))).not.toEqual(Array.from(first.predictMany(columns)))
  })

  it("each tree splits only on its own draw of features (featureFraction); 1 is the model without it", () => {
    // y = 2·x0 + x1 + noise, with three features that carry no signal.
    const random = seededRandom(9)
    const columns = columnsOf(3_000, 5, () => random() * 4 - 2)
    const target = columns[0]!.map((x0, row) => 2 * x0 + columns[1]![row]! + 0.1 * normal(random))
    const options = { trees: 20, maxDepth: 1, learningRate: 0.3, seed: 3 }
    const all = fitGbt(columns, target, options)
    expect(JSON.stringify(fitGbt(columns, target, { ...options, featureFraction: 1 }).predictMany(columns)))
      .toBe(JSON.stringify(all.predictMany(columns)))
    const rootFeatures = (model: ReturnType<typeof fitGbt>) =>
      new Set(Array.from(model.treeRoots, (root) => model.nodeFeature[root]!))
    // Every stump of the full model splits on a feature that carries signal (x0, x1); with a fifth of the
    // features a tree, some trees have only noise (x2, x3, x4) to split on.
    expect([...rootFeatures(all)].every((feature) => feature <= 1)).toBe(true)
    const sampled = fitGbt(columns, target, { ...options, featureFraction: 0.2 })
    expect([...rootFeatures(sampled)].some((feature) => feature >= 2)).toBe(true)
    // Deeper trees with 70% of the features a tree still learn y = x0·x1 + sin(x2) + noise.
    const train = nonlinearProblem(5_000, 1)
    const test = nonlinearProblem(2_000, 2)
    const deep = fitGbt(train.columns, train.target, { trees: 300, learningRate: 0.1, seed: 7, featureFraction: 0.7 })
    const testR2 = 1 - meanSquaredError(deep.predictMany(test.columns), test.target) / variance(test.target)
    expect(testR2).toBeGreaterThan(0.9)
  })

  it("a missing value that carries signal is learned from (missing area: a dearer price here)", () => {
    const random = seededRandom(8)
    const rowCount = 4_000
    const area = new Float64Array(rowCount)
    const price = new Float64Array(rowCount)
    for (let row = 0; row < rowCount; row++) {
      const missing = random() < 0.25
      area[row] = missing ? NaN : random()
      price[row] = (missing ? 50 : 10 * area[row]!) + normal(random)
    }
    const model = fitGbt([area], price, { trees: 200, learningRate: 0.1 })
    expect(model.predict([NaN])).toBeCloseTo(50, 0)
    expect(model.predict([0.1])).toBeCloseTo(1, 0)
    expect(model.predict([0.9])).toBeCloseTo(9, 0)
    // "Missing or not" splits have an infinite threshold, which JSON writes as null.
    expect(model.nodeThreshold).toContain(Infinity)
    const restored = gbtModelFromJson(JSON.parse(JSON.stringify(model)) as GbtModelJson)
    expect(restored.nodeThreshold).toContain(Infinity)
    expect(restored.predict([NaN])).toBe(model.predict([NaN]))
  })

  it("a missing value never seen in training goes with the larger side of each split", () => {
    const x = Float64Array.from({ length: 100 }, (_, index) => index)
    const y = x.map((value) => (value < 70 ? 1 : 2))
    const model = fitGbt([x], y, { trees: 1, maxDepth: 1, learningRate: 1, l2: 0, minLeaf: 5, subsample: 1 })
    expect(model.predict([NaN])).toBeCloseTo(1, 9)
  })

  it("one tree of a squared-loss model predicts within [min(y), max(y)] (learning rate ≤ 1, l2 ≥ 0)", () => {
    // Each leaf is the mean start moved part of the way towards the mean of the rows in the leaf, so a single
    // tree stays in range for any row, seen or not. Several trees need not: a row can collect the corrections
    // of leaves fitted to other rows (see the next test).
    const data = fc.integer({ min: 2, max: 120 }).chain((rowCount) =>
      fc.record({
        columns: fc.array(
          fc.array(fc.oneof(fc.double({ min: -10, max: 10, noNaN: true }), fc.constant(NaN)), {
            minLength: rowCount,
            maxLength: rowCount
          }),
          { minLength: 1, maxLength: 3 }
        ),
        target: fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: rowCount, maxLength: rowCount }),
        learningRate: fc.double({ min: 0.01, max: 1, noNaN: true }),
        l2: fc.double({ min: 0, max: 10, noNaN: true }),
        maxDepth: fc.integer({ min: 1, max: 5 }),
        minLeaf: fc.integer({ min: 1, max: 10 }),
        subsample: fc.double({ min: 0.3, max: 1, noNaN: true }),
        seed: fc.integer(),
        probe: fc.array(fc.oneof(fc.double({ noNaN: false }), fc.constant(NaN)), { minLength: 3, maxLength: 3 })
      })
    )
    fc.assert(
      fc.property(data, ({ columns, probe, target, ...options }) => {
        const y = Float64Array.from(target)
        const features = columns.map((column) => Float64Array.from(column))
        const model = fitGbt(features, y, { ...options, trees: 1, loss: "squared" })
        const low = Math.min(...target)
        const high = Math.max(...target)
        const tolerance = 1e-9 * Math.max(1, Math.abs(low), Math.abs(high))
        const predictions = [...model.predictMany(features), model.predict(probe.slice(0, features.length))]
        return predictions.every((prediction) => prediction >= low - tolerance && prediction <= high + tolerance)
      }),
      { numRuns: 300 }
    )
  })

  it("with several trees a squared-loss model can leave [min(y), max(y)] (why the range property is per tree)", () => {
    // Tree 1 splits on a (group A is all 1s, group C half 1s); tree 2 splits on b and adds +0.49 to b = 0 rows,
    // fitted mostly to group C. The one row in A with b = 0 ends at 1 + 0.49.
    const groups = [[1, 0, 0, 1], [100, 0, 1, 1], [100, 1, 0, 1], [100, 1, 1, 0]] // [rows, a, b, y]
    const rows = groups.flatMap(([count, ...values]) => Array.from({ length: count! }, () => values))
    const column = (index: number) => Float64Array.from(rows, (row) => row[index]!)
    const model = fitGbt([column(0), column(1)], column(2), {
      trees: 2,
      maxDepth: 1,
      learningRate: 1,
      l2: 0,
      minLeaf: 1,
      subsample: 1
    })
    expect(model.predict([0, 0])).toBeGreaterThan(1.4)
  })

  it("a model written to JSON and read back predicts the same, missing values included", () => {
    const random = seededRandom(9)
    const { columns, target } = nonlinearProblem(2_000, 10)
    for (let row = 0; row < 2_000; row++) if (random() < 0.1) columns[1]![row] = NaN
    const model = fitGbt(columns, target, { trees: 30, loss: { quantile: 0.75 } })
    const json = JSON.parse(JSON.stringify(model)) as GbtModelJson
    expect(json.format).toBe("propscore-gbt/1")
    const restored = gbtModelFromJson(json)
    expect(Array.from(restored.predictMany(columns))).toEqual(Array.from(model.predictMany(columns)))
    expect(restored.predict([NaN, NaN, NaN, NaN, NaN])).toBe(model.predict([NaN, NaN, NaN, NaN, NaN]))
  })

  it("takes row-major features as well as columns, with the same result", () => {
    const { columns, target } = nonlinearProblem(1_000, 12)
    const rowMajor = new Float64Array(1_000 * 5)
    for (let row = 0; row < 1_000; row++) {
      for (let feature = 0; feature < 5; feature++) rowMajor[row * 5 + feature] = columns[feature]![row]!
    }
    const fromColumns = fitGbt(columns, target, { trees: 20 })
    const fromRows = fitGbt(rowMajor, target, { trees: 20 })
    expect(JSON.stringify(fromRows)).toBe(JSON.stringify(fromColumns))
    expect(Array.from(fromRows.predictMany(rowMajor))).toEqual(Array.from(fromColumns.predictMany(columns)))
  })

  it("refuses options and data it cannot fit", () => {
    const x = [Float64Array.from([1, 2, 3])]
    const y = Float64Array.from([1, 2, 3])
    expect(() => fitGbt(x, y, { maxBins: 256 })).toThrow(/maxBins/)
    expect(() => fitGbt(x, y, { subsample: 0 })).toThrow(/subsample/)
    expect(() => fitGbt(x, y, { featureFraction: 0 })).toThrow(/featureFraction/)
    expect(() => fitGbt(x, y, { featureFraction: 1.5 })).toThrow(/featureFraction/)
    expect(() => fitGbt(x, y, { loss: { quantile: 1 } })).toThrow(/quantile/)
    expect(() => fitGbt(x, Float64Array.from([1, NaN, 3]))).toThrow(/target/)
    expect(() => fitGbt([Float64Array.from([1, 2])], y)).toThrow(/rows/)
  })
})
