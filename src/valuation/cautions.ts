/**
 * The answer's cautions (docs/decisions.md, "Cautions"): what a reader should know before relying on its
 * figures, each with a stable code and the figures in words. Pure: decided from the answer's own parts.
 */
import type { Caution, CompBand, Currency, ValueDistribution } from "../../schema/scored-answer.js"
import { agreementRange, type NoBandReason } from "./comps.js"
import { amountIn } from "./currency.js"
import { DAYS_PER_MONTH, daysBetween } from "./dates.js"
import {
  AFTER_REPAIR_BELOW_OWN_SALE,
  atLeastShareOf,
  BAND_ABOVE_MODEL,
  DISTANT_COMPS_MILES,
  DOUBTFUL_AREA_FACTOR,
  FULL_LIFT_PER_SQUARE_FOOT,
  MAX_BAND_SIZE_RATIO,
  MIN_AREA_PER_BEDROOM,
  MIN_COMPS_FOR_BAND,
  NARROW_BAND_RATIO,
  OLD_COMPS_DAYS,
  OWN_SALE_CAUTION_DAYS,
  RESALE_MONTHS,
  UNALIKE_BAND_LIKENESS,
  VALUE_BELOW_RECENT_FLIP_RESALE,
  VALUE_FAR_FROM_OWN_SALE,
  WIDE_BAND_RATIO,
  WITHHOLD_ABOVE_BAND,
  WITHHOLD_BELOW_BAND
} from "./policy.js"

/** A share in percent, to a tenth where it is not whole (a caller's `target_margin` of 0.125 is 12.5%, not 13%). */
const percent = (share: number) => `${Number((share * 100).toFixed(1))}%`

const squareFeet = (area: number) => Math.round(area).toLocaleString("en-US")

/** The answer's comps, as a caution names them: listed in a single call's answer, not in a batch entry. */
const theComps = (listed: boolean) => listed ? "the listed comps" : "the comps a single call's answer lists"

/** A sale of the property the answer says it did not count, and why. */
export type UncountedSale = {
  readonly date: string
  readonly price: number
  /** `fenced`: recorded as arm's-length, but its price beyond its neighbourhood's fences for its facts. */
  readonly why: "fenced"
} | {
  readonly date: string
  readonly price: number
  /** `package`: one deed and price over `parcels` parcels, this one among them. */
  readonly why: "package"
  readonly parcels: number
} | {
  readonly date: string
  readonly price: number
  /** `split`: several prices recorded for it that day (split deeds or partial interests), `prices`. */
  readonly why: "split"
  readonly prices: ReadonlyArray<number>
}

export interface CautionInputs {
  /**
   * Whether the answer lists its comps: a batch entry does not (BAT-2), and its cautions say where they are
   * instead of sending the reader to a list it does not have (an assistant developer's audit, 2026-11-30).
   */
  readonly compsListed: boolean
  /** The model's median, whole dollars (withheld or not). */
  readonly modelMedian: number
  readonly withheld: boolean
  /** The model's distribution as published (absent when withheld). */
  readonly distribution?: ValueDistribution | undefined
  readonly band?: CompBand | undefined
  /** Why there is no band, when there is none. */
  readonly noBand?: NoBandReason | undefined
  /** How alike the band's sales are to the property, weighted as in the band (`CompBandOutcome.likeness`). */
  readonly bandLikeness?: number | undefined
  /** The weighted median living area of the band's sales, for a band by price per square foot (`CompBandOutcome`). */
  readonly bandLivingArea?: number | undefined
  /** How far the comparable sales lie, in miles, weighted as in the band (`weightedCompDistance`). */
  readonly compsDistanceMiles?: number | undefined
  readonly livingArea?: number | undefined
  readonly ownLastSale?: { readonly date: string; readonly price: number } | undefined
  /** Where `ownLastSale` was itself a flip's resale, the purchase it resold. */
  readonly ownSaleFlippedFrom?: { readonly date: string; readonly price: number } | undefined
  /** Its latest sale, when not taken for a market sale and later than `ownLastSale`. */
  readonly ownUncountedSale?: UncountedSale | undefined
  readonly valuationDate: string
  /** The offer published, when there is one. */
  readonly offer?: { readonly price: number; readonly clamped: boolean } | undefined
  /** The after-repair value the offer is built on (`rehab_adjusted_arv`), and the repairs and margin it was solved at. */
  readonly afterRepair?: {
    readonly value: number
    readonly rehabBudget: number
    readonly targetMargin: number
  } | undefined
  readonly currency?: Currency | undefined
  /** Whether the living area is the record's (not the call's override). */
  readonly livingAreaRecorded?: boolean | undefined
  /** The bedrooms the property was valued with, and whether the call sent them (`overrides.bedrooms`). */
  readonly bedrooms?: { readonly count: number; readonly sent: boolean } | undefined
  /** The living areas of the middle 95% of the market's recorded sales of the property's group. */
  readonly usualLivingArea?: readonly [number, number] | undefined
  /** The newest comparable sale's date (`evidence.newest_comparable_sale`). */
  readonly newestComparableSale?: string | undefined
  /**
   * The unit the address sent, where the record holds the address as one house of two or three families (its
   * apartments the house's, none a property of its own) and the unit was therefore left out of the match.
   */
  readonly unitOfHouse?: { readonly unit: string; readonly propertyType: string } | undefined
  /**
   * The address sent named no town, neighbourhood, suburb or ZIP code, and was found as the covered markets' only
   * property at its street address: that property's address as recorded.
   */
  readonly placeLeftOut?: { readonly recordedAddress: string } | undefined
  /** The street name sent was corrected to the record's (a `corrected` note): the name sent, and the address found. */
  readonly streetCorrected?: { readonly sent: string; readonly recordedAddress: string } | undefined
  /** The day of the call (the valuation date when the market's data is current). */
  readonly callDate?: string | undefined
  /** The market's latest recorded sale (`evidence.data_through`). */
  readonly dataThrough?: string | undefined
  /** The recent-resale premium (log) in the model's value, where there is one (`ModelEstimate.resalePremium`). */
  readonly resalePremium?: number | undefined
  /** The property's own sale that premium keys on (`ModelEstimate.resaleSaleDate`). */
  readonly resaleSaleDate?: string | undefined
  /** The property's type, where no recorded market sale of its market is of it, and whether the call sent it. */
  readonly typeWithoutSales?: { readonly type: string; readonly sent: boolean } | undefined
  /** The value is the comps model's alone, the market's learners still being fitted (`ScoringOutcome`). */
  readonly learnersPending?: boolean | undefined
  /** The year built the property was valued with, and whether the call sent it (`overrides`). */
  readonly yearBuilt?: { readonly year: number; readonly sent: boolean } | undefined
  /** The lot size the call sent for a house where no recorded sale of its market has one (read by nothing). */
  readonly lotSizeUnused?: number | undefined
  /** The room counts the call sent where no recorded sale of its market has them (read by nothing). */
  readonly roomsUnused?: ReadonlyArray<{ readonly fact: "bedrooms" | "bathrooms"; readonly count: number }> | undefined
  /** The offer at the same margin for the property as it stands (no repairs, no lift), where repairs are priced. */
  readonly offerWithoutRepairs?: { readonly price: number; readonly clamped: boolean } | undefined
}

