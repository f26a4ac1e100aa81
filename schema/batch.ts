/** `POST /v1/predict/batch`: the envelope (only `properties`, BAT-5), the size cap (BAT-11) and the answer. */
import { Schema } from "effect"
import { ScoredEntry } from "./scored-answer.js"
import { ScoredCall } from "./scored-call.js"

export const BATCH_LIMIT = 100

export const BatchRequest = Schema.Struct({
  properties: Schema.Array(ScoredCall).pipe(
    Schema.minItems(1, { message: () => "must hold at least one property" }),
    Schema.maxItems(BATCH_LIMIT)
  )
}).annotations({
  identifier: "BatchRequest",
  description: `\`properties\`: 1 to ${BATCH_LIMIT} Scored Call bodies. No other member is accepted.`,
  parseOptions: { onExcessProperty: "error" }
})
export type BatchRequest = typeof BatchRequest.Type

/** A failed entry is the Problem Detail a single call would return (BAT-3). */
export const BatchEntryProblem = Schema.Struct({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Int,
  detail: Schema.String
}).annotations({ identifier: "BatchEntryProblem" })

export const BatchAnswer = Schema.Struct({
  results: Schema.Array(Schema.Union(ScoredEntry, BatchEntryProblem))
}).annotations({ identifier: "BatchAnswer" })
