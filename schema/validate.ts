/** `POST /v1/validate`: the answer (VAL-6). The request is a Scored Call body or a batch envelope. */
import { Schema } from "effect"

export const ValidationAnswer = Schema.Struct({
  valid: Schema.Boolean
}).annotations({ identifier: "ValidationAnswer", description: "Always `{\"valid\": true}` on a 200." })
export type ValidationAnswer = typeof ValidationAnswer.Type
