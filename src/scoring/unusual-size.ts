/**
 * Properties of unusual size: a living area or lot size outside the middle 95% of the training sales of its
 * market × group and of its type (`unusualSizeFacts`). Out of time their errors run 1.2–1.6
 * times larger than the rest's while their ranges were no wider (0.1–0.9 coverage 66–75% against 79–83%:
 * docs/pricing-model.md), so the stack widens their ranges by a factor its calibration window measures
 * (`spreadFactor`).
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

/** The key of a market × property type's ranges, beside its market × group's (`marketGroupKey`). */
export const marketTypeKey = (market: string, propertyType: PropertyType): string => `${market}|type|${propertyType}`

/**
 * Each market × group's ranges (`marketGroupKey`) and each market × property type's (`marketTypeKey`), from
 * their sales' recorded facts (0 or none: not recorded). A type's own too: a townhouse's lot of 600 sq ft is
 * usual for townhouses, and was outside the middle 95% of all of Staten Island's houses, detached ones on
 * 4,000 sq ft among them (an investor's audit, 2026-11-30; out of time 87 such townhouses were valued with an
 * 8.8% MdAPE, the detached houses of unusual size 15.9–21.2%, and their ranges widened alike).
 */
export const sizeRangesOf = (sales: ReadonlyArray<Sized>): Map<string, SizeRange> => {
  const facts = new Map<string, { livingArea: Array<number>; lotSize: Array<number> }>()
  for (const sale of sales) {
    for (const key of [marketGroupKey(sale.market, sale.propertyType), marketTypeKey(sale.market, sale.propertyType)]) {
      let entry = facts.get(key)
      if (entry === undefined) facts.set(key, entry = { livingArea: [], lotSize: [] })
      if (sale.livingArea !== undefined && sale.livingArea > 0) entry.livingArea.push(sale.livingArea)
      if (sale.lotSize !== undefined && sale.lotSize > 0) entry.lotSize.push(sale.lotSize)
    }
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

/**
 * The facts in which a property lies outside its market × group's middle 95% and, where its type has a range
 * of its own, outside its type's too (none: of usual size). Both: a townhouse's lot of 600 sq ft is usual for
 * townhouses, a townhouse of 3,000 sq ft usual for a house; out of time (NYC, fit before 2019) the sales so
 * flagged were valued less surely than those flagged by the group alone (Staten Island's MdAPE 17.2% on 184
 * against 15.4% on 359, Queens' 15.9% on 589 against 14.9% on 882, Brooklyn's 21.2% on 350 against 18.4% on
 * 503), a range of the type alone flagged 50 Staten Island townhouses valued with 6.0%.
 */
export const unusualSizeFacts = (
  ranges: ReadonlyMap<string, SizeRange>,
  property: Sized
): ReadonlyArray<SizeFact> => {
  const facts: Array<SizeFact> = []
  const group = ranges.get(marketGroupKey(property.market, property.propertyType))
  const type = ranges.get(marketTypeKey(property.market, property.propertyType))
  const unusual = (value: number | undefined, fact: keyof SizeRange) =>
    outside(value, group?.[fact]) && (type?.[fact] === undefined || outside(value, type[fact]))
  if (unusual(property.livingArea, "livingArea")) facts.push("living_area_square_feet")
  if (unusual(property.lotSize, "lotSize")) facts.push("lot_size_square_feet")
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
