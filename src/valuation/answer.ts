/**
 * The Scored answer, assembled from the scoring step's outcome by pure arithmetic: facts with origins, the
 * model's distribution (or its withholding), the comp band, the repair budget, the rehab-adjusted ARV, the
 * MAO with its cost stack, the as-is similar band and the listed comps.
 */
import type { AddressMatch } from "../../schema/address-match.js"
import {
  type Comp,
  quantileLevels,
  type ScoredAnswer,
  type ValuationEvidence,
  type ValueDistribution
} from "../../schema/scored-answer.js"
import type { ScoredCall } from "../../schema/scored-call.js"
import { cautionsFor, type UncountedSale } from "./cautions.js"
import {
  agreementRange,
  asIsSimilarBand,
  type ComparableSale,
  compBandOf,
  type ModelEstimate,
  weightedCompDistance
} from "./comps.js"
import type { Currency } from "./currency.js"
import type { ValuationDates } from "./dates.js"
import { type CountyFacts, effectiveFacts, recordFacts, subjectPropertyOf } from "./facts.js"
import { maximumAllowableOffer, rehabAdjustedArv, rehabBudgetFor } from "./offer.js"
import { CURRENT_DATA_DAYS, DEFAULT_TARGET_MARGIN } from "./policy.js"

export const MAX_LISTED_COMPS = 10

export interface ScoringOutcome {
  readonly subject: {
    readonly propertyId: string
    /** The normalised matched address. */
    readonly address: string
    readonly record: CountyFacts
    /** How the address the call sent matched the property's. */
    readonly match?: AddressMatch | undefined
    /**
     * The address sent named no town, neighbourhood, suburb or ZIP code: the property is the covered markets' only
     * one at the street address.
     */
    readonly placeLeftOut?: true | undefined
    /** The currency of its market's records (every amount of the answer is in it). */
    readonly currency?: Currency | undefined
    /** Its own latest market sale on record by the valuation date (never a comparable). */
    readonly lastSale?: { readonly date: string; readonly price: number } | undefined
    /** Where that sale was itself a flip's resale, the market purchase it resold (the history's flip rule). */
    readonly lastSaleFlippedFrom?: { readonly date: string; readonly price: number } | undefined
    /**
     * Its latest sale by the valuation date, when that sale was not taken for a market sale and is later than
     * `lastSale`: recorded as arm's-length but with its price beyond its neighbourhood's range for its recorded
     * facts, or a package sale (one deed and price over it and other parcels).
     */
    readonly uncountedSale?: UncountedSale | undefined
    /** The living areas of the middle 95% of its market's recorded sales of its group (houses or condos). */
    readonly usualLivingArea?: readonly [number, number] | undefined
    /** The lot size the call sent for a house where no recorded sale of its market has one: read by nothing. */
    readonly lotSizeUnused?: number | undefined
    /** The room counts the call sent where no recorded sale of its market has them: read by nothing. */
    readonly roomsUnused?: ReadonlyArray<"bedrooms" | "bathrooms"> | undefined
    /** Its property type (recorded or sent), where no recorded market sale of its market is of that type. */
    readonly typeWithoutSales?: string | undefined
  }
  /** The model's distribution for the subject's effective facts. */
  readonly model: ModelEstimate
  /** Comparable sales in the scoring step's ranking, the subject's own sales already removed. */
  readonly comps: ReadonlyArray<ComparableSale>
  /** The date the value applies to and how old the evidence is. */
  readonly dates: ValuationDates
  /**
   * The value is the comps model's alone because the market's learners were still being fitted (after a start
   * or a change of the data) when it was made: the same call once they are joined in may differ.
   */
  readonly learnersPending?: boolean | undefined
}

/** The model's quantiles in whole dollars, made non-decreasing. */
export const valueDistribution = (model: ModelEstimate): ValueDistribution => {
  let floor = -Infinity
  const out: Record<string, number> = {}
  for (const level of quantileLevels) {
    floor = Math.max(floor, Math.round(model.quantiles[level]))
    out[level] = floor
  }
  return out as ValueDistribution
}