const withheldCaution = (median: number, band: CompBand, dollars: (amount: number) => string): Caution => {
  const above = median > agreementRange(band).high
  return {
    code: "estimate-withheld",
    detail: `The pricing model's estimate is withheld: it lay ${
      above
        ? `more than ${percent(WITHHOLD_ABOVE_BAND - 1)} above the comp band's high (${dollars(band.high)})`
        : `more than ${percent(1 - WITHHOLD_BELOW_BAND)} below the comp band's low (${dollars(band.low)})`
    }. The comp band, the after-repair value and the offer come from the comparable sales alone, which the ` +
      "model did not agree with: check the comparable sales and the property's facts before relying on them."
  }
}

/**
 * What no band says of the value itself. Out of time (fit before the split, value after: 172 such answers on the
 * NYC and Melbourne files, 2026-11-30), values given without a band were a median 18.8% (NYC) and 20.2%
 * (Melbourne) from the price, against 12.8% and 9.3% with one, and their 10–90% range held it 65% and 61% of the
 * time; an investor's audit met a 44 m² unit valued at A$838,000 from houses of 72–135 m² with nothing said of the
 * value (docs/decisions.md, "Cautions").
 */
const noBandValueNote = (compsListed: boolean) =>
  " The value itself is less sure without a band: out of time, values given without one were further from the " +
  "sale price (a median 19–20% off, against 13% with one in New York City and 9% in Melbourne), and their " +
  `10–90% range held it only about 60–65% of the time: set it beside the facts and similarity of ${
    theComps(compsListed)
  }.`

const noBandCaution = (reason: NoBandReason, livingArea: number | undefined, compsListed: boolean): Caution => ({
  code: "no-comp-band",
  detail: (reason === "too-few-of-similar-size" && livingArea !== undefined
    ? `No comp band, after-repair value or offer: fewer than 3 comparable sales have a living area ` +
      `within ${MAX_BAND_SIZE_RATIO} times this property's ${squareFeet(livingArea)} square feet ` +
      `(${squareFeet(Math.ceil(livingArea / MAX_BAND_SIZE_RATIO))} to ` +
      `${squareFeet(Math.floor(livingArea * MAX_BAND_SIZE_RATIO))}), and a price per square foot does ` +
      "not carry across sizes. The model's value, where given, is from the sales of every size."
    // (Sales with no weight, too unlike the property to count, are none: a living area or lot far beyond its
    // neighbours', sent or recorded, leaves few alike; an agent's audit, 2026-11-29, sent 100,000 sq ft in
    // Melbourne and was told only of usable prices.)
    // (Nor is it always the size: `5615 Lupin Ln, Pollock Pines` had two sales alike in size and nothing else
    // near; told its size was the cause, an agent's audit, 2026-11-29.)
    : "No comp band, after-repair value or offer: fewer than 3 comparable sales both have a usable price and are " +
      "alike enough to this property to count (one sale a property, its latest): the records hold too few sales " +
      "near it of its kind, or a living area or lot size far beyond its neighbours' leaves few alike " +
      `(${theComps(compsListed)} show which).`) + noBandValueNote(compsListed)
})

/**
 * A band from the fewest sales a band is given from: out of time (docs/decisions.md, "Cautions") such bands'
 * middles were about 1.5–2.5 times further from the prices than those of four sales or more.
 */
const thinBandCaution = (band: CompBand, compsListed: boolean): Caution | undefined =>
  band.comp_count > MIN_COMPS_FOR_BAND ? undefined : {
    code: "thin-comp-band",
    detail: `The comp band rests on ${band.comp_count} comparable sales, the fewest a band is given from: one ` +
      "sale more or less could move its middle, the after-repair value and the offer a long way. Set them beside " +
      `the model's value (where it is given) and ${theComps(compsListed)} before relying on them.`
  }

/**
 * A band whose high is less than NARROW_BAND_RATIO times its low: the few closely priced sales that carry most of its
 * weight make it look surer than it is (its quartiles are of the comps' values, not a range of the value), and a
 * repair budget lifts the after-repair value toward its high, so hardly at all.
 */
const narrowBandCaution = (inputs: CautionInputs): Caution | undefined => {
  const band = inputs.band
  if (band === undefined || band.high / band.low >= NARROW_BAND_RATIO) return undefined
  const dollars = amountIn(inputs.currency)
  const repairs = `repair budget lifts the after-repair value only toward the band's high, so hardly at all here: ` +
    `check ${theComps(inputs.compsListed)} and the property's condition before relying on the offer.`
  return {
    code: "narrow-comp-band",
    detail: `The comp band's high (${dollars(band.high)}) is only ${percent(band.high / band.low - 1)} above its ` +
      `low (${dollars(band.low)}): the sales that carry most of its weight were priced close together, which ` +
      "says little of how sure the value is. Out of time, bands this narrow held the later sale price between " +
      "their low and high a tenth to a fifth of the time, against about half for all bands, though their " +
      "middles were as near the price as others'. " +
      // (Withheld, the answer gives no distribution to point to.)
      (inputs.withheld
        ? `A ${repairs}`
        : `The value's range (\`value_distribution\`) is the measure of its uncertainty; and a ${repairs}`)
  }
}

/**
 * A band whose sales disagree widely (its high at least WIDE_BAND_RATIO times its low): its middle, and so the
 * after-repair value and the offer, rest on where between them the property lies, which the band cannot say.
 */
const wideBandCaution = (
  band: CompBand,
  dollars: (amount: number) => string,
  compsListed: boolean
): Caution | undefined => {
  const ratio = band.high / band.low
  return ratio < WIDE_BAND_RATIO ? undefined : {
    code: "wide-comp-band",
    detail:
      `The comp band's high (${dollars(band.high)}) is ${ratio.toFixed(1)} times its low (${
        dollars(band.low)
      }): its comparable sales disagree that much about what this property ` +
      "is worth, and its middle, the after-repair value and the offer rest on where between them it lies. Out " +
      "of time, the middles of bands this wide were about twice as far from the sale price as the middles of all " +
      `bands: check ${theComps(compsListed)} and the property's condition before relying on them.`
  }
}

/**
 * A band from sales little like the property (their similarity, weighted as in the band, under
 * UNALIKE_BAND_LIKENESS): where no alike sale is near, the nearest sales of other kinds or ages set its middle,
 * the after-repair value and the offer, and the listed similarities show it only to a reader who looks.
 */
const unalikeBandCaution = (inputs: CautionInputs): Caution | undefined => {
  const likeness = inputs.bandLikeness
  if (inputs.band === undefined || likeness === undefined || likeness >= UNALIKE_BAND_LIKENESS) return undefined
  return {
    code: "unalike-comp-band",
    detail: `The comp band rests on sales little like this property: weighted as in the band, their similarity ` +
      `averages ${likeness < 0.001 ? "under 0.001" : likeness.toFixed(3)} (1 is a sale of the same type, class, ` +
      "size, lot and age; each difference lowers it), so they differ from it in kind, class, living area, lot " +
      "size or age (set their facts beside its own to see which), and its middle, the after-repair value and the " +
      "offer rest on how far such sales carry. Out of time, " +
      "the middles of bands this unalike were about 1.4 to 1.8 times further from the sale price than those of " +
      "other bands: set the band beside the model's value (where it is given) and check the facts of " +
      `${theComps(inputs.compsListed)} before relying on it.`
  }
}

