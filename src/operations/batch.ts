/**
 * `POST /v1/predict/batch`: one Spend for the whole batch (BAT-6), entries scored in order (BAT-1), one
 * slice at a time (the event loop runs between entries, so a batch never holds other requests back). A
 * covered failure becomes that entry's Problem Detail with its own one-Credit Refund, and the batch goes on
 * (BAT-8); any other failure (a covered entry whose refund the Ledger cannot record, a defect outside the
 * scoring step) stops it: no results, 503 `spend-indeterminate`, and every Credit of it refunded (BAT-9).
 */
import { Cause, Effect } from "effect"
import { problemBody } from "../../schema/problem-detail.js"
import { type CoveredReason, isCoveredReason, problemMeta, SpendIndeterminate } from "../../schema/problems.js"
import type { ScoredCall } from "../../schema/scored-call.js"
import { AppConfig } from "../config.js"
import { Ledger, type Spend } from "../services/ledger.js"
import { scoredEntry } from "../valuation/answer.js"
import { acceptBatch, withKeyRefusal } from "./accept.js"
import { metered, type MeteredInput, meteredRequest } from "./metered.js"
import { scoreAddress } from "./upstream.js"

/**
 * Between two entries the batch lets the event loop run: other requests (and their I/O) are served after at
 * most one entry's scoring, never after a whole batch's. A real macrotask turn (setImmediate), not a yield to
 * Effect's own scheduler, which may resume the batch before any socket is read.
 */
export const yieldToOtherRequests: Effect.Effect<void> = Effect.async<void>((resume) => {
  const turn = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(turn))
})

/**
 * When a stopped batch's refund lands: it is tried before the answer, and where the database cannot take it
 * then, the sweeper makes it (a Credits audit saw "refunded" while the Balance still showed the Spend).
 */
const REFUND_TIMING = "at once, or within about a minute when the database cannot take the refund now"

/** BAT-9: the stop rule, for whatever ended the batch other than a covered reason. */
const stopTheBatch = (cause: Cause.Cause<unknown>) =>
  Cause.isInterruptedOnly(cause)
    ? Effect.failCause(cause as Cause.Cause<never>)
    : Effect.zipRight(
      Effect.logError("batch stopped", cause),
      Effect.fail(
        new SpendIndeterminate({
          detail: "A property of the batch failed for a reason outside the covered ones; the batch was stopped " +
            `and every Credit of it is refunded (${REFUND_TIMING}). The request can be retried.`
        })
      )
    )

export const batch = (input: MeteredInput) =>
  Effect.gen(function*() {
    const request = yield* acceptBatch(input.body).pipe(withKeyRefusal(input.idempotencyKeyHeader))
    const metering = yield* meteredRequest(input, {
      operation: "batch",
      path: "/v1/predict/batch",
      subjects: request.properties.map((call) => call.address)
    })
    const ledger = yield* Ledger
    const config = yield* AppConfig

    /** BAT-8 BAT-3: a covered failure's own one-Credit Refund, and the Problem Detail a single call would answer. */
    const refundedEntry = (spend: Spend, call: ScoredCall, reason: CoveredReason) =>
      Effect.map(
        ledger.refund({
          spendId: spend.spendId,
          amount: 1,
          reason: problemMeta(reason._tag)!.slug,
          traceId: input.traceId,
          subject: call.address
        }),
        () => {
          // BAT-4: the call's one trace id is in the header, not in the entries.
          const { trace_id: _, ...entry } = problemBody(reason, {
            traceId: input.traceId,
            docsBaseUrl: config.docsBaseUrl
          })
          return entry
        }
      )

    const entryOf = (spend: Spend) => (call: ScoredCall) =>
      scoreAddress(call.address, call.overrides).pipe(
        Effect.map((outcome) => scoredEntry(outcome, call)),
        Effect.catchIf(isCoveredReason, (reason) => refundedEntry(spend, call, reason))
      )

    return yield* metered(
      metering,
      (spend) =>
        Effect.forEach(
          request.properties,
          (call, i) => (i === 0 ? entryOf(spend)(call) : Effect.zipRight(yieldToOtherRequests, entryOf(spend)(call)))
        ).pipe(
          // IDEM-5: a batch whose every entry was refunded is a refunded call: its key is freed, not stored (an
          // audit: a single call refused so freed its key, a batch of such calls kept it for 24 hours).
          Effect.map((results) => ({
            status: 200,
            body: { results },
            refundedInFull: results.every((entry) => "status" in entry)
          })),
          Effect.catchAllCause(stopTheBatch)
        ),
      () =>
        new SpendIndeterminate({
          detail:
            `The batch ran past the call deadline and was stopped; every Credit of it is refunded (${REFUND_TIMING}). ` +
            "Retry it, or split it into smaller batches."
        })
    )
  })
