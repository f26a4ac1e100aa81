/**
 * The currency of a market's records, so every amount in an answer says what it is counted in: Australian
 * dollars for a property in an Australian state or territory (Melbourne's file), else US dollars (docs/decisions.md,
 * "Currency").
 */
import type { Currency } from "../../schema/scored-answer.js"

export type { Currency }

/** Australia's states and territories, as records abbreviate them. */
export const AUSTRALIAN_STATE_CODES: ReadonlySet<string> = new Set([
  "VIC",
  "NSW",
  "QLD",
  "SA",
  "WA",
  "TAS",
  "NT",
  "ACT"
])

export const currencyOfState = (state: string | undefined): Currency =>
  AUSTRALIAN_STATE_CODES.has(state?.toUpperCase() ?? "") ? "AUD" : "USD"

/** An amount in words, in the market's currency (`A$` for Australian dollars). */
export const amountIn = (currency: Currency | undefined) => (amount: number) =>
  `${currency === "AUD" ? "A$" : "$"}${Math.round(amount).toLocaleString("en-US")}`
