/** What the scoring step returns for a subject, and the bands the valuation derives from its comps. */
import type { AsIsSimilarBand, CompBand, QuantileLevel } from "../../schema/scored-answer.js"
import type { CountyFacts } from "./facts.js"
import {
  MAX_BAND_SIZE_RATIO,
  MAX_COMP_WEIGHT_SHARE,
  MIN_COMPS_FOR_BAND,
  MIN_EFFECTIVE_COMPS_FOR_BAND,
  WITHHOLD_ABOVE_BAND,
  WITHHOLD_BELOW_BAND
} from "./policy.js"
import { kishEffectiveSampleSize, median, weightedQuantile } from "./weighted.js"

/** A comparable sale as the scoring step ranked it. */
export interface ComparableSale {
  readonly propertyId: string
  readonly address: string
  /** ISO date, YYYY-MM-DD. */
  readonly saleDate: string
  /** The recorded price, whole dollars. */
  readonly salePrice: number
  /** The price adjusted to the valuation date by the market index. */
  readonly timeAdjustedPrice: number
  readonly distanceMiles?: number | undefined
  readonly facts: CountyFacts
  /** 0 … 1: how alike the sale is to the subject. */
  readonly similarity: number
  /** The comp's weight in the bands. */
  readonly weight: number
}

/** The size facts a property can be of unusual size in, by their wire names. */
export type SizeFact = "living_area_square_feet" | "lot_size_square_feet"

/**
 * Where a property is of unusual size for its market (a living area or lot outside the middle 95% of its
 * type's recorded sales): those facts, and the factor its range was widened by (1: its market's latest sales
 * showed such properties no harder to value).
 */
export interface UnusualSize {
  readonly facts: ReadonlyArray<SizeFact>
  readonly factor: number
}

export interface ModelEstimate {
  readonly quantiles: Readonly<Record<QuantileLevel, number>>
  readonly mean: number
  readonly effectiveSampleSize: number
  readonly unusualSize?: UnusualSize | undefined
  /**
   * The recent-resale premium (log) in the value: the subject's own market sale 3–24 months before the
   * valuation date marks it a likely renovation resale (docs/pricing-model.md, "Recent-resale premium").
   */
  readonly resalePremium?: number | undefined
  /** The property's own sale the premium keys on (ISO date), beside `resalePremium`. */
  readonly resaleSaleDate?: string | undefined
  /** What each part of the stacked model said (its medians in dollars) and the comps' weight; for evaluation. */
  readonly parts?: {
    readonly comps: number
    readonly learner?: number | undefined
    readonly compsWeight: number
  } | undefined
}

const usablePrice = (comp: ComparableSale) => Number.isFinite(comp.timeAdjustedPrice) && comp.timeAdjustedPrice > 0

const livingArea = (comp: ComparableSale) => {
  const area = comp.facts.living_area_square_feet
  return area !== undefined && area > 0 ? area : undefined
}

/**
 * One comparable sale per parcel: its latest sale (a parcel sold three times is one piece of evidence, not
 * three). The kept sale keeps its own weight; the order of `comps` is kept.
 */
export const latestSalePerParcel = (comps: ReadonlyArray<ComparableSale>): Array<ComparableSale> => {
  const latest = new Map<string, ComparableSale>()
  for (const comp of comps) {
    const kept = latest.get(comp.propertyId)
    if (
      kept === undefined || comp.saleDate > kept.saleDate ||
      (comp.saleDate === kept.saleDate && comp.weight > kept.weight)
    ) latest.set(comp.propertyId, comp)
  }
  const kept = new Set(latest.values())
  // The same entry listed twice is kept once.
  return comps.filter((comp) => kept.delete(comp))
}

/**
 * Weights with no one above `maxShare` of their total (water-filling: the largest are lowered to a common
 * ceiling t with t = maxShare · Σ min(w, t)); with fewer than 1/maxShare weights, all become equal.
 */
