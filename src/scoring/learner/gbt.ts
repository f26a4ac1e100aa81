// Gradient-boosted regression trees: the valuation engine's second model, beside the comparable-sales model.
//
//   const model = fitGbt(columns, prices, { trees: 300, loss: { quantile: 0.9 } })
//   model.predict([livingArea, lotSize, yearBuilt, …])       // one row, NaN for a missing value
//   fs.writeFileSync(file, JSON.stringify(model))             // gbtModelFromJson(JSON.parse(…)) reads it back
//
// The method is LightGBM's, cut down to what the engine needs:
// - features quantized into at most `maxBins` bins at their quantiles (./binning.ts); a missing value has its
//   own bin, and each split sends missing values to whichever side gains more;
// - each tree may split only on a seeded random `featureFraction` of the features (LightGBM's
//   feature_fraction, drawn per tree): trees that cannot all lean on the same strongest feature average over
//   the correlated ones (the location levels) instead of following one;
// - trees grown depth-wise to `maxDepth` on per-bin gradient histograms; a child's histogram is the parent's
//   minus its sibling's, so only the smaller child is ever counted;
// - a leaf needs `minLeaf` rows; leaf values are shrunk by `l2` and by the learning rate; each tree sees a
//   seeded random `subsample` of the rows, so the same data, options and seed give the same model;
// - squared loss fits residuals; quantile (pinball) loss splits on the signs of the residuals and then sets
//   each leaf to the quantile of the residuals of its rows (LightGBM's leaf refit), which is what makes
//   quantile models converge; absolute loss is the 0.5 quantile. The first prediction is the target's mean,
//   or its quantile.
//
// Hand-written because no maintained JavaScript library does histogram boosting with quantile loss at this
// speed. Plain TypeScript on typed arrays, no dependencies, no allocation per row while growing trees.

import { seededRandom } from "../../seeded-random.js"
import { binFeatures, type FeatureMatrix, matrixShape, maxBinLimit } from "./binning.js"

export type { FeatureMatrix } from "./binning.js"

/** The loss a model minimizes: squared error (the mean), absolute error (the median) or a pinball loss. */
export type GbtLoss = "squared" | "absolute" | { readonly quantile: number }

export interface GbtOptions {
  /** Boosting rounds. */
  readonly trees: number
  /** Shrinkage applied to every leaf value. */
  readonly learningRate: number
  /** Splits from the root to a leaf; depth 1 is a stump. */
  readonly maxDepth: number
  /** Fewest (sampled) rows in a leaf. */
  readonly minLeaf: number
  /** Share of the rows each tree is grown on, drawn afresh per tree. */
  readonly subsample: number
  /** Numeric bins per feature (at most 255); missing values have a bin of their own besides. */
  readonly maxBins: number
  /** L2 penalty on leaf values (squared loss; the quantile leaf refit ignores it, as LightGBM's does). */
  readonly l2: number
  /** Share of the features each tree may split on, drawn afresh per tree (1: all). */
  readonly featureFraction?: number | undefined
  /** Seed of the row sampling. */
  readonly seed: number
  readonly loss: GbtLoss
}

export const defaultGbtOptions: GbtOptions = {
  trees: 300,
  learningRate: 0.05,
  maxDepth: 6,
  minLeaf: 20,
  subsample: 0.8,
  maxBins: 64,
  l2: 1,
  seed: 1,
  loss: "squared"
}

/**
 * The fitted trees as flat arrays (every tree's nodes one after another): node `i` is a leaf when
 * `nodeFeature[i]` is -1, else it sends a row left when its value is <= `nodeThreshold[i]` (or is missing
 * and `nodeMissingLeft[i]` is 1). Child indices are absolute.
 */
export interface GbtTrees {
  readonly featureCount: number
  readonly initialPrediction: number
  readonly options: GbtOptions
  readonly treeRoots: Int32Array
  readonly nodeFeature: Int32Array
  readonly nodeThreshold: Float64Array
  readonly nodeMissingLeft: Uint8Array
  readonly nodeLeft: Int32Array
  readonly nodeRight: Int32Array
  readonly nodeValue: Float64Array
}

