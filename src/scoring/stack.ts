/**
 * The valuation: the comparable-sales model and the learner (gradient-boosted trees on the record facts),
 * stacked. Their errors are partly independent, so a weighted mean of the two log values beats each.
 *
 * Fitted out of time, per market, when the engine is built:
 * 1. the calibration window is the last `windowMonths` of the training sales, valued as the parts will serve,
 *    out of time: each of its months by a learner fitted on the sales before that month, and every window sale
 *    by a comps model fitted on the sales before the window (as of the sale's date; never its own parcel),
 *    both with the market index of the sales they were fitted on, held flat past them; the first window month
 *    also chooses the market's learner loss and capacity (`learnerLosses`, `learnerCapacities`);
 * 2. the weight of the comps is the one (in steps of 0.05) that minimizes the median absolute log error over
 *    the window, shrunk toward an even blend when the window is small; the blend's log value is then drawn
 *    toward the window's median value by the slope (1 to 0.8) its residuals show (`centreSlope`);
 * 3. the quantiles are recalibrated on the same window: the blend's residuals, in units of the comps'
 *    local scale (tempered, by the exponent of `scaleExponents` whose quantiles score best there, toward the
 *    median scale the served comps model gives the window's sales), give the z-values that turn centre and scale into the reported quantiles;
 * 4. the learner that serves is fitted again on every training sale of the market (only where a blend was
 *    calibrated: its own window of at least `minWindowSales`, or the pooled window of every market).
 * Without a learner (too few sales) or a window (too few recent sales) the comps model serves alone, its range
 * calibrated out of time on the market's own latest sales where they are enough (`compsAloneBlend`), else with
 * its own calibration.
 */
import type { UnusualSize } from "../valuation/comps.js"
import { monthIndex, monthNumber } from "./comps/calendar.js"
import { quantileSorted } from "./comps/quantiles.js"
import { groupOf, marketGroupKey, type PropertyGroup } from "./comps/types.js"
import {
  encoderOf,
  type FeatureEncoder,
  type FeatureEncoderData,
  fitFeatureEncoder,
  type LearnerFacts
} from "./learner/features.js"
import {
  fitGbt,
  type GbtLoss,
  type GbtModel,
  type GbtOptions,
  type GbtTrees,
  gbtTreesOf,
  makeModel
} from "./learner/gbt.js"
import {
  fitModel,
  type Model,
  type NoValue,
  QUANTILE_LEVELS,
  type QuantileLevel,
  type Sale,
  type Subject,
  type Valuation
} from "./model.js"
import { type SizeRange, sizeRangesOf, spreadFactor, unusualSizeFacts } from "./unusual-size.js"

export interface StackOptions {
  /** Months at the end of the training sales that calibrate the blend and the quantiles. */
  readonly windowMonths: number
  /** Fewest training sales a market needs for a learner; fewest window sales for a blend of its own. */
  readonly minLearnerSales: number
  readonly minWindowSales: number
  /** Fewest valued window sales that calibrate the comps model where it serves a market alone. */
  readonly minCompsAloneWindowSales: number
  /** The window's weight is shrunk toward 0.5 as if this many more sales had shown an even blend. */
  readonly blendPseudoCount: number
  /** The most recent sales a learner is fitted on, per market (a bound on build time at scale). */
  readonly maxLearnerSales: number
  /**
   * The most recent sales each window learner is fitted on: they only calibrate the blend and choose the loss,
   * and there are four a market, so at scale they see fewer sales than the learner that serves (whose blend
   * weight is then, if anything, too modest).
   */
  readonly maxWindowLearnerSales: number
  readonly learner: Partial<Omit<GbtOptions, "loss">>
  /**
   * The losses a market's learner may minimize, the default first. The window's first month is valued by a
   * learner of each (and of each of `learnerCapacities`), and the one with the smaller median absolute error
   * serves the market (when that month has `minLossChoiceSales` valued sales; else the first).
   */
  readonly learnerLosses: ReadonlyArray<GbtLoss>
  readonly minLossChoiceSales: number
  /**
   * Capacities the market's learner may have (each overrides `learner`), the default first: chosen on the
   * window's first month after the loss (which is chosen at the first capacity), with that loss.
   */
  readonly learnerCapacities: ReadonlyArray<Partial<Omit<GbtOptions, "loss">>>
  /**
   * Slopes the blend's log value may be drawn toward the window's median value by (1 = not at all), the
   * default first: the one whose window residuals have the smallest median absolute deviation serves.
   */
  readonly centreSlopes: ReadonlyArray<number>
  /**
   * Exponents the comps' local scale may be tempered by (1 = as it is): a subject's range is drawn in units of
   * `reference × (scale / reference)^exponent` (the reference the median scale the served comps model gives the
   * window's sales), and the exponent whose window quantiles score best (the mean quantile loss over
   * QUANTILE_LEVELS, a proper score of the whole range) serves; 1 where another scores no better.
   */
  readonly scaleExponents: ReadonlyArray<number>
  /**
   * The learner's recent-resale premium of a market × group is shrunk toward every market's as if this many
   * more window resales had shown that (`learnerResalePremiums`).
   */
  readonly learnerResalePremiumPseudoCount: number
}

