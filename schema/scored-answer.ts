/** The Scored answer (200 from `POST /v1/predict`) and its parts, as CONTRACT.md names them. */
import { Schema } from "effect"
import { AddressMatch } from "./address-match.js"
import { PropertyType } from "./overrides.js"

export const FactOrigin = Schema.Literal("county-record", "caller-stated").annotations({
  description: "`county-record`: from the property's record; `caller-stated`: from the call's `overrides`."
})
export type FactOrigin = typeof FactOrigin.Type

const fact = <A, I>(value: Schema.Schema<A, I>, description: string) =>
  Schema.optionalWith(
    Schema.Struct({
      value: value.annotations({ description: "The fact's value." }),
      origin: FactOrigin
    }).annotations({ description: `${description} Left out when unknown.` }),
    { exact: true }
  )

/** A fact with no usable value is left out, never null, 0 or "" (ANS-4). */
export const Facts = Schema.Struct({
  bedrooms: fact(Schema.Int, "Bedrooms."),
  bathrooms: fact(Schema.Int, "Full bathrooms."),
  partial_bathrooms: fact(Schema.Int, "Half bathrooms (never overridden, never added to `bathrooms`)."),
  living_area_square_feet: fact(Schema.Int, "Finished living area in square feet."),
  // (An investor's audit, 2026-11-29: a Staten Island condominium unit read as standing on 296,423 sq ft.)
  lot_size_square_feet: fact(
    Schema.Int,
    "Lot size in square feet. For a condominium unit, the land of the lot its building stands on, shared by every " +
      "unit, where the records give it with each unit (New York City's do): not the unit's own."
  ),
  year_built: fact(Schema.Int, "Year built."),
  property_type: fact(PropertyType, "Kind of property."),
  latitude: fact(Schema.Number, "Latitude in decimal degrees."),
  longitude: fact(Schema.Number, "Longitude in decimal degrees."),
  neighborhood: fact(Schema.String, "Neighbourhood, as the record names it."),
  zip_code: fact(Schema.String, "ZIP or postal code.")
}).annotations({
  identifier: "Facts",
  description: "The property's facts, each with where it came from."
})
export type Facts = typeof Facts.Type

export const SubjectProperty = Schema.Struct({
  property_id: Schema.String.annotations({ description: "The property's id (what history takes as `property_id`)." }),
  address: Schema.String.annotations({ description: "The normalised address of the property scored." }),
  facts: Facts,
  match: Schema.optionalWith(AddressMatch, { exact: true })
}).annotations({
  identifier: "SubjectProperty",
  description: "The property actually scored: check `address` (and `match`) to be sure it is the one meant."
})

export const quantileLevels = ["0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95"] as const
export type QuantileLevel = typeof quantileLevels[number]

const quantile = (level: string) =>
  Schema.Int.annotations({ description: `The ${level} quantile of the predicted value, whole dollars.` })

export const ValueDistribution = Schema.Struct({
  "0.05": quantile("5%"),
  "0.1": quantile("10%"),
  "0.25": quantile("25%"),
  "0.5": quantile("50% (median)"),
  "0.75": quantile("75%"),
  "0.9": quantile("90%"),
  "0.95": quantile("95%")
}).annotations({
  identifier: "ValueDistribution",
  description: "The pricing model's predicted value at each quantile level, whole dollars, non-decreasing: " +
    "the true value is below `0.1` one time in ten and below `0.9` nine times in ten."
})
export type ValueDistribution = typeof ValueDistribution.Type

export const CompBand = Schema.Struct({
  low: Schema.Int.annotations({ description: "The weighted 25th percentile, whole dollars." }),
  middle: Schema.Int.annotations({ description: "The weighted median, whole dollars." }),
  high: Schema.Int.annotations({ description: "The weighted 75th percentile, whole dollars." }),
  comp_count: Schema.Int.annotations({ description: "How many comparable sales the band is built from (3 or more)." }),
  method: Schema.Literal("price_per_square_foot", "sale_price").annotations({
    description: "`price_per_square_foot`: the prices per square foot of the sales whose living area is within " +
      "1.5 times this property's (between its area / 1.5 and its area × 1.5), applied to its living area; " +
      "`sale_price`: their prices as they are (where fewer than 3 sales record a living area; a sale whose " +
      "recorded area is beyond 1.5 times is still left out)."
  })
}).annotations({
  identifier: "CompBand",
  description: "The value range the comparable sales imply (not the model). Absent with fewer than 3 usable sales, " +
    "or fewer than 3 of a living area within 1.5 times this property's: `cautions` then says so."
})
export type CompBand = typeof CompBand.Type