export interface GbtModel extends GbtTrees {
  /** The number of trees. */
  readonly trees: number
  /** The prediction for one row of `featureCount` values (NaN where missing), from the first `treeLimit` trees. */
  readonly predict: (row: ArrayLike<number>, treeLimit?: number) => number
  /** Predictions for many rows, in either layout `fitGbt` takes. */
  readonly predictMany: (features: FeatureMatrix, treeLimit?: number) => Float64Array
  /** Plain arrays, for JSON.stringify. */
  readonly toJSON: () => GbtModelJson
}

/** A model on disk: plain arrays; an infinite threshold (a "missing or not" split) is written as null. */
export interface GbtModelJson {
  readonly format: "propscore-gbt/1"
  readonly featureCount: number
  readonly initialPrediction: number
  readonly options: GbtOptions
  readonly treeRoots: ReadonlyArray<number>
  readonly nodeFeature: ReadonlyArray<number>
  readonly nodeThreshold: ReadonlyArray<number | null>
  readonly nodeMissingLeft: ReadonlyArray<number>
  readonly nodeLeft: ReadonlyArray<number>
  readonly nodeRight: ReadonlyArray<number>
  readonly nodeValue: ReadonlyArray<number>
}

/** The quantile a loss estimates, or undefined for squared loss (the mean). */
const lossQuantile = (loss: GbtLoss): number | undefined =>
  loss === "squared" ? undefined : loss === "absolute" ? 0.5 : loss.quantile

const checkOptions = (options: GbtOptions) => {
  const fail = (message: string) => {
    throw new Error(`gbt: ${message}`)
  }
  if (!Number.isInteger(options.trees) || options.trees < 0) fail(`trees must be a whole number, not ${options.trees}`)
  if (!(options.learningRate > 0)) fail(`learningRate must be positive, not ${options.learningRate}`)
  if (!Number.isInteger(options.maxDepth) || options.maxDepth < 1) fail(`maxDepth must be 1 or more`)
  if (!Number.isInteger(options.minLeaf) || options.minLeaf < 1) fail(`minLeaf must be 1 or more`)
  if (!(options.subsample > 0 && options.subsample <= 1)) fail(`subsample must be in (0, 1]`)
  const featureFraction = options.featureFraction ?? 1
  if (!(featureFraction > 0 && featureFraction <= 1)) fail(`featureFraction must be in (0, 1]`)
  if (!(options.l2 >= 0)) fail(`l2 must be 0 or more`)
  if (!Number.isInteger(options.seed)) fail(`seed must be an integer`)
  const quantile = lossQuantile(options.loss)
  if (quantile !== undefined && !(quantile > 0 && quantile < 1)) fail(`the loss quantile must be in (0, 1)`)
}

/** Puts the `rank`-th smallest of values[start, end) at index start + rank (quickselect, median-of-three pivots). */
const selectInPlace = (values: Float64Array, start: number, end: number, rank: number) => {
  let low = start
  let high = end - 1
  const target = start + rank
  while (high > low) {
    const lowValue = values[low]!
    const middleValue = values[(low + high) >>> 1]!
    const highValue = values[high]!
    const pivot = lowValue < middleValue
      ? (middleValue < highValue ? middleValue : lowValue < highValue ? highValue : lowValue)
      : (lowValue < highValue ? lowValue : middleValue < highValue ? highValue : middleValue)
    let left = low
    let right = high
    while (left <= right) {
      while (values[left]! < pivot) left++
      while (values[right]! > pivot) right--
      if (left <= right) {
        const swap = values[left]!
        values[left] = values[right]!
        values[right] = swap
        left++
        right--
      }
    }
    if (target <= right) high = right
    else if (target >= left) low = left
    else return
  }
}

