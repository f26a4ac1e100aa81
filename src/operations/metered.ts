/**
 * The metering pipeline every Metered Call runs through (DESIGN.md): the terms check, idempotency (replay | conflict | in
 * flight | claim), then the Spend (its cost resolved by the Ledger), then the work, then either the stored
 * success or, for a covered reason, the Refund, and then the Spend is settled. The error channel says it all:
 * a covered reason is refunded and passed on; a defect or a lost process leaves the Spend open, and the
 * sweeper refunds it once its deadline has passed.
 */
import { Clock, Context, Duration, Effect } from "effect"
import { decodeIdempotencyKey } from "../../schema/decode.js"
import type { IdempotencyKey } from "../../schema/idempotency-key.js"
import {
  DuplicateRequestInFlight,
  IdempotencyKeyConflict,
  type InsufficientCredits,
  LedgerUnreachable,
  problemMeta,
  type SpendCapExceeded,
  TermsNotAccepted,
  UpstreamTimeout
} from "../../schema/problems.js"
import type { Problem } from "../../schema/problems.js"
import type { Caller } from "../services/credentials.js"
import { IdempotencyStore, type StoredResponse } from "../services/idempotency.js"
import { Ledger, type MeteredOperation, type Spend } from "../services/ledger.js"

/** How long an identical request in flight is waited for before 409 (CONTRACT.md). */
export const IN_FLIGHT_WAIT = Duration.seconds(2)
export const IN_FLIGHT_POLL = Duration.millis(100)
/** How long an interrupted call may spend refunding itself and freeing its key before leaving it to the sweeper. */
export const INTERRUPT_CLEANUP = Duration.seconds(5)
/**
 * How long a Spend may take before the call gives up with 503 `ledger-unreachable`. A Spend that commits
 * after all is still open, so the sweeper refunds it once its settle-by time passes: nothing is lost.
 */
export const SPEND_TIMEOUT = Duration.seconds(5)
/**
 * After this long a claim still in flight is presumed dead: its Spend is refunded and its key released.
 * 60 seconds by default (well past the 10-second scoring deadline); `CLAIM_DEADLINE_SECONDS` sets it.
 */
export class ClaimDeadline extends Context.Reference<ClaimDeadline>()("propscore/ClaimDeadline", {
  defaultValue: () => Duration.seconds(60)
}) {}

/** What a Metered Call receives, from REST or MCP alike: the caller, the body and key as sent, the trace id. */
export interface MeteredInput {
  readonly caller: Caller
  readonly body: unknown
  readonly idempotencyKeyHeader: string | undefined
  readonly traceId: string
}

export interface MeteredRequest {
  readonly accountId: string
  /** The Terms of Service version the Account has not accepted yet; null when it is up to date. */
  readonly pendingTerms: string | null
  readonly operation: MeteredOperation
  readonly units: number
  readonly traceId: string
  readonly idempotencyKey: IdempotencyKey | undefined
  /** The endpoint and the canonical body: what makes two requests "the same". */
  readonly fingerprint: string
}

/**
 * The work must end this share of the claim deadline before the deadline itself (so 80% of it when the
 * Spend is quick). Past that it is stopped and refunds itself, so a live call is never refunded by the
 * sweeper under it: the remaining 20% is margin for the refund and for clocks of different nodes.
 */
export const WORK_SHARE = 0.8

export interface MeteredAnswer {
  readonly response: StoredResponse
  /** True when this is a stored answer returned again (`Idempotent-Replayed: true`). */
  readonly replayed: boolean
}

/** A single-property call stopped at its deadline: a covered timeout, refunded. */
export const pastCallDeadline = () =>
  new UpstreamTimeout({ detail: "The call ran past its deadline and was stopped; its Credit was refunded. Retry it." })

export type MeteringError =
  | TermsNotAccepted
  | IdempotencyKeyConflict
  | DuplicateRequestInFlight
  | InsufficientCredits
  | SpendCapExceeded
  | LedgerUnreachable

/**
 * The Metered Request of a call whose body was accepted: its Idempotency-Key judged (a bad one is a 400
 * before any Spend), its identity the endpoint and the body.
 */
export const meteredRequest = (
  input: MeteredInput,
  call: { readonly operation: MeteredOperation; readonly units: number; readonly path: string }
) =>
  Effect.map(decodeIdempotencyKey(input.idempotencyKeyHeader), (idempotencyKey): MeteredRequest => ({
    accountId: input.caller.accountId,
    pendingTerms: input.caller.pendingTerms,
    operation: call.operation,
    units: call.units,
    traceId: input.traceId,
    idempotencyKey,
    fingerprint: `POST ${call.path} ${canonicalJson(input.body)}`
  }))

/** The reason a refund records for a failure: its problem slug (its tag when it has none). */
export const refundReason = (error: { readonly _tag: string }) => problemMeta(error._tag)?.slug ?? error._tag