export const defaultStackOptions: StackOptions = {
  windowMonths: 3,
  minLearnerSales: 500,
  minWindowSales: 100,
  minCompsAloneWindowSales: 30,
  // The window's weight is the argmin of a median over a flat criterion: a few sales more or less move it far
  // (Melbourne's 0.15 became 0 when ten repeat records left its training sales). Shrunk toward the even blend
  // by 200 sales (not 20): out of time on NYC 2019 and Melbourne, seeds 1 and 2, every market the same or
  // better but one by 0.01 point (docs/pricing-model.md).
  blendPseudoCount: 200,
  maxLearnerSales: 100_000,
  maxWindowLearnerSales: 30_000,
  // Each tree sees 70% of the features (drawn per tree). Out of time on NYC 2019 and Melbourne, means over
  // the learners' seeds 1–3: the learner alone Staten Island 10.27 → 10.03%, Queens 13.47 → 13.34%, Brooklyn
  // 16.17 → 16.01%, Manhattan 18.48 → 16.98%, Bronx 15.46 → 15.54%, Melbourne 9.73 → 9.72%; the stack Staten
  // Island 9.94 → 9.85%, Queens 12.71 → 12.48%, Brooklyn 15.43 → 15.29%, Melbourne 9.59 → 9.51%, Bronx
  // 13.98 → 14.02%, Manhattan 16.93 → 17.39% (docs/pricing-model.md).
  learner: {
    trees: 400,
    learningRate: 0.05,
    maxDepth: 6,
    minLeaf: 20,
    subsample: 0.8,
    featureFraction: 0.7,
    maxBins: 64,
    l2: 1
  },
  // Absolute loss first: recorded prices carry a tail of sales that are not the market's (family transfers,
  // distress, shares of a house) which no record fact explains; the mean chases them and the median does not.
  // Out of time on NYC 2019 it cut the learner's MdAPE by 0.6–2 points per borough. Where the prices are clean
  // (the Melbourne listings file) squared loss is a little better, and the window finds that.
  learnerLosses: ["absolute", "squared"],
  minLossChoiceSales: 30,
  // Leaves of at least 20 or of at least 50 sales: the larger leaves average over more of the tail of
  // recorded prices no fact explains. On the NYC windows 50 wins in every borough (the Bronx's first window
  // month 17.25% → 16.17% median absolute log error), on Melbourne's 20.
  learnerCapacities: [{}, { minLeaf: 50 }],
  // A value estimated with error lies, on average, too far from the market's middle: the price of a sale
  // valued high is, on average, below its value, and of one valued low above (regression toward the mean).
  // Drawing values toward the window's median by the slope the window shows takes that out. Only toward it:
  // a stretch (slope above 1) was chosen on some windows by the noise of the median and lost out of time
  // (docs/pricing-model.md).
  centreSlopes: [1, 0.95, 0.9, 0.85, 0.8],
  // The comps' local scale says which values are less sure, but out of time a range as wide as it made them held
  // too few prices where it was narrow and too many where it was wide (0.1–0.9 coverage in the narrowest tenth of
  // ranges 65–81%, in the widest 84–91%, in every NYC borough and Melbourne alike): the errors grow with the
  // scale, less than in proportion. Every window's quantile loss preferred 0.25–0.75; only the mildest step is
  // allowed, since a three-month window is thin ground for more (Melbourne's window chose 0.25, and its later
  // ranges then held 83.8% of prices): docs/pricing-model.md, "Ranges as wide as the evidence is thin".
  scaleExponents: [1, 0.75],
  // As the comps' premium is shrunk toward the all-market one (`resalePremiumPseudoCount`).
  learnerResalePremiumPseudoCount: 20
}

/** The comps model's market index (log) at a date: the learner fits prices with it taken out. */
type MarketIndex = (subject: Subject, date: string) => number

interface Learner {
  readonly encoder: FeatureEncoder
  readonly trees: GbtModel
}

/** The market's data end and how fast its index moves, for values dated after the data. */
interface Drift {
  /** Where the market's data ends: the start of the month after its last training sale (`monthNumber` units). */
  readonly dataEnd: number
  /** Variance of the index's month-to-month change (log²): the uncertainty a month past the data adds. */
  readonly monthlyVariance: number
}

export interface Blend {
  /** The comps' share of the log value; the learner has the rest. */
  readonly compsWeight: number
  /** The blend's log value is `pivot + slope × (value − pivot)`. */
  readonly slope: number
  readonly pivot: number
  /**
   * How much wider, about its median, the range of a property of unusual size is (`spreadFactor`, at
   * least 1); the z-values are of the residuals with theirs drawn in about the median by it.
   */
  readonly unusualSizeFactor: number
  /**
   * How much wider, about its median, the range of each property group is (`spreadFactor` of the group's
   * window sales, at least 1; 1 for a group the window lacks): a group whose prices the window found further
   * from their values than the others' (Manhattan's townhouses beside its condos) is not given the others'
   * ranges. Drawn in like an unusual size's, and multiplied with its factor.
   */
  readonly groupFactors: Partial<Record<PropertyGroup, number>>
  /**
   * The learner's own recent-resale premium (log) per property group (`learnerResalePremiums`): added to its
   * value of a subject the comps model finds a recent resale. Absent: none.
   */
  readonly learnerResalePremium?: Partial<Record<PropertyGroup, number>> | undefined
  /**
   * The scale a subject's range is drawn in is `scaleReference × (scale / scaleReference)^scaleExponent`
   * (`temperedScale`); absent (an exponent of 1): the scale as it is.
   */
  readonly scaleExponent?: number | undefined
  readonly scaleReference?: number | undefined
  /** z-values at QUANTILE_LEVELS, and a 101-point sample of the residuals for the mean. */
  readonly z: ReadonlyArray<number>
  readonly sample: ReadonlyArray<number>
  readonly windowSales: number
  /**
   * The comps model serves the market alone (`compsAloneBlend`): no learner, `compsWeight` 1, slope 1, and the
   * centre the comps model's own value; the z-values (about their median) give its range.
   */
  readonly compsAlone?: true
}

/** What the stack's parts said, for `evaluate` (each part's accuracy beside the stack's). */
export interface StackParts {
  readonly comps: number
  readonly learner?: number | undefined
  readonly compsWeight: number
  /** Where the subject is of unusual size (`StackedModel.unusualSize`). */
  readonly unusualSize?: UnusualSize | undefined
  /** The recent-resale premium's share of the served log value, where the comps' centre carries one. */
  readonly resalePremium?: number | undefined
  /** The subject's own sale that premium keys on (ISO date). */
  readonly resaleSaleDate?: string | undefined
}

