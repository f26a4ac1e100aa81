/**
 * The six overridable facts (OVR-1) and their rules (CONTRACT.md). Any other key, `null`, a value of the
 * wrong JSON type or out of range, and an empty object are refused by decoding (OVR-3, OVR-4).
 */
import { Schema } from "effect"

export const PropertyType = Schema.Literal(
  "single_family",
  "two_family",
  "three_family",
  "townhouse",
  "condo",
  "manufactured"
).annotations({
  identifier: "PropertyType",
  description: "The kind of property: `single_family`, `two_family`, `three_family`, `townhouse`, `condo` or " +
    "`manufactured`.",
  message: () => ({
    message: "must be one of single_family, two_family, three_family, townhouse, condo, manufactured",
    override: true
  })
})
export type PropertyType = typeof PropertyType.Type

const intBetween = (min: number, max: number, description: string) =>
  Schema.Int.pipe(Schema.between(min, max)).annotations({
    description: `${description} A whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}.`,
    message: () => ({ message: `must be a whole number from ${min} to ${max}`, override: true })
  })

/** `year_built` may be at most next calendar year, judged when the request is decoded. */
export const YearBuilt = Schema.Int.pipe(
  Schema.filter((year) => year >= 1700 && year <= new Date().getUTCFullYear() + 1, {
    jsonSchema: { minimum: 1700 }
  })
).annotations({
  description: "The year the building was built, 1700 to next year.",
  message: () => ({ message: `must be a whole number from 1700 to ${new Date().getUTCFullYear() + 1}`, override: true })
})

export const overridableFacts = {
  bedrooms: intBetween(
    0,
    50,
    "Bedrooms. They move the value only in a market whose records have bedrooms (the model learns from them " +
      "there); elsewhere the answer shows them as the caller's, and the value does not change."
  ),
  bathrooms: intBetween(
    0,
    50,
    "Full bathrooms (half baths are `partial_bathrooms`, which is not overridable). Like bedrooms, they move the " +
      "value only where the market's records have them."
  ),
  living_area_square_feet: intBetween(100, 100_000, "Finished living area in square feet."),
  lot_size_square_feet: intBetween(1, 100_000_000, "Lot size in square feet."),
  year_built: YearBuilt,
  property_type: PropertyType
} as const

export type OverridableFact = keyof typeof overridableFacts
export const overridableFactNames = Object.keys(overridableFacts) as ReadonlyArray<OverridableFact>

export const Overrides = Schema.Struct({
  bedrooms: Schema.optionalWith(overridableFacts.bedrooms, { exact: true }),
  bathrooms: Schema.optionalWith(overridableFacts.bathrooms, { exact: true }),
  living_area_square_feet: Schema.optionalWith(overridableFacts.living_area_square_feet, { exact: true }),
  lot_size_square_feet: Schema.optionalWith(overridableFacts.lot_size_square_feet, { exact: true }),
  year_built: Schema.optionalWith(overridableFacts.year_built, { exact: true }),
  property_type: Schema.optionalWith(overridableFacts.property_type, { exact: true })
}).pipe(
  Schema.filter((overrides) => Object.keys(overrides).length > 0 || "must override at least one fact", {
    jsonSchema: { minProperties: 1 }
  }),
  Schema.annotations({
    identifier: "Overrides",
    description: "What-if facts that replace the county record's for the pricing model, the comp band and the " +
      "maximum allowable offer (labelled `caller-stated` in the answer). Also how to supply a fact the record " +
      "lacks after a `missing-valuation-fact` refusal. At least one of these six; any other key is refused.",
    parseOptions: { onExcessProperty: "error" }
  })
)
export type Overrides = typeof Overrides.Type
