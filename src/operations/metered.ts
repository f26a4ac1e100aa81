/**
 * The metering pipeline every Metered Call runs through (DESIGN.md), as named steps:
 *
 *   terms → claim the Idempotency-Key (replay | conflict | in flight | claimed) → Spend → work → store, then settle
 *
 * (Where the idempotency store and the Ledger share a database, the claim and the Spend are one step, and
 * so are the store and the settle: `JointSteps`.)
 *
 * The error channel says how each call ends. Before the Spend nothing is charged: a refused consent (403), a
 * key conflict (422) or a duplicate in flight (409), a key that could not be checked (503
 * `call-not-started`), a Spend the Ledger refused (402, 429) or could not record (503 `ledger-unreachable`).
 * After it, the work fails only with a covered reason (refunded, ERR-3) or a batch's stop
 * (`spend-indeterminate`, all refunded, BAT-9); whatever else ends it (a defect, an interruption) refunds
 * what is left of the Spend too. A produced answer is charged, once: stored and settled by `Settlement`,
 * in the background if the database cannot take it now.
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Fiber, Option } from "effect"
import { randomUUID } from "node:crypto"
import { decodeIdempotencyKey } from "../../schema/decode.js"
import type { IdempotencyKey } from "../../schema/idempotency-key.js"
import {
  CallNotStarted,
  type CoveredReason,
  DuplicateRequestInFlight,
  IdempotencyKeyConflict,
  type InsufficientCredits,
  isCoveredReason,
  type LedgerUnreachable,
  problemMeta,
  type SpendCapExceeded,
  type SpendIndeterminate,
  TermsNotAccepted,
  UpstreamTimeout
} from "../../schema/problems.js"
import type { Caller } from "../services/credentials.js"
import { type Claim, IdempotencyStore, type StoredResponse, withJson } from "../services/idempotency.js"
import { type JointClaim, JointSteps } from "../services/joint-steps.js"
import { Ledger, type MeteredOperation, type Spend, type SpendRequest } from "../services/ledger.js"
import { Settlement } from "./settlement.js"

/** How long an identical request in flight is waited for before 409 (CONTRACT.md). */
export const IN_FLIGHT_WAIT = Duration.seconds(2)
export const IN_FLIGHT_POLL = Duration.millis(100)
/** How long an interrupted or stopped call waits for its refund before answering; the refund goes on after. */
export const CLEANUP_WAIT = Duration.millis(500)
/** How long a failed keyed call waits for its key to be freed before answering; the release goes on after. */
export const RELEASE_WAIT = Duration.millis(500)
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
  /** What the call is about, one per unit (each property's address as sent), for the Ledger's entry. */
  readonly subjects: ReadonlyArray<string>
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

/** What the work of a Metered Call may fail with: a covered reason, or a batch's stop. */
export type WorkFailure = CoveredReason | SpendIndeterminate

/** A single-property call stopped at its deadline: a covered timeout, refunded. */
export const pastCallDeadline = () =>
  new UpstreamTimeout({ detail: "The call ran past its deadline and was stopped; its Credit was refunded. Retry it." })

export type MeteringError =
  | TermsNotAccepted
  | IdempotencyKeyConflict
  | DuplicateRequestInFlight
  | CallNotStarted
  | InsufficientCredits
  | SpendCapExceeded
  | LedgerUnreachable

/**
 * The Metered Request of a call whose body was accepted: its Idempotency-Key judged (a bad one is a 400
 * before any Spend, IDEM-10), its identity the endpoint and the body.
 */
export const meteredRequest = (
  input: MeteredInput,
  call: {
    readonly operation: MeteredOperation
    readonly path: string
    /** One per unit the call is charged for. */
    readonly subjects: ReadonlyArray<string>
  }
) =>
  Effect.map(decodeIdempotencyKey(input.idempotencyKeyHeader), (idempotencyKey): MeteredRequest => ({
    accountId: input.caller.accountId,
    pendingTerms: input.caller.pendingTerms,
    operation: call.operation,
    units: call.subjects.length,
    traceId: input.traceId,
    idempotencyKey,
    fingerprint: `POST ${call.path} ${canonicalJson(input.body)}`,
    subjects: call.subjects
  }))

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