/**
 * The `level` quantile of values[start, end), interpolating between order statistics (R's type 7).
 * Reorders that range.
 */
export const quantileInPlace = (values: Float64Array, start: number, end: number, level: number): number => {
  const count = end - start
  if (count <= 0) return 0
  const position = level * (count - 1)
  const lowerRank = Math.floor(position)
  selectInPlace(values, start, end, lowerRank)
  const lower = values[start + lowerRank]!
  const fraction = position - lowerRank
  if (fraction === 0) return lower
  let upper = Infinity
  for (let index = start + lowerRank + 1; index < end; index++) if (values[index]! < upper) upper = values[index]!
  return lower + fraction * (upper - lower)
}

interface GrowingNode {
  readonly id: number
  readonly start: number
  readonly end: number
  readonly gradientSum: number
  readonly depth: number
  histogram: Float64Array | undefined
}

interface Split {
  gain: number
  feature: number
  bin: number
  missingLeft: boolean
  leftGradient: number
  leftCount: number
}

/**
 * Fits boosted trees to `target` from `features` (one Float64Array per feature, or one row-major Float64Array
 * of target.length rows). Missing feature values are NaN; categorical features are given as numeric codes
 * and split as ordinals. `initialPrediction` replaces the loss's own start (the mean or the quantile).
 */
