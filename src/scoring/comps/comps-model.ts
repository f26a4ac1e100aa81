// The comparable-sales model, composed: `fitModel` screens outliers, fits the hedonic regressions, builds the
// comps index, indexes each parcel's own sales and calibrates; `Model.value` values a subject from the comps.
// Plain TypeScript (Node 20 built-ins only), deterministic.
//
//   const model = fitModel(trainingSales);          // sales dated before the split only
//   const v = model.value(subject, "2019-05-14");   // { quantiles, mean, effectiveSampleSize, comps } | { reason }
//
// The parts, one concern each: types.ts and options.ts (the data and the tuning), outlier-fences.ts (which
// sales are comparables), hedonic.ts and market-index.ts (the regression and the month index it yields),
// comps-index.ts and comps-search.ts (the index and one valuation from it), resale-premium.ts and
// calibration.ts (what leave-one-out valuations of the training sales teach). docs/pricing-model.md
// describes the method and how every parameter was chosen.
import { dayNumber, isoOfDay, monthIndex } from "./calendar.js"
import {
  type Calibration,
  calibrationFor,
  fitCalibrations,
  leaveOneOutRows,
  predictiveMean,
  predictiveQuantiles
} from "./calibration.js"
import {
  buildCompsIndex,
  type KeptCompsIndex,
  keptCompsIndex,
  restoreCompsIndex,
  saleMarketIndex
} from "./comps-index.js"
import { type CompsState, estimateFromComps } from "./comps-search.js"
import { fitRegressions, type MarketRegressions, noRegressions } from "./hedonic.js"
import { marketIndexAt } from "./market-index.js"
import { DEFAULT_OPTIONS, type ModelOptions, optionsForMarket } from "./options.js"
import { fitOutlierFences, isOutlier, type OutlierFences } from "./outlier-fences.js"
import { estimateResalePremiums, indexOwnSales, isRecentResale, type OwnSales } from "./resale-premium.js"
import type { Comp, LogPrediction, NoValue, PropertyType, Sale, Subject, Valuation } from "./types.js"

/**
 * What fitting learned, apart from the sales the model indexes: with the same sales, `Model.restore` makes a
 * model that values exactly as the fitted one (the fitted model kept between starts, src/scoring/engine.ts).
 * Plain data: maps, typed arrays and numbers.
 */
export type FittedComps = {
  readonly options: ModelOptions
  readonly fences: OutlierFences
  readonly regressions: MarketRegressions
  readonly calibration: ReadonlyMap<string, Calibration>
  readonly resalePremium: ReadonlyMap<string, number>
  /**
   * The comps index and each parcel's own sales as they were built from those sales: restored instead of
   * built again (a third of a restart's engine build); where absent (kept by an older build), built.
   */
  readonly index?: KeptModelIndex | undefined
}

/** What the model indexed from its sales, as kept. */
export type KeptModelIndex = {
  readonly trainEnd: string
  readonly comps: KeptCompsIndex
  readonly ownSales: OwnSales
}

export class Model {
  readonly options: ModelOptions
  /** last sale date of the training data */
  trainEnd = ""
  /** standardized-residual quantiles at QUANTILE_LEVELS + a 101-point residual sample, per "market|basis" and "*|basis" */
  readonly calibration = new Map<string, Calibration>()
  /** recent-resale premium (log) per "market|group|basis" */
  readonly resalePremium = new Map<string, number>()
  private fences: OutlierFences = { sqft: new Map(), price: new Map() }
  /** what a valuation reads: the comps index, the regressions, the parcels' own sales, the resale premium */
  private readonly state: CompsState
  /** the sales the model indexed (the comps index is kept by their positions) */
  private indexed: ReadonlyArray<Sale> = []
  /** true when the comps index was restored from a kept one (`restore`), not built */
  indexRestored = false
  private readonly optionsByMarket = new Map<string, ModelOptions>()

  constructor(options: ModelOptions) {
    this.options = options
    this.state = {
      index: buildCompsIndex([], noRegressions()),
      regressions: noRegressions(),
      ownSales: new Map(),
      resalePremium: this.resalePremium
    }
  }

