// The hedonic regression: per market and property group, what a sale's characteristics, its neighbourhood
// and its month are worth on the log-price scale. The comps model uses it three ways: to adjust each comp's
// price to the subject's characteristics (`characteristics`), to move it in time (its month effects are the
// market index, market-index.ts), and as a prior prediction the comps' centre is blended with. Its typical
// residual sets the market prior for the comps' spread (`priorScale`).
import { monthIndex } from "./calendar.js"
import { type MonthEffects, smoothMonthEffects } from "./market-index.js"
import type { ModelOptions } from "./options.js"
import { quantileSorted } from "./quantiles.js"
import { type Basis, type PropertyType, type Sale, salesByMarketGroup, TYPE_CODE, typeRelation } from "./types.js"

/**
 * Per (market, group) log-linear regression, ridge-penalised, fitted on the clean training sales:
 *   log price = a + nbhd + month + type + class + b_area·log(area) + b_lot·log(lot) + [lot missing] + year-built bin
 * The "sqft" variant is fitted on sales with living area; the "price" variant has no area term.
 * Neighbourhood, month and building-class effects are ridge-shrunk to 0 (class effects are deviations
 * from the property-type effect). Month effects are smoothed 1-2-1 and form the market index.
 */
export type Hedonic = MonthEffects & {
  intercept: number
  bArea: number // elasticity of price w.r.t. living area
  bLot: number // elasticity w.r.t. lot size
  lotMissing: number
  /**
   * Whether the fit saw enough lot sizes (MIN_LOT_SALES) to read one: without, every sale was fitted as "lot
   * missing" (intercept and lotMissing then share the price level), and so is every property valued with it,
   * a lot stated in an override included (else the override moved the value by that share: Sacramento's file,
   * with no lot on record, valued a house at 1/54 of its comps).
   */
  lotKnown: boolean
  meanLogArea: number
  meanLogLot: number
  typeEffect: Float64Array // by TYPE_CODE (single_family = 0)
  classEffect: Map<string, number>
  yearEffect: Float64Array // by year bin (bin 0 = 0)
  nbhdEffect: Map<string, number>
  residualScale: number // IQR/1.349 of in-sample residuals
  n: number
}

/** The regressions of every market and group, per basis, and the prior log-scale of each basis. */
export type MarketRegressions = {
  sqft: Map<string, Hedonic> // by market|group
  price: Map<string, Hedonic>
  /** the comps' spread is shrunk towards this: 0.8 × the median residual scale of the basis' regressions */
  priorScale: Record<Basis, number>
}

const YEAR_BINS = 8
/** Year built in eight bins: before 1920, the 1920s-30s, ... 2010 on; bin 7 = unknown. */
function yearBin(yearBuilt: number | undefined): number {
  if (yearBuilt === undefined) return 7
  if (yearBuilt < 1920) return 0
  if (yearBuilt < 1940) return 1
  if (yearBuilt < 1960) return 2
  if (yearBuilt < 1980) return 3
  if (yearBuilt < 2000) return 4
  if (yearBuilt < 2010) return 5
  return 6
}

/** Solves the symmetric positive definite system A x = b (Cholesky); A is n×n, row-major. */
function solveSpd(A: Float64Array, b: Float64Array, n: number): Float64Array {
  const L = new Float64Array(A)
  for (let j = 0; j < n; j++) {
    let s = L[j * n + j]
    for (let k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k]
    const d = Math.sqrt(Math.max(s, 1e-12))
    L[j * n + j] = d
    for (let i = j + 1; i < n; i++) {
      let t = L[i * n + j]
      for (let k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k]
      L[i * n + j] = t / d
    }
  }
  const y = new Float64Array(n)
  for (let i = 0; i < n; i++) {
    let t = b[i]
    for (let k = 0; k < i; k++) t -= L[i * n + k] * y[k]
    y[i] = t / L[i * n + i]
  }
  const x = new Float64Array(n)
  for (let i = n - 1; i >= 0; i--) {
    let t = y[i]
    for (let k = i + 1; k < n; k++) t -= L[k * n + i] * x[k]
    x[i] = t / L[i * n + i]
  }
  return x
}

/**
 * The effects of the type and year-built levels no training sale has, which the fit cannot know (a reference level,
 * fixed at 0, or a level left at the ridge's 0): each is given its known neighbours' instead. A year bin takes the
 * nearest bin with sales (the mean of the two, equally near; the unknown year's where no sale's year is known),
 * the unknown year the sales-weighted mean of the known years', a type with no sale its close types' (as the comps
 * kernel relates them), else every type's with sales. Left at 0, a level's 0 stood against effects measured from the
 * intercept: a market without houses built before 1940 valued a 1925 house at a tenth of its comps (a generality
 * audit, 2026-11-30: Melbourne's South-Eastern Metro as a market of its own, $1.5M houses valued at $143k).
 */
