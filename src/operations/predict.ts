/**
 * `POST /v1/predict`: refuse what can be judged before any Spend (the body, `tear_down`, the
 * Idempotency-Key header), then score one address as a one-Credit Metered Call.
 */
import { Effect } from "effect"
import { scoredAnswer } from "../valuation/answer.js"
import { acceptScoredCall, withKeyRefusal } from "./accept.js"
import { metered, type MeteredInput, meteredRequest, pastCallDeadline } from "./metered.js"
import { scoreAddress } from "./upstream.js"

export const predict = (input: MeteredInput) =>
  Effect.gen(function*() {
    const call = yield* acceptScoredCall(input.body).pipe(withKeyRefusal(input.idempotencyKeyHeader))
    const request = yield* meteredRequest(input, {
      operation: "predict",
      path: "/v1/predict",
      subjects: [call.address]
    })
    return yield* metered(
      request,
      () =>
        Effect.map(
          scoreAddress(call.address, call.overrides),
          (outcome) => ({ status: 200, body: scoredAnswer(outcome, call) })
        ),
      pastCallDeadline
    )
  })
