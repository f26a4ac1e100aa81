// Property valuation: kernel-weighted comparable sales with regression-derived adjustments and a
// calibrated predictive distribution. Plain TypeScript (Node 20 built-ins only), deterministic.
//
//   const model = fitModel(trainingSales);          // sales dated before the split only
//   const v = model.value(subject, "2019-05-14");   // { quantiles, mean, effectiveSampleSize, comps } | { reason }
//
// See NOTES.md for the method and how every parameter was chosen.

export type PropertyType = "single_family" | "townhouse" | "two_family" | "three_family" | "condo" | "manufactured"

export type Sale = {
  parcelKey: string // borough-block-lot
  market: string // borough name
  neighborhood: string
  block: number
  lot: number
  zip: string
  buildingClass: string
  propertyType: PropertyType
  livingArea?: number | undefined // sq ft
  lotSize?: number | undefined // sq ft
  yearBuilt?: number | undefined
  /** apartment / unit designation (condos), e.g. "5B", "PH2A", "1203" */
  unit?: string | undefined
  /** coordinates, where the data has them: then location is distance in miles rather than tax blocks */
  latitude?: number | undefined
  longitude?: number | undefined
  /** rooms, where the data has them (the learner reads them; the comps do not) */
  bedrooms?: number | undefined
  bathrooms?: number | undefined
  price: number
  date: string // yyyy-mm-dd
  armsLength: boolean
}

export type Subject = {
  parcelKey: string
  market: string
  neighborhood: string
  block: number
  zip: string
  propertyType: PropertyType
  livingArea?: number | undefined
  lotSize?: number | undefined
  yearBuilt?: number | undefined
  /** optional refinements */
  lot?: number | undefined // defaults to the lot part of parcelKey
  buildingClass?: string | undefined
  unit?: string | undefined
  latitude?: number | undefined
  longitude?: number | undefined
  bedrooms?: number | undefined
  bathrooms?: number | undefined
}

export const QUANTILE_LEVELS = ["0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95"] as const
export type QuantileLevel = (typeof QUANTILE_LEVELS)[number]

export type Comp = {
  sale: Sale
  weight: number
  /** comp price adjusted to the subject (size, lot, age, class, location) and to the valuation date */
  adjustedValue: number
  /** the comp's recorded price moved to the valuation date by the market index (nothing else adjusted) */
  timeAdjustedPrice: number
  pricePerSqft?: number | undefined
}

export type Valuation = {
  quantiles: Record<QuantileLevel, number>
  mean: number
  effectiveSampleSize: number // Kish: (Σw)² / Σw² over the comps' weights
  comps: Array<Comp> // sorted by weight, descending
  /** "sqft": subject living area known (size-adjusted comps); "price": no living area (condos in the 2019 DOF file) */
  basis: Basis
  /** the comps' centre and scale on the log scale (the quantiles are exp(center + scale·z)) */
  center: number
  scale: number
}
export type NoValue = { reason: string }
type Basis = "sqft" | "price"

export type ModelOptions = {
  /** candidates examined per valuation: the nearest by tax-block number within market and group */
  maxCandidates: number
  /** candidates further than this many tax blocks away are never used */
  maxBlockDistance: number
  /** block-distance kernel exp(-|Δblock| / blockBandwidth) */
  blockBandwidth: number
  /** weight multiplier for a comp from another neighbourhood / another zip code */
  otherNeighborhoodFactor: number
  otherZipFactor: number
  /** gaussian kernel widths on |log living-area ratio| and |log lot-size ratio| */
  areaBandwidth: number
  lotBandwidth: number
  /** exp(-|Δ year built| / yearBandwidth) */
  yearBandwidth: number
  /** exp(-months between comp sale and valuation date / recencyBandwidth) */
  recencyBandwidth: number
  /** property-type similarity [same type, close type, other]; close = single/townhouse, two/three family */
  typeSimilarity: [number, number, number]
  /** multiplier when the building class differs within the same property type */
  classMismatchFactor: number
  /** condos valued without living area ("price" basis): block bandwidth, lot-number bandwidth within the
   * block (same-building proxy), and bonus for the same unit line in the same block (3B vs 7B) */
  condoBlockBandwidth: number
  condoLotBandwidth: number
  condoSameLineBonus: number
  /** recent-resale ("flip") signal: a subject whose own parcel had an arm's-length sale at most this many
   * months before the valuation date gets its centre moved by the premium that leave-one-out valuations of such
   * resales in the training data show (0 = off). The own prior sale is never a comparable; it only sets this flag. */
  resaleMonths: number
  /** ...and at least this many months before it (quicker resales are rarely renovations) */
  resaleMinMonths: number
  /** the per-market premium is shrunk to the all-market premium of the group with this pseudo-count */
  resalePremiumPseudoCount: number
  /** share of the neighbourhood fixed-effect difference applied to comps from another neighbourhood */
  neighborhoodAdjustment: number
  /** the comp centre is blended with the hedonic (neighbourhood-regression) prediction with weight
   * ESS / (ESS + pseudoCount); a separate pseudo-count for condos on the price basis */
  hedonicPseudoCount: number
  condoPriceHedonicPseudoCount: number
  /** local dispersion is shrunk to the market prior scale with this pseudo-count */
  scalePseudoCount: number
  /** arm's-length outlier fence: Tukey fence with k IQR on the neighbourhood's log $/sqft (or log price) */
  outlierFenceIqr: number
  /** ridge penalties in the hedonic regression: neighbourhood effects, month effects, building-class effects */
  ridgeNeighborhood: number
  ridgeMonth: number
  ridgeClass: number
  /** months at the end of the training period used for the leave-one-out calibration */
  calibrationMonths: number
  /** comps whose weight is below maxWeight * relativeWeightFloor are dropped */
  relativeWeightFloor: number
  /** markets with coordinates: location kernel exp(-miles / mileBandwidth), candidates within maxMiles */
  mileBandwidth: number
  maxMiles: number
  /** per-market overrides of any option above */
  markets: Record<string, Partial<Omit<ModelOptions, "markets">>>
}

