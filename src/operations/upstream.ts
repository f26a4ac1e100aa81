/**
 * The scoring step as every operation calls it: the interface's "upstream". The one place that says how
 * it fails, and all of it is covered (ERR-3, ERR-4):
 *
 * - its typed failures are the covered reasons (an address matched several properties, is outside the
 *   covered area, cannot be scored, lacks a valuation fact; a history `property_id` is unknown);
 * - it did not answer within `SCORING_TIMEOUT_SECONDS`: `upstream-timeout` (504);
 * - it crashed (a defect of the engine or its store): `upstream-unavailable` (502). An engine crash is the
 *   upstream failing to complete the call, not a refusal outside the covered reasons: a single call is
 *   refunded, and in a batch only that entry fails (refunded) while the others are still scored (BAT-8).
 *   The batch stop rule (BAT-9) is left for failures outside the scoring step: a covered entry whose refund
 *   the Ledger cannot record, or a defect of the pipeline itself.
 */
import { Cause, Duration, Effect } from "effect"
import type { HistoryAnswer } from "../../schema/history.js"
import type { Overrides } from "../../schema/overrides.js"
import { UpstreamTimeout, UpstreamUnavailable } from "../../schema/problems.js"
import {
  type HistoryError,
  type HistoryQuery,
  Scoring,
  SCORING_TIMEOUT_SECONDS,
  type ScoringError
} from "../services/scoring.js"
import type { ScoringOutcome } from "../valuation/answer.js"

const upstream = <A, E>(step: string, effect: Effect.Effect<A, E, Scoring>) =>
  effect.pipe(
    Effect.timeoutFail({
      duration: Duration.seconds(SCORING_TIMEOUT_SECONDS),
      onTimeout: () =>
        new UpstreamTimeout({ detail: `Scoring did not answer within ${SCORING_TIMEOUT_SECONDS} seconds.` })
    }),
    Effect.catchAllDefect((defect) =>
      Effect.zipRight(
        // The defect as a Cause, so the log shows its message and stack (an Error alone was printed as {}).
        Effect.logError(`${step} failed`, Cause.die(defect)),
        Effect.fail(new UpstreamUnavailable({ detail: "Scoring could not complete the call." }))
      )
    )
  )

/** Locates and values one address (overrides applied). */
export const scoreAddress = (
  address: string,
  overrides: Overrides | undefined
): Effect.Effect<ScoringOutcome, ScoringError, Scoring> =>
  upstream("Scoring.score", Effect.flatMap(Scoring, (scoring) => scoring.score(address, overrides)))

/** A property's recorded story. */
export const recordedHistory = (query: HistoryQuery): Effect.Effect<HistoryAnswer, HistoryError, Scoring> =>
  upstream("Scoring.history", Effect.flatMap(Scoring, (scoring) => scoring.history(query)))