export const fitGbt = (
  features: FeatureMatrix,
  target: Float64Array,
  options: Partial<GbtOptions> = {},
  initialPrediction?: number
): GbtModel => {
  const settings: GbtOptions = { ...defaultGbtOptions, ...options }
  checkOptions(settings)
  const rowCount = target.length
  if (rowCount === 0) throw new Error("gbt: no rows")
  for (let row = 0; row < rowCount; row++) {
    if (!Number.isFinite(target[row]!)) throw new Error(`gbt: target ${row} is ${target[row]}`)
  }
  const binned = binFeatures(features, rowCount, settings.maxBins)
  const { bins, featureCount } = binned
  const { l2, learningRate, maxDepth, minLeaf } = settings
  const quantileLevel = lossQuantile(settings.loss)

  const featureOffset = new Int32Array(featureCount + 1)
  for (let feature = 0; feature < featureCount; feature++) {
    featureOffset[feature + 1] = featureOffset[feature]! + binned.features[feature]!.numericBins + 1
  }
  const histogramLength = featureOffset[featureCount]! * 2 // per bin: gradient sum, row count
  // Each row's bins numbered across features (feature offset added), so the histogram loop does one load a value.
  const histogramBins = new Uint16Array(rowCount * featureCount)
  for (let row = 0; row < rowCount; row++) {
    const base = row * featureCount
    for (let feature = 0; feature < featureCount; feature++) {
      histogramBins[base + feature] = featureOffset[feature]! + bins[base + feature]!
    }
  }

  const predictions = new Float64Array(rowCount)
  const gradients = new Float64Array(rowCount)
  const residuals = new Float64Array(rowCount)
  const rowIndices = new Uint32Array(rowCount)
  const partitionScratch = new Uint32Array(rowCount)
  const inBag = new Uint8Array(rowCount)
  const random = seededRandom(settings.seed)
  const featureFraction = settings.featureFraction ?? 1
  const featureRandom = seededRandom(settings.seed + 7919)
  const featureAllowed = new Uint8Array(featureCount).fill(1)

  let start: number
  if (initialPrediction !== undefined) start = initialPrediction
  else if (quantileLevel === undefined) {
    let sum = 0
    for (let row = 0; row < rowCount; row++) sum += target[row]!
    start = sum / rowCount
  } else {
    residuals.set(target)
    start = quantileInPlace(residuals, 0, rowCount, quantileLevel)
  }
  predictions.fill(start)

  const histogramPool: Array<Float64Array> = []
  const takeHistogram = () => histogramPool.pop() ?? new Float64Array(histogramLength)
  const releaseHistogram = (histogram: Float64Array | undefined) => {
    if (histogram !== undefined) histogramPool.push(histogram)
  }

  const buildHistogram = (histogram: Float64Array, from: number, to: number) => {
    histogram.fill(0)
    for (let index = from; index < to; index++) {
      const row = rowIndices[index]!
      const gradient = gradients[row]!
      const base = row * featureCount
      for (let feature = 0; feature < featureCount; feature++) {
        const slot = histogramBins[base + feature]! << 1
        histogram[slot] += gradient
        histogram[slot + 1] += 1
      }
    }
  }

  const subtractHistogram = (from: Float64Array, part: Float64Array) => {
    for (let slot = 0; slot < histogramLength; slot++) from[slot] -= part[slot]!
  }

  const best: Split = { gain: 0, feature: -1, bin: 0, missingLeft: false, leftGradient: 0, leftCount: 0 }
  const findBestSplit = (histogram: Float64Array, gradientSum: number, count: number): Split | undefined => {
    const parentScore = (gradientSum * gradientSum) / (count + l2)
    best.gain = 1e-12 * (1 + parentScore)
    best.feature = -1
    const consider = (feature: number, bin: number, leftGradient: number, leftCount: number, missingLeft: boolean) => {
      const rightCount = count - leftCount
      if (leftCount < minLeaf || rightCount < minLeaf) return
      const rightGradient = gradientSum - leftGradient
      const gain = (leftGradient * leftGradient) / (leftCount + l2)
        + (rightGradient * rightGradient) / (rightCount + l2) - parentScore
      if (gain > best.gain) {
        best.gain = gain
        best.feature = feature
        best.bin = bin
        best.missingLeft = missingLeft
        best.leftGradient = leftGradient
        best.leftCount = leftCount
      }
    }
    for (let feature = 0; feature < featureCount; feature++) {
      if (featureAllowed[feature] === 0) continue
      const offset = featureOffset[feature]!
      const numericBins = binned.features[feature]!.numericBins
      const missingSlot = (offset + numericBins) << 1
      const missingGradient = histogram[missingSlot]!
      const missingCount = histogram[missingSlot + 1]!
      let leftGradient = 0
      let leftCount = 0
      for (let bin = 0; bin < numericBins; bin++) {
        const slot = (offset + bin) << 1
        leftGradient += histogram[slot]!
        leftCount += histogram[slot + 1]!
        if (missingCount > 0) {
          consider(feature, bin, leftGradient, leftCount, false)
          if (bin < numericBins - 1) {
            consider(feature, bin, leftGradient + missingGradient, leftCount + missingCount, true)
          }
        } else if (bin < numericBins - 1) {
          // No missing values here: a missing value met later goes with the larger side.
          consider(feature, bin, leftGradient, leftCount, 2 * leftCount >= count)
        }
      }
    }
    return best.feature >= 0 ? best : undefined
  }

  /**
   * Moves the rows of [from, to) that go left to the front, keeping their order; returns where the right begin.
   * Branch-free: each row is written to both sides and only the side it belongs to advances (the way a row
   * goes is unpredictable, and a mispredicted branch per row cost more than the rest of the loop).
   */
  const goesLeftByBin = new Uint8Array(maxBinLimit + 1)
  const partition = (from: number, to: number, feature: number, bin: number, missingLeft: boolean) => {
    const missingBin = binned.features[feature]!.numericBins
    for (let rowBin = 0; rowBin <= missingBin; rowBin++) {
      goesLeftByBin[rowBin] = rowBin <= bin || (missingLeft && rowBin === missingBin) ? 1 : 0
    }
    let leftEnd = from
    let rightCount = 0
    for (let index = from; index < to; index++) {
      const row = rowIndices[index]!
      const goesLeft = goesLeftByBin[bins[row * featureCount + feature]!]!
      rowIndices[leftEnd] = row
      partitionScratch[rightCount] = row
      leftEnd += goesLeft
      rightCount += 1 - goesLeft
    }
    rowIndices.set(partitionScratch.subarray(0, rightCount), leftEnd)
    return leftEnd
  }

  // The growing model, every tree's nodes appended; per node also the bin its split cuts at (training only).
  const treeRoots: Array<number> = []
  const nodeFeature: Array<number> = []
  const nodeThreshold: Array<number> = []
  const nodeBin: Array<number> = []
  const nodeMissingLeft: Array<number> = []
  const nodeLeft: Array<number> = []
  const nodeRight: Array<number> = []
  const nodeValue: Array<number> = []
  const addNode = () => {
    nodeFeature.push(-1)
    nodeThreshold.push(0)
    nodeBin.push(0)
    nodeMissingLeft.push(0)
    nodeLeft.push(-1)
    nodeRight.push(-1)
    nodeValue.push(0)
    return nodeFeature.length - 1
  }

  const leafValue = (node: GrowingNode) => {
    const count = node.end - node.start
    if (count === 0) return 0
    if (quantileLevel === undefined) return (-node.gradientSum / (count + l2)) * learningRate
    for (let index = node.start; index < node.end; index++) {
      const row = rowIndices[index]!
      residuals[index] = target[row]! - predictions[row]!
    }
    return quantileInPlace(residuals, node.start, node.end, quantileLevel) * learningRate
  }

  const canSplit = (node: GrowingNode) => node.depth < maxDepth && node.end - node.start >= 2 * minLeaf

  const growTree = (sampledCount: number) => {
    const leaves: Array<GrowingNode> = []
    let gradientSum = 0
    for (let index = 0; index < sampledCount; index++) gradientSum += gradients[rowIndices[index]!]!
    const root: GrowingNode = {
      id: addNode(),
      start: 0,
      end: sampledCount,
      gradientSum,
      depth: 0,
      histogram: undefined
    }
    if (canSplit(root)) {
      root.histogram = takeHistogram()
      buildHistogram(root.histogram, 0, sampledCount)
    }
    let level = [root]
    while (level.length > 0) {
      const nextLevel: Array<GrowingNode> = []
      for (const node of level) {
        const split = node.histogram === undefined
          ? undefined
          : findBestSplit(node.histogram, node.gradientSum, node.end - node.start)
        if (split === undefined) {
          releaseHistogram(node.histogram)
          node.histogram = undefined
          leaves.push(node)
          continue
        }
        const { cuts, numericBins } = binned.features[split.feature]!
        const middle = partition(node.start, node.end, split.feature, split.bin, split.missingLeft)
        const left: GrowingNode = {
          id: addNode(),
          start: node.start,
          end: middle,
          gradientSum: split.leftGradient,
          depth: node.depth + 1,
          histogram: undefined
        }
        const right: GrowingNode = {
          id: addNode(),
          start: middle,
          end: node.end,
          gradientSum: node.gradientSum - split.leftGradient,
          depth: node.depth + 1,
          histogram: undefined
        }
        nodeFeature[node.id] = split.feature
        nodeThreshold[node.id] = split.bin === numericBins - 1 ? Infinity : cuts[split.bin]!
        nodeBin[node.id] = split.bin
        nodeMissingLeft[node.id] = split.missingLeft ? 1 : 0
        nodeLeft[node.id] = left.id
        nodeRight[node.id] = right.id
        const parentHistogram = node.histogram!
        node.histogram = undefined
        if (canSplit(left) || canSplit(right)) {
          const [smaller, larger] = middle - node.start <= node.end - middle ? [left, right] : [right, left]
          smaller.histogram = takeHistogram()
          buildHistogram(smaller.histogram, smaller.start, smaller.end)
          subtractHistogram(parentHistogram, smaller.histogram)
          larger.histogram = parentHistogram
          for (const child of [smaller, larger]) {
            if (!canSplit(child)) {
              releaseHistogram(child.histogram)
              child.histogram = undefined
            }
          }
        } else {
          releaseHistogram(parentHistogram)
        }
        nextLevel.push(left, right)
      }
      level = nextLevel
    }
    // Leaf values first (quantile leaves read the predictions before this tree), then the in-bag predictions.
    const values = leaves.map(leafValue)
    leaves.forEach((leaf, index) => {
      nodeValue[leaf.id] = values[index]!
      for (let position = leaf.start; position < leaf.end; position++) {
        predictions[rowIndices[position]!] += values[index]!
      }
    })
    return root.id
  }

  const addTreeToOutOfBagRows = (rootId: number) => {
    for (let row = 0; row < rowCount; row++) {
      if (inBag[row] === 1) continue
      let node = rootId
      const base = row * featureCount
      while (nodeFeature[node]! >= 0) {
        const feature = nodeFeature[node]!
        const rowBin = bins[base + feature]!
        const goesLeft = rowBin === binned.features[feature]!.numericBins
          ? nodeMissingLeft[node] === 1
          : rowBin <= nodeBin[node]!
        node = goesLeft ? nodeLeft[node]! : nodeRight[node]!
      }
      predictions[row] += nodeValue[node]!
    }
  }

  for (let tree = 0; tree < settings.trees; tree++) {
    if (quantileLevel === undefined) {
      for (let row = 0; row < rowCount; row++) gradients[row] = predictions[row]! - target[row]!
    } else {
      for (let row = 0; row < rowCount; row++) {
        gradients[row] = predictions[row]! >= target[row]! ? 1 - quantileLevel : -quantileLevel
      }
    }
    if (featureFraction < 1) {
      let allowed = 0
      for (let feature = 0; feature < featureCount; feature++) {
        featureAllowed[feature] = featureRandom() < featureFraction ? 1 : 0
        allowed += featureAllowed[feature]!
      }
      if (allowed === 0) featureAllowed[Math.floor(featureRandom() * featureCount)] = 1
    }
    let sampledCount = 0
    if (settings.subsample >= 1) {
      for (let row = 0; row < rowCount; row++) rowIndices[row] = row
      inBag.fill(1)
      sampledCount = rowCount
    } else {
      for (let row = 0; row < rowCount; row++) {
        if (random() < settings.subsample) {
          rowIndices[sampledCount++] = row
          inBag[row] = 1
        } else {
          inBag[row] = 0
        }
      }
    }
    const rootId = growTree(sampledCount)
    treeRoots.push(rootId)
    if (sampledCount < rowCount) addTreeToOutOfBagRows(rootId)
  }

  return makeModel({
    featureCount,
    initialPrediction: start,
    options: settings,
    treeRoots: Int32Array.from(treeRoots),
    nodeFeature: Int32Array.from(nodeFeature),
    nodeThreshold: Float64Array.from(nodeThreshold),
    nodeMissingLeft: Uint8Array.from(nodeMissingLeft),
    nodeLeft: Int32Array.from(nodeLeft),
    nodeRight: Int32Array.from(nodeRight),
    nodeValue: Float64Array.from(nodeValue)
  })
}