const learnerFacts = (subject: Subject): LearnerFacts => ({
  parcelKey: subject.parcelKey,
  neighborhood: subject.neighborhood,
  zip: subject.zip,
  block: subject.block,
  buildingClass: subject.buildingClass,
  propertyType: subject.propertyType,
  livingArea: subject.livingArea,
  lotSize: subject.lotSize,
  yearBuilt: subject.yearBuilt,
  latitude: subject.latitude,
  longitude: subject.longitude,
  bedrooms: subject.bedrooms,
  bathrooms: subject.bathrooms
})

/** A market's learner loss and capacity, chosen on its window. */
interface LearnerSetting {
  readonly loss: GbtLoss
  readonly capacity: Partial<Omit<GbtOptions, "loss">>
}

/** The `most` latest sales (all of them, as they are, when there are no more). */
const mostRecent = <A extends { readonly date: string }>(sales: ReadonlyArray<A>, most: number): ReadonlyArray<A> =>
  sales.length > most ? [...sales].sort((a, b) => a.date.localeCompare(b.date)).slice(-most) : sales

/**
 * A comps model that values a calibration window as the served one would, fitted on the sales before the window
 * (without a calibration of its own): the resale premium needs the leave-one-out pass, the costliest part of a
 * fit, so the served model's is taken.
 */
const windowCompsModel = (comps: Model, before: ReadonlyArray<Sale>): Model => {
  const model = fitModel([...before], { ...comps.options, calibrate: false })
  for (const [key, premium] of comps.resalePremium) model.resalePremium.set(key, premium)
  return model
}

const fitLearner = (
  sales: ReadonlyArray<Sale>,
  index: MarketIndex,
  options: StackOptions,
  setting: LearnerSetting,
  maxSales: number
): Learner => {
  const recent = mostRecent(sales, maxSales)
  const encoder = fitFeatureEncoder(recent, (sale) => index(sale as Sale, sale.date))
  const columns = Array.from({ length: encoder.featureCount }, () => new Float64Array(recent.length))
  const target = new Float64Array(recent.length)
  recent.forEach((sale, row) => {
    const values = encoder.row(sale, sale.date)
    for (let feature = 0; feature < values.length; feature++) columns[feature]![row] = values[feature]!
    target[row] = Math.log(sale.price) - index(sale, sale.date)
  })
  return { encoder, trees: fitGbt(columns, target, { ...options.learner, ...setting.capacity, loss: setting.loss }) }
}

/** The first and last whole month of the sales (a loop: a market may hold a million sales). */
const monthRange = (sales: ReadonlyArray<Sale>) => {
  let first = Number.POSITIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const sale of sales) {
    const month = monthIndex(sale.date)
    if (month < first) first = month
    if (month > last) last = month
  }
  return { first, last }
}

const isoMonth = (month: number) => {
  const year = 2000 + Math.floor(month / 12)
  return `${year}-${String((month % 12) + 1).padStart(2, "0")}-15`
}

/** The market's data end and the variance of its index's monthly moves over the training months. */
const driftOf = (comps: Model, sales: ReadonlyArray<Sale>, lastMonth: number): Drift => {
  const firstMonth = monthRange(sales).first
  const probe = sales[0]!
  const moves: Array<number> = []
  for (let month = firstMonth + 1; month <= lastMonth; month++) {
    moves.push(comps.marketIndex(probe, isoMonth(month)) - comps.marketIndex(probe, isoMonth(month - 1)))
  }
  // The mean square of a monthly move: its variance and its trend alike are what a flat index misses.
  const meanSquare = moves.reduce((sum, move) => sum + move * move, 0) / Math.max(1, moves.length)
  return { dataEnd: lastMonth + 1, monthlyVariance: meanSquare }
}

const groupBy = <A>(items: ReadonlyArray<A>, key: (item: A) => string) => {
  const groups = new Map<string, Array<A>>()
  for (const item of items) {
    const k = key(item)
    const group = groups.get(k)
    if (group) group.push(item)
    else groups.set(k, [item])
  }
  return groups
}

/**
 * The markets `StackedModel.fit` fits a learner for, judged before anything is fitted from how many market
 * sales each has (`minLearnerSales`, before its window too) and its calibration window holds, or the window of
 * every market pooled (`minWindowSales`). The counts are of the sales, not of those the window's comps model
 * values or of those its fences keep: a market near the bounds may be named and get no learner.
 */
export const marketsExpectingLearners = (
  sales: ReadonlyArray<Sale>,
  options: StackOptions = defaultStackOptions
): ReadonlySet<string> => {
  const windows = new Map<string, number>()
  for (
    const [market, marketSales] of groupBy(
      sales.filter((sale) => sale.armsLength && sale.price > 0),
      (sale) => sale.market
    )
  ) {
    if (marketSales.length < options.minLearnerSales) continue
    const windowStart = monthRange(marketSales).last - options.windowMonths + 1
    const inWindow = marketSales.filter((sale) => monthNumber(sale.date) >= windowStart).length
    windows.set(market, marketSales.length - inWindow >= options.minLearnerSales ? inWindow : 0)
  }
  let pooled = 0
  for (const inWindow of windows.values()) pooled += inWindow
  return new Set(
    [...windows].filter(([, inWindow]) => inWindow >= options.minWindowSales || pooled >= options.minWindowSales)
      .map(([market]) => market)
  )
}

export interface WindowValuation {
  readonly market: string
  readonly logPrice: number
  readonly comps: number
  readonly learner: number
  readonly scale: number
  /** Of unusual size in its market × group and type (`unusualSizeFacts`). */
  readonly unusualSize: boolean
  readonly group: PropertyGroup
  /** A recent resale (`recentResaleSaleDay`): the comps' value carries their premium, the learner's none. */
  readonly resale: boolean
}

