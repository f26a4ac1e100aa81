/** `POST /v1/validate`: the answer (VAL-6). The request is a Scored Call body or a batch envelope. */
import { Schema } from "effect"

export const ValidationAnswer = Schema.Struct({
  valid: Schema.Boolean.annotations({
    description: "Always true: a request that would be refused gets the refusal itself (400 or 413) instead."
  })
}).annotations({
  identifier: "ValidationAnswer",
  description: "The request would be accepted as sent (whether its address names a property is for scoring to say)."
})
export type ValidationAnswer = typeof ValidationAnswer.Type