/**
 * Comparable sales far from the property (their distance, weighted as in the band, DISTANT_COMPS_MILES or more):
 * where no sale is near, sales from other towns set the value's evidence, the band and the offer, and the
 * effective sample size and the range do not show how far they carry.
 */
const distantCompsCaution = (inputs: CautionInputs): Caution | undefined => {
  const miles = inputs.compsDistanceMiles
  if (miles === undefined || miles < DISTANT_COMPS_MILES) return undefined
  return {
    code: "distant-comparable-sales",
    detail: `The comparable sales lie ${miles.toFixed(1)} miles from this property on average (weighted by how ` +
      "much each counts), in other places whose prices may not be this one's. Out of time (Melbourne's sales, fitted " +
      "before 2017-07-01 and valued after), where they averaged 5 to 8 miles away the values were a median " +
      "18% from the sale price and the band middles 20%, and from 8 miles 37% and 24%, against 8–11% and 11–15% " +
      "for nearer sales, and the 0.1–0.9 range held 57% and 36% of the prices against 75–85%. Read " +
      // (Without a band there is no band or offer to read so: an agent's audit, 2026-11-29, `14151 Indio Dr`.)
      `${inputs.band === undefined ? "the value and its range" : "the value, its range, the band and the offer"} ` +
      `as less sure than they look, and check the places of ${theComps(inputs.compsListed)}.`
  }
}

/**
 * The newest comparable sale long before the valuation date: the value is of that time, carried forward by a
 * market index that is never extrapolated past its data (every NYC condominium: its kind's 2019 records carry no
 * living area, and the answer said only that the market's sales ran to 2019-12-31).
 */
const oldCompsCaution = (inputs: CautionInputs): Caution | undefined => {
  const newest = inputs.newestComparableSale
  if (newest === undefined) return undefined
  const age = daysBetween(newest, inputs.valuationDate)
  return age <= OLD_COMPS_DAYS ? undefined : {
    code: "old-comparable-sales",
    detail: `The newest comparable sale is from ${newest}, ${age.toLocaleString("en-US")} days before the ` +
      `valuation date (${inputs.valuationDate}): the records hold no later sale of properties like this one that ` +
      "the valuation can use (a sale without the facts it needs, such as a living area, is none), and the market " +
      "index of its kind is not carried past its data, so the value reflects the prices of that time, held level " +
      `to the valuation date. Prices may have moved since ${newest}.`
  }
}

/**
 * The value is of a day before the call's: the market's records end long before it, and the value is not
 * carried past them (docs/decisions.md, "Valuation dates"). `evidence.note` said so, but an agent told to read
 * `cautions` before relying on the figures found none on an answer valued seven years before the call (an
 * agent's audit, 2026-11-28).
 */
const pastValuationDateCaution = (inputs: CautionInputs): Caution | undefined => {
  const { callDate, valuationDate } = inputs
  if (callDate === undefined || valuationDate >= callDate) return undefined
  const days = daysBetween(valuationDate, callDate)
  const years = days / 365.25
  return {
    code: "past-valuation-date",
    detail:
      `The value is as of ${valuationDate}, ${days.toLocaleString("en-US")} days (${
        years >= 1 ? `about ${years.toFixed(1)} years` : "under a year"
      }) before this call (${callDate}): the market's recorded sales end on ${inputs.dataThrough ?? valuationDate}, ` +
      "and the value is not carried past them (its market index is never extrapolated). The value, the comp band, " +
      "the after-repair value and the offer are of that date, not of today: prices may have moved a long way since."
  }
}

/**
 * The value is the comps model's alone because the market's learners were still being fitted: for a minute or so
 * after the service starts on new data or its data changes, it answers at once from the comparable-sales model
 * and joins the learners in when they are fitted. Nothing said so (an investor audit, 2026-11-29: the same
 * Melbourne house valued A$995,000 36 seconds after a start and A$1,076,000 from the next call on, its range and
 * cautions changed with it); out of time the comps model alone is the weaker (bench:accuracy, "comps MdAPE").
 */
const learnersPendingCaution = (inputs: CautionInputs): Caution | undefined =>
  inputs.learnersPending === true
    ? {
      code: "pricing-model-incomplete",
      detail: "The value and its range are the comparable-sales model's alone: the other part of the pricing " +
        "model, a learner fitted on this market's recorded sales and stacked with the comparable sales, was still " +
        "being fitted when this call was made (as it is for a minute or so after the service starts on new data " +
        "or its data changes). Out of time the comparable-sales model alone was further from the prices (its " +
        "median error 10.4–21.2% against the stack's 9.9–16.7% on the NYC files, 12.9% against 9.5% on " +
        "Melbourne's). The comp band, and the after-repair value and offer built on it, come from the " +
        "comparable sales either way; the same call made again in a few minutes may give another value and range."
    }
    : undefined

/**
 * The property was built, or is to be built, after the valuation date: the figures value a house of its facts as
 * of a date it did not yet stand, from sales of houses that did. Nothing said it (an agent's audit, 2026-11-29: a
 * `year_built` of next year, which the contract allows for a house under construction, was valued as of the
 * market's last recorded sales in 2019 with no word of it).
 */
const builtAfterValuationDateCaution = (inputs: CautionInputs): Caution | undefined => {
  const built = inputs.yearBuilt
  if (built === undefined || built.year <= Number(inputs.valuationDate.slice(0, 4))) return undefined
  return {
    code: "built-after-valuation-date",
    detail: `The year built (${built.year}${built.sent ? ", as sent in `overrides`" : ""}) is after the valuation ` +
      `date (${inputs.valuationDate}): the figures are what the recorded sales up to then say a property of these ` +
      "facts was worth at that date, as if it stood then, not a value of the finished " +
      "property on completion, which the records cannot show."
  }
}

/**
 * A unit sent for a house of two or three families: the match left the unit out (a `match.notes` entry), and the
 * answer valued the whole house. An agent told to read `cautions` found nothing on `3 Oak Ave Apt 2` but the
 * whole two-family house's value and offer, which a user who asked about one flat would take for the flat's (an
 * agent's audit, 2026-11-29).
 */
const unitOfHouseCaution = (inputs: CautionInputs): Caution | undefined => {
  const sent = inputs.unitOfHouse
  if (sent === undefined) return undefined
  return {
    code: "whole-building-valued",
    detail: `The address sent names unit ${sent.unit}, but the record holds this address as one property, a ` +
      `${sent.propertyType.replace(/_/g, "-")} house whose apartments are the house's, none recorded or sold ` +
      `on its own: every figure here (the value, its range${
        inputs.band === undefined ? "" : ", the band and the offer"
      }) is the whole house's, not one apartment's.`
  }
}

