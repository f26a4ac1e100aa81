/**
 * The scoring step: address → property, comparable sales and the pricing model's distribution for the
 * subject's facts (overrides applied). Its failures are the covered reasons, as typed errors: a call that
 * ends in one of them is refunded (ERR-3).
 */
import { Context, type Effect } from "effect"
import type { HistoryAnswer } from "../../schema/history.js"
import type { Overrides } from "../../schema/overrides.js"
import type {
  AmbiguousAddress,
  MissingValuationFact,
  OutsideCoverage,
  UnknownProperty,
  UnscorableAddress,
  UpstreamTimeout,
  UpstreamUnavailable
} from "../../schema/problems.js"
import type { ScoringOutcome } from "../valuation/answer.js"

export type AddressProblem = AmbiguousAddress | OutsideCoverage | UnscorableAddress
export type UpstreamProblem = UpstreamUnavailable | UpstreamTimeout

/** Everything `score` can end in: the five covered reasons and a missing valuation fact. */
export type ScoringError = AddressProblem | MissingValuationFact | UpstreamProblem

export type HistoryQuery = { readonly address: string } | { readonly propertyId: string }

export type HistoryError = AddressProblem | UnknownProperty | UpstreamProblem

/** The policy deadline of one scoring call. */
export const SCORING_TIMEOUT_SECONDS = 10

export class Scoring extends Context.Tag("propscore/Scoring")<Scoring, {
  readonly score: (address: string, overrides?: Overrides | undefined) => Effect.Effect<ScoringOutcome, ScoringError>
  readonly history: (query: HistoryQuery) => Effect.Effect<HistoryAnswer, HistoryError>
  /**
   * The covered markets, each with its state and the date its records run through (`Melbourne (VIC), records
   * through 2018-03-17; …`), as the `outside-coverage` refusal names them; undefined where none is known.
   */
  readonly coverage: Effect.Effect<string | undefined>
}>() {}