/** JSON with sorted keys: two bodies equal as JSON values get one fingerprint. */
const canonicalJson = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonicalJson).join(",")}]`
    : typeof value === "object" && value !== null
    ? `{${
      Object.keys(value).sort().map((key) =>
        `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`
      ).join(",")
    }}`
    : JSON.stringify(value)

/**
 * Runs `work` as a Metered Call. `work` receives the recorded Spend and may refund parts of it itself (a
 * batch's covered entries); a covered reason it fails with refunds whatever is left of the Spend.
 */
export const metered = <E extends Problem, D extends Problem>(
  request: MeteredRequest,
  work: (spend: Spend) => Effect.Effect<StoredResponse, E, never>,
  /** The refusal for a call that runs past its share of the deadline (a covered one: it is refunded). */
  pastDeadline: () => D
): Effect.Effect<MeteredAnswer, MeteringError | E | D, Ledger | IdempotencyStore> =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const store = yield* IdempotencyStore
    const claimDeadline = yield* ClaimDeadline

    // Consent first: before the Idempotency-Key is looked at, so not even a replay answers (AUTH-5).
    if (request.pendingTerms !== null) {
      return yield* new TermsNotAccepted({
        detail: `The Terms of Service changed (version ${request.pendingTerms}) and this Account has not accepted ` +
          "them yet. Nothing was charged; once they are accepted, the call (and any replay) works again.",
        terms_version: request.pendingTerms
      })
    }

    // Spend → work → (stored answer | refund of what is left) → settle. Whatever dies before the settle
    // leaves the Spend open; the sweeper refunds it once `settleBy` has passed (SVC-4), key or no key.
    const runPaid = (claimId: string | undefined, settleBy: number) =>
      Effect.gen(function*() {
        const spend = yield* ledger.spend({
          accountId: request.accountId,
          operation: request.operation,
          units: request.units,
          traceId: request.traceId,
          settleBy
        }).pipe(Effect.timeoutFail({
          duration: SPEND_TIMEOUT,
          onTimeout: () =>
            new LedgerUnreachable({
              detail: "The Ledger did not answer in time; nothing was charged (a Spend recorded late is refunded " +
                "automatically). Retry later."
            })
        }))
        // The work ends (and refunds itself) a safety margin before `settleBy`, however long the Spend took.
        const margin = Duration.toMillis(claimDeadline) * (1 - WORK_SHARE)
        const workBudget = Math.max(0, settleBy - margin - (yield* Clock.currentTimeMillis))
        const settle = ledger.settle(spend.spendId).pipe(
          // Left open, the Spend is refunded by the sweeper: the caller gets an answer it was not charged for.
          Effect.catchAll((error) =>
            Effect.logWarning("settle failed; the sweeper will refund this answered call", error)
          )
        )
        const response = yield* work(spend).pipe(
          Effect.timeoutFail({ duration: Duration.millis(workBudget), onTimeout: pastDeadline }),
          Effect.tapError((error) =>
            // Whatever the work has not refunded itself (a batch refunds its covered entries); settles the Spend.
            ledger.refundRemaining(spend.spendId, refundReason(error), request.traceId).pipe(
              // The sweeper refunds it later if the Ledger is down now.
              Effect.catchAll((refundError) => Effect.logError("refund failed; left to the sweeper", refundError))
            )
          ),
          // The caller went away (or the server is stopping): no answer will reach it, so nothing is kept.
          Effect.onInterrupt(() =>
            ledger.refundRemaining(spend.spendId, "request-interrupted", request.traceId).pipe(
              // Bounded: a stuck database must not hold a stopping server; the sweeper refunds it later.
              Effect.timeoutFail({ duration: INTERRUPT_CLEANUP, onTimeout: () => "timed out" }),
              Effect.catchAll((refundError) => Effect.logError("refund failed; left to the sweeper", refundError))
            )
          )
        )
        // The answer is stored before the Spend is settled: a crash between the two refunds an answer
        // that can still be replayed, never charges for one that cannot. An interruption waits for both.
        yield* Effect.uninterruptible(Effect.gen(function*() {
          if (claimId !== undefined) yield* store.complete(claimId, response, spend.spendId)
          yield* settle
        }))
        return response
      })

    const deadlineFromNow = Effect.map(Clock.currentTimeMillis, (now) => now + Duration.toMillis(claimDeadline))
    if (request.idempotencyKey === undefined) {
      return { response: yield* runPaid(undefined, yield* deadlineFromNow), replayed: false }
    }

    // The claim and its Spend share one deadline: the sweeper frees the key and refunds the Spend together.
    const claimOnce = Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const deadline = now + Duration.toMillis(claimDeadline)
      return Effect.map(
        store.claim({
          accountId: request.accountId,
          key: request.idempotencyKey!,
          fingerprint: request.fingerprint,
          now,
          deadline
        }),
        (claim) => ({ claim, deadline })
      )
    })
    // An identical request in flight is waited for briefly; its stored result (or a freed key) ends the wait.
    const waitUntil = (yield* Clock.currentTimeMillis) + Duration.toMillis(IN_FLIGHT_WAIT)
    let attempt = yield* claimOnce
    while (attempt.claim._tag === "InFlight" && (yield* Clock.currentTimeMillis) < waitUntil) {
      yield* Effect.sleep(IN_FLIGHT_POLL)
      attempt = yield* claimOnce
    }
    const { claim, deadline } = attempt
    switch (claim._tag) {
      case "Replay":
        return { response: claim.response, replayed: true }
      case "Conflict":
        return yield* new IdempotencyKeyConflict({
          detail: "This Idempotency-Key was used by this Account for a different request within the last 24 hours."
        })
      case "InFlight":
        return yield* new DuplicateRequestInFlight({
          detail:
            "An identical request with this Idempotency-Key is still being processed; retry shortly to get its result.",
          retry_after: 1
        })
      case "Claimed": {
        const response = yield* runPaid(claim.claimId, deadline).pipe(
          Effect.tapError(() => store.release(claim.claimId)),
          Effect.onInterrupt(() => store.release(claim.claimId).pipe(Effect.timeout(INTERRUPT_CLEANUP), Effect.ignore))
        )
        return { response, replayed: false }
      }
    }
  })