/**
 * The groups whose resales the learner's premium is measured for: houses. A house resold a few months to two
 * years after a purchase is most often a renovation, bought far below the market; a condominium unit resold is
 * as often a move. On the NYC windows the learner's premium for houses was 14–18% in Queens, the Bronx and
 * Brooklyn on both splits measured, for condominium units +7% and −15% (Manhattan), +12% and −8% (Brooklyn): no
 * effect a three-month window can measure (docs/pricing-model.md, "The learner's own resale premium").
 */
const LEARNER_PREMIUM_GROUPS: ReadonlyArray<PropertyGroup> = ["house"]

/**
 * The learner's recent-resale premium per property group, measured on window rows: how much further above the
 * learner's value the window's recent resales sold than its other sales (the difference of the medians of
 * their log residuals), shrunk toward `prior` (every market's windows pooled) by `pseudoCount` resales. The
 * learner reads no sale history, and its trees are fitted on the parcel's own earlier sale too (the purchase a
 * resale follows, often far below the market, which the comps model never counts for its own parcel): its
 * value of a resale is lower than the comps' by about what that price pulled it.
 */
export const learnerResalePremiums = (
  rows: ReadonlyArray<WindowValuation>,
  pseudoCount: number,
  prior: Partial<Record<PropertyGroup, number>> = {}
): Partial<Record<PropertyGroup, number>> => {
  const premiums: Partial<Record<PropertyGroup, number>> = {}
  for (const group of LEARNER_PREMIUM_GROUPS) {
    const residuals = (resale: boolean) =>
      rows.filter((row) => row.group === group && row.resale === resale).map((row) => row.logPrice - row.learner)
        .sort((a, b) => a - b)
    const resales = residuals(true)
    const others = residuals(false)
    // Resales count only beside other sales to measure them against.
    const counted = others.length > 0 ? resales.length : 0
    const measured = counted > 0 ? quantileSorted(resales, 0.5) - quantileSorted(others, 0.5) : 0
    const premium = counted + pseudoCount > 0
      ? (counted * measured + pseudoCount * (prior[group] ?? 0)) / (counted + pseudoCount)
      : 0
    if (premium !== 0) premiums[group] = premium
  }
  return premiums
}

/** Window rows with the learner's resale premium added to its value of their resales. */
const withLearnerPremium = (
  rows: ReadonlyArray<WindowValuation>,
  premiums: Partial<Record<PropertyGroup, number>>
): ReadonlyArray<WindowValuation> =>
  rows.map((row) => row.resale ? { ...row, learner: row.learner + (premiums[row.group] ?? 0) } : row)

/** The comps' weight minimizing the median absolute log error, shrunk toward an even blend. */
const blendWeight = (rows: ReadonlyArray<WindowValuation>, pseudoCount: number) => {
  let best = 0.5
  let bestError = Number.POSITIVE_INFINITY
  for (let step = 0; step <= 20; step++) {
    const weight = step / 20
    const errors = rows.map((row) => Math.abs(row.logPrice - (weight * row.comps + (1 - weight) * row.learner)))
      .sort((a, b) => a - b)
    const error = quantileSorted(errors, 0.5)
    if (error < bestError - 1e-12) {
      bestError = error
      best = weight
    }
  }
  return (rows.length * best + pseudoCount * 0.5) / (rows.length + pseudoCount)
}

/**
 * The slope (among `slopes`, the first on a tie) by which log values are drawn toward their median `pivot`
 * that leaves the prices' residuals the smallest median absolute deviation: the centre's own shift is the
 * calibration's (the residuals' median), so only their spread about it counts.
 */
export const centreSlope = (
  logPrices: ReadonlyArray<number>,
  values: ReadonlyArray<number>,
  slopes: ReadonlyArray<number>
): { readonly slope: number; readonly pivot: number } => {
  const pivot = quantileSorted([...values].sort((a, b) => a - b), 0.5)
  let slope = slopes[0] ?? 1
  let bestSpread = Number.POSITIVE_INFINITY
  for (const candidate of slopes) {
    const residuals = logPrices.map((logPrice, i) => logPrice - (pivot + candidate * (values[i]! - pivot)))
      .sort((a, b) => a - b)
    const middle = quantileSorted(residuals, 0.5)
    const spread = quantileSorted(residuals.map((r) => Math.abs(r - middle)).sort((a, b) => a - b), 0.5)
    if (spread < bestSpread - 1e-12) {
      bestSpread = spread
      slope = candidate
    }
  }
  return { slope, pivot }
}

/** The scale a range is drawn in: `scale` tempered toward the reference by the blend's exponent. */
const temperedScale = (blend: Pick<Blend, "scaleExponent" | "scaleReference">, scale: number): number => {
  const { scaleExponent: exponent, scaleReference: reference } = blend
  return exponent === undefined || exponent === 1 || reference === undefined || !(reference > 0) || !(scale > 0)
    ? scale
    : reference * Math.pow(scale / reference, exponent)
}

/** The mean quantile (pinball) loss of log quantiles `predicted[i][j]` at QUANTILE_LEVELS for log prices. */
const quantileLoss = (logPrices: ReadonlyArray<number>, predicted: (i: number, j: number) => number): number => {
  let sum = 0
  logPrices.forEach((logPrice, i) => {
    QUANTILE_LEVELS.forEach((level, j) => {
      const tau = Number(level)
      const miss = logPrice - predicted(i, j)
      sum += miss >= 0 ? tau * miss : (tau - 1) * miss
    })
  })
  return sum / (logPrices.length * QUANTILE_LEVELS.length)
}

/** The most window sales `servedScaleReference` values (a median needs few). */
const MAX_SCALE_REFERENCE_SALES = 500

/**
 * The median local scale the served comps model gives the window's sales (at most MAX_SCALE_REFERENCE_SALES of
 * them, evenly spread; each as of its date, never from its own parcel): the reference a served range's scale is
 * tempered toward. The window's own comps model, fitted on fewer sales, gives wider scales; a reference in its
 * units would widen every served range as the exponent falls.
 */