  /** options for one market: global options merged with the market's overrides */
  opt(market: string): ModelOptions {
    let options = this.optionsByMarket.get(market)
    if (!options) this.optionsByMarket.set(market, options = optionsForMarket(this.options, market))
    return options
  }

  // ------------------------------------------------ fitting, in the order fitModel runs it

  /** Tukey fences per market+neighbourhood+group (and per market+group as fallback); see outlier-fences.ts. */
  fitFences(sales: Array<Sale>): void {
    this.fences = fitOutlierFences(sales, this.options.outlierFenceIqr)
  }

  /** True when a sale lies outside its neighbourhood's training fences (uses only the sale and the training data). */
  isOutlier(sale: Sale): boolean {
    return isOutlier(this.fences, sale)
  }

  fitRegressions(sales: Array<Sale>): void {
    this.state.regressions = fitRegressions(sales, (market) => this.opt(market))
  }

  /** Indexes the comparable sales (after fitRegressions: the index holds their regression terms). */
  buildIndex(sales: Array<Sale>): void {
    this.state.index = buildCompsIndex(sales, this.state.regressions)
  }

  /** Records each parcel's own sale dates (the subject's sale history for the recent-resale signal). */
  indexOwnSales(sales: Array<Sale>): void {
    this.state.ownSales = indexOwnSales(sales)
  }

  /**
   * After the fences: screens the sales, fits the regressions (or takes fitted ones), indexes the comps and
   * each parcel's own sales; returns the clean sales.
   */
  indexSales(sales: Array<Sale>, regressions?: MarketRegressions): Array<Sale> {
    this.indexed = sales
    const clean = sales.filter((s) => s.armsLength && s.price > 0 && !this.isOutlier(s))
    this.trainEnd = clean.reduce((m, s) => (s.date > m ? s.date : m), "")
    if (regressions === undefined) this.fitRegressions(clean)
    else this.state.regressions = regressions
    this.buildIndex(clean)
    // the subject's own sale history: every arm's-length sale of the parcel, fenced-out ones included (a
    // distressed purchase far below the neighbourhood is the typical first leg of a renovation resale)
    this.indexOwnSales(sales.filter((s) => s.armsLength && s.price > 0))
    return clean
  }

  /** What fitting learned, for `Model.restore`. */
  fitted(): FittedComps {
    return {
      options: this.options,
      fences: this.fences,
      regressions: this.state.regressions,
      calibration: new Map(this.calibration),
      resalePremium: new Map(this.resalePremium),
      index: {
        trainEnd: this.trainEnd,
        comps: keptCompsIndex(this.state.index, this.indexed),
        ownSales: this.state.ownSales
      }
    }
  }

  /**
   * The model `fitted` describes, over the sales it was fitted on: the fences, regressions, calibration and
   * resale premiums taken as they are, the comps index and each parcel's own sales restored from the kept
   * index (or indexed again where it has none: an older build's). Given other sales it would be a different
   * model: the caller checks that they are the same (`ScoringEngine.build`).
   */
  static restore(sales: Array<Sale>, fitted: FittedComps): Model {
    const model = new Model(fitted.options)
    model.fences = fitted.fences
    const kept = fitted.index
    if (kept !== undefined && kept.comps.sales === sales.length) {
      model.indexed = sales
      model.trainEnd = kept.trainEnd
      model.state.regressions = fitted.regressions
      model.state.index = restoreCompsIndex(kept.comps, sales, fitted.regressions)
      model.state.ownSales = kept.ownSales
      model.indexRestored = true
    } else {
      model.indexSales(sales, fitted.regressions)
    }
    for (const [key, calibration] of fitted.calibration) model.calibration.set(key, calibration)
    for (const [key, premium] of fitted.resalePremium) model.resalePremium.set(key, premium)
    return model
  }

