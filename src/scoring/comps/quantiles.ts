// Quantiles: of a sorted sample (fences, calibration, the medians of the resale premium) and weighted ones
// (the comps' centre and spread, the stack's blend).

/** The q-quantile of an ascending sample, interpolating linearly between order statistics; NaN when empty. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  const position = q * (sorted.length - 1)
  const below = Math.floor(position), above = Math.ceil(position)
  return sorted[below] + (sorted[above] - sorted[below]) * (position - below)
}

/** Weighted quantiles of (values, weights) at several levels; linear interpolation between cumulative-weight midpoints. */
export function weightedQuantiles(
  values: ArrayLike<number>,
  weights: ArrayLike<number>,
  levels: Array<number>
): Array<number> {
  const n = values.length
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b])
  let totalWeight = 0
  for (let i = 0; i < n; i++) totalWeight += weights[i]
  /** midpoint of each value's share of the cumulative weight, in value order */
  const midpoint = new Float64Array(n)
  let cumulative = 0
  for (let k = 0; k < n; k++) {
    const weight = weights[order[k]]
    midpoint[k] = (cumulative + weight / 2) / totalWeight
    cumulative += weight
  }
  return levels.map((level) => {
    if (level <= midpoint[0]) return values[order[0]]
    if (level >= midpoint[n - 1]) return values[order[n - 1]]
    let lo = 0, hi = n - 1 // midpoint[lo] < level <= midpoint[hi]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (midpoint[mid] < level) lo = mid
      else hi = mid
    }
    const a = values[order[lo]], b = values[order[hi]]
    return a + ((b - a) * (level - midpoint[lo])) / (midpoint[hi] - midpoint[lo])
  })
}
