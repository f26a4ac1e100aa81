/** Accuracy figures of an evaluation: MdAPE, PPE10, PPE20 and the 0.1–0.9 interval's coverage. */
import { median } from "../valuation/weighted.js"

export interface ScoredSale {
  readonly actual: number
  readonly predicted: number
  readonly q10?: number | undefined
  readonly q90?: number | undefined
}

export interface Accuracy {
  /** Median absolute percentage error, as a fraction. */
  readonly mdape: number
  /** Share of predictions within ±10% of the price. */
  readonly ppe10: number
  readonly ppe20: number
}

export const accuracy = (sales: ReadonlyArray<ScoredSale>): Accuracy | undefined => {
  const errors = sales.filter((sale) => sale.actual > 0).map((sale) =>
    Math.abs(sale.predicted - sale.actual) / sale.actual
  )
  if (errors.length === 0) return undefined
  return {
    mdape: median(errors)!,
    ppe10: errors.filter((error) => error <= 0.1).length / errors.length,
    ppe20: errors.filter((error) => error <= 0.2).length / errors.length
  }
}

/** The share of sales whose price lies inside their 0.1–0.9 interval. */
export const coverage80 = (sales: ReadonlyArray<ScoredSale>): number | undefined => {
  const withInterval = sales.filter((sale) => sale.q10 !== undefined && sale.q90 !== undefined)
  if (withInterval.length === 0) return undefined
  return withInterval.filter((sale) => sale.actual >= sale.q10! && sale.actual <= sale.q90!).length /
    withInterval.length
}
