/**
 * `POST /v1/validate`: judges a body as predict or batch would, free (VAL-1). It never scores and never
 * calls the Ledger (VAL-2): its only dependency is the decoding, so it answers at a zero Balance and during
 * a Ledger outage. The credential it needs (VAL-5) is checked by the front door before it runs.
 */
import { Effect } from "effect"
import type { BatchTooLarge, InvalidRequest } from "../../schema/problems.js"
import type { ValidationAnswer } from "../../schema/validate.js"
import { acceptValidationBody } from "./accept.js"

export const validate = (body: unknown): Effect.Effect<ValidationAnswer, InvalidRequest | BatchTooLarge> =>
  acceptValidationBody(body).pipe(Effect.as({ valid: true }))
