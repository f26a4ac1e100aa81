/**
 * `POST /v1/predict`: refuse what can be judged before any Spend (the body, `tear_down`, the
 * Idempotency-Key header), then score one address as a one-Credit Metered Call.
 */
import { Effect } from "effect"
import { decodeIdempotencyKey } from "../../schema/decode.js"
import type { Caller } from "../services/credentials.js"
import { Scoring } from "../services/scoring.js"
import { scoredAnswer } from "../valuation/answer.js"
import { acceptScoredCall } from "./accept.js"
import { canonicalJson, metered, pastCallDeadline } from "./metered.js"

export interface MeteredInput {
  readonly caller: Caller
  readonly body: unknown
  readonly idempotencyKeyHeader: string | undefined
  readonly traceId: string
}

export const predict = (input: MeteredInput) =>
  Effect.gen(function*() {
    const call = yield* acceptScoredCall(input.body)
    const idempotencyKey = yield* decodeIdempotencyKey(input.idempotencyKeyHeader)
    const scoring = yield* Scoring
    return yield* metered(
      {
        accountId: input.caller.accountId,
        pendingTerms: input.caller.pendingTerms,
        operation: "predict",
        units: 1,
        traceId: input.traceId,
        idempotencyKey,
        fingerprint: `POST /v1/predict ${canonicalJson(input.body)}`
      },
      () => Effect.map(scoring.score(call.address, call.overrides), (outcome) => ({ status: 200, body: scoredAnswer(outcome, call) })),
      pastCallDeadline
    )
  }).pipe(Effect.withSpan("operations.predict"))
