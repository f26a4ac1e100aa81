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
  message: () => ({
    message: "must be one of single_family, two_family, three_family, townhouse, condo, manufactured",
    override: true
  })
})
export type PropertyType = typeof PropertyType.Type

const intBetween = (min: number, max: number) =>
  Schema.Int.pipe(Schema.between(min, max)).annotations({
    message: () => ({ message: `must be a whole number from ${min} to ${max}`, override: true })
  })

/** `year_built` may be at most next calendar year, judged when the request is decoded. */
export const YearBuilt = Schema.Int.pipe(
  Schema.filter((year) => year >= 1700 && year <= new Date().getUTCFullYear() + 1)
).annotations({
  message: () => ({ message: `must be a whole number from 1700 to ${new Date().getUTCFullYear() + 1}`, override: true })
})

export const overridableFacts = {
  bedrooms: intBetween(0, 50),
  bathrooms: intBetween(0, 50),
  living_area_square_feet: intBetween(100, 100_000),
  lot_size_square_feet: intBetween(1, 100_000_000),
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
  Schema.filter((overrides) => Object.keys(overrides).length > 0 || "must override at least one fact"),
  Schema.annotations({
    identifier: "Overrides",
    description: "What-if facts replacing the county record's for the model, the comp band and the MAO. " +
      "Only these six keys are accepted.",
    parseOptions: { onExcessProperty: "error" }
  })
)
export type Overrides = typeof Overrides.Type