export const MaxAllowableOffer = Schema.Struct({
  price: Schema.Int.annotations({
    description: "The most to pay and still clear the margin, whole dollars, rounded to the nearest thousand: a " +
      "ceiling for the buyer's own offer (before any fee of theirs or bargaining), not a price to offer as it is."
  }),
  clamped: Schema.Boolean.annotations({
    description: "True when no price of $1,000 or more clears the margin: no offer works at this " +
      "`target_margin` and repair budget, and `price` is the $1,000 floor, not an offer."
  })
}).annotations({
  identifier: "MaxAllowableOffer",
  description: "The maximum allowable offer: the price a cash flip buyer on hard-money financing can pay and " +
    "still make `target_margin` of the repaired value."
})

const line = (description: string) => Schema.Int.annotations({ description: `${description}, whole dollars.` })

export const CostStack = Schema.Struct({
  down_payment: line("10% of the offer, paid in cash"),
  loan: line("90% of the offer, borrowed"),
  rehab_budget: line("The repairs"),
  interest: line("11% a year on the loan and the repairs for a 6-month hold"),
  points: line("2% of the loan, the lender's fee"),
  closing_costs: line("2% of the offer to buy plus 8% of the repaired value to sell"),
  target_profit: line("`target_margin` of the repaired value")
}).annotations({
  identifier: "CostStack",
  description: "What the offer is built from. `down_payment + loan` is the offer; unless `clamped`, the seven " +
    "lines add up to `rehab_adjusted_arv` give or take rounding."
})
export type CostStack = typeof CostStack.Type

export const AsIsSimilarBand = Schema.Struct({
  low_per_square_foot: Schema.Number.annotations({ description: "The lowest price per square foot, dollars." }),
  median_per_square_foot: Schema.Number.annotations({ description: "The median price per square foot, dollars." }),
  high_per_square_foot: Schema.Number.annotations({ description: "The highest price per square foot, dollars." }),
  basis: Schema.Struct({
    comps_used: Schema.Int.annotations({ description: "Comparable sales with a price and a living area." }),
    comps_listed: Schema.Int.annotations({
      description: "Comparable sales listed in `comps` (a batch entry, which leaves `comps` out, counts those a " +
        "single call would list)."
    }),
    description: Schema.String.annotations({ description: "Which sales the band covers, in words." })
  }).annotations({ description: "Which sales the band covers." })
}).annotations({
  identifier: "AsIsSimilarBand",
  description: "The price per square foot of the listed comparable sales (`comps`; in a batch entry, those a single " +
    "call would list) as they sold, for reference; it feeds nothing else."
})
export type AsIsSimilarBand = typeof AsIsSimilarBand.Type

export const Comp = Schema.Struct({
  property_id: Schema.String.annotations({ description: "The sold property's id (history takes it)." }),
  address: Schema.String.annotations({ description: "The sold property's address." }),
  sale_date: Schema.String.annotations({ description: "When it sold (YYYY-MM-DD)." }),
  sale_price: Schema.Int.annotations({ description: "What it sold for, whole dollars." }),
  distance_miles: Schema.optionalWith(
    Schema.Number.annotations({
      description: "Distance from the property scored, miles, where both have coordinates; absent in a market " +
        "without them (New York City's records locate a property by tax block: there `address`, " +
        "`facts.neighborhood` and `facts.zip_code` say where the comp is)."
    }),
    { exact: true }
  ),
  facts: Facts,
  similarity: Schema.Number.annotations({
    description: "How alike the two properties are, 0 to 1: type, building class, living area, lot and year " +
      "built (1: alike in each). Where the comp is and when it sold are not in it (see `distance_miles` and " +
      "`sale_date`); the comps are listed by their weight in the valuation, which counts all three."
  })
}).annotations({
  identifier: "Comp",
  description: "A comparable sale. The property's own earlier sale is never one."
})
export type Comp = typeof Comp.Type

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const ValuationEvidence = Schema.Struct({
  data_through: Schema.String.annotations({
    description: "The date (YYYY-MM-DD) of the latest arm's-length sale recorded in the property's market: the " +
      "market's data, and its market index, run through this day and no further."
  }),
  newest_comparable_sale: optional(Schema.String.annotations({
    description: "The sale date (YYYY-MM-DD) of the most recent comparable sale the valuation used, listed in " +
      "`comps` or not. Absent when it used none."
  })),
  own_last_sale: optional(
    Schema.Struct({
      date: Schema.String.annotations({ description: "The sale date (YYYY-MM-DD)." }),
      price: Schema.Int.annotations({ description: "The price recorded, whole dollars." })
    }).annotations({
      description: "The property's own latest market (arm's-length) sale on record by the valuation date. It is " +
        "never a comparable sale (the interface removes it), and its price is not the value: a sale 3 to 24 " +
        "months before is read as a likely purchase for renovation, and the value carries the market's premium " +
        "for such resales. Absent when none is on record."
    })
  ),
  note: optional(Schema.String.annotations({
    description: "Present only when the value is not as of the day of the call: why (the market's data ends " +
      "more than 31 days before it), in words."
  }))
}).annotations({
  identifier: "ValuationEvidence",
  description: "How old the evidence behind the value is."
})
export type ValuationEvidence = typeof ValuationEvidence.Type

