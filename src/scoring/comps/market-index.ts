// The market index: how prices moved month by month in one market and property group. It is the month
// effects of that market's hedonic regression (hedonic.ts), smoothed 1-2-1, and it moves a comp's price from
// its sale month to the valuation month. Outside the months it was fitted on it is held flat: no trend is
// ever extrapolated.
import { monthIndex } from "./calendar.js"
import { marketGroupKey, type PropertyType } from "./types.js"

/** Log-price effect per calendar month index (months since 2000-01), over the fitted months. */
export type MonthEffects = {
  monthEffect: Map<number, number> // smoothed, by calendar month index
  firstMonth: number
  lastMonth: number
}

/**
 * The 1-2-1 smoothing of `count` raw month coefficients starting at `coefficients[offset]` (the first and
 * last month average with their one neighbour, 2-1 and 1-2), keyed by calendar month from `firstMonth`.
 */
export function smoothMonthEffects(
  coefficients: Float64Array,
  offset: number,
  count: number,
  firstMonth: number
): Map<number, number> {
  const monthEffect = new Map<number, number>()
  for (let j = 0; j < count; j++) {
    let sum = 2 * coefficients[offset + j], weight = 2
    if (j > 0) {
      sum += coefficients[offset + j - 1]
      weight++
    }
    if (j < count - 1) {
      sum += coefficients[offset + j + 1]
      weight++
    }
    monthEffect.set(firstMonth + j, sum / weight)
  }
  return monthEffect
}

/** The market index at a calendar month; flat outside the fitted range. */
export function timeEffect(effects: MonthEffects, month: number): number {
  return effects.monthEffect.get(Math.min(Math.max(month, effects.firstMonth), effects.lastMonth)) ?? 0
}

/**
 * The market index (log) of a market and property group at a date, from the "sqft" regression or else the
 * "price" one; 0 when the market has neither.
 */
export function marketIndexAt(
  regressions: { sqft: ReadonlyMap<string, MonthEffects>; price: ReadonlyMap<string, MonthEffects> },
  subject: { market: string; propertyType: PropertyType },
  date: string
): number {
  const key = marketGroupKey(subject.market, subject.propertyType)
  const effects = regressions.sqft.get(key) ?? regressions.price.get(key)
  return effects ? timeEffect(effects, monthIndex(date)) : 0
}