/**
 * The address named no place (no town, neighbourhood, suburb or ZIP code) and was found as the one property at its
 * street address in the covered markets: a property of the same street address elsewhere, outside them, would have
 * been valued as this one. `match.method` stays `exact` (the street address is the record's), and `match.notes`
 * has no note for a part left out, so an agent told to read `cautions` was charged for it with nothing to check (an
 * agent's audit, 2026-11-29: `3 Pine Ct`).
 */
const placeLeftOutCaution = (inputs: CautionInputs): Caution | undefined =>
  inputs.placeLeftOut === undefined ? undefined : {
    code: "place-not-sent",
    detail:
      `The address sent names no town, suburb or ZIP code: it was taken for ${inputs.placeLeftOut.recordedAddress}, ` +
      "the only property at this street address in the covered markets. If the property meant is elsewhere, " +
      "every figure here is this one's, not its own: send the address with its town or ZIP code (an address " +
      "outside the covered markets is refused, and costs nothing)."
  }

/**
 * The street name sent was corrected to a record's (`39 Corel Court` valued as 39 CORAL CT): said only in
 * `match.notes` until 2026-11-30, so an agent told to read `cautions` relayed the value of a property whose
 * street it had not typed (an agent's audit). The correction is one or two letters on a name of its place; the
 * caution names the property valued.
 */
const streetCorrectedCaution = (inputs: CautionInputs): Caution | undefined =>
  inputs.streetCorrected === undefined ? undefined : {
    code: "street-name-corrected",
    detail: `The street name sent (${inputs.streetCorrected.sent}) is not on record in the place sent and was read ` +
      `as a misspelling of another: the property valued is ${inputs.streetCorrected.recordedAddress}. If that ` +
      "is not the property meant, every figure here is another's: send the address as its record spells it."
  }

/**
 * No recorded market sale of the market is of the property's type: the value, its range, the band and the offer
 * all come from sales of other types. Nothing said it (an investor audit, 2026-11-29: `101 The Fairway, Kingsbury`
 * sent as `manufactured` was valued, banded and offered as the houses around it, A$512,000, the same offer).
 */
const typeWithoutSalesCaution = (inputs: CautionInputs): Caution | undefined => {
  const unsold = inputs.typeWithoutSales
  if (unsold === undefined) return undefined
  const type = unsold.type.replace(/_/g, " ")
  return {
    code: "no-sales-of-type",
    detail:
      `No recorded market sale in this property's market is of its type (${type}${
        unsold.sent ? ", as sent in `overrides`" : ""
      }): the value, its range, the comp band and the offer all come from sales of other types (${
        inputs.compsListed
          ? "each listed comp's `facts.property_type`"
          : "each comp's `facts.property_type`, in a single call's answer,"
      } says which), and a property of this type may sell well above or below them. The ` +
      "figures are those of a property of the other types with these facts, not evidence of this type's price."
  }
}

/**
 * The model's value carries the recent-resale premium: the property's own market sale 3 to 24 months (RESALE_MONTHS) before the
 * valuation date marks it a likely renovation resale, and such resales sold above their comparable sales on
 * average (docs/pricing-model.md, "Recent-resale premium"). Nothing said it (an investor audit, 2026-11-28: a
 * house bought three months before was valued as if renovated since); the premium is what such sales showed,
 * not a fact about this house.
 */
