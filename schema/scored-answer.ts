/** The Scored answer (200 from `POST /v1/predict`) and its parts, as CONTRACT.md names them. */
import { Schema } from "effect"
import { AddressMatch } from "./address-match.js"
import { PropertyType } from "./overrides.js"

export const FactOrigin = Schema.Literal("county-record", "caller-stated")
export type FactOrigin = typeof FactOrigin.Type

const fact = <S extends Schema.Schema.Any>(value: S) =>
  Schema.optionalWith(Schema.Struct({ value, origin: FactOrigin }), { exact: true })

/** A fact with no usable value is left out, never null, 0 or "" (ANS-4). */
export const Facts = Schema.Struct({
  bedrooms: fact(Schema.Int),
  bathrooms: fact(Schema.Int),
  partial_bathrooms: fact(Schema.Int),
  living_area_square_feet: fact(Schema.Int),
  lot_size_square_feet: fact(Schema.Int),
  year_built: fact(Schema.Int),
  property_type: fact(PropertyType),
  latitude: fact(Schema.Number),
  longitude: fact(Schema.Number),
  neighborhood: fact(Schema.String),
  zip_code: fact(Schema.String)
}).annotations({ identifier: "Facts" })
export type Facts = typeof Facts.Type

export const SubjectProperty = Schema.Struct({
  property_id: Schema.String,
  address: Schema.String,
  facts: Facts,
  match: Schema.optionalWith(AddressMatch, { exact: true })
}).annotations({ identifier: "SubjectProperty" })

export const quantileLevels = ["0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95"] as const
export type QuantileLevel = typeof quantileLevels[number]

export const ValueDistribution = Schema.Struct({
  "0.05": Schema.Int,
  "0.1": Schema.Int,
  "0.25": Schema.Int,
  "0.5": Schema.Int,
  "0.75": Schema.Int,
  "0.9": Schema.Int,
  "0.95": Schema.Int
}).annotations({ identifier: "ValueDistribution", description: "Quantile level → whole dollars, non-decreasing." })
export type ValueDistribution = typeof ValueDistribution.Type

export const CompBand = Schema.Struct({
  low: Schema.Int,
  middle: Schema.Int,
  high: Schema.Int,
  comp_count: Schema.Int,
  method: Schema.Literal("price_per_square_foot", "sale_price")
}).annotations({ identifier: "CompBand" })
export type CompBand = typeof CompBand.Type

export const MaxAllowableOffer = Schema.Struct({
  price: Schema.Int,
  clamped: Schema.Boolean
}).annotations({ identifier: "MaxAllowableOffer" })

export const CostStack = Schema.Struct({
  down_payment: Schema.Int,
  loan: Schema.Int,
  rehab_budget: Schema.Int,
  interest: Schema.Int,
  points: Schema.Int,
  closing_costs: Schema.Int,
  target_profit: Schema.Int
}).annotations({ identifier: "CostStack" })
export type CostStack = typeof CostStack.Type

export const AsIsSimilarBand = Schema.Struct({
  low_per_square_foot: Schema.Number,
  median_per_square_foot: Schema.Number,
  high_per_square_foot: Schema.Number,
  basis: Schema.Struct({
    comps_used: Schema.Int,
    comps_listed: Schema.Int,
    description: Schema.String
  })
}).annotations({ identifier: "AsIsSimilarBand" })
export type AsIsSimilarBand = typeof AsIsSimilarBand.Type

export const Comp = Schema.Struct({
  property_id: Schema.String,
  address: Schema.String,
  sale_date: Schema.String,
  sale_price: Schema.Int,
  distance_miles: Schema.optionalWith(Schema.Number, { exact: true }),
  facts: Facts,
  similarity: Schema.Number
}).annotations({ identifier: "Comp" })
export type Comp = typeof Comp.Type

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** A batch entry that scored: the Scored answer minus `comps` (BAT-2). */
export const ScoredEntry = Schema.Struct({
  model_estimate_available: Schema.Boolean,
  subject_property: SubjectProperty,
  pricing_model_arv_estimate: optional(Schema.Int),
  value_distribution: optional(ValueDistribution),
  valuation_mean: optional(Schema.Int),
  effective_sample_size: optional(Schema.Number),
  comp_band: optional(CompBand),
  rehab_budget: optional(Schema.Int),
  rehab_adjusted_arv: optional(Schema.Int),
  target_margin: optional(Schema.Number),
  max_allowable_offer: optional(MaxAllowableOffer),
  cost_stack: optional(CostStack),
  as_is_similar_band: optional(AsIsSimilarBand)
}).annotations({ identifier: "ScoredEntry" })
export type ScoredEntry = typeof ScoredEntry.Type

export const ScoredAnswer = Schema.Struct({
  ...ScoredEntry.fields,
  comps: optional(Schema.Array(Comp))
}).annotations({ identifier: "ScoredAnswer" })
export type ScoredAnswer = typeof ScoredAnswer.Type