export const cappedWeights = (weights: ReadonlyArray<number>, maxShare: number): Array<number> => {
  const positive = weights.map((weight) => (weight > 0 && Number.isFinite(weight) ? weight : 0))
  const descending = [...positive].sort((a, b) => b - a)
  let rest = descending.reduce((sum, weight) => sum + weight, 0)
  for (let capped = 0; capped < descending.length; capped++) {
    if (capped * maxShare >= 1) break
    const ceiling = (maxShare * rest) / (1 - maxShare * capped)
    if (descending[capped]! <= ceiling) return positive.map((weight) => Math.min(weight, ceiling))
    rest -= descending[capped]!
  }
  // Fewer weights than 1/maxShare: no ceiling satisfies the share, so every sale counts the same.
  return positive.map((weight) => (weight > 0 ? 1 : 0))
}

/**
 * How far the comparable sales lie from the property, in miles: their distances averaged with the weights the
 * band gives them (one sale a parcel, its latest; no sale above MAX_COMP_WEIGHT_SHARE of the weight).
 * Undefined where a sale with weight has no distance (a market without coordinates) or there is none. It
 * decides `distant-comparable-sales`.
 */
export const weightedCompDistance = (comps: ReadonlyArray<ComparableSale>): number | undefined => {
  const weighed = latestSalePerParcel(comps).filter((comp) => comp.weight > 0)
  if (weighed.length === 0 || weighed.some((comp) => comp.distanceMiles === undefined)) return undefined
  const weights = cappedWeights(weighed.map((comp) => comp.weight), MAX_COMP_WEIGHT_SHARE)
  let total = 0
  let distance = 0
  weighed.forEach((comp, i) => {
    total += weights[i]!
    distance += weights[i]! * comp.distanceMiles!
  })
  return total > 0 ? distance / total : undefined
}

/**
 * The range a model's median must lie in to be published beside a comp band (the withheld rule):
 * [band.low × WITHHOLD_BELOW_BAND, band.high × WITHHOLD_ABOVE_BAND].
 */
export const agreementRange = (band: { readonly low: number; readonly high: number }) => ({
  low: band.low * WITHHOLD_BELOW_BAND,
  high: band.high * WITHHOLD_ABOVE_BAND
})

/** Why no comp band: too few priced comps, or too few of them near the subject's living area. */
export type NoBandReason = "too-few-priced-comps" | "too-few-of-similar-size"

export type CompBandOutcome =
  | {
    readonly band: CompBand
    /**
     * How alike the band's sales are to the property: their similarities (0 … 1) averaged with their weights
     * in the band (the capped weights its percentiles use). Not on the wire: it decides `unalike-comp-band`.
     */
    readonly likeness: number
    /**
     * The weighted median living area of the band's sales, for a band by price per square foot. Not on the wire:
     * `comp-band-above-own-sale` says how the property's size compares with theirs.
     */
    readonly livingArea?: number | undefined
    readonly reason?: undefined
  }
  | {
    readonly band?: undefined
    readonly likeness?: undefined
    readonly livingArea?: undefined
    readonly reason: NoBandReason
  }

/**
 * The comp band (ANS-7): weighted 25th/50th/75th percentiles of the comps' time-adjusted prices,
 * size-normalised (price per square foot times the subject's living area) when the subject and at least
 * three comps have a living area. Either way, a comp whose living area is recorded beyond MAX_BAND_SIZE_RATIO
 * of the subject's is left out, and with too few left there is no band (a price per square foot is not carried
 * across sizes). One sale per parcel (its latest); no sale above MAX_COMP_WEIGHT_SHARE of the weight. Absent
 * with fewer than three priced comps, or when the capped weights are worth fewer than
 * MIN_EFFECTIVE_COMPS_FOR_BAND sales.
 */