/** The withheld rule: the model's median disagrees with the comp band by more than the policy allows. */
export const estimateWithheld = (median: number, band: { readonly low: number; readonly high: number } | undefined) => {
  if (band === undefined) return false
  const { high, low } = agreementRange(band)
  return median < low || median > high
}

const toWireComp = (comp: ComparableSale): Comp => ({
  property_id: comp.propertyId,
  address: comp.address,
  sale_date: comp.saleDate,
  sale_price: comp.salePrice,
  ...(comp.distanceMiles === undefined ? {} : { distance_miles: Math.round(comp.distanceMiles * 100) / 100 }),
  facts: recordFacts(comp.facts),
  similarity: Math.round(comp.similarity * 1000) / 1000
})

/** The answer's valuation date and the age of its evidence (docs/decisions.md, "Valuation dates"). */
export const valuationEvidence = (outcome: ScoringOutcome): ValuationEvidence => {
  const { callDate, dataThrough, valuationDate } = outcome.dates
  let newest: string | undefined
  for (const comp of outcome.comps) if (newest === undefined || comp.saleDate > newest) newest = comp.saleDate
  const own = outcome.subject.lastSale
  return {
    data_through: dataThrough,
    ...(newest === undefined ? {} : { newest_comparable_sale: newest }),
    ...(own === undefined ? {} : { own_last_sale: { date: own.date, price: own.price } }),
    ...(valuationDate === callDate ? {} : {
      note: `The market's recorded sales end on ${dataThrough}, more than ${CURRENT_DATA_DAYS} days before ` +
        `${callDate}: the value is as of ${valuationDate}, not the day of the call. The market index is not ` +
        "carried past its data."
    })
  }
}

