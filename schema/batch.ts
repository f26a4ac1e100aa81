/** `POST /v1/predict/batch`: the envelope (only `properties`, BAT-5), the size cap (BAT-11) and the answer. */
import { Schema } from "effect"
import { ScoredEntry, SubjectProperty } from "./scored-answer.js"
import { ScoredCall } from "./scored-call.js"

export const BATCH_LIMIT = 100

export const BatchRequest = Schema.Struct({
  properties: Schema.Array(ScoredCall).pipe(
    Schema.minItems(1, { message: () => "must hold at least one property" }),
    Schema.maxItems(BATCH_LIMIT)
  ).annotations({
    description: `1 to ${BATCH_LIMIT} properties to score, each as the single-property call takes it. The same ` +
      "address twice is scored and charged twice."
  })
}).annotations({
  identifier: "BatchRequest",
  description: `Up to ${BATCH_LIMIT} properties scored in one call, one Credit each. No member other than ` +
    "`properties` is accepted.",
  parseOptions: { onExcessProperty: "error" }
})
export type BatchRequest = typeof BatchRequest.Type

/** A failed entry is the Problem Detail a single call would return (BAT-3). */
export const BatchEntryProblem = Schema.Struct({
  type: Schema.String.annotations({ description: "The problem's documentation URI; its last segment is the slug." }),
  title: Schema.String.annotations({ description: "The problem's short summary." }),
  status: Schema.Int.annotations({ description: "The HTTP status a single call would have answered." }),
  detail: Schema.String.annotations({ description: "What went wrong with this property." }),
  candidates: Schema.optionalWith(
    Schema.Array(Schema.String).annotations({
      description: "`ambiguous-address`: the addresses it matched (up to five); send one of them."
    }),
    { exact: true }
  ),
  suggestions: Schema.optionalWith(
    Schema.Array(Schema.String).annotations({
      description: "`unscorable-address`: recorded addresses close to the one sent (up to five)."
    }),
    { exact: true }
  ),
  missing: Schema.optionalWith(
    Schema.Array(Schema.String).annotations({
      description: "`missing-valuation-fact`: the facts to supply as `overrides`."
    }),
    { exact: true }
  ),
  subject_property: Schema.optionalWith(SubjectProperty, { exact: true }).annotations({
    description: "`missing-valuation-fact`: the property the address named (its id, address, facts on record " +
      "and how the address matched): check it is the one meant before supplying the missing facts."
  })
}).annotations({
  identifier: "BatchEntryProblem",
  description: "A property that failed for a covered reason: the Problem Detail a single call would answer " +
    "(without `trace_id`, which is the call's `trace-id` header). Its Credit is refunded."
})

export const BatchAnswer = Schema.Struct({
  results: Schema.Array(Schema.Union(ScoredEntry, BatchEntryProblem)).annotations({
    description: "One entry per property submitted, in the same order: a scored entry, or a Problem Detail " +
      "(it has `type` and `status`) for a property that failed for a covered reason."
  })
}).annotations({ identifier: "BatchAnswer", description: "The batch's results, in submission order." })