const servedScaleReference = (comps: Model, sales: ReadonlyArray<Sale>): number | undefined => {
  const stride = Math.max(1, Math.ceil(sales.length / MAX_SCALE_REFERENCE_SALES))
  const scales: Array<number> = []
  for (let i = 0; i < sales.length; i += stride) {
    const prediction = comps.predictLog(sales[i]!, sales[i]!.date)
    if (!("reason" in prediction) && prediction.scale > 0) scales.push(prediction.scale)
  }
  return scales.length === 0 ? undefined : quantileSorted(scales.sort((a, b) => a - b), 0.5)
}

/**
 * The window's blend: the weight given, the slope the window shows, and its range. `servedReference` is the
 * median scale the served model gives the window's sales (`servedScaleReference`); without it, the window's own.
 */
export const blendOf = (
  rows: ReadonlyArray<WindowValuation>,
  compsWeight: number,
  slopes: ReadonlyArray<number>,
  scaleExponents: ReadonlyArray<number>,
  servedReference?: number | undefined,
  learnerResalePremium?: Partial<Record<PropertyGroup, number>> | undefined
): Blend => {
  const values = rows.map((row) => compsWeight * row.comps + (1 - compsWeight) * row.learner)
  const logPrices = rows.map((row) => row.logPrice)
  const { pivot, slope } = centreSlope(logPrices, values, slopes)
  const centres = values.map((value) => pivot + slope * (value - pivot))
  const windowReference = quantileSorted(rows.map((row) => row.scale).sort((a, b) => a - b), 0.5)
  // Served ranges are tempered toward the served model's reference; the window's own stands in without one.
  const servedOrWindow = servedReference !== undefined && Number.isFinite(servedReference) && servedReference > 0
    ? servedReference
    : windowReference
  // The range for each exponent, calibrated on the window; the one whose quantiles score best there serves (the
  // first, unless another is strictly better).
  const calibrated = (scaleExponent: number) => {
    const scales = rows.map((row) => temperedScale({ scaleExponent, scaleReference: windowReference }, row.scale))
    const standardized = rows.map((row, i) => (row.logPrice - centres[i]!) / scales[i]!)
    const factor = spreadFactor(standardized, rows.map((row) => row.unusualSize))
    const groupFactors: Partial<Record<PropertyGroup, number>> = {}
    for (const group of new Set(rows.map((row) => row.group))) {
      groupFactors[group] = spreadFactor(standardized, rows.map((row) => row.group === group))
    }
    // Served, the range of an unusual size or a wider group is widened about its median: here its residual is
    // drawn in about theirs.
    const widths = rows.map((row) => (row.unusualSize ? factor : 1) * groupFactors[row.group]!)
    const middle = quantileSorted([...standardized].sort((a, b) => a - b), 0.5)
    const residuals = standardized.map((residual, i) => middle + (residual - middle) / widths[i]!)
      .sort((a, b) => a - b)
    const z = QUANTILE_LEVELS.map((level) => quantileSorted(residuals, Number(level)))
    const loss = quantileLoss(
      logPrices,
      (i, j) => centres[i]! + scales[i]! * (middle + widths[i]! * (z[j]! - middle))
    )
    const blend: Blend = {
      compsWeight,
      slope,
      pivot,
      unusualSizeFactor: factor,
      groupFactors,
      ...(learnerResalePremium === undefined || Object.keys(learnerResalePremium).length === 0
        ? {}
        : { learnerResalePremium }),
      // (A reference that tempers nothing, 0 or none, keeps the scale as it is: no exponent is stored.)
      ...(scaleExponent === 1 || !(servedOrWindow > 0) ? {} : { scaleExponent, scaleReference: servedOrWindow }),
      z,
      sample: Array.from({ length: 101 }, (_, j) => quantileSorted(residuals, (j + 0.5) / 101)),
      windowSales: rows.length
    }
    return { blend, loss }
  }
  // 1 first, so that it serves unless another exponent scores strictly better (ties: as it is).
  const tried = [1, ...scaleExponents.filter((exponent) => exponent !== 1)].map(calibrated)
  return tried.reduce((best, candidate) => candidate.loss < best.loss - 1e-12 ? candidate : best).blend
}

/** The most window sales `compsAloneBlend` values (a bound on build time; z-values need far fewer). */
const MAX_COMPS_ALONE_WINDOW_VALUED = 5_000

/**
 * The range of the comps model where it serves a market alone (no learner): the market's latest sales valued
 * out of time, as a blend's window is (by a comps model fitted on the market's sales before them, as of each
 * sale's date, never from its own parcel), their residuals' spread about their median giving the z-values a
 * blend of weight 1 serves with about the comps model's own value. The comps model's own calibration is
 * leave-one-out on sales its regressions were fitted on: in markets of 100–700 training sales its 0.1–0.9 range
 * held 52–75% of the prices out of time (docs/pricing-model.md, "Markets without a learner").
 *
 * The window is the last `windowMonths`, moved later while it holds more than half the market's sales and
 * earlier, a month at a time, while it holds under `minWindowSales` and the sales before it stay the more (in a
 * sparse market, years: its residuals then hold the market's moves over those years too, and on the demo county
 * sampled to 150 sales over ten years its range still held under 80% of later prices, so no cap); with fewer than
 * `minCompsAloneWindowSales` valued, none is made (the comps model's own calibration serves). A
 * window valued by a model fitted on fewer sales than serve has, around each sale, thinner comps, so each
 * residual is taken in units of the scale the served model gives the sale (its comps before the sale's date):
 * the units the served answers' ranges are drawn in.
 */
