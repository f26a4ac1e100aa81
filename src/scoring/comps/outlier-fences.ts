// The outlier screen: an arm's-length sale far outside its neighbourhood's prices (a data error, a partial
// interest, a distressed or non-market sale the deed does not flag) is neither a comparable nor a test sale.
// Tukey fences (k IQR) on log $/sqft, or on log price where the living area is unknown, per market,
// neighbourhood and group, with the market and group as the fallback. They read only the sale and the
// training data, never a prediction.
import { quantileSorted } from "./quantiles.js"
import { groupOf, type Sale } from "./types.js"

type Fence = { lo: number; hi: number }

/** Fences by `market|neighbourhood|group` and `market|*|group`, on log $/sqft ("sqft") and log price ("price"). */
export type OutlierFences = { sqft: Map<string, Fence>; price: Map<string, Fence> }

/** Fences at `iqrMultiple` IQR beyond the quartiles, for every key with at least 8 arm's-length sales. */
export function fitOutlierFences(sales: Array<Sale>, iqrMultiple: number): OutlierFences {
  const fences: OutlierFences = { sqft: new Map(), price: new Map() }
  const samples = { sqft: new Map<string, Array<number>>(), price: new Map<string, Array<number>>() }
  const push = (byKey: Map<string, Array<number>>, key: string, value: number) => {
    let sample = byKey.get(key)
    if (!sample) byKey.set(key, sample = [])
    sample.push(value)
  }
  for (const sale of sales) {
    if (!sale.armsLength) continue
    const group = groupOf(sale.propertyType)
    for (const key of [`${sale.market}|${sale.neighborhood}|${group}`, `${sale.market}|*|${group}`]) {
      push(samples.price, key, Math.log(sale.price))
      if (sale.livingArea) push(samples.sqft, key, Math.log(sale.price / sale.livingArea))
    }
  }
  for (const basis of ["sqft", "price"] as const) {
    for (const [key, sample] of samples[basis]) {
      if (sample.length < 8) continue
      sample.sort((x, y) => x - y)
      const q1 = quantileSorted(sample, 0.25), q3 = quantileSorted(sample, 0.75)
      fences[basis].set(key, { lo: q1 - iqrMultiple * (q3 - q1), hi: q3 + iqrMultiple * (q3 - q1) })
    }
  }
  return fences
}

/**
 * True when a sale lies outside its neighbourhood's fences (else its market's): on $/sqft when the sale has a
 * living area and a $/sqft fence exists, else on price; false when no fence applies.
 */
export function isOutlier(fences: OutlierFences, sale: Sale): boolean {
  const group = groupOf(sale.propertyType)
  const neighborhoodKey = `${sale.market}|${sale.neighborhood}|${group}`, marketKey = `${sale.market}|*|${group}`
  if (sale.livingArea) {
    const fence = fences.sqft.get(neighborhoodKey) ?? fences.sqft.get(marketKey)
    if (fence) {
      const logPricePerSqft = Math.log(sale.price / sale.livingArea)
      return logPricePerSqft < fence.lo || logPricePerSqft > fence.hi
    }
  }
  const fence = fences.price.get(neighborhoodKey) ?? fences.price.get(marketKey)
  if (fence) {
    const logPrice = Math.log(sale.price)
    return logPrice < fence.lo || logPrice > fence.hi
  }
  return false
}