/** Adds prediction to fitted trees. */
export const makeModel = (trees: GbtTrees): GbtModel => {
  const {
    featureCount,
    initialPrediction,
    nodeFeature,
    nodeLeft,
    nodeMissingLeft,
    nodeRight,
    nodeThreshold,
    nodeValue,
    treeRoots
  } = trees
  const treeCount = treeRoots.length
  const limitOf = (treeLimit: number | undefined) =>
    treeLimit === undefined ? treeCount : Math.max(0, Math.min(treeCount, Math.floor(treeLimit)))

  // Prediction is a chain of dependent loads (node, value, comparison, next node), so it walks four trees at
  // once to let the processor overlap them, and every tree for the same number of steps: a leaf leads back to
  // itself (threshold +Infinity, all children itself), which removes the leaf test from the loop.
  // nodeSteps[4 * node …] = [feature, left child, right child, child for a missing value]
  const nodeCount = nodeFeature.length
  const nodeSteps = new Int32Array(nodeCount * 4)
  const stepThreshold = new Float64Array(nodeCount)
  for (let node = 0; node < nodeCount; node++) {
    const isLeaf = nodeFeature[node]! < 0
    const missingChild = nodeMissingLeft[node] === 1 ? nodeLeft[node]! : nodeRight[node]!
    nodeSteps.set(
      isLeaf ? [0, node, node, node] : [nodeFeature[node]!, nodeLeft[node]!, nodeRight[node]!, missingChild],
      node * 4
    )
    stepThreshold[node] = isLeaf ? Infinity : nodeThreshold[node]!
  }
  const depthBelow = (node: number): number =>
    nodeFeature[node]! < 0 ? 0 : 1 + Math.max(depthBelow(nodeLeft[node]!), depthBelow(nodeRight[node]!))
  const steps = treeRoots.reduce((deepest, root) => Math.max(deepest, depthBelow(root)), 0)

  // The step of `next` below is written out four times in the loop: a helper function was not inlined and cost a third.
  const predictRow = (values: ArrayLike<number>, offset: number, limit: number) => {
    let sum = initialPrediction
    let tree = 0
    for (; tree + 4 <= limit; tree += 4) {
      let first = treeRoots[tree]!
      let second = treeRoots[tree + 1]!
      let third = treeRoots[tree + 2]!
      let fourth = treeRoots[tree + 3]!
      for (let step = 0; step < steps; step++) {
        const firstValue = values[offset + nodeSteps[first * 4]!]!
        const secondValue = values[offset + nodeSteps[second * 4]!]!
        const thirdValue = values[offset + nodeSteps[third * 4]!]!
        const fourthValue = values[offset + nodeSteps[fourth * 4]!]!
        const firstThreshold = stepThreshold[first]!
        const secondThreshold = stepThreshold[second]!
        const thirdThreshold = stepThreshold[third]!
        const fourthThreshold = stepThreshold[fourth]!
        first = nodeSteps[first * 4 + (firstValue <= firstThreshold ? 1 : firstValue > firstThreshold ? 2 : 3)]!
        second = nodeSteps[second * 4 + (secondValue <= secondThreshold ? 1 : secondValue > secondThreshold ? 2 : 3)]!
        third = nodeSteps[third * 4 + (thirdValue <= thirdThreshold ? 1 : thirdValue > thirdThreshold ? 2 : 3)]!
        fourth = nodeSteps[fourth * 4 + (fourthValue <= fourthThreshold ? 1 : fourthValue > fourthThreshold ? 2 : 3)]!
      }
      sum += nodeValue[first]! + nodeValue[second]! + nodeValue[third]! + nodeValue[fourth]!
    }
    for (; tree < limit; tree++) {
      let node = treeRoots[tree]!
      for (let step = 0; step < steps; step++) {
        const value = values[offset + nodeSteps[node * 4]!]!
        const threshold = stepThreshold[node]!
        node = nodeSteps[node * 4 + (value <= threshold ? 1 : value > threshold ? 2 : 3)]!
      }
      sum += nodeValue[node]!
    }
    return sum
  }

  const predict = (row: ArrayLike<number>, treeLimit?: number) => {
    if (row.length !== featureCount) throw new Error(`gbt: a row needs ${featureCount} values, not ${row.length}`)
    return predictRow(row, 0, limitOf(treeLimit))
  }

  const predictMany = (features: FeatureMatrix, treeLimit?: number) => {
    const limit = limitOf(treeLimit)
    if (features instanceof Float64Array) {
      const rowCount = features.length / featureCount
      if (!Number.isInteger(rowCount)) throw new Error(`gbt: ${features.length} values are not rows of ${featureCount}`)
      const out = new Float64Array(rowCount)
      for (let row = 0; row < rowCount; row++) out[row] = predictRow(features, row * featureCount, limit)
      return out
    }
    if (features.length !== featureCount) throw new Error(`gbt: ${features.length} columns, not ${featureCount}`)
    const rowCount = features[0]?.length ?? 0
    matrixShape(features, rowCount)
    const out = new Float64Array(rowCount)
    const row = new Float64Array(featureCount)
    for (let index = 0; index < rowCount; index++) {
      for (let feature = 0; feature < featureCount; feature++) row[feature] = features[feature]![index]!
      out[index] = predictRow(row, 0, limit)
    }
    return out
  }

  return { ...trees, trees: treeCount, predict, predictMany, toJSON: () => gbtModelToJson(trees) }
}