const compsAloneBlend = (
  comps: Model,
  marketSales: ReadonlyArray<Sale>,
  sizeRanges: ReadonlyMap<string, SizeRange>,
  options: StackOptions
): Blend | undefined => {
  const months = marketSales.map((sale) => monthNumber(sale.date))
  const { first, last } = monthRange(marketSales)
  const inWindowFrom = (start: number) => months.reduce((count, month) => count + (month >= start ? 1 : 0), 0)
  let windowStart = last - options.windowMonths + 1
  while (windowStart < last && inWindowFrom(windowStart) > marketSales.length / 2) windowStart++
  while (
    windowStart - 1 > first && inWindowFrom(windowStart) < options.minWindowSales &&
    inWindowFrom(windowStart - 1) <= marketSales.length / 2
  ) windowStart--
  // Bounded at scale (a large market without a blend: its data spans under a window, or its window is thin): the
  // window model is fitted on at most `maxWindowLearnerSales` of the latest sales before the window, and at
  // most `MAX_COMPS_ALONE_WINDOW_VALUED` of the window's sales, evenly spread, are valued.
  const before = mostRecent(marketSales.filter((_, i) => months[i]! < windowStart), options.maxWindowLearnerSales)
  if (before.length === 0) return undefined
  const windowComps = windowCompsModel(comps, before)
  const stride = Math.ceil(inWindowFrom(windowStart) / MAX_COMPS_ALONE_WINDOW_VALUED)
  let seen = 0
  const rows: Array<WindowValuation> = []
  marketSales.forEach((sale, i) => {
    if (months[i]! < windowStart || seen++ % stride !== 0) return
    const prediction = windowComps.predictLog(sale, sale.date)
    const served = comps.predictLog(sale, sale.date)
    if ("reason" in prediction || "reason" in served) return
    rows.push({
      market: sale.market,
      logPrice: Math.log(sale.price),
      comps: prediction.center,
      learner: prediction.center,
      scale: served.scale,
      unusualSize: unusualSizeFacts(sizeRanges, sale).length > 0,
      group: groupOf(sale.propertyType),
      resale: prediction.resale
    })
  })
  if (rows.length < Math.max(1, options.minCompsAloneWindowSales)) return undefined
  // The range's spread only, about the comps model's own value (`StackedModel.value`): the window's sales are
  // valued up to months past their model's data, so their median residual carries the market's move over those
  // months, which a value as of the data's end does not have to make up; added to the centre it is the market
  // index carried past its data. Through the service, a market of 348 Melbourne sales valued so was 3.0% above
  // the prices of its later sales (8.5% → 10.1% MdAPE), while the comps model's own value was 1.3% below them.
  const blend = blendOf(rows, 1, [1], options.scaleExponents)
  const middle = blend.z[QUANTILE_LEVELS.indexOf("0.5")]!
  return {
    ...blend,
    z: blend.z.map((z) => z - middle),
    sample: blend.sample.map((u) => u - middle),
    compsAlone: true
  }
}

/**
 * A fitted stack as plain data (maps, typed arrays, numbers): what a worker thread that fitted it sends back
 * (structured clone), to be joined with the comps model the serving thread fitted on the same sales.
 */
export interface StackData {
  readonly learners: ReadonlyArray<
    readonly [string, { readonly encoder: FeatureEncoderData; readonly trees: GbtTrees }]
  >
  readonly blends: ReadonlyArray<readonly [string, Blend]>
  readonly drifts: ReadonlyArray<readonly [string, Drift]>
  readonly sizeRanges: ReadonlyArray<readonly [string, SizeRange]>
}

export class StackedModel {
  private constructor(
    readonly comps: Model,
    private readonly learners: ReadonlyMap<string, Learner>,
    private readonly blends: ReadonlyMap<string, Blend>,
    private readonly drifts: ReadonlyMap<string, Drift>,
    private readonly sizeRanges: ReadonlyMap<string, SizeRange>
  ) {}

