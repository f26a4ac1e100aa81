// Feature quantization for the gradient-boosted trees learner (./gbt.ts).
//
// Each feature's values are cut into at most `maxBins` bins at quantiles of its values, and every row is
// stored as one byte per feature. Tree growth then works on small per-bin histograms instead of sorted raw
// values, which is what makes histogram boosting fast. A missing value (NaN) has its own bin, the last one
// of its feature, so a split can learn which side missing values go.
//
// Bin `b` of a feature holds the values v with cuts[b - 1] < v <= cuts[b]; the last numeric bin is
// unbounded above. A split "bins 0..b go left" is therefore the raw test v <= cuts[b], which is how the
// fitted trees predict on unbinned rows.
//
// Hand-written because the learner needs it (see ./gbt.ts); plain TypeScript, no dependencies, deterministic.

/** Where a feature's values are cut: `cuts[b]` is the upper bound (inclusive) of numeric bin `b`. */
export interface FeatureBins {
  readonly cuts: Float64Array
  /** Numeric bins (cuts.length + 1); the missing-value bin is bin `numericBins`. */
  readonly numericBins: number
}

/** A data set quantized for tree growth: one byte per row and feature, row-major. */
export interface BinnedFeatures {
  readonly rowCount: number
  readonly featureCount: number
  /** bins[row * featureCount + feature] */
  readonly bins: Uint8Array
  readonly features: ReadonlyArray<FeatureBins>
}

/** Feature values as given to the learner: one Float64Array per feature, or one row-major Float64Array. */
export type FeatureMatrix = Float64Array | ReadonlyArray<Float64Array>

/** The largest number of numeric bins per feature (a byte per value, one code kept for missing values). */
export const maxBinLimit = 255

/** Values looked at per feature to place the cuts; larger data sets are sampled with a fixed stride. */
const cutSampleSize = 200_000

/** The number of features in either layout, after checking that it holds `rowCount` rows. */
export const matrixShape = (features: FeatureMatrix, rowCount: number): number => {
  if (features instanceof Float64Array) {
    if (rowCount === 0) throw new Error("gbt: no rows")
    if (features.length % rowCount !== 0) {
      throw new Error(`gbt: ${features.length} feature values do not make ${rowCount} rows`)
    }
    return features.length / rowCount
  }
  for (const column of features) {
    if (column.length !== rowCount) throw new Error(`gbt: a feature column has ${column.length} rows, not ${rowCount}`)
  }
  return features.length
}

/** One feature's values as a column (a copy for the row-major layout, the array itself otherwise). */
const featureColumn = (features: FeatureMatrix, rowCount: number, featureCount: number, feature: number) => {
  if (!(features instanceof Float64Array)) return features[feature]!
  const column = new Float64Array(rowCount)
  for (let row = 0; row < rowCount; row++) column[row] = features[row * featureCount + feature]!
  return column
}

/**
 * The cuts of one feature: between every two distinct values when there are few of them, else at the
 * quantiles 1/maxBins, 2/maxBins, … of the (sampled) values, each cut half-way between two neighbouring
 * distinct values so that ties never straddle a bin boundary.
 */
export const featureCuts = (column: Float64Array, maxBins: number): Float64Array => {
  const stride = Math.max(1, Math.ceil(column.length / cutSampleSize))
  const sample: Array<number> = []
  for (let row = 0; row < column.length; row += stride) {
    const value = column[row]!
    if (!Number.isNaN(value)) sample.push(value)
  }
  const sorted = Float64Array.from(sample).sort()
  const count = sorted.length
  const cuts: Array<number> = []
  const addCutAfter = (index: number) => {
    // `index` is the last value of a bin: move past its ties, then cut half-way to the next distinct value.
    let last = index
    while (last + 1 < count && sorted[last + 1] === sorted[last]) last++
    if (last + 1 >= count) return
    const cut = sorted[last]! + (sorted[last + 1]! - sorted[last]!) / 2
    if (cuts.length === 0 || cut > cuts[cuts.length - 1]!) cuts.push(cut)
  }
  let distinct = count === 0 ? 0 : 1
  for (let index = 1; index < count && distinct <= maxBins; index++) if (sorted[index] !== sorted[index - 1]) distinct++
  if (distinct <= maxBins) {
    for (let index = 0; index + 1 < count; index++) if (sorted[index] !== sorted[index + 1]) addCutAfter(index)
  } else {
    for (let bin = 1; bin < maxBins; bin++) addCutAfter(Math.floor((bin * count) / maxBins) - 1)
  }
  return Float64Array.from(cuts)
}

/** The numeric bin of a value (the first cut it does not exceed), or `numericBins` when it is missing. */
export const binOf = (bins: FeatureBins, value: number): number => {
  if (Number.isNaN(value)) return bins.numericBins
  const cuts = bins.cuts
  let low = 0
  let high = cuts.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (value <= cuts[middle]!) high = middle
    else low = middle + 1
  }
  return low
}

/** Quantizes every feature into at most `maxBins` numeric bins plus a missing-value bin. */
export const binFeatures = (features: FeatureMatrix, rowCount: number, maxBins: number): BinnedFeatures => {
  if (!Number.isInteger(maxBins) || maxBins < 2 || maxBins > maxBinLimit) {
    throw new Error(`gbt: maxBins must be an integer from 2 to ${maxBinLimit}, not ${maxBins}`)
  }
  const featureCount = matrixShape(features, rowCount)
  const bins = new Uint8Array(rowCount * featureCount)
  const featureBins: Array<FeatureBins> = []
  for (let feature = 0; feature < featureCount; feature++) {
    const column = featureColumn(features, rowCount, featureCount, feature)
    const cuts = featureCuts(column, maxBins)
    const described: FeatureBins = { cuts, numericBins: cuts.length + 1 }
    featureBins.push(described)
    for (let row = 0; row < rowCount; row++) bins[row * featureCount + feature] = binOf(described, column[row]!)
  }
  return { rowCount, featureCount, bins, features: featureBins }
}