function fillUnseenLevels(
  typeEffect: Float64Array,
  typeCounts: ReadonlyArray<number>,
  yearEffect: Float64Array,
  yearCounts: ReadonlyArray<number>
) {
  const weightedMean = (effects: Float64Array, counts: ReadonlyArray<number>, levels: number) => {
    let sum = 0, count = 0
    for (let level = 0; level < levels; level++) {
      sum += effects[level] * counts[level]
      count += counts[level]
    }
    return count > 0 ? sum / count : 0
  }
  const fittedTypes = Float64Array.from(typeEffect)
  const typeMean = weightedMean(fittedTypes, typeCounts, fittedTypes.length)
  for (let t = 0; t < typeEffect.length; t++) {
    if (typeCounts[t] > 0) continue
    // A close type's (a townhouse's for a one-family house), where the sales have one.
    const close = typeCounts.map((count, c) => typeRelation(t, c) === 1 ? count : 0)
    typeEffect[t] = close.some((count) => count > 0) ? weightedMean(fittedTypes, close, close.length) : typeMean
  }
  // The bins of a known year are ordered in time; the unknown year's is the last.
  const known = YEAR_BINS - 1
  const fitted = Float64Array.from(yearEffect)
  for (let b = 0; b < known; b++) {
    if (yearCounts[b] > 0) continue
    // No sale of a known year: a year typed for the subject says nothing the sales could weigh.
    yearEffect[b] = fitted[known]
    for (let distance = 1; distance < known; distance++) {
      const near = [b - distance, b + distance].filter((c) => c >= 0 && c < known && yearCounts[c] > 0)
      if (near.length > 0) {
        yearEffect[b] = near.reduce((sum, c) => sum + fitted[c], 0) / near.length
        break
      }
    }
  }
  if (yearCounts[known] === 0) yearEffect[known] = weightedMean(fitted, yearCounts, known)
}

/** The fewest sales with a lot size a regression reads lot sizes from. */
const MIN_LOT_SALES = 30

/** Fits one market and group's regression on the "sqft" (`useArea`) or "price" basis; undefined below 30 sales. */
export function fitHedonic(sales: Array<Sale>, options: ModelOptions, useArea: boolean): Hedonic | undefined {
  const rows = useArea ? sales.filter((sale) => sale.livingArea) : sales
  if (rows.length < 30) return undefined
  const neighborhoodIndex = new Map<string, number>(), classIndex = new Map<string, number>()
  let firstMonth = Infinity, lastMonth = -Infinity, meanLogArea = 0, meanLogLot = 0, withLot = 0
  for (const sale of rows) {
    if (!neighborhoodIndex.has(sale.neighborhood)) neighborhoodIndex.set(sale.neighborhood, neighborhoodIndex.size)
    if (!classIndex.has(sale.buildingClass)) classIndex.set(sale.buildingClass, classIndex.size)
    const month = monthIndex(sale.date)
    firstMonth = Math.min(firstMonth, month)
    lastMonth = Math.max(lastMonth, month)
    if (useArea) meanLogArea += Math.log(sale.livingArea!)
    if (sale.lotSize) {
      meanLogLot += Math.log(sale.lotSize)
      withLot++
    }
  }
  meanLogArea /= rows.length
  const lotKnown = withLot >= MIN_LOT_SALES
  meanLogLot = lotKnown ? meanLogLot / withLot : 0
  const neighborhoods = neighborhoodIndex.size, classes = classIndex.size, months = lastMonth - firstMonth + 1
  // parameter layout
  const P_INTERCEPT = 0, P_AREA = 1, P_LOT = 2, P_LOT_MISSING = 3
  const P_TYPE = 4 // type codes 1..5 -> 4..8
  const P_YEAR = 9 // year bins 1..7 -> 9..15
  const P_CLASS = 16, P_NEIGHBORHOOD = P_CLASS + classes, P_MONTH = P_NEIGHBORHOOD + neighborhoods
  const n = P_MONTH + months
  const XtX = new Float64Array(n * n), Xty = new Float64Array(n)
  // one sale's design row, sparse: the parameters it touches and their values (reused between sales)
  const columns: Array<number> = [], values: Array<number> = []
  const designRow = (sale: Sale) => {
    columns.length = 0
    values.length = 0
    columns.push(P_INTERCEPT)
    values.push(1)
    if (useArea) {
      columns.push(P_AREA)
      values.push(Math.log(sale.livingArea!) - meanLogArea)
    }
    if (lotKnown && sale.lotSize) {
      columns.push(P_LOT)
      values.push(Math.log(sale.lotSize) - meanLogLot)
    } else {
      columns.push(P_LOT_MISSING)
      values.push(1)
    }
    const typeCode = TYPE_CODE[sale.propertyType]
    if (typeCode > 0) {
      columns.push(P_TYPE + typeCode - 1)
      values.push(1)
    }
    const bin = yearBin(sale.yearBuilt)
    if (bin > 0) {
      columns.push(P_YEAR + bin - 1)
      values.push(1)
    }
    columns.push(P_CLASS + classIndex.get(sale.buildingClass)!)
    values.push(1)
    columns.push(P_NEIGHBORHOOD + neighborhoodIndex.get(sale.neighborhood)!)
    values.push(1)
    columns.push(P_MONTH + monthIndex(sale.date) - firstMonth)
    values.push(1)
  }
  const typeCounts = new Array<number>(6).fill(0), yearCounts = new Array<number>(YEAR_BINS).fill(0)
  for (const sale of rows) {
    typeCounts[TYPE_CODE[sale.propertyType]]++
    yearCounts[yearBin(sale.yearBuilt)]++
    designRow(sale)
    const logPrice = Math.log(sale.price)
    for (let a = 0; a < columns.length; a++) {
      Xty[columns[a]] += values[a] * logPrice
      for (let b = 0; b < columns.length; b++) XtX[columns[a] * n + columns[b]] += values[a] * values[b]
    }
  }
  for (let j = 0; j < n; j++) XtX[j * n + j] += 1e-6
  for (let j = P_AREA; j < P_CLASS; j++) if (XtX[j * n + j] < 1e-3) XtX[j * n + j] += 1 // empty slots
  for (let j = 0; j < classes; j++) XtX[(P_CLASS + j) * n + P_CLASS + j] += options.ridgeClass
  for (let j = 0; j < neighborhoods; j++) {
    XtX[(P_NEIGHBORHOOD + j) * n + P_NEIGHBORHOOD + j] += options.ridgeNeighborhood
  }
  for (let j = 0; j < months; j++) XtX[(P_MONTH + j) * n + P_MONTH + j] += options.ridgeMonth
  const beta = solveSpd(XtX, Xty, n)

  const residuals: Array<number> = []
  for (const sale of rows) {
    designRow(sale)
    let predicted = 0
    for (let a = 0; a < columns.length; a++) predicted += beta[columns[a]] * values[a]
    residuals.push(Math.log(sale.price) - predicted)
  }
  residuals.sort((a, b) => a - b)
  const typeEffect = new Float64Array(6)
  for (let t = 1; t < 6; t++) typeEffect[t] = beta[P_TYPE + t - 1]
  const yearEffect = new Float64Array(YEAR_BINS)
  for (let b = 1; b < YEAR_BINS; b++) yearEffect[b] = beta[P_YEAR + b - 1]
  fillUnseenLevels(typeEffect, typeCounts, yearEffect, yearCounts)
  return {
    intercept: beta[P_INTERCEPT],
    bArea: useArea ? beta[P_AREA] : 0,
    bLot: beta[P_LOT],
    lotMissing: beta[P_LOT_MISSING],
    lotKnown,
    meanLogArea,
    meanLogLot,
    typeEffect,
    yearEffect,
    classEffect: new Map([...classIndex].map(([buildingClass, j]) => [buildingClass, beta[P_CLASS + j]])),
    nbhdEffect: new Map([...neighborhoodIndex].map(([neighborhood, j]) => [neighborhood, beta[P_NEIGHBORHOOD + j]])),
    monthEffect: smoothMonthEffects(beta, P_MONTH, months, firstMonth),
    firstMonth,
    lastMonth,
    residualScale: (quantileSorted(residuals, 0.75) - quantileSorted(residuals, 0.25)) / 1.349,
    n: rows.length
  }
}

