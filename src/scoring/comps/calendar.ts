// Dates as numbers: the comps model compares sale dates as whole days (strictly before the valuation date),
// as calendar months (the market index has one effect per month) and as fractional months (recency kernel).
// Dates are ISO yyyy-mm-dd strings, read by position (no Date parsing in the hot paths).

export const DAY_MS = 86_400_000

/** Days since 1970-01-01 (UTC). */
export const dayNumber = (iso: string) =>
  Math.floor(Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / DAY_MS)

/** The ISO date of a day number (`dayNumber`'s inverse). */
export const isoOfDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)

/** Calendar month index (months since 2000-01). */
export const monthIndex = (iso: string) => (+iso.slice(0, 4) - 2000) * 12 + (+iso.slice(5, 7) - 1)

/** Fractional months since 2000-01-01. */
export const monthNumber = (iso: string) => monthIndex(iso) + (+iso.slice(8, 10) - 1) / 31

// Average days per month, for "months before" rules on day numbers: one definition with the caution that names
// the recent-resale premium's months (src/valuation/dates.ts).
export { DAYS_PER_MONTH } from "../../valuation/dates.js"