/** The reason a refund records: the covered reason's slug, the stop's, or what else ended the call. */
const refundReasonOf = (cause: Cause.Cause<WorkFailure>): string => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return problemMeta(failure.value._tag)!.slug
  return Cause.isInterruptedOnly(cause) ? "request-interrupted" : "internal-error"
}

/**
 * Runs a clean-up in the background and waits for it at most `wait`: a stalled database never holds the
 * answer. (Run from a finalizer, so the wait itself is made interruptible for its timeout to end it.)
 */
const inBackground = (cleanup: Effect.Effect<unknown, unknown>, wait: Duration.Duration) =>
  Effect.flatMap(
    Effect.forkDaemon(cleanup),
    (fiber) => Effect.ignore(Effect.timeout(Effect.interruptible(Fiber.await(fiber)), wait))
  )

/** The Portal's Terms page (src/http/portal-pages.ts `paths.terms`; a test holds the two together). */
export const PORTAL_TERMS_PATH = "/portal/terms"

/** What the 403 says: what changed, that nothing was charged, and where the Terms are accepted. */
export const termsNotAcceptedDetail = (accountId: string, version: string) =>
  `The Terms of Service changed (version ${version}) and this Account has not accepted them yet; nothing was ` +
  `charged. The account holder accepts them in the Portal at ${PORTAL_TERMS_PATH}, or the operator records ` +
  `the acceptance with \`propscore terms accept --account ${accountId}\`. Then the call (and any replay) works again.`

/** AUTH-5 IDEM-8: consent first, before the Idempotency-Key is looked at, so not even a replay answers. */
const requireAcceptedTerms = Effect.fnUntraced(function*(request: MeteredRequest) {
  if (request.pendingTerms === null) return
  return yield* new TermsNotAccepted({
    detail: termsNotAcceptedDetail(request.accountId, request.pendingTerms),
    terms_version: request.pendingTerms
  })
})

type Claimed =
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Claimed"; readonly claimId: string; readonly deadline: number }

/**
 * The key's store did not answer: the call never started. A statement the database took after all (delivered
 * late, after a stall) is undone by this node's sweeper once the database answers again (`giveUp`), at the
 * latest by any sweeper at the claim's deadline, and the answer says so (a Credits audit saw the Balance a
 * Credit lower, and the key answer 409, meanwhile).
 */
const keyNotChecked = (deadline: Duration.Duration) => () =>
  new CallNotStarted({
    detail: "The Idempotency-Key could not be checked because the database did not answer in time, so the call " +
      "did not run and is not charged. Retry later with the same key. If the database took the claim after " +
      "all, its Credits are refunded and the key freed within seconds of the database answering again (should " +
      `this server stop meanwhile, by the first one running ${Math.ceil(Duration.toSeconds(deadline)) + 30} ` +
      "seconds or more from now); until then the Balance shows those Credits and the key answers 409."
  })

/**
 * A step whose database did not answer: its attempt is given up on (`Settlement.giveUp`), so that what the
 * database took late is undone at the sweeper's next round; then the step's own failure.
 */
const givingUp = (attemptId: string, until: number) => <A, E, R>(step: Effect.Effect<A, E, R>) =>
  Effect.tapError(step, () => Effect.flatMap(Settlement, (settlement) => settlement.giveUp(attemptId, until)))

/**
 * IDEM-1 IDEM-3 IDEM-4 IDEM-5 IDEM-6 IDEM-7 IDEM-9: the key is claimed, or its stored answer replayed, or
 * refused (a different request under it, or the same one still in flight after a brief wait). The claim and
 * its Spend share one deadline: the sweeper frees the key and refunds the Spend together. A store that cannot
 * answer means the call never started (503 `call-not-started`).
 */