export const UnusualSize = Schema.Struct({
  facts: Schema.Array(Schema.Literal("living_area_square_feet", "lot_size_square_feet")).annotations({
    description: "The facts (as recorded, or as overridden) outside the middle 95% of the recorded sales of the " +
      "property's group (houses or condos) in its market and, where its type (townhouse, two-family house, …) has " +
      "200 such sales, outside its type's too."
  }),
  range_widened_by: Schema.Number.annotations({
    description: "The factor `value_distribution` was widened by about its median (which does not move): how much " +
      "further from their values the prices of such properties fell, measured out of time on the market's latest " +
      "sales. 1 when those sales showed such properties no harder to value."
  })
}).annotations({
  identifier: "UnusualSize",
  description: "Present when the property is of unusual size for its market: the records hold few sales like it, " +
    "so its value is less sure and its range wider. Absent when the estimate is withheld, and where the market's " +
    "value comes from the comparable sales alone (their spread then sets the range)."
})
export type UnusualSize = typeof UnusualSize.Type

export const Currency = Schema.Literal("USD", "AUD").annotations({
  identifier: "Currency",
  description: "The currency (ISO 4217) every amount of this answer is counted in: the market's records' " +
    "(`AUD` in Melbourne, `USD` in US markets). Present in every answer made since 2026-11-24."
})
export type Currency = typeof Currency.Type

/**
 * The cautions' codes. Published as an open string (its JSON Schema a pattern, not an enum), since codes are added
 * as the answers learn to say more: a client validating against an older schema must not reject a newer code.
 */
export const CAUTION_CODES = [
  "living-area-doubtful",
  "lot-size-not-used",
  "rooms-not-used",
  "old-comparable-sales",
  "estimate-withheld",
  "no-comp-band",
  "thin-comp-band",
  "wide-comp-band",
  "narrow-comp-band",
  "unalike-comp-band",
  "distant-comparable-sales",
  "offer-above-own-sale",
  "own-sale-outside-range",
  "value-far-from-own-sale",
  "own-sale-not-counted",
  "own-sale-in-package",
  "no-offer-clears-margin",
  "after-repair-value-below-model",
  "comp-band-above-model",
  "comp-band-above-own-sale",
  "after-repair-value-below-own-sale",
  "offer-rises-with-repairs",
  "past-valuation-date",
  "recent-resale-premium",
  "pricing-model-incomplete",
  "no-sales-of-type",
  "built-after-valuation-date",
  "whole-building-valued",
  "place-not-sent",
  "street-name-corrected"
] as const

