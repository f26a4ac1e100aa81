/**
 * The subject's facts: the county record's, replaced by the caller's overrides (OVR-2), each labelled with
 * its origin (ANS-3), facts with no usable value left out (ANS-4), and the check that the facts the
 * valuation needs are there after overrides (OVR-5).
 */
import type { AddressMatch } from "../../schema/address-match.js"
import type { Overrides, PropertyType } from "../../schema/overrides.js"
import type { FactOrigin, Facts, SubjectProperty } from "../../schema/scored-answer.js"

/** A county record's facts, by their wire names; absent where the record has none. */
export interface CountyFacts {
  readonly bedrooms?: number | undefined
  readonly bathrooms?: number | undefined
  readonly partial_bathrooms?: number | undefined
  readonly living_area_square_feet?: number | undefined
  readonly lot_size_square_feet?: number | undefined
  readonly year_built?: number | undefined
  readonly property_type?: PropertyType | undefined
  readonly latitude?: number | undefined
  readonly longitude?: number | undefined
  readonly neighborhood?: string | undefined
  readonly zip_code?: string | undefined
}

export type FactName = keyof CountyFacts

/** Facts whose value must be positive to be usable: a recorded living area of zero is no living area. */
const positiveFacts: ReadonlySet<FactName> = new Set(["living_area_square_feet", "lot_size_square_feet", "year_built"])
const countFacts: ReadonlySet<FactName> = new Set(["bedrooms", "bathrooms", "partial_bathrooms"])

const factOrder: ReadonlyArray<FactName> = [
  "bedrooms",
  "bathrooms",
  "partial_bathrooms",
  "living_area_square_feet",
  "lot_size_square_feet",
  "year_built",
  "property_type",
  "latitude",
  "longitude",
  "neighborhood",
  "zip_code"
]

const usable = (name: FactName, value: unknown): boolean => {
  if (value === undefined || value === null) return false
  if (typeof value === "string") return value.trim() !== ""
  if (typeof value !== "number" || !Number.isFinite(value)) return false
  if (positiveFacts.has(name)) return value > 0
  return countFacts.has(name) ? value >= 0 : true
}

/** The county record with its unusable values removed. */
export const usableCountyFacts = (record: CountyFacts): CountyFacts => {
  const out: Record<string, unknown> = {}
  for (const name of factOrder) if (usable(name, record[name])) out[name] = record[name]
  return out as CountyFacts
}

/** The facts the valuation uses: the usable county facts, each override replacing its fact. */
export const effectiveFacts = (record: CountyFacts, overrides: Overrides | undefined): CountyFacts => ({
  ...usableCountyFacts(record),
  ...overrides
})

/**
 * The answer's `facts`: every usable fact with its origin. Any value supplied through overrides is
 * `caller-stated`, even when it equals the record; all others, `partial_bathrooms` included, are
 * `county-record`.
 */
export const factsWithOrigins = (record: CountyFacts, overrides: Overrides | undefined): Facts => {
  const effective = effectiveFacts(record, overrides)
  const out: Record<string, { value: unknown; origin: FactOrigin }> = {}
  for (const name of factOrder) {
    const value = effective[name]
    if (value === undefined) continue
    const stated = overrides !== undefined && Object.prototype.hasOwnProperty.call(overrides, name)
    out[name] = { value, origin: stated ? "caller-stated" : "county-record" }
  }
  return out as Facts
}

/**
 * The property an address named, as the wire gives it: a Scored answer's `subject_property`, and a
 * `missing-valuation-fact` refusal's.
 */
export const subjectPropertyOf = (
  subject: {
    readonly propertyId: string
    readonly address: string
    readonly record: CountyFacts
    readonly match?: AddressMatch | undefined
  },
  overrides: Overrides | undefined
): typeof SubjectProperty.Type => ({
  property_id: subject.propertyId,
  address: subject.address,
  facts: factsWithOrigins(subject.record, overrides),
  ...(subject.match === undefined ? {} : { match: subject.match })
})

/** Labels a comparable sale's facts (always the county record). */
export const recordFacts = (record: CountyFacts): Facts => factsWithOrigins(record, undefined)

/**
 * The facts the valuation needs that are still missing: `property_type`, `living_area_square_feet`, a
 * location the comparable search can use (coordinates, a neighbourhood or a ZIP code), and `lot_size_square_feet` for
 * every type except `condo`.
 */
export const missingValuationFacts = (facts: CountyFacts): ReadonlyArray<string> => {
  const missing: Array<string> = []
  if (facts.property_type === undefined) missing.push("property_type")
  if (facts.living_area_square_feet === undefined) missing.push("living_area_square_feet")
  if (facts.property_type !== "condo" && facts.lot_size_square_feet === undefined) missing.push("lot_size_square_feet")
  const hasCoordinates = facts.latitude !== undefined && facts.longitude !== undefined
  if (!hasCoordinates && facts.neighborhood === undefined && facts.zip_code === undefined) missing.push("location")
  return missing
}
