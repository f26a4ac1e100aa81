/**
 * `POST /v1/predict/batch`: one Spend for the whole batch (BAT-6), entries scored in order; a covered
 * failure becomes that entry's Problem Detail with its own one-Credit Refund (BAT-8); any other refusal
 * stops the batch: no results, 503 `spend-indeterminate`, and every Credit of the batch refunded (BAT-9).
 */
import { Effect, Either } from "effect"
import { problemBody } from "../../schema/problem-detail.js"
import { SpendIndeterminate } from "../../schema/problems.js"
import { AppConfig } from "../config.js"
import { Ledger } from "../services/ledger.js"
import { Scoring } from "../services/scoring.js"
import { scoredAnswer, scoredEntry } from "../valuation/answer.js"
import { acceptBatch } from "./accept.js"
import { metered, type MeteredInput, meteredRequest, refundReason } from "./metered.js"

export const batch = (input: MeteredInput) =>
  Effect.gen(function*() {
    const request = yield* acceptBatch(input.body)
    const metering = yield* meteredRequest(input, {
      operation: "batch",
      units: request.properties.length,
      path: "/v1/predict/batch"
    })
    const scoring = yield* Scoring
    const ledger = yield* Ledger
    const config = yield* AppConfig
    return yield* metered(
      metering,
      (spend) =>
        Effect.gen(function*() {
          const results: Array<unknown> = []
          for (const call of request.properties) {
            const outcome = yield* Effect.either(scoring.score(call.address, call.overrides)).pipe(
              // Anything but a covered reason stops the batch.
              Effect.catchAllCause((cause) =>
                Effect.zipRight(
                  Effect.logError("batch stopped", cause),
                  Effect.fail(
                    new SpendIndeterminate({
                      detail: "A property of the batch failed for a reason outside the covered ones; the batch was " +
                        "stopped and every Credit of it refunded. The request can be retried."
                    })
                  )
                )
              )
            )
            if (Either.isRight(outcome)) {
              results.push(scoredEntry(scoredAnswer(outcome.right, call)))
              continue
            }
            yield* ledger.refund({
              spendId: spend.spendId,
              amount: 1,
              reason: refundReason(outcome.left),
              traceId: input.traceId
            }).pipe(
              Effect.catchAll(() =>
                Effect.fail(
                  new SpendIndeterminate({ detail: "A covered failure could not be refunded; the batch was stopped." })
                )
              )
            )
            const { trace_id: _traceId, ...entry } = problemBody(outcome.left, {
              traceId: input.traceId,
              docsBaseUrl: config.docsBaseUrl
            })
            results.push(entry)
          }
          return { status: 200, body: { results } }
        }),
      () =>
        new SpendIndeterminate({
          detail: "The batch ran past the call deadline and was stopped; every Credit of it was refunded. " +
            "Retry it, or split it into smaller batches."
        })
    )
  }).pipe(Effect.withSpan("operations.batch"))