const cautionCodeDescription =
  "`living-area-doubtful`: the recorded living area lies far outside its market's usual range " +
  "(below half the low end of the middle 95% of its recorded sales of its kind, or above twice the high end), " +
  "or is under 150 square feet for each of its bedrooms: " +
  "if it is wrong, send the right one in `overrides`; `lot-size-not-used`: the `lot_size_square_feet` sent " +
  "for a house moves nothing, since no recorded sale of its market has a lot size (a house there needs one " +
  "to be valued all the same); `rooms-not-used`: the `bedrooms` or `bathrooms` sent move nothing, since no " +
  "recorded sale of its market has that count; `old-comparable-sales`: the newest comparable sale is " +
  "more than 180 days before `valuation_date`, so the value is in effect of that time (the market index is " +
  "not carried past its data); `estimate-withheld`: the pricing model and the comparable sales disagree (why, and which way); " +
  "`no-comp-band`: no comp band, so no after-repair value or offer (why), and the value itself less sure; `thin-comp-band`: the band rests on " +
  "the fewest sales a band is given from (3); `wide-comp-band`: the band's high is at least twice its low, " +
  "so its middle (and the offer) is far less sure; `narrow-comp-band`: the band's high is less than 1.1 times " +
  "its low: a few closely priced sales carry most of its weight, so its range says little of how sure the value " +
  "is (`value_distribution` does, where it is given), and a repair budget lifts `rehab_adjusted_arv` hardly at " +
  "all; `unalike-comp-band`: the band's sales are, weighted as in " +
  "the band, little like the property (their `similarity` averages under 0.1: other kinds, classes, sizes, lots or ages), so " +
  "its middle (and the offer) is less sure; `distant-comparable-sales`: the comparable sales lie, weighted " +
  "as in the band, 5 miles or more from the property on average (markets with coordinates), so the value, " +
  "its range, the band and the offer are less sure than they look; `offer-above-own-sale`: `max_allowable_offer` is above the price " +
  "the property itself sold for (a market sale of the last two years); `own-sale-outside-range`: the property's own market sale of the " +
  "last two years lies outside the 5–95% range of `value_distribution` (when the estimate is withheld: " +
  "outside 0.85 × `comp_band.low` to 1.15 × `comp_band.high`); `value-far-from-own-sale`: that sale lies " +
  "inside the range, but the value's median is at least 1.3 times it or it at least 1.3 times the median (1.1 " +
  "times, where that sale was a flip's resale under 3 months before `valuation_date`, too recent for the " +
  "recent-resale premium); " +
  "`own-sale-not-counted`: its latest sale of " +
  "the last two years, recorded as arm's-length, was not taken for a market sale (its price beyond its " +
  "neighbourhood's range for its recorded facts), or was recorded with several prices that day (split deeds " +
  "or partial interests: the detail lists them), so `evidence.own_last_sale` does not show it; " +
  "`own-sale-in-package`: its latest sale of the last two years was one deed and price over it and other " +
  "parcels (a package sale), so the price is not its own and `evidence.own_last_sale` does not show it " +
  "(the detail names the price, how many parcels it covered, and whether the offer is above it); " +
  "`no-offer-clears-margin`: `max_allowable_offer.clamped` is true: the repairs, costs and margin take up " +
  "more than the after-repair value leaves, and the price is a floor, not an offer; " +
  "`after-repair-value-below-model`: `rehab_adjusted_arv` is below the 5% value of `value_distribution` " +
  "(the comparable sales put the repaired property lower than the model puts it as it stands); " +
  "`comp-band-above-model`: `comp_band.middle` is above the 90% value of `value_distribution`, or 1.2 times its " +
  "median (the comparable sales the offer is built on put the property higher than the model does); " +
  "`comp-band-above-own-sale`: `comp_band.middle` is at least 1.3 times the property's own market sale of the " +
  "last two years while `max_allowable_offer` is not above that sale (the detail says whether the band's sales " +
  "are smaller than the property: a price per square foot falls with size); " +
  "`after-repair-value-below-own-sale`: `rehab_adjusted_arv` is more than 10% below the property's own " +
  "market sale of the last two years; `offer-rises-with-repairs`: the repairs lift `rehab_adjusted_arv` toward " +
  "the band's high by so much more than they cost that `max_allowable_offer` is above the offer for the " +
  "property as it stands (the detail gives both): it holds only if the repairs bring it to the band's higher " +
  "sales; `past-valuation-date`: `valuation_date` is before the day of the call (the market's records end " +
  "earlier, and the value is not carried past them): every figure is of that date; `recent-resale-premium`: " +
  "the property's own market sale 3 to 24 months before `valuation_date` makes a sale at `valuation_date` a resale soon after a " +
  "purchase (many such are renovated), " +
  "and the model's value carries what such resales sold at over its value of a property with the same facts (the " +
  "detail gives the share and the value's median without it): if it was not improved since, the value is that much " +
  "too high; `pricing-model-incomplete`: the " +
  "value and its range are the comparable-sales model's alone, the pricing model's learner for the market " +
  "still being fitted (for a minute or so after the service starts on new data or its data changes): the " +
  "same call a few minutes later may give another value; the comp band and offer are the same either way; " +
  "`no-sales-of-type`: no recorded market sale of the property's market is of its `property_type` (recorded, " +
  "or sent in `overrides`), so every figure comes from sales of other types; " +
  "`built-after-valuation-date`: the year built (recorded, or sent in `overrides`) is after `valuation_date`, so " +
  "the figures value the property as if it stood then, not as finished; `whole-building-valued`: the address " +
  "sent a unit, but the record holds the address as one house of two or three families (its apartments not " +
  "recorded or sold on their own; `match.notes` has the unit as `ignored`), so every figure is the whole " +
  "house's, not one apartment's; `place-not-sent`: the address sent named no town, suburb or ZIP code, and " +
  "was taken for the only property at its street address in the covered markets (`match.recorded_address`): " +
  "if the property meant is elsewhere, the answer is not its own; `street-name-corrected`: the street name " +
  "sent is not on record in the place sent and was read as a misspelling of another (`match.notes`): check " +
  "`match.recorded_address` is the property meant. New codes " +
  "may be added: read an unknown code's `detail`."

