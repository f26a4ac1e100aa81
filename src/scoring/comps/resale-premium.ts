// The recent-resale premium: a subject whose own parcel sold at arm's length a few months to two years before
// the valuation date is most often a renovation being resold, and sells above its comps. The subject's own
// prior sale is never a comparable; it only raises this flag, and the flag moves the centre by the premium
// that leave-one-out valuations of such resales in the training data showed (calibration.ts computes those
// residuals; this file turns them into premiums per market, group and basis).
import { DAY_MS, dayNumber, DAYS_PER_MONTH } from "./calendar.js"
import type { ModelOptions } from "./options.js"
import { quantileSorted } from "./quantiles.js"
import { type Basis, groupOf, type Sale } from "./types.js"

/** Day numbers (ascending) of each parcel's arm's-length training sales, fenced-out ones included. */
export type OwnSales = Map<string, Array<number>>

/** Indexes each parcel's own sale dates (the subject's sale history for the recent-resale signal). */
export function indexOwnSales(sales: Array<Sale>): OwnSales {
  const ownSales: OwnSales = new Map()
  for (const sale of sales) {
    let days = ownSales.get(sale.parcelKey)
    if (!days) ownSales.set(sale.parcelKey, days = [])
    days.push(dayNumber(sale.date))
  }
  for (const days of ownSales.values()) days.sort((a, b) => a - b)
  return ownSales
}

/** The day number of the sale that makes the subject a recent resale: the parcel's latest arm's-length training
 * sale strictly before `asOfDay`, where it lies between `resaleMinMonths` and `resaleMonths` before it; else
 * undefined (always where `resaleMonths` is 0). Not where that sale was of a house new then, within two years of
 * the year it was built (`yearBuilt`): a builder's first sale is no renovator's purchase (an agent's audit,
 * 2026-11-29: `1235 Jerome St`, built 2017 and sold new in 2019, was valued with the premium of a likely
 * renovation resale). The answer names this sale (`recent-resale-premium`), so that what it says is the rule's. */
export function recentResaleSaleDay(
  ownSales: OwnSales,
  parcelKey: string,
  asOfDay: number,
  options: ModelOptions,
  yearBuilt?: number
): number | undefined {
  if (!(options.resaleMonths > 0)) return undefined
  const days = ownSales.get(parcelKey)
  if (!days) return undefined
  let lastSaleDay = -Infinity
  for (const day of days) {
    if (day < asOfDay) lastSaleDay = day
    else break
  }
  const gap = asOfDay - lastSaleDay
  if (gap > options.resaleMonths * DAYS_PER_MONTH || gap < options.resaleMinMonths * DAYS_PER_MONTH) return undefined
  return yearBuilt === undefined || new Date(lastSaleDay * DAY_MS).getUTCFullYear() > yearBuilt + 2
    ? lastSaleDay
    : undefined
}

/** True when the subject is a recent resale (`recentResaleSaleDay`). */
export const isRecentResale = (
  ownSales: OwnSales,
  parcelKey: string,
  asOfDay: number,
  options: ModelOptions,
  yearBuilt?: number
): boolean => recentResaleSaleDay(ownSales, parcelKey, asOfDay, options, yearBuilt) !== undefined

/** One training sale valued leave-one-out, as the premium reads it. */
export type ResaleResidual = {
  sale: Sale
  /** market|group */
  marketGroup: string
  basis: Basis
  resale: boolean
  /** log price − the leave-one-out centre (no premium applied) */
  residual: number
}

/**
 * The premium (log) per `market|group|basis`: the median leave-one-out residual of the recent resales,
 * shrunk with the market's `resalePremiumPseudoCount` towards the all-market median of the group and basis
 * (itself 0 below 30 resales).
 */
export function estimateResalePremiums(
  residuals: Array<ResaleResidual>,
  pseudoCountFor: (market: string) => number
): Map<string, number> {
  const byKey = new Map<string, Array<number>>()
  for (const row of residuals) {
    if (!row.resale) continue
    for (const key of [`${row.marketGroup}|${row.basis}`, `*|${groupOf(row.sale.propertyType)}|${row.basis}`]) {
      let sample = byKey.get(key)
      if (!sample) byKey.set(key, sample = [])
      sample.push(row.residual)
    }
  }
  const median = (sample: Array<number>) => quantileSorted([...sample].sort((x, y) => x - y), 0.5)
  const premiums = new Map<string, number>()
  for (const [key, sample] of byKey) {
    if (key.startsWith("*|")) continue
    const [market, group, basis] = key.split("|")
    const pool = byKey.get(`*|${group}|${basis}`)!
    const pooled = pool.length >= 30 ? median(pool) : 0
    const pseudoCount = pseudoCountFor(market)
    premiums.set(key, (sample.length * median(sample) + pseudoCount * pooled) / (sample.length + pseudoCount))
  }
  return premiums
}