export const compBandOf = (
  comps: ReadonlyArray<ComparableSale>,
  subjectLivingArea: number | undefined
): CompBandOutcome => {
  // A sale with no weight is no evidence.
  const priced = latestSalePerParcel(comps).filter((comp) => usablePrice(comp) && comp.weight > 0)
  if (priced.length < MIN_COMPS_FOR_BAND) return { reason: "too-few-priced-comps" }
  const similarSize = (comp: ComparableSale) => {
    const area = livingArea(comp)
    return subjectLivingArea === undefined || area === undefined ||
      (area <= subjectLivingArea * MAX_BAND_SIZE_RATIO && area * MAX_BAND_SIZE_RATIO >= subjectLivingArea)
  }
  const sized = subjectLivingArea === undefined ? [] : priced.filter((comp) => livingArea(comp) !== undefined)
  const bySize = subjectLivingArea !== undefined && sized.length >= MIN_COMPS_FOR_BAND
  // By sale price too, a sale whose recorded area is beyond the ratio is left out: fewer areas on record must
  // not let a house a quarter the size in.
  const used = (bySize ? sized : priced).filter(similarSize)
  const tooFew: NoBandReason = used.length < priced.length ? "too-few-of-similar-size" : "too-few-priced-comps"
  if (used.length < MIN_COMPS_FOR_BAND) return { reason: tooFew }
  const weights = cappedWeights(used.map((comp) => comp.weight), MAX_COMP_WEIGHT_SHARE)
  if (kishEffectiveSampleSize(weights) < MIN_EFFECTIVE_COMPS_FOR_BAND - 1e-9) return { reason: tooFew }
  const pairs = used.map((comp, i) => ({
    value: bySize ? (comp.timeAdjustedPrice / livingArea(comp)!) * subjectLivingArea! : comp.timeAdjustedPrice,
    weight: weights[i]!
  }))
  const low = weightedQuantile(pairs, 0.25)
  const middle = weightedQuantile(pairs, 0.5)
  const high = weightedQuantile(pairs, 0.75)
  if (low === undefined || middle === undefined || high === undefined) return { reason: tooFew }
  let totalWeight = 0
  let weightedLikeness = 0
  used.forEach((comp, i) => {
    totalWeight += weights[i]!
    weightedLikeness += weights[i]! * comp.similarity
  })
  const areaMiddle = bySize
    ? weightedQuantile(used.map((comp, i) => ({ value: livingArea(comp)!, weight: weights[i]! })), 0.5)
    : undefined
  return {
    likeness: weightedLikeness / totalWeight,
    livingArea: areaMiddle,
    band: {
      low: Math.round(low),
      middle: Math.round(middle),
      high: Math.round(high),
      comp_count: used.length,
      method: bySize ? "price_per_square_foot" : "sale_price"
    }
  }
}

/** The comp band alone (`compBandOf` says why there is none). */
export const compBand = (
  comps: ReadonlyArray<ComparableSale>,
  subjectLivingArea: number | undefined
): CompBand | undefined => compBandOf(comps, subjectLivingArea).band

const cents = (value: number) => Math.round(value * 100) / 100

/**
 * The as-is similar band (ANS-13): the range of recorded price per square foot over the listed comps that
 * carry both a price and a living area. It feeds nothing else. Absent when no listed comp qualifies.
 */
export const asIsSimilarBand = (listed: ReadonlyArray<ComparableSale>): AsIsSimilarBand | undefined => {
  const perSquareFoot = listed
    .filter((comp) => comp.salePrice > 0 && livingArea(comp) !== undefined)
    .map((comp) => comp.salePrice / livingArea(comp)!)
  if (perSquareFoot.length === 0) return undefined
  return {
    low_per_square_foot: cents(Math.min(...perSquareFoot)),
    median_per_square_foot: cents(median(perSquareFoot)!),
    high_per_square_foot: cents(Math.max(...perSquareFoot)),
    basis: {
      comps_used: perSquareFoot.length,
      comps_listed: listed.length,
      // A batch entry carries this band but not `comps` (an investor audit read "listed" there as a list it
      // could not find), so the words say which sales these are either way.
      description: `Recorded sale price per square foot of living area of the ${perSquareFoot.length} ` +
        `comparable sale${perSquareFoot.length === 1 ? "" : "s"}, among those a single call lists in \`comps\`, ` +
        `that carry both; as recorded, not time-adjusted.`
    }
  }
}