const claimKey = Effect.fnUntraced(function*(request: MeteredRequest, key: IdempotencyKey) {
  const store = yield* IdempotencyStore
  const claimDeadline = yield* ClaimDeadline
  // One id for every try: the store takes the key under it at most once.
  const claimId = randomUUID()
  const claimOnce = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const deadline = now + Duration.toMillis(claimDeadline)
    return store.claim({ accountId: request.accountId, key, fingerprint: request.fingerprint, now, deadline, claimId })
      .pipe(
        Effect.map((claim) => ({ claim, deadline })),
        givingUp(claimId, deadline),
        Effect.mapError(keyNotChecked(claimDeadline))
      )
  })
  const waitUntil = (yield* Clock.currentTimeMillis) + Duration.toMillis(IN_FLIGHT_WAIT)
  let attempt = yield* claimOnce
  while (attempt.claim._tag === "InFlight" && (yield* Clock.currentTimeMillis) < waitUntil) {
    yield* Effect.sleep(IN_FLIGHT_POLL)
    attempt = yield* claimOnce
  }
  const { claim, deadline } = attempt
  return yield* claimed(claim, deadline)
})

/**
 * What a 409 `duplicate-request-in-flight` says: retry after `retry_after`; and, for an earlier attempt cut off
 * without an answer, when its Credits are refunded and the key freed: within seconds (a sweeper's round) of its
 * claim's deadline.
 * (Words for the caller: the sweeper and the database's absence meant nothing to an agent, its audit of
 * 2026-11-29 found; "freed within seconds of the service recovering" was false after a server killed mid-call,
 * whose claim holds to its deadline: an integrator's audit, 2026-11-30, polled a minute.)
 */
export const inFlightDetail = (deadline: number, now: number) =>
  "An identical request with this idempotency key is still being processed: retry with the same key after " +
  "`retry_after` seconds to get its result; nothing is charged for this refusal. (If an earlier attempt with " +
  "this key was cut off without an answer, the service stopping while it ran, its Credits are refunded and the " +
  (deadline > now
    ? `key freed within seconds of ${new Date(deadline).toISOString()}, ${
      Math.ceil((deadline - now) / 1000)
    } seconds from now, and a retry then runs as a new request.)`
    : "key freed within seconds, and a retry then runs as a new request.)")

/** What a claim means for the call: run (claimed), answer again (replay), or refuse. */
const claimed = (
  claim: Claim,
  deadline: number
): Effect.Effect<Claimed, IdempotencyKeyConflict | DuplicateRequestInFlight> => {
  switch (claim._tag) {
    case "Replay":
      return Effect.succeed({ _tag: "Replay", response: claim.response })
    case "Claimed":
      return Effect.succeed({ _tag: "Claimed", claimId: claim.claimId, deadline })
    case "Conflict":
      return new IdempotencyKeyConflict({
        detail: "This idempotency key (the `Idempotency-Key` header, or a tool's `idempotency_key`) was used by this " +
          "Account for a different request within the last 24 hours: send this request with a new key."
      })
    case "InFlight":
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        new DuplicateRequestInFlight({
          detail: inFlightDetail(claim.deadline, now),
          retry_after: 1
        }))
  }
}

/**
 * IDEM-1 SVC-2: where the store and the Ledger share a database, an unseen key is claimed and its Spend
 * recorded in one step (the common case of a keyed call: one round trip for both). Whatever that step
 * cannot finish goes on the usual way: a Spend the Ledger refused is recorded again on its own (for its
 * reason), a request in flight is waited for, a key to take over is claimed by the store. Undefined without
 * the joint steps. The step's database failing means the call never started (503 `call-not-started`); had
 * it committed after all, its claim and Spend are undone together at the sweeper's next round (`giveUp`).
 */
