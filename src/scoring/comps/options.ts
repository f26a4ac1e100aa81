// The comparable-sales model's tuning: every kernel width, pseudo-count and ridge penalty, with the default
// values chosen on validation sales (docs/pricing-model.md records how), and per-market overrides.
import { RESALE_MONTHS } from "../../valuation/policy.js"

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
  /**
   * A comp whose adjusted log value lies more than this many interquartile ranges of the comps' own beyond
   * their quartiles (among five or more) is neither counted nor listed: a price no neighbour's explains.
   */
  localFenceIqr: number
  /** ridge penalties in the hedonic regression: neighbourhood effects, month effects, building-class effects */
  ridgeNeighborhood: number
  ridgeMonth: number
  ridgeClass: number
  /** months at the end of the training period used for the leave-one-out calibration */
  calibrationMonths: number
  /**
   * the most recent earlier recent resales per market valued leave-one-out for the resale premium (a median):
   * a bound on build time at scale, where they outnumber the calibration window's sales many times over
   */
  maxPremiumResales: number
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
  resaleMonths: RESALE_MONTHS.most,
  resaleMinMonths: RESALE_MONTHS.fewest,
  resalePremiumPseudoCount: 20,
  neighborhoodAdjustment: 0.5,
  hedonicPseudoCount: 3,
  condoPriceHedonicPseudoCount: 1,
  scalePseudoCount: 5,
  outlierFenceIqr: 3,
  // Out of time (NYC 2019, Melbourne) 3, 2 and 1.5 were alike within 0.1 point of MdAPE in every market but
  // Manhattan (docs/pricing-model.md); 3 kept a $60,000 sale the first comp of $400,000 houses, 1.5 drops 4%
  // of Melbourne's comps, 2 drops 1.8%.
  localFenceIqr: 2,
  ridgeNeighborhood: 5,
  ridgeMonth: 20,
  ridgeClass: 10,
  calibrationMonths: 3,
  maxPremiumResales: 10_000,
  relativeWeightFloor: 1e-3,
  mileBandwidth: 1,
  maxMiles: 15,
  // Chosen on late-2018 validation sales (docs/pricing-model.md); Queens: 50 blocks, 11.61% vs 11.70% at 80.
  markets: { "Staten Island": { blockBandwidth: 15 }, Queens: { blockBandwidth: 50 } }
}

/** The options for one market: the global options merged with the market's overrides. */
export const optionsForMarket = (options: ModelOptions, market: string): ModelOptions => ({
  ...options,
  ...(options.markets[market] ?? {})
})
