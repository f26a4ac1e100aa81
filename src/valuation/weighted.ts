/** Weighted statistics over (value, weight) pairs. */

export interface Weighted {
  readonly value: number
  readonly weight: number
}

/**
 * The weighted q-quantile: the smallest value whose cumulative weight reaches q of the total. Pairs with a
 * weight that is not positive are ignored; undefined when none is left.
 */
export const weightedQuantile = (pairs: ReadonlyArray<Weighted>, q: number): number | undefined => {
  const usable = pairs.filter((pair) => pair.weight > 0 && Number.isFinite(pair.value))
  if (usable.length === 0) return undefined
  const sorted = [...usable].sort((a, b) => a.value - b.value)
  const total = sorted.reduce((sum, pair) => sum + pair.weight, 0)
  let cumulative = 0
  for (const pair of sorted) {
    cumulative += pair.weight
    if (cumulative >= q * total - 1e-12 * total) return pair.value
  }
  return sorted[sorted.length - 1]!.value
}

/** Kish's effective sample size, (Σw)² / Σw². */
export const kishEffectiveSampleSize = (weights: ReadonlyArray<number>): number => {
  const positive = weights.filter((weight) => weight > 0)
  const sum = positive.reduce((total, weight) => total + weight, 0)
  const sumOfSquares = positive.reduce((total, weight) => total + weight * weight, 0)
  return sumOfSquares === 0 ? 0 : (sum * sum) / sumOfSquares
}

export const median = (values: ReadonlyArray<number>): number | undefined => {
  if (values.length === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