const claimWithSpend = Effect.fnUntraced(
  function*(request: MeteredRequest, key: IdempotencyKey) {
    const joint = yield* Effect.serviceOption(JointSteps)
    if (Option.isNone(joint)) return undefined
    const settlement = yield* Settlement
    const now = yield* Clock.currentTimeMillis
    const claimDeadline = yield* ClaimDeadline
    const deadline = now + Duration.toMillis(claimDeadline)
    // The claim and its Spend are one attempt, under the claim's id.
    const claimId = randomUUID()
    const result: JointClaim = yield* joint.value.claimAndSpend(
      { accountId: request.accountId, key, fingerprint: request.fingerprint, now, deadline, claimId },
      spendRequest(request, deadline, settlement.nodeId, claimId)
    ).pipe(givingUp(claimId, deadline), Effect.mapError(keyNotChecked(claimDeadline)))
    return { result, deadline }
  }
)

/**
 * SVC-2 SVC-3 SVC-4 BAT-6 BAT-7: the Spend is recorded, its cost resolved by the Ledger, before any work. A
 * refusal records nothing (402, 429 spend cap); a Ledger that cannot record it is 503 `ledger-unreachable`
 * (its attempt given up on: a Spend committed after all is refunded at the sweeper's next round).
 */
const recordSpend = Effect.fnUntraced(function*(request: MeteredRequest, settleBy: number) {
  const ledger = yield* Ledger
  const settlement = yield* Settlement
  const attemptId = randomUUID()
  return yield* ledger.spend(spendRequest(request, settleBy, settlement.nodeId, attemptId)).pipe(
    Effect.tapError((error) =>
      error._tag === "LedgerUnreachable" ? settlement.giveUp(attemptId, settleBy) : Effect.void
    )
  )
})

const spendRequest = (
  request: MeteredRequest,
  settleBy: number,
  nodeId: string,
  attemptId: string
): SpendRequest => ({
  accountId: request.accountId,
  operation: request.operation,
  units: request.units,
  traceId: request.traceId,
  settleBy,
  nodeId,
  subjects: request.subjects,
  attemptId
})

/**
 * SVC-5 ERR-3 BAT-8 BAT-9 BAT-10: the paid work, stopped a margin before the deadline. However it fails,
 * what it has not refunded itself (a batch's covered entries) is refunded: a covered reason waits for its
 * refund; a stop, a defect or an interruption refunds in the background (the sweeper finishes what cannot
 * be done now).
 */
const runWork = <E extends WorkFailure, R>(
  request: MeteredRequest,
  spend: Spend,
  settleBy: number,
  work: (spend: Spend) => Effect.Effect<StoredResponse, E, R>,
  pastDeadline: () => E
) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const settlement = yield* Settlement
    const margin = Duration.toMillis(yield* ClaimDeadline) * (1 - WORK_SHARE)
    const budget = Math.max(0, settleBy - margin - (yield* Clock.currentTimeMillis))
    // A refund the database cannot take now is the sweeper's next round's (its attempt given up on), not
    // left to the Spend's deadline (an audit saw a history call's 504 keep its Credit for that minute).
    // The sweeper records it as the call would have, under the call's reason and trace id.
    const refund = (cause: Cause.Cause<E>) => {
      const reason = refundReasonOf(cause)
      return ledger.refundRemaining(spend.spendId, reason, request.traceId).pipe(
        Effect.catchAll((error) =>
          Effect.zipRight(
            Effect.logError("refund failed; left to the sweeper's next round", error),
            settlement.giveUp(spend.attemptId, settleBy, { spendId: spend.spendId, reason, traceId: request.traceId })
          )
        )
      )
    }
    return yield* work(spend).pipe(
      Effect.timeoutFail({ duration: Duration.millis(budget), onTimeout: pastDeadline }),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit)
          ? Effect.void
          : Cause.failureOption(exit.cause).pipe((failure) =>
            failure._tag === "Some" && isCoveredReason(failure.value)
              ? refund(exit.cause)
              : inBackground(refund(exit.cause), CLEANUP_WAIT)
          )
      )
    )
  })