/**
 * The characteristics part of the regression (everything except intercept, neighbourhood and month); the
 * living area's term left out with `withArea` false (the price basis), as if the property had none.
 */
export function characteristics(
  hedonic: Hedonic,
  property: {
    propertyType: PropertyType
    buildingClass?: string | undefined
    lotSize?: number | undefined
    yearBuilt?: number | undefined
    livingArea?: number | undefined
  },
  withArea = true
): number {
  let effect = hedonic.typeEffect[TYPE_CODE[property.propertyType]]
  effect += property.lotSize && hedonic.lotKnown
    ? hedonic.bLot * (Math.log(property.lotSize) - hedonic.meanLogLot)
    : hedonic.lotMissing
  effect += hedonic.yearEffect[yearBin(property.yearBuilt)]
  if (property.buildingClass) effect += hedonic.classEffect.get(property.buildingClass) ?? 0
  if (withArea && property.livingArea && hedonic.bArea) {
    effect += hedonic.bArea * (Math.log(property.livingArea) - hedonic.meanLogArea)
  }
  return effect
}

/** No regressions yet: the prior scales' defaults. */
export const noRegressions = (): MarketRegressions => ({
  sqft: new Map(),
  price: new Map(),
  priorScale: { sqft: 0.2, price: 0.3 }
})

/** Fits both bases' regressions for every market and group of the clean training sales, and the prior scales. */
export function fitRegressions(
  sales: Array<Sale>,
  optionsFor: (market: string) => ModelOptions
): MarketRegressions {
  const regressions = noRegressions()
  for (const [key, group] of salesByMarketGroup(sales)) {
    const options = optionsFor(group[0].market)
    for (const basis of ["sqft", "price"] as const) {
      const hedonic = fitHedonic(group, options, basis === "sqft")
      if (hedonic) regressions[basis].set(key, hedonic)
    }
  }
  for (const basis of ["sqft", "price"] as const) {
    const scales = [...regressions[basis].values()].map((hedonic) => hedonic.residualScale).sort((x, y) => x - y)
    if (scales.length) regressions.priorScale[basis] = quantileSorted(scales, 0.5) * 0.8
  }
  return regressions
}
