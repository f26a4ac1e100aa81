/**
 * The valuation date of a call (docs/decisions.md, "Valuation dates"): the call's own date when the market's
 * data is current, else the date the market's recorded sales run through. The engine never carries its market
 * index past its data without the answer saying so.
 */
import { CURRENT_DATA_DAYS } from "./policy.js"

const DAY_MILLIS = 86_400_000

/** Days in a month as the recent-resale rule counts its months (its engine and its caution alike). */
export const DAYS_PER_MONTH = 365.25 / 12

const dayNumber = (isoDate: string) => Math.floor(Date.parse(`${isoDate}T00:00:00Z`) / DAY_MILLIS)

/** The ISO date (YYYY-MM-DD) `days` after `isoDate`. */
export const addDays = (isoDate: string, days: number) =>
  new Date((dayNumber(isoDate) + days) * DAY_MILLIS).toISOString().slice(0, 10)

/** True when `text` is a calendar date written YYYY-MM-DD (`2019-13-45` and `2019-02-30` are not). */
export const isIsoDate = (text: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) && Number.isFinite(dayNumber(text)) &&
  new Date(dayNumber(text) * DAY_MILLIS).toISOString().slice(0, 10) === text

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export const daysBetween = (from: string, to: string) => dayNumber(to) - dayNumber(from)

/** True when data running through `dataThrough` is current on `callDate`. */
export const isCurrent = (dataThrough: string, callDate: string) =>
  daysBetween(dataThrough, callDate) <= CURRENT_DATA_DAYS

/** The date a call made on `callDate` is valued as of, given the day its market's data runs through. */
export const valuationDateFor = (callDate: string, dataThrough: string) =>
  isCurrent(dataThrough, callDate) ? callDate : dataThrough

/** The dates behind a valuation, as the scoring step reports them. */
export interface ValuationDates {
  /** The day the call was made (UTC), YYYY-MM-DD. */
  readonly callDate: string
  /** The day the value applies to: `callDate`, or `dataThrough` when the market's data is not current. */
  readonly valuationDate: string
  /** The latest arm's-length sale recorded in the property's market that the engine was built on. */
  readonly dataThrough: string
}