  static fit(comps: Model, sales: ReadonlyArray<Sale>, options: StackOptions = defaultStackOptions): StackedModel {
    const clean = sales.filter((sale) => sale.armsLength && sale.price > 0 && !comps.isOutlier(sale))
    const index: MarketIndex = (subject, date) => comps.marketIndex(subject, date)
    const learners = new Map<string, Learner>()
    const blends = new Map<string, Blend>()
    const pooled: Array<WindowValuation> = []
    // The served comps model's median scale over each market's window sales, and over every market's.
    const servedReferences = new Map<string, number>()
    const pooledWindowSales: Array<Sale> = []
    const perMarket = new Map<string, Array<WindowValuation>>()
    const drifts = new Map<string, Drift>()
    const sizeRanges = sizeRangesOf(clean)
    const salesByMarket = groupBy(clean, (sale) => sale.market)
    const capacities = options.learnerCapacities.length > 0 ? options.learnerCapacities : [{}]
    const settings = new Map<string, LearnerSetting>()
    const settingOf = (market: string): LearnerSetting =>
      settings.get(market) ?? { loss: options.learnerLosses[0] ?? "absolute", capacity: capacities[0]! }
    // The comps model that values a window: fitted on the sales before it (one per window start; markets whose
    // data end in the same month share it).
    const windowModels = new Map<number, Model>()
    const compsBefore = (windowStart: number): Model => {
      let model = windowModels.get(windowStart)
      if (model === undefined) {
        model = windowCompsModel(comps, sales.filter((sale) => monthNumber(sale.date) < windowStart))
        windowModels.set(windowStart, model)
      }
      return model
    }
    for (const [market, marketSales] of salesByMarket) {
      if (marketSales.length < options.minLearnerSales) continue
      const lastMonth = monthRange(marketSales).last
      drifts.set(market, driftOf(comps, marketSales, lastMonth))
      const windowStart = lastMonth - options.windowMonths + 1
      const before = marketSales.filter((sale) => monthNumber(sale.date) < windowStart)
      const window = marketSales.filter((sale) => monthNumber(sale.date) >= windowStart)
      if (before.length >= options.minLearnerSales && window.length > 0) {
        // Both parts value the window as they will serve: from a model fitted before it, its market index held
        // flat past the model's data. The comps model fitted on every sale would know the window's own prices
        // (its regressions and month index are fitted on them): its errors there would be too small, the blend
        // would lean on it, and the quantiles would be too narrow.
        const windowComps = compsBefore(windowStart)
        const windowIndex: MarketIndex = (subject, date) => windowComps.marketIndex(subject, date)
        // Each window month is valued by a learner fitted on the sales before that month.
        const rows: Array<WindowValuation> = []
        for (let month = windowStart; month <= lastMonth; month++) {
          const earlier = marketSales.filter((sale) => monthNumber(sale.date) < month)
          const valued = window.flatMap((sale) => {
            if (monthIndex(sale.date) !== month) return []
            const prediction = windowComps.predictLog(sale, sale.date)
            return "reason" in prediction ? [] : [{ sale, prediction }]
          })
          const learnerValues = (learner: Learner) =>
            valued.map(({ sale }) =>
              learner.trees.predict(learner.encoder.row(learnerFacts(sale), sale.date)) + windowIndex(sale, sale.date)
            )
          const windowLearnerValues = (setting: LearnerSetting) =>
            learnerValues(fitLearner(earlier, windowIndex, options, setting, options.maxWindowLearnerSales))
          let values: Array<number>
          if (
            month === windowStart && options.learnerLosses.length * capacities.length > 1 &&
            valued.length >= options.minLossChoiceSales
          ) {
            // The window's first month chooses the market's loss (at the first capacity), then its capacity (with
            // that loss): each candidate's median absolute error there. Three fits, not the four of every pair.
            const tried = (setting: LearnerSetting) => {
              const learnt = windowLearnerValues(setting)
              const errors = learnt.map((value, i) => Math.abs(Math.log(valued[i]!.sale.price) - value))
              return { setting, values: learnt, error: quantileSorted(errors.sort((a, b) => a - b), 0.5) }
            }
            type Tried = ReturnType<typeof tried>
            const better = (best: Tried, candidate: Tried) => candidate.error < best.error ? candidate : best
            const byLoss = options.learnerLosses.map((loss) => tried({ loss, capacity: capacities[0]! }))
              .reduce(better)
            const chosen = capacities.slice(1).map((capacity) => tried({ loss: byLoss.setting.loss, capacity }))
              .reduce(better, byLoss)
            settings.set(market, chosen.setting)
            values = chosen.values
          } else {
            values = windowLearnerValues(settingOf(market))
          }
          valued.forEach(({ prediction, sale }, i) =>
            rows.push({
              market,
              logPrice: Math.log(sale.price),
              comps: prediction.center,
              learner: values[i]!,
              scale: prediction.scale,
              unusualSize: unusualSizeFacts(sizeRanges, sale).length > 0,
              group: groupOf(sale.propertyType),
              resale: prediction.resale
            })
          )
        }
        perMarket.set(market, rows)
        for (const row of rows) pooled.push(row)
        const reference = servedScaleReference(comps, window)
        if (reference !== undefined) servedReferences.set(market, reference)
        for (const sale of window) pooledWindowSales.push(sale)
      }
    }
    // Made only for a market whose own window is too thin: its reference values up to 500 more window sales.
    let pooledBlend: Blend | undefined
    // The learner's resale premium of every market's windows pooled: the prior each market's is shrunk toward.
    const pooledPremiums = learnerResalePremiums(pooled, 0)
    // The weight is chosen on the parts as the window measured them; the learner's value of a recent resale then
    // carries its premium (`learnerResalePremiums`), and the slope and the range are the window's with it.
    const blendOfRows = (
      rows: ReadonlyArray<WindowValuation>,
      reference: number | undefined,
      premiums: Partial<Record<PropertyGroup, number>>
    ) =>
      blendOf(
        withLearnerPremium(rows, premiums),
        blendWeight(rows, options.blendPseudoCount),
        options.centreSlopes,
        options.scaleExponents,
        reference,
        premiums
      )
    const pooledBlendOf = () =>
      pooledBlend ??= blendOfRows(pooled, servedScaleReference(comps, pooledWindowSales), pooledPremiums)
    for (const market of drifts.keys()) {
      const rows = perMarket.get(market) ?? []
      if (rows.length >= options.minWindowSales) {
        blends.set(
          market,
          blendOfRows(
            rows,
            servedReferences.get(market),
            learnerResalePremiums(rows, options.learnerResalePremiumPseudoCount, pooledPremiums)
          )
        )
      } else if (pooled.length >= options.minWindowSales) {
        blends.set(market, pooledBlendOf())
      }
    }
    // The learner that serves, fitted on every training sale of a market that has a blend to serve in.
    for (const market of blends.keys()) {
      learners.set(
        market,
        fitLearner(salesByMarket.get(market)!, index, options, settingOf(market), options.maxLearnerSales)
      )
    }
    // A market without a learner is served by the comps model alone: calibrated, like a blend, out of time on
    // its own latest sales (`compsAloneBlend`), where it has enough of them.
    for (const [market, marketSales] of salesByMarket) {
      if (blends.has(market)) continue
      const blend = compsAloneBlend(comps, marketSales, sizeRanges, options)
      if (blend === undefined) continue
      blends.set(market, blend)
      drifts.set(market, driftOf(comps, marketSales, monthRange(marketSales).last))
    }
    return new StackedModel(comps, learners, blends, drifts, sizeRanges)
  }

  /** The comps model alone (its own calibration): what serves until the learners are fitted. */
  static compsOnly(comps: Model): StackedModel {
    return new StackedModel(comps, new Map(), new Map(), new Map(), new Map())
  }

  /** True when at least one market has a learner. */
  get hasLearners(): boolean {
    return this.learners.size > 0
  }

  /** The fitted stack as plain data, for another thread. */
  toData(): StackData {
    return {
      learners: [...this.learners].map((
        [market, learner]
      ) => [market, { encoder: learner.encoder.data, trees: gbtTreesOf(learner.trees) }] as const),
      blends: [...this.blends],
      drifts: [...this.drifts],
      sizeRanges: [...this.sizeRanges]
    }
  }

