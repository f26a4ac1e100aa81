// Calibration: turning the comps' log-scale centre and scale into honest quantiles. The last
// `calibrationMonths` of the training sales are valued leave-one-out (each as of its own date, with comps
// strictly before it, never its own parcel); their standardized residuals u = (log price − centre) / scale
// give, per market and basis (fallback: all markets), the z-quantiles that replace the normal ones, and a
// 101-point residual sample for the predictive mean. The same leave-one-out pass, run also on the earlier
// training sales that are recent resales, feeds the resale premium (resale-premium.ts).
import { monthIndex } from "./calendar.js"
import { quantileSorted } from "./quantiles.js"
import type { ResaleResidual } from "./resale-premium.js"
import {
  type Basis,
  groupOf,
  type LogPrediction,
  type NoValue,
  QUANTILE_LEVELS,
  type QuantileLevel,
  type Sale,
  type Subject
} from "./types.js"

/** Standardized-residual quantiles at QUANTILE_LEVELS and a 101-point residual sample, of one market|basis or *|basis. */
export type Calibration = { z: Array<number>; sample: Array<number>; n: number }

/** The standard normal's quantiles at QUANTILE_LEVELS: the fallback when no calibration applies. */
const NORMAL_Z = [-1.6449, -1.2816, -0.6745, 0, 0.6745, 1.2816, 1.6449]

/** A training sale valued leave-one-out. */
export type LeaveOneOutRow = ResaleResidual & {
  scale: number
  /** in the calibration window (else only a recent resale, for the premium) */
  inWindow: boolean
}

/**
 * 1. Leave-one-out valuations (the caller has no resale premium in place yet): every sale of the calibration
 * window (from calendar month `windowStartMonth` on), plus the earlier sales that are recent resales (the most
 * recent `maxEarlierResales` of each market: they only feed the premium's median). Condos
 * with a living area are also valued without it, to calibrate the "price" basis (the 2019 DOF file has no
 * condo unit areas).
 */
export function leaveOneOutRows(
  sales: Array<Sale>,
  windowStartMonth: number,
  isRecentResale: (sale: Sale) => boolean,
  predictLog: (subject: Subject, asOf: string) => LogPrediction | NoValue,
  maxEarlierResales: (market: string) => number
): Array<LeaveOneOutRow> {
  const valued: Array<Sale> = []
  const earlierResales = new Map<string, Array<Sale>>()
  for (const sale of sales) {
    if (monthIndex(sale.date) >= windowStartMonth) valued.push(sale)
    else if (isRecentResale(sale)) {
      const ofMarket = earlierResales.get(sale.market)
      if (ofMarket) ofMarket.push(sale)
      else earlierResales.set(sale.market, [sale])
    }
  }
  for (const [market, resales] of earlierResales) {
    const most = maxEarlierResales(market)
    // The most recent ones, in their order among the sales (the rows' order does not matter downstream).
    const kept = resales.length > most
      ? new Set([...resales].sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : 0)).slice(0, most))
      : undefined
    for (const sale of resales) if (kept === undefined || kept.has(sale)) valued.push(sale)
  }
  const rows: Array<LeaveOneOutRow> = []
  for (const sale of valued) {
    const inWindow = monthIndex(sale.date) >= windowStartMonth
    const variants: Array<Subject> = [sale]
    if (sale.livingArea && sale.propertyType === "condo") variants.push({ ...sale, livingArea: undefined })
    for (const variant of variants) {
      const prediction = predictLog(variant, sale.date)
      if ("reason" in prediction) continue
      rows.push({
        sale,
        marketGroup: `${sale.market}|${groupOf(sale.propertyType)}`,
        basis: prediction.basis,
        resale: prediction.resale,
        residual: Math.log(sale.price) - prediction.center,
        scale: prediction.scale,
        inWindow
      })
    }
  }
  return rows
}

/**
 * 3. The calibrations from the window's standardized residuals, the resale premium applied, per `market|basis`
 * and `*|basis` with at least 100 residuals; `n` counts the window's valuations.
 */
export function fitCalibrations(
  rows: Array<LeaveOneOutRow>,
  resalePremium: ReadonlyMap<string, number>
): { calibrations: Map<string, Calibration>; n: number } {
  const standardized = new Map<string, Array<number>>()
  let n = 0
  for (const row of rows) {
    if (!row.inWindow) continue
    const premium = row.resale ? resalePremium.get(`${row.marketGroup}|${row.basis}`) ?? 0 : 0
    const u = (row.residual - premium) / row.scale
    for (const key of [`${row.sale.market}|${row.basis}`, `*|${row.basis}`]) {
      let sample = standardized.get(key)
      if (!sample) standardized.set(key, sample = [])
      sample.push(u)
    }
    n++
  }
  const levels = QUANTILE_LEVELS.map(Number)
  const calibrations = new Map<string, Calibration>()
  for (const [key, u] of standardized) {
    if (u.length < 100) continue
    u.sort((a, b) => a - b)
    calibrations.set(key, {
      z: levels.map((level) => quantileSorted(u, level)),
      sample: Array.from({ length: 101 }, (_, j) => quantileSorted(u, (j + 0.5) / 101)),
      n: u.length
    })
  }
  return { calibrations, n }
}

/** The calibration of a market and basis, else of all markets on that basis. */
export const calibrationFor = (calibrations: ReadonlyMap<string, Calibration>, market: string, basis: Basis) =>
  calibrations.get(`${market}|${basis}`) ?? calibrations.get(`*|${basis}`)

/** The reported quantiles exp(center + scale·z) at QUANTILE_LEVELS, made non-decreasing. */
export function predictiveQuantiles(
  calibration: Calibration | undefined,
  center: number,
  scale: number
): Record<QuantileLevel, number> {
  const z = calibration?.z ?? NORMAL_Z
  const quantiles = {} as Record<QuantileLevel, number>
  let previous = 0
  QUANTILE_LEVELS.forEach((
    level,
    j
  ) => (previous = quantiles[level] = Math.max(previous, Math.exp(center + scale * z[j]))))
  return quantiles
}

/** The mean of the predictive distribution exp(center + scale·u), u ~ the calibration residuals (else normal). */
export function predictiveMean(calibration: Calibration | undefined, center: number, scale: number): number {
  let mean = Math.exp(center + (scale * scale) / 2)
  if (calibration) {
    let sum = 0
    for (const u of calibration.sample) sum += Math.exp(scale * u)
    mean = Math.exp(center) * (sum / calibration.sample.length)
  }
  return mean
}