export const DEFAULT_OPTIONS: ModelOptions = {
  maxCandidates: 300,
  maxBlockDistance: 400,
  blockBandwidth: 80,
  otherNeighborhoodFactor: 0.5,
  otherZipFactor: 0.7,
  areaBandwidth: 0.25,
  lotBandwidth: 0.5,
  yearBandwidth: 25,
  recencyBandwidth: 12,
  typeSimilarity: [1, 0.35, 0.1],
  classMismatchFactor: 0.7,
  condoBlockBandwidth: 3,
  condoLotBandwidth: 100,
  condoSameLineBonus: 5,
  resaleMonths: 12,
  resaleMinMonths: 3,
  resalePremiumPseudoCount: 20,
  neighborhoodAdjustment: 0.5,
  hedonicPseudoCount: 3,
  condoPriceHedonicPseudoCount: 1,
  scalePseudoCount: 5,
  outlierFenceIqr: 3,
  ridgeNeighborhood: 5,
  ridgeMonth: 20,
  ridgeClass: 10,
  calibrationMonths: 3,
  relativeWeightFloor: 1e-3,
  mileBandwidth: 1,
  maxMiles: 15,
  // Chosen on late-2018 validation sales (docs/pricing-model.md); Queens: 50 blocks, 11.61% vs 11.70% at 80.
  markets: { "Staten Island": { blockBandwidth: 15 }, Queens: { blockBandwidth: 50 } }
}

// ---------------------------------------------------------------- helpers

const DAY_MS = 86_400_000
const dayNumber = (iso: string) =>
  Math.floor(Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / DAY_MS)
/** calendar month index (months since 2000-01) */
const monthIndex = (iso: string) => (+iso.slice(0, 4) - 2000) * 12 + (+iso.slice(5, 7) - 1)
/** fractional months since 2000-01-01 */
const monthNumber = (iso: string) => monthIndex(iso) + (+iso.slice(8, 10) - 1) / 31

type Group = "house" | "condo"
const groupOf = (t: PropertyType): Group => (t === "condo" ? "condo" : "house")
/** Property types as ordered codes (the learner reads them too). */
export const TYPE_CODE: Record<PropertyType, number> = {
  single_family: 0,
  townhouse: 1,
  two_family: 2,
  three_family: 3,
  condo: 4,
  manufactured: 5
}
/** 0 same, 1 close (single<->townhouse, two<->three, manufactured<->one-family), 2 other */
function typeRelation(a: number, b: number): 0 | 1 | 2 {
  if (a === b) return 0
  const lo = Math.min(a, b), hi = Math.max(a, b)
  if ((lo === 0 && hi === 1) || (lo === 2 && hi === 3) || (lo <= 1 && hi === 5)) return 1
  return 2
}

const N_YEAR_BINS = 8
function yearBin(y: number | undefined): number {
  if (y === undefined) return 7
  if (y < 1920) return 0
  if (y < 1940) return 1
  if (y < 1960) return 2
  if (y < 1980) return 3
  if (y < 2000) return 4
  if (y < 2010) return 5
  return 6
}

/** Parses a condo unit designation into floor and line ("5B" -> 5,"B"; "1203" -> 12,"03"; "PH2A" -> top,"A"). */
export function parseUnit(unit: string | undefined): { floor: number; line: string } | undefined {
  if (!unit) return undefined
  const u = unit.toUpperCase().replace(/^(APT|UNIT|#)\s*/, "").replace(/\s+/g, "")
  let m = /^(\d{1,2})-?([A-Z]{1,2})$/.exec(u)
  if (m) return { floor: +m[1], line: m[2] }
  m = /^([A-Z])-?(\d{1,2})$/.exec(u)
  if (m) return { floor: +m[2], line: m[1] }
  m = /^(\d{1,2})(\d{2})$/.exec(u)
  if (m) return { floor: +m[1], line: m[2] }
  m = /^PH-?(\d{0,2})([A-Z]{0,2})$/.exec(u)
  if (m) return { floor: 99, line: m[2] || m[1] || "PH" }
  return undefined
}

function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  const p = q * (sorted.length - 1)
  const lo = Math.floor(p), hi = Math.ceil(p)
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (p - lo)
}

/** Weighted quantiles of (values, weights) at several levels; linear interpolation between cumulative-weight midpoints. */
export function weightedQuantiles(
  values: ArrayLike<number>,
  weights: ArrayLike<number>,
  qs: Array<number>
): Array<number> {
  const n = values.length
  const idx = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a] - values[b])
  let total = 0
  for (let i = 0; i < n; i++) total += weights[i]
  const pos = new Float64Array(n)
  let cum = 0
  for (let k = 0; k < n; k++) {
    const w = weights[idx[k]]
    pos[k] = (cum + w / 2) / total
    cum += w
  }
  return qs.map((q) => {
    if (q <= pos[0]) return values[idx[0]]
    if (q >= pos[n - 1]) return values[idx[n - 1]]
    let lo = 0, hi = n - 1 // pos[lo] < q <= pos[hi]
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1
      if (pos[mid] < q) lo = mid
      else hi = mid
    }
    const a = values[idx[lo]], b = values[idx[hi]]
    return a + ((b - a) * (q - pos[lo])) / (pos[hi] - pos[lo])
  })
}

/** Solves the symmetric positive definite system A x = b (Cholesky). */
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

// ---------------------------------------------------------------- hedonic regression