  /** A stack from another thread's data, over the comps model fitted here on the same sales. */
  static fromData(comps: Model, data: StackData): StackedModel {
    return new StackedModel(
      comps,
      new Map(data.learners.map(([market, learner]) => [market, {
        encoder: encoderOf(learner.encoder),
        trees: makeModel(learner.trees)
      }])),
      new Map(data.blends),
      new Map(data.drifts),
      new Map(data.sizeRanges)
    )
  }

  /** The loss the market's learner minimizes, where it has one (chosen on the window; see StackOptions). */
  learnerLoss(market: string): GbtLoss | undefined {
    return this.learners.get(market)?.trees.options.loss
  }

  /** The fewest sales in a leaf of the market's learner, where it has one (chosen on the window too). */
  learnerMinLeaf(market: string): number | undefined {
    return this.learners.get(market)?.trees.options.minLeaf
  }

  /** The slope the market's blend is drawn toward its window's median value by, where it has a blend. */
  centreSlope(market: string): number | undefined {
    const blend = this.blends.get(market)
    return this.learners.has(market) || blend?.compsAlone === true ? blend?.slope : undefined
  }

  /** The exponent the market's ranges temper the comps' local scale by (1: as it is), where it has a blend. */
  scaleExponent(market: string): number | undefined {
    const blend = this.blends.get(market)
    return blend === undefined ? undefined : blend.scaleExponent ?? 1
  }

  /**
   * The living areas of the middle 95% of the recorded sales of the subject's market and group (houses or
   * condos), where its market has enough of them (MIN_SIZE_RANGE_SALES); what the answer sets a recorded area
   * beside.
   */
  usualLivingArea(subject: Pick<Subject, "market" | "propertyType">): readonly [number, number] | undefined {
    return this.sizeRanges.get(marketGroupKey(subject.market, subject.propertyType))?.livingArea
  }

  /**
   * Where the subject is of unusual size and the stack serves its market: the facts outside its market ×
   * group's middle 95% and its type's (`unusualSizeFacts`) and the factor its range is widened by (its market's window measured it; 1 where that
   * window showed such properties no harder to value).
   */
  unusualSize(subject: Subject): UnusualSize | undefined {
    const blend = this.blends.get(subject.market)
    if (blend === undefined) return undefined
    const facts = unusualSizeFacts(this.sizeRanges, subject)
    return facts.length === 0 ? undefined : { facts, factor: blend.unusualSizeFactor }
  }

  /** The learner's log value of a subject as of a date, where its market has a learner. */
  learnerValue(subject: Subject, asOf: string): number | undefined {
    const learner = this.learners.get(subject.market)
    return learner && learner.trees.predict(learner.encoder.row(learnerFacts(subject), asOf)) +
        this.comps.marketIndex(subject, asOf)
  }

  /** Values the subject as of `asOf`: the comps' valuation, its centre and quantiles from the stack. */
  value(subject: Subject, asOf: string): (Valuation & { parts: StackParts }) | NoValue {
    const valuation = this.comps.value(subject, asOf)
    if ("reason" in valuation) return valuation
    const blend = this.blends.get(subject.market)
    const learner = this.learnerValue(subject, asOf)
    if (blend === undefined || (learner === undefined && blend.compsAlone !== true)) {
      return {
        ...valuation,
        parts: {
          comps: valuation.quantiles["0.5"],
          compsWeight: 1,
          ...(valuation.resalePremium === undefined ? {} : {
            resalePremium: valuation.resalePremium,
            resaleSaleDate: valuation.resaleSaleDate
          })
        }
      }
    }
    const learnerPremium = valuation.resaleSaleDate === undefined
      ? 0
      : blend.learnerResalePremium?.[groupOf(subject.propertyType)] ?? 0
    // The comps model alone keeps its own value (`compsAloneBlend`); a blend is drawn toward its pivot.
    const center = learner === undefined
      ? Math.log(valuation.quantiles["0.5"])
      : blend.pivot +
        blend.slope *
          (blend.compsWeight * valuation.center + (1 - blend.compsWeight) * (learner + learnerPremium) - blend.pivot)
    // Past the market's data the index is held flat; each month beyond adds its month-to-month variance.
    const drift = this.drifts.get(subject.market)
    const monthsPast = drift === undefined ? 0 : Math.max(0, monthNumber(asOf) - drift.dataEnd)
    const local = temperedScale(blend, valuation.scale)
    const scale = Math.sqrt(local * local + monthsPast * (drift?.monthlyVariance ?? 0))
    // A property of unusual size, or of a group the window found harder to value: its range widened about its
    // median by the factors its market's window measured.
    const unusualSize = this.unusualSize(subject)
    const factor = (unusualSize?.factor ?? 1) * (blend.groupFactors[groupOf(subject.propertyType)] ?? 1)
    const middle = blend.z[QUANTILE_LEVELS.indexOf("0.5")]!
    const widened = (z: number) => middle + factor * (z - middle)
    const quantiles = {} as Record<QuantileLevel, number>
    let previous = 0
    QUANTILE_LEVELS.forEach((level, j) => {
      previous = quantiles[level] = Math.max(previous, Math.exp(center + scale * widened(blend.z[j]!)))
    })
    let sum = 0
    for (const u of blend.sample) sum += Math.exp(scale * widened(u))
    return {
      ...valuation,
      quantiles,
      mean: Math.exp(center) * (sum / blend.sample.length),
      center,
      parts: {
        comps: valuation.quantiles["0.5"],
        ...(learner === undefined ? {} : { learner: Math.exp(learner) }),
        compsWeight: blend.compsWeight,
        ...(unusualSize === undefined ? {} : { unusualSize }),
        // Carried into the served centre by the comps' weight and the centre's slope.
        ...(valuation.resaleSaleDate === undefined ? {} : {
          resalePremium: blend.slope *
            (blend.compsWeight * (valuation.resalePremium ?? 0) + (1 - blend.compsWeight) * learnerPremium),
          resaleSaleDate: valuation.resaleSaleDate
        })
      }
    }
  }
}