const resalePremiumCaution = (inputs: CautionInputs): Caution | undefined => {
  const lift = inputs.resalePremium
  if (lift === undefined || inputs.distribution === undefined) return undefined
  const share = Math.exp(lift) - 1
  if (Math.abs(share) < 0.005) return undefined
  // The sale named is the one the premium keys on (`resaleSaleDate`, the engine's rule says which): the latest
  // market sale, or a sale of the property's recorded as arm's-length but not taken for a market one (its price
  // beyond its neighbourhood's: `own-sale-not-counted`), which the premium counts too. Called a market sale beside
  // that caution, it contradicted it (an investor audit, 2026-11-28: `27 Burroughs Rd, Balwyn`); and re-deriving
  // the sale here from the dates named the purchase 18 months back where the premium keyed on its fenced resale
  // 6 months back (a review, 2026-12-01). (A package sale is not arm's-length: the premium never keys on one.)
  const date = inputs.resaleSaleDate
  // (Months as the premium's rule counts them.)
  const months = date === undefined ? 0 : Math.round(daysBetween(date, inputs.valuationDate) / DAYS_PER_MONTH)
  const own = date !== undefined && inputs.ownLastSale?.date === date ? inputs.ownLastSale : undefined
  const uncounted = date !== undefined && own === undefined && inputs.ownUncountedSale?.why === "fenced" &&
      inputs.ownUncountedSale.date === date
    ? inputs.ownUncountedSale
    : undefined
  const which = date === undefined
    ? `The property's own sale ${RESALE_MONTHS.fewest} to ${RESALE_MONTHS.most} months before the valuation date`
    : `The property's own sale on ${date}, about ${months} months before the valuation date${
      own !== undefined
        // "Recorded as": its price may still be no market one (own-sale-outside-range may say so beside it: an
        // investor's audit, 2026-12-01, of a $105,780 sale of a house valued near $1M called a "market sale").
        ? " (recorded as a market sale)"
        : uncounted === undefined
        ? ""
        : " (arm's-length on its deed, though its price was not taken for a market one)"
    },`
  // That sale itself a flip's resale (its history lists the flip): the premium is kept, as measured, and said so
  // (an agent's audit, 2026-11-29: `116-46 227th St, Queens`, bought for $315,000 and resold for $560,000 140
  // days later, was told its value carried the premium of a likely renovation resale, and nothing of the flip).
  const flippedFrom = own === undefined ? undefined : inputs.ownSaleFlippedFrom
  const dollars = amountIn(inputs.currency)
  return {
    code: "recent-resale-premium",
    detail:
      // (What the records show is a purchase, not work done since: "marks it a likely renovation resale" read as a
      // claim about the house to an agent's audit, 2026-11-30, of a house with one recorded sale.)
      `${which} makes a sale at the valuation date a resale soon after a purchase: properties resold ${RESALE_MONTHS.fewest} to ${RESALE_MONTHS.most} months after one (many ` +
      `bought to be renovated) sold on average ${share > 0 ? "above" : "below"} the model's value of a property ` +
      "with the same facts otherwise, and the model's value carries that " +
      `difference: ${share > 0 ? "+" : "−"}${percent(Math.abs(share))} (the value's median without it: ${
        dollars(inputs.modelMedian / Math.exp(lift))
      }). It is what such resales showed, not a fact ` +
      `about this property: if it has not been improved since that sale, the value is about that much too ${
        share > 0 ? "high" : "low"
      }.${
        flippedFrom === undefined ?
          "" :
          ` That sale was itself a flip's resale, of a purchase on ${flippedFrom.date} ` +
          `for ${dollars(flippedFrom.price)} (its history lists it): houses resold again within a year of a resale ` +
          "still sold above their comparable sales on average (later ones were too few to measure), so the premium " +
          "is kept, but whatever work the flip paid for is in that sale's price already."
      }`
  }
}

/** An own sale on or before the valuation date, at most OWN_SALE_CAUTION_DAYS before it. */
const recentEnough = (date: string, valuationDate: string) => {
  const age = daysBetween(date, valuationDate)
  return age >= 0 && age <= OWN_SALE_CAUTION_DAYS
}

/** The range the own sale is set beside: the model's 5–95% range, else the band widened as the withheld rule is. */
const valueRange = (inputs: CautionInputs) => {
  if (inputs.distribution !== undefined) {
    return {
      low: inputs.distribution["0.05"],
      high: inputs.distribution["0.95"],
      name: "the 5–95% range of its value"
    }
  }
  if (inputs.band !== undefined) {
    const { high, low } = agreementRange(inputs.band)
    return {
      low: Math.round(low),
      high: Math.round(high),
      name: `the comp band widened by ${percent(WITHHOLD_ABOVE_BAND - 1)}`
    }
  }
  return undefined
}

/** A sale this few days before the valuation date is of the same time: nothing can have changed since. */
const SAME_TIME_DAYS = 31

/** The band's sales are said to be smaller than the property where their weighted median area is this much less. */
const BAND_SMALLER_SHARE = 0.1

/**
 * The value's median far from the property's own recent market sale, which lies inside the value's range
 * (outside it, `own-sale-outside-range` says so): VALUE_FAR_FROM_OWN_SALE.
 */
const valueFarFromOwnSale = (
  inputs: CautionInputs,
  own: { readonly date: string; readonly price: number },
  rangeName: string
): Caution | undefined => {
  const median = inputs.modelMedian
  if (inputs.withheld) return undefined
  // A flip's resale too recent for the recent-resale premium: the price of the property as the flip left it.
  // (Only where no premium is in the value: a resale on the valuation date itself is no earlier sale to the premium's
  // rule, which then keys on the purchase; a review, 2026-12-01.)
  const flippedFrom = inputs.ownSaleFlippedFrom !== undefined && inputs.resaleSaleDate === undefined &&
      daysBetween(own.date, inputs.valuationDate) < RESALE_MONTHS.fewest * DAYS_PER_MONTH
    ? inputs.ownSaleFlippedFrom
    : undefined
  const belowFlip = flippedFrom !== undefined && own.price >= median * VALUE_BELOW_RECENT_FLIP_RESALE
  if (
    !belowFlip && median < own.price * VALUE_FAR_FROM_OWN_SALE && own.price < median * VALUE_FAR_FROM_OWN_SALE
  ) return undefined
  const dollars = amountIn(inputs.currency)
  const above = median > own.price
  // The premium is part of a gap above the sale; below it, the value is that far below with the premium in it (an
  // investor's audit, 2026-11-29: "44.9% below … (1.1% of it the premium …)" read as part of the gap).
  const premiumShare = inputs.resalePremium !== undefined && inputs.resalePremium > 0
    ? percent(Math.exp(inputs.resalePremium) - 1)
    : undefined
  const premium = premiumShare === undefined
    ? ""
    : above
    ? ` (${premiumShare} of it the premium such recent resales showed: see \`recent-resale-premium\`)`
    : ` (after adding the premium of ${premiumShare} such recent resales showed: see \`recent-resale-premium\`)`
  return {
    code: "value-far-from-own-sale",
    detail: `The value's median (${dollars(median)}) is ${percent(Math.abs(median / own.price - 1))} ` +
      `${above ? "above" : "below"} the price the property itself sold for on ${own.date} ` +
      `(${dollars(own.price)}, recorded as a market sale)${premium}, though that price lies inside ${rangeName}. ` +
      `The records do not say why: ${
        belowFlip
          ? `that sale was itself a flip's resale, of a purchase on ${flippedFrom.date} for ${
            dollars(flippedFrom.price)
          } (its history lists it), so the property was likely improved before it, which its recorded facts do not ` +
            `show, and it is too recent (under ${RESALE_MONTHS.fewest} months) for the recent-resale premium to be ` +
            "in the value; else the price may have been above the market's, or the comparable sales may understate it"
          // A sale within a month of the valuation date leaves no time for a change (a Sacramento house sold on
          // the day its market's records end was told it may have had work done since: an investor audit).
          : daysBetween(own.date, inputs.valuationDate) <= SAME_TIME_DAYS
          ? above
            ? "the price may have been below the market's (a sale between relatives, a distressed sale), or the " +
              "comparable sales may overstate this property"
            : "the price may have covered more than this property or been above the market's, or the comparable " +
              "sales may understate it"
          : above
          ? "the market or the property may have changed since (work done), the price may have been below the market's " +
            "(a sale between relatives, a distressed sale), or the comparable sales may overstate this property"
          : "the price may have covered more than this property or been above the market's, the property may have " +
            "changed since, or the comparable sales may understate it"
      }. Check which before relying on the value.`
  }
}

/**
 * A lot size sent that nothing reads: the contract needs one for a house, and a market whose records carry none
 * (Sacramento's) refuses every house without it, but no comparable or training sale has one to set it beside,
 * so the answer is the same whatever is sent (an investor's and an agent's audits, 2026-11-28: 600, 6,000 and
 * 60,000 square feet gave the same value, band and offer, the lot listed as a fact the caller stated).
 */
const lotSizeUnusedCaution = (inputs: CautionInputs): Caution | undefined =>
  inputs.lotSizeUnused === undefined ? undefined : {
    code: "lot-size-not-used",
    detail: `The lot size sent (${inputs.lotSizeUnused.toLocaleString("en-US")} sq ft) does not move the value, ` +
      "the comp band or the offer: no recorded sale of this market has a lot size to compare it with. A house " +
      "needs one to be valued at all (the interface's rule), but the answer is the same whatever figure is sent."
  }

/**
 * Room counts sent where the market's records carry none (New York City's): read by no model, so the answer is
 * the one of a property without them, which a `caller-stated` fact in the answer does not say (an investor's
 * audit, 2026-11-30).
 */
const roomsUnusedCaution = (inputs: CautionInputs): Caution | undefined => {
  const unused = inputs.roomsUnused
  if (unused === undefined || unused.length === 0) return undefined
  const sent = unused.map(({ count, fact }) => `${count} ${count === 1 ? fact.slice(0, -1) : fact}`).join(" and ")
  return {
    code: "rooms-not-used",
    detail: `The ${sent} sent do${unused.length === 1 && unused[0]!.count === 1 ? "es" : ""} not move the value, ` +
      `the comp band or the offer: no recorded sale of this market has ${
        unused.map(({ fact }) => fact === "bedrooms" ? "a bedroom count" : "a bathroom count").join(" or ")
      } to compare with, so the answer is the one it would be without them. A living area sent in ` +
      "`overrides` is read."
  }
}

/** A living area so far outside its market's usual range that `living-area-doubtful` says the record may be wrong. */
const farOutsideUsual = (area: number, usual: readonly [number, number]) =>
  area < usual[0] / DOUBTFUL_AREA_FACTOR || area > usual[1] * DOUBTFUL_AREA_FACTOR

const ownSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const dollars = amountIn(inputs.currency)
  const own = inputs.ownLastSale
  if (own === undefined || !recentEnough(own.date, inputs.valuationDate)) return undefined
  const range = valueRange(inputs)
  if (range === undefined) return undefined
  if (own.price >= range.low && own.price <= range.high) return valueFarFromOwnSale(inputs, own, range.name)
  const above = own.price > range.high
  // Above the range, this caution says what `after-repair-value-below-own-sale` would (that one is not given
  // beside it): the after-repair value and the offer too, where they lie that far below the sale (an agent's
  // audit, 2026-11-29: `240-25 Memphis Ave, Queens`, sold for $610,000 22 days before, its after-repair value
  // $395,022 and offer $235,000, was told only of the value's range).
  const afterRepair = inputs.afterRepair
  const afterRepairBelow = above && afterRepair !== undefined &&
    !atLeastShareOf(afterRepair.value, own.price, AFTER_REPAIR_BELOW_OWN_SALE)
  // A recorded living area outside its market's usual range on the side that would explain the price (a small house
  // sold above its range, a large one below it), where `living-area-doubtful` does not say so already: named first
  // (an investor's audit, 2026-12-01: `2926 Wickham Ave, Bronx`, a two-family house recorded at 855 sq ft, sold for
  // $600,000 and valued, banded and offered as a house of that size, $212,000, with no word of the area).
  const { livingArea: area, usualLivingArea: usual } = inputs
  const areaExplains = inputs.livingAreaRecorded === true && area !== undefined && usual !== undefined &&
    !farOutsideUsual(area, usual) && (above ? area < usual[0] : area > usual[1])
  return {
    code: "own-sale-outside-range",
    detail: `The property itself sold on ${own.date} for ${dollars(own.price)}, ${above ? "above" : "below"} ` +
      `${range.name} (${dollars(range.low)} to ${dollars(range.high)})${
        afterRepairBelow
          ? `, and the after-repair value the offer is built on (${dollars(afterRepair.value)}) is ${
            percent(1 - afterRepair.value / own.price)
          } below that price`
          : ""
      }. The records do not say why: ${
        areaExplains
          ? `its recorded living area (${squareFeet(area!)} square feet) is ${
            above ? "below" : "above"
          } the middle 95% of its market's recorded sales of its kind (${squareFeet(usual![0])} to ${
            squareFeet(usual![1])
          } square feet), and a ${above ? "larger" : "smaller"} one would explain the price (if the record is ` +
            "wrong, call again with the right one in `overrides.living_area_square_feet`: the value, the comp band " +
            "and the offer all rest on it); "
          : ""
      }its facts ` +
      "may not describe it as it was sold (a renovation, an extension, a change since), the price may not have " +
      `been a market one${
        above ? " or may have covered more than this property" : " (a sale between relatives, a " +
          "distressed sale)"
      }, or the value may be wrong here. Check the property before relying on the value${
        afterRepairBelow ? " and the offer" : ""
      }.`
  }
}

const uncountedSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const dollars = amountIn(inputs.currency)
  const sale = inputs.ownUncountedSale
  if (sale === undefined || !recentEnough(sale.date, inputs.valuationDate)) return undefined
  if (sale.why === "package") {
    const offer = inputs.offer
    return {
      code: "own-sale-in-package",
      detail: `The property itself last sold on ${sale.date} on one deed with ${sale.parcels - 1} other ` +
        `parcel${sale.parcels === 2 ? "" : "s"} (a package sale), for ${dollars(sale.price)} for them all: ` +
        "that price is not this property's alone, so it is not taken for a market sale (and is not " +
        `\`evidence.own_last_sale\`)${
          offer !== undefined && !offer.clamped && offer.price > sale.price
            ? `, yet the offer (${dollars(offer.price)}) is above it`
            : ""
        }. Its history lists the deed and the other parcels; check what was sold (a side lot, a garage, ` +
        "another house) before relying on the value."
    }
  }
  if (sale.why === "split") {
    return {
      code: "own-sale-not-counted",
      detail:
        `The property itself sold on ${sale.date}, with ${sale.prices.length} prices recorded that day (${
          sale.prices.map(dollars).join(", ")
        }): split deeds or partial interests, so none is taken for a market sale (nor is any ` +
        "`evidence.own_last_sale`). What the whole property sold for is not on record: check the deeds (its " +
        "history lists them) before relying on the value."
    }
  }
  return {
    code: "own-sale-not-counted",
    // (Not "recorded as arm's-length" alone: its history says `arms_length: false`, by the same market test, and an
    // agent reading both saw a contradiction: an agent's audit, 2026-11-29.)
    detail: `The property itself sold on ${sale.date} for ${dollars(sale.price)}, arm's-length on its deed, but ` +
      "that price lies beyond the range of its neighbourhood's sales for its recorded facts, so it was not taken " +
      "for a market sale (its history marks it `arms_length: false` for that reason, and it is not " +
      "`evidence.own_last_sale`). Either the price was not a market one, or the " +
      "records do not describe the property as it was sold (a size or type recorded since, a renovation): check " +
      "which before relying on the value. Its history lists the sale."
  }
}

/**
 * The offer above the price the property itself sold for (a market sale of the last two years): the money an
 * investor can lose. The offer comes from the comp band, which the model's range does not bound (an investor
 * audit: a house sold for $990,000 offered $2,735,000 from a band of six sales at $116–$784 a square foot).
 */
const offerAboveOwnSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const dollars = amountIn(inputs.currency)
  const { offer, ownLastSale: own } = inputs
  if (offer === undefined || offer.clamped || own === undefined) return undefined
  if (!recentEnough(own.date, inputs.valuationDate) || offer.price <= own.price) return undefined
  return {
    code: "offer-above-own-sale",
    detail: `The offer (${dollars(offer.price)}) is above the price the property itself sold for on ${own.date} ` +
      `(${dollars(own.price)}). The offer is built on the after-repair value (the comp band's middle, lifted toward ` +
      `its high by any repairs); a price above the property's own ` +
      "recent one needs a reason the records do not give (work done since, or a price that was not a market " +
      "one): check the comparable sales and the property before offering it."
  }
}

/**
 * A recorded living area far outside its market's usual range (an investor audit: Melbourne houses recorded
 * at 11 and 479,155 square feet, valued and refused a band with no word that the record may be wrong).
 */