/**
 * Per (market, group) log-linear regression, ridge-penalised, fitted on the clean training sales:
 *   log price = a + nbhd + month + type + class + b_area·log(area) + b_lot·log(lot) + [lot missing] + year-built bin
 * The "sqft" variant is fitted on sales with living area; the "price" variant has no area term.
 * Neighbourhood, month and building-class effects are ridge-shrunk to 0 (class effects are deviations
 * from the property-type effect). Month effects are smoothed 1-2-1 and form the market index.
 */
type Hedonic = {
  intercept: number
  bArea: number // elasticity of price w.r.t. living area
  bLot: number // elasticity w.r.t. lot size
  lotMissing: number
  meanLogArea: number
  meanLogLot: number
  typeEffect: Float64Array // by TYPE_CODE (single_family = 0)
  classEffect: Map<string, number>
  yearEffect: Float64Array // by year bin (bin 0 = 0)
  nbhdEffect: Map<string, number>
  monthEffect: Map<number, number> // smoothed, by calendar month index
  firstMonth: number
  lastMonth: number
  residualScale: number // IQR/1.349 of in-sample residuals
  n: number
}

function fitHedonic(sales: Array<Sale>, opt: ModelOptions, useArea: boolean): Hedonic | undefined {
  const rows = useArea ? sales.filter((s) => s.livingArea) : sales
  if (rows.length < 30) return undefined
  const nbhdIndex = new Map<string, number>(), classIndex = new Map<string, number>()
  let firstMonth = Infinity, lastMonth = -Infinity, meanLogArea = 0, meanLogLot = 0, nLot = 0
  for (const s of rows) {
    if (!nbhdIndex.has(s.neighborhood)) nbhdIndex.set(s.neighborhood, nbhdIndex.size)
    if (!classIndex.has(s.buildingClass)) classIndex.set(s.buildingClass, classIndex.size)
    const m = monthIndex(s.date)
    firstMonth = Math.min(firstMonth, m)
    lastMonth = Math.max(lastMonth, m)
    if (useArea) meanLogArea += Math.log(s.livingArea!)
    if (s.lotSize) {
      meanLogLot += Math.log(s.lotSize)
      nLot++
    }
  }
  meanLogArea /= rows.length
  meanLogLot = nLot ? meanLogLot / nLot : 0
  const nN = nbhdIndex.size, nC = classIndex.size, nM = lastMonth - firstMonth + 1
  // parameter layout
  const P_INT = 0, P_AREA = 1, P_LOT = 2, P_LOTMISS = 3
  const P_TYPE = 4 // type codes 1..5 -> 4..8
  const P_YEAR = 9 // year bins 1..7 -> 9..15
  const P_CLASS = 16, P_NB = P_CLASS + nC, P_MONTH = P_NB + nN
  const n = P_MONTH + nM
  const XtX = new Float64Array(n * n), Xty = new Float64Array(n)
  const idx: Array<number> = [], val: Array<number> = []
  const design = (s: Sale) => {
    idx.length = 0
    val.length = 0
    idx.push(P_INT)
    val.push(1)
    if (useArea) {
      idx.push(P_AREA)
      val.push(Math.log(s.livingArea!) - meanLogArea)
    }
    if (s.lotSize) {
      idx.push(P_LOT)
      val.push(Math.log(s.lotSize) - meanLogLot)
    } else {
      idx.push(P_LOTMISS)
      val.push(1)
    }
    const tc = TYPE_CODE[s.propertyType]
    if (tc > 0) {
      idx.push(P_TYPE + tc - 1)
      val.push(1)
    }
    const yb = yearBin(s.yearBuilt)
    if (yb > 0) {
      idx.push(P_YEAR + yb - 1)
      val.push(1)
    }
    idx.push(P_CLASS + classIndex.get(s.buildingClass)!)
    val.push(1)
    idx.push(P_NB + nbhdIndex.get(s.neighborhood)!)
    val.push(1)
    idx.push(P_MONTH + monthIndex(s.date) - firstMonth)
    val.push(1)
  }
  for (const s of rows) {
    design(s)
    const y = Math.log(s.price)
    for (let a = 0; a < idx.length; a++) {
      Xty[idx[a]] += val[a] * y
      for (let b = 0; b < idx.length; b++) XtX[idx[a] * n + idx[b]] += val[a] * val[b]
    }
  }
  for (let j = 0; j < n; j++) XtX[j * n + j] += 1e-6
  for (let j = P_AREA; j < P_CLASS; j++) if (XtX[j * n + j] < 1e-3) XtX[j * n + j] += 1 // empty slots
  for (let j = 0; j < nC; j++) XtX[(P_CLASS + j) * n + P_CLASS + j] += opt.ridgeClass
  for (let j = 0; j < nN; j++) XtX[(P_NB + j) * n + P_NB + j] += opt.ridgeNeighborhood
  for (let j = 0; j < nM; j++) XtX[(P_MONTH + j) * n + P_MONTH + j] += opt.ridgeMonth
  const beta = solveSpd(XtX, Xty, n)

  const res: Array<number> = []
  for (const s of rows) {
    design(s)
    let p = 0
    for (let a = 0; a < idx.length; a++) p += beta[idx[a]] * val[a]
    res.push(Math.log(s.price) - p)
  }
  res.sort((a, b) => a - b)
  const monthEffect = new Map<number, number>()
  for (let j = 0; j < nM; j++) {
    let s = 2 * beta[P_MONTH + j], w = 2
    if (j > 0) {
      s += beta[P_MONTH + j - 1]
      w++
    }
    if (j < nM - 1) {
      s += beta[P_MONTH + j + 1]
      w++
    }
    monthEffect.set(firstMonth + j, s / w)
  }
  const typeEffect = new Float64Array(6)
  for (let t = 1; t < 6; t++) typeEffect[t] = beta[P_TYPE + t - 1]
  const yearEffect = new Float64Array(N_YEAR_BINS)
  for (let b = 1; b < N_YEAR_BINS; b++) yearEffect[b] = beta[P_YEAR + b - 1]
  return {
    intercept: beta[P_INT],
    bArea: useArea ? beta[P_AREA] : 0,
    bLot: beta[P_LOT],
    lotMissing: beta[P_LOTMISS],
    meanLogArea,
    meanLogLot,
    typeEffect,
    yearEffect,
    classEffect: new Map([...classIndex].map(([c, j]) => [c, beta[P_CLASS + j]])),
    nbhdEffect: new Map([...nbhdIndex].map(([c, j]) => [c, beta[P_NB + j]])),
    monthEffect,
    firstMonth,
    lastMonth,
    residualScale: (quantileSorted(res, 0.75) - quantileSorted(res, 0.25)) / 1.349,
    n: rows.length
  }
}

