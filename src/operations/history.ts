/** `POST /v1/history`: a property's recorded story, one Credit; exactly one of address or property_id. */
import { Effect } from "effect"
import { decodeHistoryRequest, decodeIdempotencyKey } from "../../schema/decode.js"
import { Scoring } from "../services/scoring.js"
import { canonicalJson, metered, pastCallDeadline } from "./metered.js"
import type { MeteredInput } from "./predict.js"

export const history = (input: MeteredInput) =>
  Effect.gen(function*() {
    const request = yield* decodeHistoryRequest(input.body)
    const idempotencyKey = yield* decodeIdempotencyKey(input.idempotencyKeyHeader)
    const scoring = yield* Scoring
    return yield* metered(
      {
        accountId: input.caller.accountId,
        pendingTerms: input.caller.pendingTerms,
        operation: "history",
        units: 1,
        traceId: input.traceId,
        idempotencyKey,
        fingerprint: `POST /v1/history ${canonicalJson(input.body)}`
      },
      () =>
        Effect.map(
          scoring.history(request.property_id !== undefined ? { propertyId: request.property_id } : { address: request.address! }),
          (answer) => ({ status: 200, body: answer })
        ),
      pastCallDeadline
    )
  }).pipe(Effect.withSpan("operations.history"))