  /**
   * Leave-one-out calibration on the last `calibrationMonths` of the training sales, and the recent-resale
   * premium from the same pass (see calibration.ts and resale-premium.ts).
   */
  calibrate(sales: Array<Sale>): { n: number } {
    const windowStartMonth = monthIndex(this.trainEnd) - this.options.calibrationMonths + 1
    this.resalePremium.clear()
    const rows = leaveOneOutRows(
      sales,
      windowStartMonth,
      (sale) =>
        isRecentResale(
          this.state.ownSales,
          sale.parcelKey,
          dayNumber(sale.date),
          this.opt(sale.market),
          sale.yearBuilt
        ),
      (subject, asOf) => this.predictLog(subject, asOf),
      (market) => this.opt(market).maxPremiumResales
    )
    const premiums = estimateResalePremiums(rows, (market) => this.opt(market).resalePremiumPseudoCount)
    for (const [key, premium] of premiums) this.resalePremium.set(key, premium)
    const { calibrations, n } = fitCalibrations(rows, this.resalePremium)
    for (const [key, calibration] of calibrations) this.calibration.set(key, calibration)
    return { n }
  }

  // ------------------------------------------------ valuation

  /**
   * The market index (log) of the subject's market and property group at a date: the month effects of the
   * market's regression, flat outside the months it was fitted on (it never extrapolates).
   */
  marketIndex(subject: { market: string; propertyType: PropertyType }, date: string): number {
    return marketIndexAt(this.state.regressions, subject, date)
  }

  /** Log-scale centre and scale only (used by calibration). */
  predictLog(subject: Subject, asOf: string): LogPrediction | NoValue {
    const estimate = estimateFromComps(this.state, this.opt(subject.market), subject, asOf)
    if ("reason" in estimate) return { reason: estimate.reason }
    const { basis, center, ess, premium, resale, scale } = estimate
    return { center, scale, ess, basis, resale, premium }
  }

  /** Values the subject as of `asOf` (yyyy-mm-dd) using only comparable sales dated before `asOf`. */
  value(subject: Subject, asOf: string): Valuation | NoValue {
    const estimate = estimateFromComps(this.state, this.opt(subject.market), subject, asOf)
    if ("reason" in estimate) return { reason: estimate.reason }
    const { adjustedLogValues, basis, bucket, center, ess, positions, premium, resaleDay, scale, subjectMarketIndex } =
      estimate
    const calibration = calibrationFor(this.calibration, subject.market, basis)
    const quantiles = predictiveQuantiles(calibration, center, scale)
    const mean = predictiveMean(calibration, center, scale)
    const comps: Array<Comp> = positions.map((i, k) => {
      const sale = bucket.sales[i]
      return {
        sale,
        weight: estimate.weights[k],
        likeness: estimate.likenesses[k],
        adjustedValue: Math.exp(adjustedLogValues[k]),
        timeAdjustedPrice: sale.price * Math.exp(subjectMarketIndex - saleMarketIndex(bucket, basis, i)),
        pricePerSqft: sale.livingArea ? sale.price / sale.livingArea : undefined
      }
    })
    comps.sort((a, b) => b.weight - a.weight)
    return {
      quantiles,
      mean,
      effectiveSampleSize: ess,
      comps,
      basis,
      center,
      scale,
      ...(resaleDay === undefined ? {} : { resaleSaleDate: isoOfDay(resaleDay) }),
      ...(resaleDay !== undefined && premium !== 0 ? { resalePremium: premium } : {})
    }
  }
}

/**
 * Fits the model on training sales (the caller passes only sales dated before the split).
 * Comparable sales = arm's-length sales (src/property/nyc-dof.ts) inside their neighbourhood's outlier fences.
 */
export function fitModel(sales: Array<Sale>, options: Partial<ModelOptions> & { calibrate?: boolean } = {}): Model {
  const { calibrate = true, ...rest } = options
  const model = new Model({ ...DEFAULT_OPTIONS, ...rest })
  model.fitFences(sales)
  const clean = model.indexSales(sales)
  if (calibrate) model.calibrate(clean)
  return model
}