/** characteristics part of the regression (everything except intercept, neighbourhood and month) */
function characteristics(
  h: Hedonic,
  s: {
    propertyType: PropertyType
    buildingClass?: string | undefined
    lotSize?: number | undefined
    yearBuilt?: number | undefined
    livingArea?: number | undefined
  }
): number {
  let v = h.typeEffect[TYPE_CODE[s.propertyType]]
  v += s.lotSize ? h.bLot * (Math.log(s.lotSize) - h.meanLogLot) : h.lotMissing
  v += h.yearEffect[yearBin(s.yearBuilt)]
  if (s.buildingClass) v += h.classEffect.get(s.buildingClass) ?? 0
  if (s.livingArea && h.bArea) v += h.bArea * (Math.log(s.livingArea) - h.meanLogArea)
  return v
}

/** market index at a calendar month; flat outside the fitted range */
function timeEffect(h: Hedonic, month: number): number {
  return h.monthEffect.get(Math.min(Math.max(month, h.firstMonth), h.lastMonth)) ?? 0
}

// ---------------------------------------------------------------- index

/** Columnar arrays of the comparable sales of one (market, group), sorted by tax block then lot. */
type Bucket = {
  sales: Array<Sale>
  block: Float64Array
  lot: Float64Array
  day: Int32Array
  month: Float64Array
  logPrice: Float64Array
  logArea: Float64Array // NaN = unknown
  logLot: Float64Array // NaN = unknown
  year: Float64Array // NaN = unknown
  type: Int8Array
  nbhd: Int32Array
  zip: Int32Array
  unitLine: Int32Array // id of market|block|line, -1 = unknown
  /** precomputed regression terms per basis: characteristics and market index at the sale month */
  xbSqft: Float64Array
  xbPrice: Float64Array
  timeSqft: Float64Array
  timePrice: Float64Array
  /** position in miles (NaN = no coordinates) and a grid of cells of GRID_MILES, when the market has coordinates */
  x: Float64Array
  y: Float64Array
  grid: Map<string, Array<number>> | undefined
}

const GRID_MILES = 0.5
const MILES_PER_DEGREE_LATITUDE = 69.0
const cellKey = (cx: number, cy: number) => `${cx}:${cy}`
/** Planar position in miles; fine at the scale of one market. */
const toMiles = (latitude: number, longitude: number) => ({
  x: longitude * MILES_PER_DEGREE_LATITUDE * Math.cos((latitude * Math.PI) / 180),
  y: latitude * MILES_PER_DEGREE_LATITUDE
})

type Fence = { lo: number; hi: number }
type Calibration = { z: Array<number>; sample: Array<number>; n: number }

export class Model {
  readonly options: ModelOptions
  /** last sale date of the training data */
  trainEnd = ""
  private buckets = new Map<string, Bucket>() // market|group
  private hedonic = { sqft: new Map<string, Hedonic>(), price: new Map<string, Hedonic>() }
  private nbhdIds = new Map<string, number>()
  private zipIds = new Map<string, number>()
  private lineIds = new Map<string, number>()
  private nbhdEffectsById = new Map<Hedonic, Float64Array>()
  private fences = { sqft: new Map<string, Fence>(), price: new Map<string, Fence>() }
  private priorScale: Record<Basis, number> = { sqft: 0.2, price: 0.3 }
  /** standardized-residual quantiles at QUANTILE_LEVELS + a 101-point residual sample, per "market|basis" and "*|basis" */
  readonly calibration = new Map<string, Calibration>()
  private optCache = new Map<string, ModelOptions>()
  /** day numbers (ascending) of each parcel's arm's-length training sales (fenced-out ones included): the subject's own sale history */
  private ownSales = new Map<string, Array<number>>()
  /** recent-resale premium (log) per "market|group|basis" */
  readonly resalePremium = new Map<string, number>()

  constructor(options: ModelOptions) {
    this.options = options
  }

  /** options for one market: global options merged with the market's overrides */
  opt(market: string): ModelOptions {
    let o = this.optCache.get(market)
    if (!o) this.optCache.set(market, o = { ...this.options, ...(this.options.markets[market] ?? {}) })
    return o
  }

  private static id(map: Map<string, number>, k: string): number {
    let v = map.get(k)
    if (v === undefined) map.set(k, v = map.size)
    return v
  }

  // ------------------------------------------------ arm's-length outlier screen

  /** Tukey fences (k IQR) of log $/sqft and log price per market+neighbourhood+group (and per market+group as fallback). */
  fitFences(sales: Array<Sale>): void {
    const k = this.options.outlierFenceIqr
    const groups = { sqft: new Map<string, Array<number>>(), price: new Map<string, Array<number>>() }
    const push = (m: Map<string, Array<number>>, key: string, v: number) => {
      let a = m.get(key)
      if (!a) m.set(key, a = [])
      a.push(v)
    }
    for (const s of sales) {
      if (!s.armsLength) continue
      const g = groupOf(s.propertyType)
      for (const key of [`${s.market}|${s.neighborhood}|${g}`, `${s.market}|*|${g}`]) {
        push(groups.price, key, Math.log(s.price))
        if (s.livingArea) push(groups.sqft, key, Math.log(s.price / s.livingArea))
      }
    }
    for (const b of ["sqft", "price"] as const) {
      for (const [key, arr] of groups[b]) {
        if (arr.length < 8) continue
        arr.sort((x, y) => x - y)
        const q1 = quantileSorted(arr, 0.25), q3 = quantileSorted(arr, 0.75)
        this.fences[b].set(key, { lo: q1 - k * (q3 - q1), hi: q3 + k * (q3 - q1) })
      }
    }
  }