export const Caution = Schema.Struct({
  code: Schema.Literal(...CAUTION_CODES).annotations({
    description: cautionCodeDescription,
    jsonSchema: { type: "string", pattern: "^[a-z][a-z0-9-]*$", description: cautionCodeDescription }
  }),
  detail: Schema.String.annotations({ description: "What it means for this property, in words, with the figures." })
}).annotations({
  identifier: "Caution",
  description: "Something to know before relying on the answer's figures."
})
export type Caution = typeof Caution.Type

/** A batch entry that scored: the Scored answer minus `comps` (BAT-2). */
export const ScoredEntry = Schema.Struct({
  model_estimate_available: Schema.Boolean.annotations({
    description: "False when the pricing model disagreed with the comparable sales and its estimate was " +
      "withheld: its median lay below 0.85 × `comp_band.low` or above 1.15 × `comp_band.high`. The comp band, " +
      "offer and cost stack, which come from the sales, are still given."
  }),
  subject_property: SubjectProperty,
  valuation_date: Schema.String.annotations({
    description: "The date (YYYY-MM-DD) the value, the comp band and the offer apply to, counting every sale " +
      "recorded through it: the day of the call (UTC) when the market's data is current (its latest sale at " +
      "most 31 days earlier), else `evidence.data_through`, and `evidence.note` says so."
  }),
  currency: optional(Currency),
  evidence: ValuationEvidence,
  pricing_model_arv_estimate: optional(Schema.Int.annotations({
    description: "The pricing model's value, the median of `value_distribution` rounded to the nearest thousand " +
      "dollars: the property as its facts are recorded (or overridden); the model does not see `condition` or " +
      "the repair budget. The offer is built on `rehab_adjusted_arv`, from the comparable sales. Absent when the " +
      "estimate is withheld."
  })),
  value_distribution: optional(ValueDistribution),
  valuation_mean: optional(Schema.Int.annotations({
    description: "The mean of the model's predicted value, whole dollars. Absent when the estimate is withheld."
  })),
  effective_sample_size: optional(Schema.Number.annotations({
    description: "How many sales' worth of evidence the model had (Kish's effective sample size); low means " +
      "thin evidence and a wide distribution. Absent when the estimate is withheld."
  })),
  unusual_size: optional(UnusualSize),
  comp_band: optional(CompBand),
  rehab_budget: optional(Schema.Int.annotations({
    description: "The repair budget the arithmetic used, whole dollars: the call's `rehab_budget`, else the " +
      "midpoint of the `condition` bracket, else 0."
  })),
  rehab_adjusted_arv: optional(Schema.Int.annotations({
    description: "The repaired value (after-repair value), whole dollars: the comp band's middle lifted toward " +
      "its high in proportion to the repair budget. Absent without a comp band."
  })),
  target_margin: optional(Schema.Number.annotations({
    description: "The margin the offer was solved at: the call's, else 0.2. Absent without a comp band."
  })),
  max_allowable_offer: optional(MaxAllowableOffer),
  cost_stack: optional(CostStack),
  as_is_similar_band: optional(AsIsSimilarBand),
  cautions: optional(
    Schema.Array(Caution).annotations({
      description: "What to know before relying on the figures: a doubtful recorded living area, an estimate " +
        "withheld, a missing comp band (and so " +
        "no offer), a band from only 3 sales, an offer above the property's own recent price, its own recent sale " +
        "outside its value's range or not counted as a market sale, no offer clearing the margin, an after-repair " +
        "value below the model's range or well below the property's own recent price, an offer that rises with the " +
        "repairs, a value as of a date before the call's (on every answer from records that end earlier), a value " +
        "carrying a recent resale's premium; each code is described in the `code` member. Absent when there is none."
    })
  )
}).annotations({
  identifier: "ScoredEntry",
  description: "A scored property: the Scored answer without `comps`."
})
export type ScoredEntry = typeof ScoredEntry.Type

export const ScoredAnswer = Schema.Struct({
  ...ScoredEntry.fields,
  comps: optional(
    Schema.Array(Comp).annotations({
      description: "Up to 10 comparable sales, most relevant first. Absent when there were none."
    })
  )
}).annotations({
  identifier: "ScoredAnswer",
  description: "The valuation of one property and the maximum allowable offer, with the evidence behind them."
})
export type ScoredAnswer = typeof ScoredAnswer.Type
