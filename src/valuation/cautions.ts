/**
 * The answer's cautions (docs/decisions.md, "Cautions"): what a reader should know before relying on its
 * figures, each with a stable code and the figures in words. Pure: decided from the answer's own parts.
 */
import type { Caution, CompBand, ValueDistribution } from "../../schema/scored-answer.js"
import type { NoBandReason } from "./comps.js"
import { daysBetween } from "./dates.js"
import {
  MAX_BAND_SIZE_RATIO,
  MIN_COMPS_FOR_BAND,
  OWN_SALE_CAUTION_DAYS,
  WITHHOLD_ABOVE_BAND,
  WITHHOLD_BELOW_BAND
} from "./policy.js"

const dollars = (amount: number) => `$${Math.round(amount).toLocaleString("en-US")}`

const percent = (share: number) => `${Math.round(share * 100)}%`

export interface CautionInputs {
  /** The model's median, whole dollars (withheld or not). */
  readonly modelMedian: number
  readonly withheld: boolean
  /** The model's distribution as published (absent when withheld). */
  readonly distribution?: ValueDistribution | undefined
  readonly band?: CompBand | undefined
  /** Why there is no band, when there is none. */
  readonly noBand?: NoBandReason | undefined
  readonly livingArea?: number | undefined
  readonly ownLastSale?: { readonly date: string; readonly price: number } | undefined
  /** Its latest sale recorded as arm's-length, when not taken for a market sale and later than `ownLastSale`. */
  readonly ownUncountedSale?: { readonly date: string; readonly price: number } | undefined
  readonly valuationDate: string
}

const withheldCaution = (median: number, band: CompBand): Caution => {
  const above = median > band.high * WITHHOLD_ABOVE_BAND
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

const noBandCaution = (reason: NoBandReason, livingArea: number | undefined): Caution => ({
  code: "no-comp-band",
  detail: reason === "too-few-of-similar-size" && livingArea !== undefined
    ? `No comp band, after-repair value or offer: fewer than 3 comparable sales have a living area ` +
      `within ${MAX_BAND_SIZE_RATIO} times this property's ${livingArea.toLocaleString("en-US")} square feet ` +
      `(${Math.ceil(livingArea / MAX_BAND_SIZE_RATIO).toLocaleString("en-US")} to ` +
      `${Math.floor(livingArea * MAX_BAND_SIZE_RATIO).toLocaleString("en-US")}), and a price per square foot does ` +
      "not carry across sizes. The model's value, where given, is from the sales of every size."
    : "No comp band, after-repair value or offer: fewer than 3 comparable sales with a usable price (one sale a " +
      "property, its latest)."
})

/**
 * A band from the fewest sales a band is given from: out of time (docs/decisions.md, "Cautions") such bands'
 * middles were about 1.5–2.5 times further from the prices than those of four sales or more.
 */
const thinBandCaution = (band: CompBand): Caution | undefined =>
  band.comp_count > MIN_COMPS_FOR_BAND ? undefined : {
    code: "thin-comp-band",
    detail: `The comp band rests on ${band.comp_count} comparable sales, the fewest a band is given from: one ` +
      "sale more or less could move its middle, the after-repair value and the offer a long way. Set them beside " +
      "the model's value and the listed comps before relying on them."
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
    return {
      low: Math.round(inputs.band.low * WITHHOLD_BELOW_BAND),
      high: Math.round(inputs.band.high * WITHHOLD_ABOVE_BAND),
      name: `the comp band widened by ${percent(WITHHOLD_ABOVE_BAND - 1)}`
    }
  }
  return undefined
}

const ownSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const own = inputs.ownLastSale
  if (own === undefined || !recentEnough(own.date, inputs.valuationDate)) return undefined
  const range = valueRange(inputs)
  if (range === undefined || (own.price >= range.low && own.price <= range.high)) return undefined
  const above = own.price > range.high
  return {
    code: "own-sale-outside-range",
    detail: `The property itself sold on ${own.date} for ${dollars(own.price)}, ${above ? "above" : "below"} ` +
      `${range.name} (${dollars(range.low)} to ${dollars(range.high)}). The records do not say why: its facts ` +
      "may not describe it as it was sold (a renovation, an extension, a change since), the price may not have " +
      `been a market one${
        above ? " or may have covered more than this property" : " (a sale between relatives, a " +
          "distressed sale)"
      }, or the value may be wrong here. Check the property before relying on the value.`
  }
}

const recentEnough = (date: string, valuationDate: string) => {
  const age = daysBetween(date, valuationDate)
  return age >= 0 && age <= OWN_SALE_CAUTION_DAYS
}

const uncountedSaleCaution = (inputs: CautionInputs): Caution | undefined => {
  const sale = inputs.ownUncountedSale
  if (sale === undefined || !recentEnough(sale.date, inputs.valuationDate)) return undefined
  return {
    code: "own-sale-not-counted",
    detail: `The property itself sold on ${sale.date} for ${dollars(sale.price)}, recorded as arm's-length, but ` +
      "that price lies beyond the range of its neighbourhood's sales for its recorded facts, so it was not taken " +
      "for a market sale (and is not `evidence.own_last_sale`). Either the price was not a market one, or the " +
      "records do not describe the property as it was sold (a size or type recorded since, a renovation): check " +
      "which before relying on the value. Its history lists the sale."
  }
}

export const cautionsFor = (inputs: CautionInputs): Array<Caution> => {
  const cautions: Array<Caution> = []
  if (inputs.withheld && inputs.band !== undefined) cautions.push(withheldCaution(inputs.modelMedian, inputs.band))
  if (inputs.band === undefined && inputs.noBand !== undefined) {
    cautions.push(noBandCaution(inputs.noBand, inputs.livingArea))
  }
  const thin = inputs.band === undefined ? undefined : thinBandCaution(inputs.band)
  if (thin !== undefined) cautions.push(thin)
  const own = ownSaleCaution(inputs)
  if (own !== undefined) cautions.push(own)
  const uncounted = uncountedSaleCaution(inputs)
  if (uncounted !== undefined) cautions.push(uncounted)
  return cautions
}