/** The fitted trees alone, without the model's methods: plain data that crosses a worker thread as it is. */
export const gbtTreesOf = (model: GbtModel): GbtTrees => ({
  featureCount: model.featureCount,
  initialPrediction: model.initialPrediction,
  options: model.options,
  treeRoots: model.treeRoots,
  nodeFeature: model.nodeFeature,
  nodeThreshold: model.nodeThreshold,
  nodeMissingLeft: model.nodeMissingLeft,
  nodeLeft: model.nodeLeft,
  nodeRight: model.nodeRight,
  nodeValue: model.nodeValue
})

/** The model as plain arrays (what JSON.stringify(model) writes). */
export const gbtModelToJson = (trees: GbtTrees): GbtModelJson => ({
  format: "propscore-gbt/1",
  featureCount: trees.featureCount,
  initialPrediction: trees.initialPrediction,
  options: trees.options,
  treeRoots: Array.from(trees.treeRoots),
  nodeFeature: Array.from(trees.nodeFeature),
  nodeThreshold: Array.from(trees.nodeThreshold, (threshold) => Number.isFinite(threshold) ? threshold : null),
  nodeMissingLeft: Array.from(trees.nodeMissingLeft),
  nodeLeft: Array.from(trees.nodeLeft),
  nodeRight: Array.from(trees.nodeRight),
  nodeValue: Array.from(trees.nodeValue)
})

