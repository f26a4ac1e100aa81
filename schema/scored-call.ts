/** The Scored Call body: `POST /v1/predict`, each batch entry, and what `POST /v1/validate` judges. */
import { Schema } from "effect"
import { Overrides } from "./overrides.js"
import { hasControlCharacters } from "./text.js"

export const Condition = Schema.Literal("turn_key", "light_rehab", "moderate_rehab", "major_rehab", "tear_down")
  .annotations({
    identifier: "Condition",
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
export const Address = Schema.Trim.pipe(
  Schema.filter((address) =>
    address.length === 0
      ? "must not be empty"
      : address.length > 200
      ? "must be at most 200 characters"
      : hasControlCharacters(address)
      ? "must not contain control characters"
      : !/[\p{L}\p{N}]/u.test(address)
      ? "must contain a street address (letters and numbers)"
      : true
  )
).annotations({ identifier: "Address", description: "Full street address." })

export const RehabBudget = Schema.Int.pipe(Schema.between(0, 10_000_000))
  .annotations({ message: () => ({ message: "must be a whole number of dollars from 0 to 10000000", override: true }) })

export const TargetMargin = Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThan(0.9))
  .annotations({ message: () => ({ message: "must be a number greater than 0 and less than 0.9", override: true }) })

export const ScoredCall = Schema.Struct({
  address: Address,
  condition: Schema.optionalWith(Condition, { exact: true }),
  rehab_budget: Schema.optionalWith(RehabBudget, { exact: true }),
  target_margin: Schema.optionalWith(TargetMargin, { exact: true }),
  overrides: Schema.optionalWith(Overrides, { exact: true })
}).annotations({
  identifier: "ScoredCall",
  description: "Scores one address. `property_id` is not accepted here; unknown members are refused.",
  parseOptions: { onExcessProperty: "error" }
})
export type ScoredCall = typeof ScoredCall.Type