const doubtfulAreaCaution = (inputs: CautionInputs): Caution | undefined => {
  const { bedrooms, livingArea: area, usualLivingArea: usual } = inputs
  if (!inputs.livingAreaRecorded || area === undefined) return undefined
  // Too small for its bedrooms (as recorded, or as the call sent them), within its market's range or not.
  if (bedrooms !== undefined && bedrooms.count >= 1 && area < bedrooms.count * MIN_AREA_PER_BEDROOM) {
    return {
      code: "living-area-doubtful",
      detail: `The recorded living area (${squareFeet(area)} square feet) is too small for the ${bedrooms.count} ` +
        `bedroom${bedrooms.count === 1 ? "" : "s"} ${
          bedrooms.sent ? "the call sent" : "on record"
        } (under ${MIN_AREA_PER_BEDROOM} square feet a bedroom, kitchen, bath and hall included): one of the ` +
        "two is likely wrong. The value, the comp band and the offer all rest on the area, and the comparable " +
        "sales were chosen by it: if the record is wrong, call again with the right one in " +
        "`overrides.living_area_square_feet`."
    }
  }
  if (usual === undefined || !farOutsideUsual(area, usual)) return undefined
  return {
    code: "living-area-doubtful",
    detail:
      `The recorded living area (${squareFeet(area)} square feet) is far ${
        area < usual[0] ? "below" : "above"
      } its market's usual range (the middle 95% of its recorded sales of its kind: ${squareFeet(usual[0])} to ` +
      `${squareFeet(usual[1])} square feet). The value, the comp band and the offer all rest on it: if the record ` +
      "is wrong, call again with the right one in `overrides.living_area_square_feet`."
  }
}

/**
 * No price clears the margin: the offer published is the floor, not an offer (an agent's audit, 2026-11-25: a
 * $1,000 `max_allowable_offer` came with no word but `clamped`, and an agent relays the price).
 */
const noOfferCaution = (inputs: CautionInputs): Caution | undefined => {
  const { afterRepair, offer } = inputs
  if (offer === undefined || !offer.clamped || afterRepair === undefined) return undefined
  const dollars = amountIn(inputs.currency)
  return {
    code: "no-offer-clears-margin",
    detail: `No purchase price clears the ${percent(afterRepair.targetMargin)} margin: the repairs ` +
      `(${dollars(afterRepair.rehabBudget)}), the financing and closing costs and the profit take up more than the ` +
      `after-repair value (${dollars(afterRepair.value)}) leaves, so \`max_allowable_offer.price\` ` +
      `(${dollars(offer.price)}) is a floor, not an offer. A lower repair budget or margin, or a higher after-repair ` +
      "value, is what would make an offer."
  }
}

/**
 * The after-repair value (built on the comp band) below the model's 5% value of the property as it stands: the
 * comparable sales and the model disagree, short of the withheld rule (an agent's audit, 2026-11-25: `7 Exon
 * St, Hampton`, sold for A$1,405,000, valued at A$1,438,000, offered from an after-repair value of A$1,017,539
 * with no word). Out of time such band middles were far from the prices (docs/decisions.md, "Cautions").
 */
const afterRepairBelowModelCaution = (inputs: CautionInputs): Caution | undefined => {
  const { afterRepair, distribution } = inputs
  if (afterRepair === undefined || distribution === undefined || afterRepair.value >= distribution["0.05"]) {
    return undefined
  }
  const dollars = amountIn(inputs.currency)
  return {
    code: "after-repair-value-below-model",
    detail: `The after-repair value (${dollars(afterRepair.value)}), which the offer is built on, is below the ` +
      `pricing model's 5% value of the property as it stands (${dollars(distribution["0.05"])}; its median ` +
      `${dollars(distribution["0.5"])}): the comparable sales put it lower than the model does, repairs and all. ` +
      "Out of time, band middles this far below the model's range were several times further from the sale " +
      `price than the model's value: check ${
        theComps(inputs.compsListed)
      } (their size, type and place) before relying on the offer.`
  }
}

/**
 * The comp band's middle above the model's 90% value of the property as it stands, or 1.2 times its median
 * (BAND_ABOVE_MODEL): the offer rests on comparable sales the model puts well below (an investor's audit,
 * 2026-11-28: `121 Richardson St, Albert Park`, a band of A$3,098,357–3,514,736 beside a model median of
 * A$2,658,000 and 95% value of A$3,326,244, offered A$2,259,000 with no word; `after-repair-value-below-model` said
 * only the other way; until 2026-12-01 only above the 95% value: an investor's audit that day found `702 Lafayette
 * Ave, Brooklyn` offered $1,198,000 from a band middle of $1,809,335, 24% above both the model's median and the
 * house's own sale nine months before, with no word).
 */
const bandAboveModelCaution = (inputs: CautionInputs): Caution | undefined => {
  const { band, distribution } = inputs
  if (band === undefined || distribution === undefined) return undefined
  const median = distribution["0.5"]
  const high = distribution[BAND_ABOVE_MODEL.quantile]
  if (band.middle <= Math.min(high, median * BAND_ABOVE_MODEL.timesMedian)) return undefined
  const dollars = amountIn(inputs.currency)
  return {
    code: "comp-band-above-model",
    detail: `The comp band's middle (${dollars(band.middle)}), which the after-repair value and the offer are ` +
      `built on, is ${percent(band.middle / median - 1)} above the pricing model's median value of the property ` +
      `as it stands (${dollars(median)}; ${band.middle > high ? "above" : "below"} its ${
        percent(Number(BAND_ABOVE_MODEL.quantile))
      } value, ${dollars(high)}): the comparable sales put it higher than the model does. Out of time, ` +
      "band middles so far above the model's value were a median 17–26% from the sale price where the model's was " +
      "9–15% from it, the prices a median 0.81–0.86 times the band's middle. An offer built on sales that may be " +
      "larger, newer or better placed than this property overpays: check " +
      `${theComps(inputs.compsListed)} (their size, type, condition and place) before relying on it.`
  }
}

/**
 * The after-repair value well below the property's own recent market sale, which lies inside or below the
 * value's range: a repaired house worth less than it sold for as it was needs a reason the records do not give (an
 * agent's audit, 2026-11-25: `1000 Woodycrest Ave, Bronx`, sold for $1,125,000 the day before the valuation
 * date, inside its range of $311,000 to $1,280,000, offered $492,000 from an after-repair value of $743,393
 * with no word).
 */
const afterRepairBelowOwnSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const { afterRepair, ownLastSale: own } = inputs
  if (afterRepair === undefined || own === undefined || !recentEnough(own.date, inputs.valuationDate)) return undefined
  if (atLeastShareOf(afterRepair.value, own.price, AFTER_REPAIR_BELOW_OWN_SALE)) return undefined
  // A sale above the value's range is said by `own-sale-outside-range`, which this would repeat. Below it (rare:
  // a wide band whose middle lies far under the model) both are said: the value above the sale, the after-repair
  // value, which the offer is built on, below it.
  const range = valueRange(inputs)
  if (range !== undefined && own.price > range.high) return undefined
  const dollars = amountIn(inputs.currency)
  return {
    code: "after-repair-value-below-own-sale",
    detail: `The after-repair value (${dollars(afterRepair.value)}), which the offer is built on, is more than ` +
      `${percent(1 - AFTER_REPAIR_BELOW_OWN_SALE)} below the price the property itself sold for on ${own.date} ` +
      `(${dollars(own.price)}, recorded as a market sale). Either that price was not what it seems (more than ` +
      "this property, a share, a sale the records misdescribe) or the comparable sales understate this property " +
      "(a size, a lot or a condition the records do not show): check which before relying on the value and the offer."
  }
}

