/** The Scored Call body: `POST /v1/predict`, each batch entry, and what `POST /v1/validate` judges. */
import { Schema } from "effect"
import { Overrides } from "./overrides.js"
import { hasControlCharacters } from "./text.js"

export const Condition = Schema.Literal("turn_key", "light_rehab", "moderate_rehab", "major_rehab", "tear_down")
  .annotations({
    identifier: "Condition",
    description: "The state of the property today, which sets the repair budget when `rehab_budget` is not sent: " +
      "`turn_key` (no repairs; the default), `light_rehab` ($10–25 per square foot of living area), " +
      "`moderate_rehab` ($25–45), `major_rehab` ($45–80); the budget is the bracket's midpoint times the living " +
      "area. `tear_down` is refused (400): a lot's value is not a flip's.",
    message: () => ({
      message: "must be one of turn_key, light_rehab, moderate_rehab, major_rehab, tear_down",
      override: true
    })
  })
export type Condition = typeof Condition.Type

/**
 * A street address: 1 to 200 characters once surrounding white space is trimmed, with a letter or a digit,
 * no control characters. Whether it names a property is the scoring step's to say (a covered 422).
 */
const PASTED_SEPARATORS = /[\r\n\t]/g

export const Address = Schema.String.annotations({
  description: "The property's street address as a person would write it: house number and street, then town, " +
    "state and ZIP code if known (commas, abbreviations and small typos are fine; a unit names the unit where " +
    "units are on record at the address, a condominium's or a strata unit, and is ignored on a house of two or " +
    "three families; on any other property without units on record it may name one not on record, and is " +
    "refused, free). 1 to 200 characters; line breaks and tabs separate its parts as commas do.",
  examples: ["3 Pine Ct, Riverton, ZZ 99103"]
}).pipe(
  Schema.compose(Schema.Trim),
  Schema.filter((address) =>
    address.length === 0
      ? "must not be empty"
      : address.length > 200
      ? "must be at most 200 characters"
      : hasControlCharacters(address.replace(PASTED_SEPARATORS, " "))
      ? "must not contain control characters other than line breaks and tabs"
      : !/[\p{L}\p{N}]/u.test(address)
      ? "must contain a street address (letters and numbers)"
      : true
  ),
  // Line breaks and tabs, as an address pasted from a letter or a spreadsheet row has them, separate its parts as
  // commas do; any other control character is refused (an address audit, 2026-11-30: every such paste was a 400).
  // Its length is the length sent.
  Schema.compose(Schema.transform(Schema.String, Schema.String, {
    strict: true,
    decode: (address) => address.replace(/[ ,]*[\r\n\t][\s,]*/g, ", "),
    encode: (address) => address
  }))
)

export const RehabBudget = Schema.Int.pipe(Schema.between(0, 10_000_000)).annotations({
  description: "The repair budget in whole dollars, 0 to 10,000,000. When sent it replaces the `condition` " +
    "bracket, and lifts the repaired value toward the comp band's top (fully at $60 per square foot).",
  message: () => ({ message: "must be a whole number of dollars from 0 to 10000000", override: true })
})

export const TargetMargin = Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThan(0.9)).annotations({
  description: "The profit the buyer wants, as a fraction of the repaired value (0.2 = 20%), more than 0 and " +
    "less than 0.9. Default 0.2. The maximum allowable offer is solved at this margin.",
  message: () => ({
    message: "must be a number greater than 0 and less than 0.9: a fraction of the repaired value (0.25 for 25%)",
    override: true
  })
})

export const ScoredCall = Schema.Struct({
  address: Address,
  condition: Schema.optionalWith(Condition, { exact: true }),
  rehab_budget: Schema.optionalWith(RehabBudget, { exact: true }),
  target_margin: Schema.optionalWith(TargetMargin, { exact: true }),
  overrides: Schema.optionalWith(Overrides, { exact: true })
}).annotations({
  identifier: "ScoredCall",
  description: "One property to score, by its street address (`property_id` is not accepted here), with the " +
    "repair plan and margin to price it at. Any member not listed is refused (400).",
  parseOptions: { onExcessProperty: "error" }
})
export type ScoredCall = typeof ScoredCall.Type