/** The Scored answer; `compsListed` false for a batch entry, which lists no comps (its cautions say so). */
export const scoredAnswer = (outcome: ScoringOutcome, call: ScoredCall, compsListed = true): ScoredAnswer => {
  const facts = effectiveFacts(outcome.subject.record, call.overrides)
  const livingArea = facts.living_area_square_feet
  const distribution = valueDistribution(outcome.model)
  const bandOutcome = compBandOf(outcome.comps, livingArea)
  const band = bandOutcome.band
  const withheld = estimateWithheld(distribution["0.5"], band)
  const listed = outcome.comps.slice(0, MAX_LISTED_COMPS)
  const asIs = asIsSimilarBand(listed)
  const rehabBudget = rehabBudgetFor({ rehabBudget: call.rehab_budget, condition: call.condition }, livingArea ?? 0)
  const priced = band !== undefined || !withheld
  const targetMargin = call.target_margin ?? DEFAULT_TARGET_MARGIN

  const offer = band === undefined || livingArea === undefined
    ? undefined
    : (() => {
      const arv = rehabAdjustedArv(band, rehabBudget, livingArea)
      return { arv, ...maximumAllowableOffer(arv, rehabBudget, targetMargin) }
    })()

  const evidence = valuationEvidence(outcome)
  const unitLeftOut = outcome.subject.match?.notes.find((note) => note.kind === "ignored" && note.part === "unit")
  const recordedType = outcome.subject.record.property_type
  const streetNameCorrected = outcome.subject.match?.notes.find((note) =>
    note.kind === "corrected" && note.part === "street_name"
  )
  const cautions = cautionsFor({
    compsListed,
    unitOfHouse: unitLeftOut !== undefined && (recordedType === "two_family" || recordedType === "three_family")
      ? { unit: unitLeftOut.sent, propertyType: recordedType }
      : undefined,
    placeLeftOut: outcome.subject.placeLeftOut && outcome.subject.match !== undefined
      ? { recordedAddress: outcome.subject.match.recorded_address }
      : undefined,
    streetCorrected: streetNameCorrected === undefined || outcome.subject.match === undefined
      ? undefined
      : { sent: streetNameCorrected.sent, recordedAddress: outcome.subject.match.recorded_address },
    modelMedian: distribution["0.5"],
    withheld,
    distribution: withheld ? undefined : distribution,
    band,
    noBand: bandOutcome.reason,
    bandLikeness: bandOutcome.likeness,
    bandLivingArea: bandOutcome.livingArea,
    compsDistanceMiles: weightedCompDistance(outcome.comps),
    livingArea,
    ownLastSale: outcome.subject.lastSale,
    ownSaleFlippedFrom: outcome.subject.lastSaleFlippedFrom,
    ownUncountedSale: outcome.subject.uncountedSale,
    offer,
    afterRepair: offer === undefined ? undefined : { value: offer.arv, rehabBudget, targetMargin },
    currency: outcome.subject.currency,
    livingAreaRecorded: call.overrides?.living_area_square_feet === undefined,
    bedrooms: facts.bedrooms === undefined ? undefined : {
      count: facts.bedrooms,
      sent: call.overrides?.bedrooms !== undefined
    },
    usualLivingArea: outcome.subject.usualLivingArea,
    lotSizeUnused: outcome.subject.lotSizeUnused,
    roomsUnused: outcome.subject.roomsUnused?.map((fact) => ({ fact, count: call.overrides![fact]! })),
    typeWithoutSales: outcome.subject.typeWithoutSales === undefined ? undefined : {
      type: outcome.subject.typeWithoutSales,
      sent: call.overrides?.property_type !== undefined
    },
    newestComparableSale: evidence.newest_comparable_sale,
    yearBuilt: facts.year_built === undefined ? undefined : {
      year: facts.year_built,
      sent: call.overrides?.year_built !== undefined
    },
    valuationDate: outcome.dates.valuationDate,
    callDate: outcome.dates.callDate,
    resalePremium: outcome.model.resalePremium,
    resaleSaleDate: outcome.model.resaleSaleDate,
    dataThrough: outcome.dates.dataThrough,
    learnersPending: outcome.learnersPending,
    offerWithoutRepairs: offer === undefined || band === undefined || rehabBudget === 0
      ? undefined
      : maximumAllowableOffer(band.middle, 0, targetMargin)
  })

  return {
    model_estimate_available: !withheld,
    subject_property: subjectPropertyOf(outcome.subject, call.overrides),
    valuation_date: outcome.dates.valuationDate,
    ...(outcome.subject.currency === undefined ? {} : { currency: outcome.subject.currency }),
    evidence,
    ...(withheld ? {} : {
      pricing_model_arv_estimate: Math.round(distribution["0.5"] / 1000) * 1000,
      value_distribution: distribution,
      valuation_mean: Math.round(outcome.model.mean),
      effective_sample_size: Math.round(outcome.model.effectiveSampleSize * 100) / 100,
      ...(outcome.model.unusualSize === undefined ? {} : {
        unusual_size: {
          facts: [...outcome.model.unusualSize.facts],
          range_widened_by: Math.round(outcome.model.unusualSize.factor * 100) / 100
        }
      })
    }),
    ...(band === undefined ? {} : { comp_band: band }),
    ...(priced ? { rehab_budget: rehabBudget } : {}),
    ...(offer === undefined ? {} : {
      rehab_adjusted_arv: offer.arv,
      target_margin: targetMargin,
      max_allowable_offer: { price: offer.price, clamped: offer.clamped },
      cost_stack: offer.costStack
    }),
    ...(asIs === undefined ? {} : { as_is_similar_band: asIs }),
    ...(cautions.length === 0 ? {} : { cautions }),
    ...(listed.length === 0 ? {} : { comps: listed.map(toWireComp) })
  }
}

/** A batch entry: the Scored answer without `comps` (BAT-2), its cautions saying where the comps are. */
export const scoredEntry = (outcome: ScoringOutcome, call: ScoredCall) => {
  const { comps: _comps, ...entry } = scoredAnswer(outcome, call, false)
  return entry
}