/** Reads a model written by gbtModelToJson (or JSON.stringify of a model) back. */
export const gbtModelFromJson = (json: GbtModelJson): GbtModel => {
  if (json.format !== "propscore-gbt/1") throw new Error(`gbt: not a model file (format ${String(json.format)})`)
  const nodeCount = json.nodeFeature.length
  const arrays = [json.nodeThreshold, json.nodeMissingLeft, json.nodeLeft, json.nodeRight, json.nodeValue]
  if (arrays.some((array) => array.length !== nodeCount)) throw new Error("gbt: node arrays of different lengths")
  for (let node = 0; node < nodeCount; node++) {
    const feature = json.nodeFeature[node]!
    if (feature < 0) continue
    const inRange = (child: number) => Number.isInteger(child) && child > node && child < nodeCount
    if (feature >= json.featureCount || !inRange(json.nodeLeft[node]!) || !inRange(json.nodeRight[node]!)) {
      throw new Error(`gbt: node ${node} is malformed`)
    }
  }
  if (json.treeRoots.some((root) => !Number.isInteger(root) || root < 0 || root >= nodeCount)) {
    throw new Error("gbt: a tree root is out of range")
  }
  return makeModel({
    featureCount: json.featureCount,
    initialPrediction: json.initialPrediction,
    options: json.options,
    treeRoots: Int32Array.from(json.treeRoots),
    nodeFeature: Int32Array.from(json.nodeFeature),
    nodeThreshold: Float64Array.from(json.nodeThreshold, (threshold) => threshold ?? Infinity),
    nodeMissingLeft: Uint8Array.from(json.nodeMissingLeft),
    nodeLeft: Int32Array.from(json.nodeLeft),
    nodeRight: Int32Array.from(json.nodeRight),
    nodeValue: Float64Array.from(json.nodeValue)
  })
}