/** IDEM-3 BAT-10: the answer is stored under its key, then the Spend settled: charged once, never refunded. */
const storeThenSettle = Effect.fnUntraced(
  function*(spend: Spend, claimId: string | undefined, response: StoredResponse) {
    const settlement = yield* Settlement
    yield* settlement.finish(spend.spendId, claimId, response)
  }
)

/** The paid part: Spend (unless already recorded) → work → store, then settle. */
const paidCall = <E extends WorkFailure, R>(
  request: MeteredRequest,
  claimId: string | undefined,
  settleBy: number,
  work: (spend: Spend) => Effect.Effect<StoredResponse, E, R>,
  pastDeadline: () => E,
  recorded?: Spend
) =>
  Effect.gen(function*() {
    const spend = recorded ?? (yield* recordSpend(request, settleBy))
    // Written as JSON once, for the store and for the wire.
    const response = withJson(yield* runWork(request, spend, settleBy, work, pastDeadline))
    // A call refunded in full is settled with nothing stored; its key is freed (`releaseKeyUnlessAnswered`).
    yield* storeThenSettle(spend, response.refundedInFull === true ? undefined : claimId, response)
    return response
  })

/**
 * IDEM-5: a keyed call that ended without an answer, or whose every Credit was refunded, frees its key, so a
 * retry takes it over; a release the database cannot take now is the sweeper's next round's (the claim given
 * up on), not its deadline's.
 */
const releaseKeyUnlessAnswered = (claimId: string, deadline: number) =>
<E, R>(
  call: Effect.Effect<StoredResponse, E, R>
) =>
  Effect.flatMap(
    Effect.all([IdempotencyStore, Settlement]),
    ([store, settlement]) =>
      Effect.onExit(call, (exit) =>
        Exit.isSuccess(exit) && exit.value.refundedInFull !== true
          ? Effect.void
          : inBackground(
            store.release(claimId).pipe(Effect.catchAll(() => settlement.giveUp(claimId, deadline))),
            RELEASE_WAIT
          ))
  )

/**
 * Runs `work` as a Metered Call. `work` receives the recorded Spend and may refund parts of it itself (a
 * batch's covered entries); past its share of the deadline it is stopped with `pastDeadline` (a covered
 * timeout for one property, the stop for a batch).
 */
export const metered = <E extends WorkFailure, R>(
  request: MeteredRequest,
  work: (spend: Spend) => Effect.Effect<StoredResponse, E, R>,
  pastDeadline: () => E
): Effect.Effect<MeteredAnswer, MeteringError | E, Ledger | IdempotencyStore | Settlement | R> =>
  Effect.gen(function*() {
    yield* requireAcceptedTerms(request)
    const claimDeadline = yield* ClaimDeadline
    const deadlineFromNow = Effect.map(Clock.currentTimeMillis, (now) => now + Duration.toMillis(claimDeadline))
    // IDEM-2: no key, processed and charged normally.
    if (request.idempotencyKey === undefined) {
      const response = yield* paidCall(request, undefined, yield* deadlineFromNow, work, pastDeadline)
      return { response, replayed: false }
    }
    const joint = yield* claimWithSpend(request, request.idempotencyKey)
    const key: Claimed = joint === undefined ||
        joint.result._tag === "Undecided" ||
        (joint.result._tag === "Decided" && joint.result.claim._tag === "InFlight")
      ? yield* claimKey(request, request.idempotencyKey)
      : joint.result._tag === "Decided"
      ? yield* claimed(joint.result.claim, joint.deadline)
      : { _tag: "Claimed", claimId: joint.result.claimId, deadline: joint.deadline }
    if (key._tag === "Replay") return { response: key.response, replayed: true }
    const recorded = joint?.result._tag === "Spent" ? joint.result.spend : undefined
    const response = yield* paidCall(request, key.claimId, key.deadline, work, pastDeadline, recorded).pipe(
      releaseKeyUnlessAnswered(key.claimId, key.deadline)
    )
    return { response, replayed: false }
  })