  /** True when a sale lies outside its neighbourhood's training fences (uses only the sale and the training data). */
  isOutlier(s: Sale): boolean {
    const g = groupOf(s.propertyType)
    const k1 = `${s.market}|${s.neighborhood}|${g}`, k2 = `${s.market}|*|${g}`
    if (s.livingArea) {
      const f = this.fences.sqft.get(k1) ?? this.fences.sqft.get(k2)
      if (f) {
        const v = Math.log(s.price / s.livingArea)
        return v < f.lo || v > f.hi
      }
    }
    const f = this.fences.price.get(k1) ?? this.fences.price.get(k2)
    if (f) {
      const v = Math.log(s.price)
      return v < f.lo || v > f.hi
    }
    return false
  }

  // ------------------------------------------------ fitting

  fitRegressions(sales: Array<Sale>): void {
    for (const [key, arr] of groupBy(sales, (s) => `${s.market}|${groupOf(s.propertyType)}`)) {
      const o = this.opt(arr[0].market)
      for (const b of ["sqft", "price"] as const) {
        const h = fitHedonic(arr, o, b === "sqft")
        if (h) this.hedonic[b].set(key, h)
      }
    }
    for (const b of ["sqft", "price"] as const) {
      const r = [...this.hedonic[b].values()].map((h) => h.residualScale).sort((x, y) => x - y)
      if (r.length) this.priorScale[b] = quantileSorted(r, 0.5) * 0.8
    }
  }

