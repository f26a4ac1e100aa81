/**
 * Properties of unusual size: a living area or lot size outside the middle 95% of its market × group's
 * training sales. Out of time their errors run 1.2–1.6 times larger than the rest's while their ranges were
 * no wider (0.1–0.9 coverage 66–75% against 79–83%: docs/pricing-model.md), so the stack widens their ranges
 * by a factor its calibration window measures (`spreadFactor`).
 */
import type { SizeFact } from "../valuation/comps.js"
import { quantileSorted } from "./comps/quantiles.js"
import { marketGroupKey, type PropertyType } from "./comps/types.js"

/** The middle 95% of a market × group's recorded living areas and lot sizes, where enough are recorded. */
export interface SizeRange {
  readonly livingArea?: readonly [number, number] | undefined
  readonly lotSize?: readonly [number, number] | undefined
}

interface Sized {
  readonly market: string
  readonly propertyType: PropertyType
  readonly livingArea?: number | undefined
  readonly lotSize?: number | undefined
}

/** Fewest recorded values of a fact a range is drawn from (each 2.5% tail then holds at least five). */
export const MIN_SIZE_RANGE_SALES = 200
const TAIL = 0.025

const rangeOf = (values: Array<number>): readonly [number, number] | undefined => {
  if (values.length < MIN_SIZE_RANGE_SALES) return undefined
  values.sort((a, b) => a - b)
  return [quantileSorted(values, TAIL), quantileSorted(values, 1 - TAIL)]
}

/** Each market × group's ranges (`marketGroupKey`), from its sales' recorded facts (0 or none: not recorded). */
export const sizeRangesOf = (sales: ReadonlyArray<Sized>): Map<string, SizeRange> => {
  const facts = new Map<string, { livingArea: Array<number>; lotSize: Array<number> }>()
  for (const sale of sales) {
    const key = marketGroupKey(sale.market, sale.propertyType)
    let entry = facts.get(key)
    if (entry === undefined) facts.set(key, entry = { livingArea: [], lotSize: [] })
    if (sale.livingArea !== undefined && sale.livingArea > 0) entry.livingArea.push(sale.livingArea)
    if (sale.lotSize !== undefined && sale.lotSize > 0) entry.lotSize.push(sale.lotSize)
  }
  const ranges = new Map<string, SizeRange>()
  for (const [key, entry] of facts) {
    const livingArea = rangeOf(entry.livingArea)
    const lotSize = rangeOf(entry.lotSize)
    if (livingArea !== undefined || lotSize !== undefined) ranges.set(key, { livingArea, lotSize })
  }
  return ranges
}

const outside = (value: number | undefined, range: readonly [number, number] | undefined) =>
  value !== undefined && value > 0 && range !== undefined && (value < range[0] || value > range[1])

/** The facts in which a property lies outside its market × group's middle 95% (none: of usual size). */
export const unusualSizeFacts = (
  ranges: ReadonlyMap<string, SizeRange>,
  property: Sized
): ReadonlyArray<SizeFact> => {
  const range = ranges.get(marketGroupKey(property.market, property.propertyType))
  if (range === undefined) return []
  const facts: Array<SizeFact> = []
  if (outside(property.livingArea, range.livingArea)) facts.push("living_area_square_feet")
  if (outside(property.lotSize, range.lotSize)) facts.push("lot_size_square_feet")
  return facts
}

/** A spread factor is shrunk toward 1 as if this many more sales had shown none. */
export const SPREAD_PSEUDO_COUNT = 30
/**
 * The most a spread factor widens a range by (the NYC and Melbourne windows measured 1.15–1.41 for an unusual
 * size): a window whose residuals are nearly all alike cannot make a range many times wider.
 */
export const MAX_SPREAD_FACTOR = 2
const FACTOR_LEVEL = 0.8

/**
 * How much wider the ranges of some of the answers must be (`members`: properties of unusual size, or one
 * property group), from a calibration window's residuals (in units of the answers' scale): the 80th
 * percentile of the members' distances from the residuals' median over everyone's, shrunk toward 1 by
 * `SPREAD_PSEUDO_COUNT` pseudo-sales, never below 1 (a range is never narrowed by it) nor above
 * `MAX_SPREAD_FACTOR`.
 */
export const spreadFactor = (
  residuals: ReadonlyArray<number>,
  members: ReadonlyArray<boolean>
): number => {
  const middle = quantileSorted([...residuals].sort((a, b) => a - b), 0.5)
  const distances = residuals.map((residual) => Math.abs(residual - middle))
  const theirs = distances.filter((_, i) => members[i]).sort((a, b) => a - b)
  if (theirs.length === 0) return 1
  const everyone = quantileSorted([...distances].sort((a, b) => a - b), FACTOR_LEVEL)
  if (!(everyone > 0)) return 1
  const measured = quantileSorted(theirs, FACTOR_LEVEL) / everyone
  const shrunk = (theirs.length * measured + SPREAD_PSEUDO_COUNT) / (theirs.length + SPREAD_PSEUDO_COUNT)
  return Math.min(MAX_SPREAD_FACTOR, Math.max(1, shrunk))
}