/**
 * The comp band's middle (the value as it stands the after-repair value and the offer are built on) at least
 * VALUE_FAR_FROM_OWN_SALE times the property's own recent market sale, the offer still below that sale (above it,
 * `offer-above-own-sale` says more). The mirror of `after-repair-value-below-own-sale`, with the threshold of
 * `value-far-from-own-sale`: the band is the comps' price per square foot times the property's living area, and a
 * price per square foot falls with size, so a band of smaller houses overstates a larger one (an investor's audit,
 * 2026-11-30: `31 Ludwig Lane, Staten Island`, 2,807 sq ft, sold for $440,000 two months before, valued at $456,000,
 * its band's middle $635,456 from houses a weighted median of 2,400 sq ft, offered $421,000 with no word).
 */
const bandAboveOwnSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const { band, offer, ownLastSale: own } = inputs
  if (band === undefined || own === undefined || !recentEnough(own.date, inputs.valuationDate)) return undefined
  if (band.middle < own.price * VALUE_FAR_FROM_OWN_SALE) return undefined
  if (offer !== undefined && !offer.clamped && offer.price > own.price) return undefined
  const dollars = amountIn(inputs.currency)
  const { bandLivingArea: theirs, livingArea: its } = inputs
  const smaller = band.method === "price_per_square_foot" && theirs !== undefined && its !== undefined &&
    theirs < its * (1 - BAND_SMALLER_SHARE)
  // Where the value's own caution says the sale lies that far below (`own-sale-outside-range` below the range,
  // `value-far-from-own-sale` with the median 1.3 times it), its reasons are not said again.
  const range = valueRange(inputs)
  const saidOfValue = range !== undefined &&
    (own.price < range.low ||
      (own.price <= range.high && !inputs.withheld && inputs.modelMedian >= own.price * VALUE_FAR_FROM_OWN_SALE))
  // A band by sale price has no after-repair value or offer (no living area to lift it by).
  const reliedOn = offer === undefined
    ? "the comp band"
    : `the after-repair value and the offer${offer.clamped ? "" : ` (${dollars(offer.price)})`}`
  return {
    code: "comp-band-above-own-sale",
    detail:
      `The comp band's middle (${dollars(band.middle)})${
        offer === undefined ? "" : ", the value as it stands that the after-repair value and the offer are built on,"
      } is ${percent(band.middle / own.price - 1)} above the price the property itself sold for on ${own.date} ` +
      `(${dollars(own.price)}, recorded as a market sale)${
        inputs.withheld ? "" : `; the pricing model's median is ${dollars(inputs.modelMedian)}`
      }. ${
        smaller
          ? `The band is its sales' price per square foot times this property's living area (${
            Math.round(its!).toLocaleString("en-US")
          } sq ft), and its sales are smaller (a weighted median of ${
            Math.round(theirs!).toLocaleString("en-US")
          } sq ft): a price per square foot falls with size, so the band can overstate a larger house. `
          : ""
      }${
        saidOfValue
          ? `Check ${theComps(inputs.compsListed)} and that sale before relying on ${reliedOn}.`
          : `Either ${
            daysBetween(own.date, inputs.valuationDate) <= SAME_TIME_DAYS
              ? ""
              : "the market or the property has changed since (work done), "
          }that price was below the market's (a sale between relatives, a distressed sale, a property in need of ` +
            `work) or the comparable sales overstate this property: check ${
              theComps(inputs.compsListed)
            } before relying on ${reliedOn}.`
      }`
  }
}

/**
 * The repairs lift the after-repair value by so much more than they cost that the offer rises with them: the
 * lift is in proportion to the repairs per square foot (fully at FULL_LIFT_PER_SQUARE_FOOT), whatever the band's
 * width, and across a band wide in dollars a square foot of repairs buys many dollars of value (an investor
 * audit, 2026-11-28: `96 Bank St, New York`, sold for $5,125,000, offered $4,308,000 as it stood and $6,407,000
 * with $171,000 of major repairs, which lifted its after-repair value by $3.4M to the band's high).
 */
const offerRisesWithRepairsCaution = (inputs: CautionInputs): Caution | undefined => {
  const { afterRepair, band, offer, offerWithoutRepairs: asItStands } = inputs
  if (afterRepair === undefined || band === undefined || offer === undefined || asItStands === undefined) {
    return undefined
  }
  if (afterRepair.rehabBudget <= 0 || offer.clamped || offer.price <= asItStands.price) return undefined
  const dollars = amountIn(inputs.currency)
  const lift = afterRepair.value - band.middle
  return {
    code: "offer-rises-with-repairs",
    detail: `The repairs (${dollars(afterRepair.rehabBudget)}) lift the after-repair value from the comp band's ` +
      `middle (${dollars(band.middle)}) by ${dollars(lift)} toward its high (${dollars(band.high)}), ` +
      `${(lift / afterRepair.rehabBudget).toFixed(1)} times what they cost: the lift follows the repairs per ` +
      `square foot (in full at ${dollars(FULL_LIFT_PER_SQUARE_FOOT)} a square foot), whatever the band's width. So ` +
      `the offer (${dollars(offer.price)}) is above the offer at the same margin for the property as it stands, ` +
      `with no repairs (${
        dollars(asItStands.price)
      }): these repairs raise the offer instead of lowering it. That holds only ` +
      "where the band's higher sales are higher for their condition (not their size, street or build), and only " +
      `if the repairs bring this property there: check ${theComps(inputs.compsListed)} before paying for the lift.`
  }
}

export const cautionsFor = (inputs: CautionInputs): Array<Caution> =>
  [
    placeLeftOutCaution(inputs),
    streetCorrectedCaution(inputs),
    pastValuationDateCaution(inputs),
    unitOfHouseCaution(inputs),
    learnersPendingCaution(inputs),
    typeWithoutSalesCaution(inputs),
    builtAfterValuationDateCaution(inputs),
    doubtfulAreaCaution(inputs),
    lotSizeUnusedCaution(inputs),
    roomsUnusedCaution(inputs),
    resalePremiumCaution(inputs),
    oldCompsCaution(inputs),
    inputs.withheld && inputs.band !== undefined
      ? withheldCaution(inputs.modelMedian, inputs.band, amountIn(inputs.currency))
      : undefined,
    inputs.band === undefined && inputs.noBand !== undefined
      ? noBandCaution(inputs.noBand, inputs.livingArea, inputs.compsListed)
      : undefined,
    inputs.band === undefined ? undefined : thinBandCaution(inputs.band, inputs.compsListed),
    inputs.band === undefined ? undefined : wideBandCaution(inputs.band, amountIn(inputs.currency), inputs.compsListed),
    narrowBandCaution(inputs),
    unalikeBandCaution(inputs),
    distantCompsCaution(inputs),
    noOfferCaution(inputs),
    afterRepairBelowModelCaution(inputs),
    bandAboveModelCaution(inputs),
    bandAboveOwnSaleCaution(inputs),
    afterRepairBelowOwnSaleCaution(inputs),
    offerRisesWithRepairsCaution(inputs),
    offerAboveOwnSaleCaution(inputs),
    ownSaleCaution(inputs),
    uncountedSaleCaution(inputs)
  ].filter((caution): caution is Caution => caution !== undefined)