  buildIndex(sales: Array<Sale>): void {
    for (const s of sales) Model.id(this.nbhdIds, `${s.market}|${s.neighborhood}`)
    for (const [key, arr] of groupBy(sales, (s) => `${s.market}|${groupOf(s.propertyType)}`)) {
      arr.sort((a, b) => a.block - b.block || a.lot - b.lot || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
      const n = arr.length
      const hs = this.hedonic.sqft.get(key), hp = this.hedonic.price.get(key)
      const B: Bucket = {
        sales: arr,
        block: new Float64Array(n),
        lot: new Float64Array(n),
        day: new Int32Array(n),
        month: new Float64Array(n),
        logPrice: new Float64Array(n),
        logArea: new Float64Array(n),
        logLot: new Float64Array(n),
        year: new Float64Array(n),
        type: new Int8Array(n),
        nbhd: new Int32Array(n),
        zip: new Int32Array(n),
        unitLine: new Int32Array(n),
        xbSqft: new Float64Array(n),
        xbPrice: new Float64Array(n),
        timeSqft: new Float64Array(n),
        timePrice: new Float64Array(n),
        x: new Float64Array(n).fill(NaN),
        y: new Float64Array(n).fill(NaN),
        grid: undefined
      }
      arr.forEach((s, i) => {
        B.block[i] = s.block
        B.lot[i] = s.lot
        B.day[i] = dayNumber(s.date)
        B.month[i] = monthNumber(s.date)
        B.logPrice[i] = Math.log(s.price)
        B.logArea[i] = s.livingArea ? Math.log(s.livingArea) : NaN
        B.logLot[i] = s.lotSize ? Math.log(s.lotSize) : NaN
        B.year[i] = s.yearBuilt ?? NaN
        B.type[i] = TYPE_CODE[s.propertyType]
        B.nbhd[i] = Model.id(this.nbhdIds, `${s.market}|${s.neighborhood}`)
        B.zip[i] = Model.id(this.zipIds, s.zip)
        const u = s.propertyType === "condo" ? parseUnit(s.unit) : undefined
        B.unitLine[i] = u ? Model.id(this.lineIds, `${s.market}|${s.block}|${u.line}`) : -1
        const m = monthIndex(s.date)
        B.xbSqft[i] = hs && s.livingArea ? characteristics(hs, s) : NaN
        B.xbPrice[i] = hp ? characteristics(hp, { ...s, livingArea: undefined }) : NaN
        B.timeSqft[i] = hs ? timeEffect(hs, m) : 0
        B.timePrice[i] = hp ? timeEffect(hp, m) : 0
        if (s.latitude !== undefined && s.longitude !== undefined) {
          const p = toMiles(s.latitude, s.longitude)
          B.x[i] = p.x
          B.y[i] = p.y
        }
      })
      // A market whose sales mostly carry coordinates is searched by distance instead of tax block.
      let located = 0
      for (let i = 0; i < n; i++) if (!Number.isNaN(B.x[i])) located++
      if (located > n / 2) {
        B.grid = new Map()
        for (let i = 0; i < n; i++) {
          if (Number.isNaN(B.x[i])) continue
          const k = cellKey(Math.floor(B.x[i] / GRID_MILES), Math.floor(B.y[i] / GRID_MILES))
          let cell = B.grid.get(k)
          if (!cell) B.grid.set(k, cell = [])
          cell.push(i)
        }
      }
      this.buckets.set(key, B)
    }
    for (const b of ["sqft", "price"] as const) {
      for (const [key, h] of this.hedonic[b]) {
        const market = key.split("|")[0]
        const e = new Float64Array(this.nbhdIds.size).fill(NaN)
        for (const [nb, v] of h.nbhdEffect) {
          const id = this.nbhdIds.get(`${market}|${nb}`)
          if (id !== undefined) e[id] = v
        }
        this.nbhdEffectsById.set(h, e)
      }
    }
  }

  /** Records each parcel's own sale dates (the subject's sale history for the recent-resale signal). */
  indexOwnSales(sales: Array<Sale>): void {
    this.ownSales.clear()
    for (const s of sales) {
      let d = this.ownSales.get(s.parcelKey)
      if (!d) this.ownSales.set(s.parcelKey, d = [])
      d.push(dayNumber(s.date))
    }
    for (const d of this.ownSales.values()) d.sort((a, b) => a - b)
  }

  // ------------------------------------------------ valuation

  /**
   * Core: candidate search, kernel weights, adjusted comp values, centre and log-scale.
   * Only comps dated strictly before `asOf` are used, never a sale of the subject's own parcel.
   */
  private core(subject: Subject, asOf: string) {
    const o = this.opt(subject.market)
    const g = groupOf(subject.propertyType)
    const key = `${subject.market}|${g}`
    const B = this.buckets.get(key)
    if (!B) return { reason: `no comparable sales indexed for ${key}` }
    const basis: Basis = subject.livingArea && this.hedonic.sqft.has(key) ? "sqft" : "price"
    const useArea = basis === "sqft"
    const h = this.hedonic[basis].get(key)
    if (!h) return { reason: `no market model for ${key}` }
    const condoPrice = g === "condo" && !useArea

    const subjXb = characteristics(h, useArea ? subject : { ...subject, livingArea: undefined })
    const subjTime = timeEffect(h, monthIndex(asOf))
    const asOfMonth = monthNumber(asOf)
    const asOfDay = dayNumber(asOf)
    const subjNbhd = this.nbhdIds.get(`${subject.market}|${subject.neighborhood}`) ?? -1
    const subjNbhdEffect = h.nbhdEffect.get(subject.neighborhood) ?? 0
    const nbEff = this.nbhdEffectsById.get(h)!
    const subjZip = this.zipIds.get(subject.zip) ?? -1
    const subjLogArea = subject.livingArea ? Math.log(subject.livingArea) : NaN
    const subjLogLot = subject.lotSize ? Math.log(subject.lotSize) : NaN
    const subjType = TYPE_CODE[subject.propertyType]
    const subjLot = subject.lot ?? Number(subject.parcelKey.split("-").pop())
    const unit = condoPrice ? parseUnit(subject.unit) : undefined
    const subjLine = unit ? this.lineIds.get(`${subject.market}|${subject.block}|${unit.line}`) ?? -2 : -2
    const blockBw = condoPrice ? o.condoBlockBandwidth : o.blockBandwidth
    const xb = useArea ? B.xbSqft : B.xbPrice
    const tm = useArea ? B.timeSqft : B.timePrice
    const [tSame, tClose, tFar] = o.typeSimilarity

    const V: Array<number> = [], W: Array<number> = [], I: Array<number> = []
    let wMax = 0
    /** Weighs candidate i at location weight `wLocation`; `sameSpot` = same tax block (or building). */
    const consider = (i: number, wLocation: number, sameSpot: boolean) => {
      if (B.day[i] >= asOfDay || (useArea && Number.isNaN(B.logArea[i]))) return
      if (B.sales[i].parcelKey === subject.parcelKey) return

      // kernel weight
      let w = wLocation
      if (condoPrice && sameSpot) {
        w *= Math.exp(-Math.abs(B.lot[i] - subjLot) / o.condoLotBandwidth)
        if (B.unitLine[i] === subjLine) w *= 1 + o.condoSameLineBonus
      }
      const sameNbhd = B.nbhd[i] === subjNbhd
      if (!sameNbhd) w *= o.otherNeighborhoodFactor
      if (B.zip[i] !== subjZip) w *= o.otherZipFactor
      const rel = typeRelation(subjType, B.type[i])
      w *= rel === 0 ? tSame : rel === 1 ? tClose : tFar
      if (rel === 0 && subject.buildingClass && B.sales[i].buildingClass !== subject.buildingClass) {
        w *= o.classMismatchFactor
      }
      if (useArea) {
        const r = (B.logArea[i] - subjLogArea) / o.areaBandwidth
        w *= Math.exp(-0.5 * r * r)
      }
      if (g === "house" && !Number.isNaN(subjLogLot) && !Number.isNaN(B.logLot[i])) {
        const r = (B.logLot[i] - subjLogLot) / o.lotBandwidth
        w *= Math.exp(-0.5 * r * r)
      }
      if (subject.yearBuilt !== undefined && !Number.isNaN(B.year[i])) {
        w *= Math.exp(-Math.abs(B.year[i] - subject.yearBuilt) / o.yearBandwidth)
      }
      w *= Math.exp(-Math.abs(asOfMonth - B.month[i]) / o.recencyBandwidth)
      if (!(w > 0)) return

      // adjusted log value: characteristics, market index, (part of) the neighbourhood effect
      let v = B.logPrice[i] + (subjXb - xb[i]) + (subjTime - tm[i])
      if (!sameNbhd && o.neighborhoodAdjustment && !Number.isNaN(nbEff[B.nbhd[i]])) {
        v += o.neighborhoodAdjustment * (subjNbhdEffect - nbEff[B.nbhd[i]])
      }
      V.push(v)
      W.push(w)
      I.push(i)
      if (w > wMax) wMax = w
    }

    const grid = B.grid
    if (grid && subject.latitude !== undefined && subject.longitude !== undefined) {
      // candidates: rings of grid cells around the subject, nearest first, up to maxMiles
      const p = toMiles(subject.latitude, subject.longitude)
      const cx = Math.floor(p.x / GRID_MILES), cy = Math.floor(p.y / GRID_MILES)
      const maxRing = Math.ceil(o.maxMiles / GRID_MILES)
      for (let ring = 0; ring <= maxRing && V.length < o.maxCandidates; ring++) {
        for (let dx = -ring; dx <= ring; dx++) {
          for (let dy = -ring; dy <= ring; dy++) {
            if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue
            const cell = grid.get(cellKey(cx + dx, cy + dy))
            if (!cell) continue
            for (const i of cell) {
              const miles = Math.hypot(B.x[i] - p.x, B.y[i] - p.y)
              if (miles <= o.maxMiles) consider(i, Math.exp(-miles / o.mileBandwidth), miles < 0.01)
            }
          }
        }
      }
    } else {
      // candidates: expand outward from the subject's block (binary search), nearest blocks first
      const n = B.block.length
      let lo = 0, hi = n
      while (lo < hi) {
        const mid = (lo + hi) >> 1
        if (B.block[mid] < subject.block) lo = mid + 1
        else hi = mid
      }
      let L = lo - 1, R = lo, scanned = 0
      while (V.length < o.maxCandidates && scanned++ < 4 * o.maxCandidates) {
        const dL = L >= 0 ? subject.block - B.block[L] : Infinity
        const dR = R < n ? B.block[R] - subject.block : Infinity
        const db = Math.min(dL, dR)
        if (db > o.maxBlockDistance) break
        const i = dL <= dR ? L-- : R++
        consider(i, Math.exp(-db / blockBw), db === 0)
      }
    }
    if (V.length === 0) return { reason: "no comparable sales nearby" }
    // drop negligible weights (in place)
    let m = 0
    for (let k = 0; k < V.length; k++) {
      if (W[k] >= wMax * o.relativeWeightFloor) {
        V[m] = V[k]
        W[m] = W[k]
        I[m] = I[k]
        m++
      }
    }
    V.length = W.length = I.length = m
    let sw = 0, sw2 = 0
    for (const w of W) {
      sw += w
      sw2 += w * w
    }
    const ess = (sw * sw) / sw2

    // centre: weighted median of adjusted comps, blended with the hedonic prediction by ESS
    const [q25, q50, q75] = weightedQuantiles(V, W, [0.25, 0.5, 0.75])
    const hedonicPrediction = h.intercept + subjNbhdEffect + subjXb + subjTime
    const k0 = condoPrice ? o.condoPriceHedonicPseudoCount : o.hedonicPseudoCount
    const resale = this.recentResale(subject.parcelKey, asOfDay, o)
    const premium = resale ? this.resalePremium.get(`${key}|${basis}`) ?? 0 : 0
    const center = (ess * q50 + k0 * hedonicPrediction) / (ess + k0) + premium
    // scale: weighted IQR of adjusted comps, shrunk to the market prior, inflated for the centre's own uncertainty
    const sLocal = (q75 - q25) / 1.349
    const prior = this.priorScale[basis]
    const s2 = (ess * sLocal * sLocal + o.scalePseudoCount * prior * prior) / (ess + o.scalePseudoCount)
    const scale = Math.sqrt(s2 * (1 + 1 / (ess + k0)))
    return { center, scale, ess, basis, resale, premium, V, W, I, B, subjTime, tm }
  }

  /** True when the subject's own parcel has an arm's-length training sale between `resaleMinMonths` and
   * `resaleMonths` before `asOfDay` (the latest such sale strictly before `asOfDay` counts). */
  private recentResale(parcelKey: string, asOfDay: number, o: ModelOptions): boolean {
    if (!(o.resaleMonths > 0)) return false
    const days = this.ownSales.get(parcelKey)
    if (!days) return false
    let last = -Infinity
    for (const d of days) {
      if (d < asOfDay) last = d
      else break
    }
    const gap = asOfDay - last
    return gap <= o.resaleMonths * (365.25 / 12) && gap >= o.resaleMinMonths * (365.25 / 12)
  }

  /**
   * The market index (log) of the subject's market and property group at a date: the month effects of the
   * market's regression, flat outside the months it was fitted on (it never extrapolates).
   */
  marketIndex(subject: { market: string; propertyType: PropertyType }, date: string): number {
    const key = `${subject.market}|${groupOf(subject.propertyType)}`
    const h = this.hedonic.sqft.get(key) ?? this.hedonic.price.get(key)
    return h ? timeEffect(h, monthIndex(date)) : 0
  }

  /** Log-scale centre and scale only (used by calibration). */
  predictLog(
    subject: Subject,
    asOf: string
  ): { center: number; scale: number; ess: number; basis: Basis; resale: boolean; premium: number } | NoValue {
    const r = this.core(subject, asOf)
    if (r.reason !== undefined) return { reason: r.reason }
    return { center: r.center!, scale: r.scale!, ess: r.ess!, basis: r.basis!, resale: r.resale!, premium: r.premium! }
  }

  /** Values the subject as of `asOf` (yyyy-mm-dd) using only comparable sales dated before `asOf`. */
  value(subject: Subject, asOf: string): Valuation | NoValue {
    const r = this.core(subject, asOf)
    if (r.reason !== undefined) return { reason: r.reason }
    const { center, scale, ess, basis, V, W, I, B, subjTime, tm } = r as Required<typeof r>
    const cal = this.calibration.get(`${subject.market}|${basis}`) ?? this.calibration.get(`*|${basis}`)
    const z = cal?.z ?? NORMAL_Z
    const quantiles = {} as Record<QuantileLevel, number>
    let prev = 0
    QUANTILE_LEVELS.forEach((lv, j) => (prev = quantiles[lv] = Math.max(prev, Math.exp(center + scale * z[j]))))
    // mean of the predictive distribution exp(center + scale·u), u ~ calibration residuals
    let mean = Math.exp(center + (scale * scale) / 2)
    if (cal) {
      let s = 0
      for (const u of cal.sample) s += Math.exp(scale * u)
      mean = Math.exp(center) * (s / cal.sample.length)
    }
    const comps: Array<Comp> = I.map((i, k) => {
      const sale = B.sales[i]
      return {
        sale,
        weight: W[k],
        adjustedValue: Math.exp(V[k]),
        timeAdjustedPrice: sale.price * Math.exp(subjTime - tm[i]),
        pricePerSqft: sale.livingArea ? sale.price / sale.livingArea : undefined
      }
    })
    comps.sort((a, b) => b.weight - a.weight)
    return { quantiles, mean, effectiveSampleSize: ess, comps, basis, center, scale }
  }

  /**
   * Leave-one-out calibration on the last `calibrationMonths` of the training sales: each is valued as of
   * its own date with comps strictly before that date (never its own parcel). The standardized residuals
   * u = (log price − centre) / scale give, per market and basis (fallback: all markets), the z-quantiles
   * that turn centre and scale into the reported quantiles. Condos with a living area are also valued
   * without it, to calibrate the "price" basis (the 2019 DOF file has no condo unit areas).
   */
  calibrate(sales: Array<Sale>): { n: number } {
    const startMonth = monthIndex(this.trainEnd) - this.options.calibrationMonths + 1
    // 1. leave-one-out valuations (no resale premium yet): the calibration window, plus every earlier
    //    training sale that is a recent resale (they estimate the premium only)
    this.resalePremium.clear()
    const rows: Array<
      { s: Sale; key: string; basis: Basis; resale: boolean; r: number; scale: number; inWindow: boolean }
    > = []
    for (const s of sales) {
      const inWindow = monthIndex(s.date) >= startMonth
      const o = this.opt(s.market)
      if (!inWindow && !this.recentResale(s.parcelKey, dayNumber(s.date), o)) continue
      const variants: Array<Subject> = [s]
      if (s.livingArea && s.propertyType === "condo") variants.push({ ...s, livingArea: undefined })
      for (const v of variants) {
        const p = this.predictLog(v, s.date)
        if ("reason" in p) continue
        rows.push({
          s,
          key: `${s.market}|${groupOf(s.propertyType)}`,
          basis: p.basis,
          resale: p.resale,
          r: Math.log(s.price) - p.center,
          scale: p.scale,
          inWindow
        })
      }
    }
    // 2. recent-resale premium per market|group|basis: median LOO residual of recent resales, shrunk to the
    //    all-market median of the group and basis (itself 0 below 30 resales)
    const res = new Map<string, Array<number>>()
    for (const row of rows) {
      if (!row.resale) continue
      for (const k of [`${row.key}|${row.basis}`, `*|${groupOf(row.s.propertyType)}|${row.basis}`]) {
        let a = res.get(k)
        if (!a) res.set(k, a = [])
        a.push(row.r)
      }
    }
    const med = (a: Array<number>) => quantileSorted([...a].sort((x, y) => x - y), 0.5)
    for (const [k, a] of res) {
      if (k.startsWith("*|")) continue
      const [market, group, basis] = k.split("|")
      const pool = res.get(`*|${group}|${basis}`)!
      const pooled = pool.length >= 30 ? med(pool) : 0
      const c = this.opt(market).resalePremiumPseudoCount
      this.resalePremium.set(k, (a.length * med(a) + c * pooled) / (a.length + c))
    }
    // 3. standardized residuals of the calibration window, premium applied
    const us = new Map<string, Array<number>>()
    let n = 0
    for (const row of rows) {
      if (!row.inWindow) continue
      const premium = row.resale ? this.resalePremium.get(`${row.key}|${row.basis}`) ?? 0 : 0
      const u = (row.r - premium) / row.scale
      for (const k of [`${row.s.market}|${row.basis}`, `*|${row.basis}`]) {
        let a = us.get(k)
        if (!a) us.set(k, a = [])
        a.push(u)
      }
      n++
    }
    const levels = QUANTILE_LEVELS.map(Number)
    for (const [k, u] of us) {
      if (u.length < 100) continue
      u.sort((a, b) => a - b)
      this.calibration.set(k, {
        z: levels.map((q) => quantileSorted(u, q)),
        sample: Array.from({ length: 101 }, (_, j) => quantileSorted(u, (j + 0.5) / 101)),
        n: u.length
      })
    }
    return { n }
  }
}

const NORMAL_Z = [-1.6449, -1.2816, -0.6745, 0, 0.6745, 1.2816, 1.6449]

function groupBy<T>(items: Array<T>, key: (t: T) => string): Map<string, Array<T>> {
  const m = new Map<string, Array<T>>()
  for (const it of items) {
    const k = key(it)
    let a = m.get(k)
    if (!a) m.set(k, a = [])
    a.push(it)
  }
  return m
}

/**
 * Fits the model on training sales (the caller passes only sales dated before the split).
 * Comparable sales = arm's-length sales (see nyc.ts) inside their neighbourhood's outlier fences.
 */
export function fitModel(sales: Array<Sale>, options: Partial<ModelOptions> & { calibrate?: boolean } = {}): Model {
  const { calibrate = true, ...rest } = options
  const model = new Model({ ...DEFAULT_OPTIONS, ...rest })
  model.fitFences(sales)
  const clean = sales.filter((s) => s.armsLength && s.price > 0 && !model.isOutlier(s))
  model.trainEnd = clean.reduce((m, s) => (s.date > m ? s.date : m), "")
  model.fitRegressions(clean)
  model.buildIndex(clean)
  // the subject's own sale history: every arm's-length sale of the parcel, fenced-out ones included (a
  // distressed purchase far below the neighbourhood is the typical first leg of a renovation resale)
  model.indexOwnSales(sales.filter((s) => s.armsLength && s.price > 0))
  if (calibrate) model.calibrate(clean)
  return model
}
