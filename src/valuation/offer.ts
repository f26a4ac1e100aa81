/**
 * The offer arithmetic: the repair budget, the rehab-adjusted ARV, and the maximum allowable offer (MAO)
 * with its whole-dollar cost stack (CONTRACT.md financing policy).
 */
import type { CompBand, CostStack } from "../../schema/scored-answer.js"
import type { Condition } from "../../schema/scored-call.js"
import { financing, FULL_LIFT_PER_SQUARE_FOOT, MIN_OFFER, OFFER_ROUNDING, repairBrackets } from "./policy.js"

/**
 * The repair budget the arithmetic uses (ANS-8, REQ-5): the caller's `rehab_budget` if sent; otherwise the
 * whole-project midpoint of the condition's bracket; otherwise (no condition, or `turn_key`) zero.
 */
export const rehabBudgetFor = (
  input: { readonly rehabBudget?: number | undefined; readonly condition?: Condition | undefined },
  livingAreaSquareFeet: number
): number => {
  if (input.rehabBudget !== undefined) return input.rehabBudget
  if (input.condition === undefined || input.condition === "tear_down") return 0
  const bracket = repairBrackets[input.condition]
  return Math.round(((bracket.low + bracket.high) / 2) * livingAreaSquareFeet)
}

/**
 * The band's middle lifted toward its upper end in proportion to the repair budget (ANS-9): no lift at $0,
 * full lift at $60 per square foot, never above the band's upper end.
 */
export const rehabAdjustedArv = (band: CompBand, rehabBudget: number, livingAreaSquareFeet: number): number => {
  const lift = Math.min(1, Math.max(0, rehabBudget / (FULL_LIFT_PER_SQUARE_FOOT * livingAreaSquareFeet)))
  return Math.round(band.middle + lift * (band.high - band.middle))
}

const holdInterestRate = (financing.annualInterestRate * financing.holdMonths) / 12

/** The whole-dollar cost stack of buying at `price`; `down_payment + loan = price` exactly (COST-1). */
export const costStack = (price: number, rehabBudget: number, arv: number, targetMargin: number): CostStack => {
  const downPayment = Math.round(price * financing.downPaymentShare)
  const loan = price - downPayment
  return {
    down_payment: downPayment,
    loan,
    rehab_budget: rehabBudget,
    interest: Math.round(holdInterestRate * (loan + rehabBudget)),
    points: Math.round(financing.pointsShareOfLoan * loan),
    closing_costs: Math.round(financing.buyClosingShareOfPrice * price + financing.sellClosingShareOfArv * arv),
    target_profit: Math.round(targetMargin * arv)
  }
}

/** Total outlay of buying at `price`, unrounded: price + rehab + interest + points + closing + profit. */
const outlay = (price: number, rehabBudget: number, arv: number, targetMargin: number) =>
  price +
  rehabBudget +
  holdInterestRate * (financing.loanShare * price + rehabBudget) +
  financing.pointsShareOfLoan * financing.loanShare * price +
  financing.buyClosingShareOfPrice * price +
  (financing.sellClosingShareOfArv + targetMargin) * arv

export interface Offer {
  readonly price: number
  readonly clamped: boolean
  readonly costStack: CostStack
}

/**
 * The MAO: the price at which the outlay equals the rehab-adjusted ARV (the outlay is linear in the price),
 * rounded to the nearest thousand and kept within [1,000, ARV]. When no price in that range clears the
 * margin the price is clamped to 1,000 and `clamped` is true: the lines then describe that floor price and
 * do not add back to the ARV (COST-3).
 */
export const maximumAllowableOffer = (arv: number, rehabBudget: number, targetMargin: number): Offer => {
  const perDollar = outlay(1, 0, 0, 0)
  const fixed = outlay(0, rehabBudget, arv, targetMargin)
  const solved = (arv - fixed) / perDollar
  const rounded = Math.round(solved / OFFER_ROUNDING) * OFFER_ROUNDING
  const clamped = solved < MIN_OFFER
  const price = clamped ? MIN_OFFER : Math.min(rounded, Math.max(MIN_OFFER, arv))
  return { price, clamped, costStack: costStack(price, rehabBudget, arv, targetMargin) }
}
