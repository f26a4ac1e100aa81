/**
 * The problem slugs of the interface and CONTRACT.md: one `Schema.TaggedError` per slug. Each class knows
 * its slug, HTTP status, title and whether the Credit of a call that ends in it is refunded. The wire form
 * (RFC 9457 `application/problem+json`) is rendered by `src/http/problem-response.ts`; the members other
 * than `detail` that a class declares are the Problem Detail's extension members.
 */
import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { SubjectProperty } from "./scored-answer.js"

/** What happens to the Credits of a Metered Call that ends in this problem. */
export type CreditOutcome = "none" | "refunded" | "refunded-if-recorded"

export interface ProblemMeta {
  readonly slug: string
  readonly status: number
  readonly title: string
  /** One paragraph for the error's documentation page. */
  readonly description: string
  readonly credits: CreditOutcome
}

const registry = new Map<string, ProblemMeta>()

/** A problem class: its metadata is registered, and its Credit outcome is on the class, for the types. */
const problem =
  <Self>() =>
  <const Tag extends string, const Credits extends CreditOutcome, Fields extends Schema.Struct.Fields = {}>(
    tag: Tag,
    meta: ProblemMeta & { readonly credits: Credits },
    fields?: Fields
  ) => {
    registry.set(tag, meta)
    const cls = Schema.TaggedError<Self>()(
      tag,
      { detail: Schema.String, ...(fields ?? ({} as Fields)) },
      { ...HttpApiSchema.annotations({ status: meta.status }), title: meta.title, description: meta.description }
    )
    return Object.assign(cls, { credits: meta.credits })
  }

/** One refused field: a JSON Pointer into the request and what is wrong there. */
export const FieldError = Schema.Struct({
  pointer: Schema.String.annotations({
    description: "A JSON Pointer to the refused value in the body (`/overrides/bedrooms`); \"\" for a header or " +
      "the body as a whole."
  }),
  header: Schema.optionalWith(
    Schema.String.annotations({ description: "The refused request header, when a header was refused." }),
    { exact: true }
  ),
  detail: Schema.String.annotations({ description: "What is wrong there." })
}).annotations({ description: "One refused value." })
export type FieldError = typeof FieldError.Type

export class InvalidRequest extends problem<InvalidRequest>()("InvalidRequest", {
  slug: "invalid-request",
  status: 400,
  title: "The request is invalid",
  description:
    "The body, a value in it or a header was refused: malformed JSON, a member of the wrong type or range, an unknown member (including an override that is not one of the six overridable facts), `condition: tear_down`, or an invalid `Idempotency-Key` header. `errors` lists each refusal with a JSON Pointer into the request. Nothing is charged.",
  credits: "none"
}, {
  errors: Schema.Array(FieldError).annotations({ description: "Each refusal: where in the request, and why." })
}) {}

export class InvalidKey extends problem<InvalidKey>()("InvalidKey", {
  slug: "invalid-key",
  status: 401,
  title: "Missing or invalid API key",
  description:
    "The `Authorization: Bearer <API_KEY>` header is missing, malformed, names an unknown key or a revoked one. The `WWW-Authenticate` header points to the sign-in discovery document. Nothing is charged.",
  credits: "none"
}) {}

export class TermsNotAccepted extends problem<TermsNotAccepted>()("TermsNotAccepted", {
  slug: "terms-not-accepted",
  status: 403,
  title: "The Terms of Service must be accepted",
  description:
    "The Terms of Service changed materially since the Account last accepted them. The account holder accepts the current version on the Portal's Terms page (`/portal/terms`), or the operator records an acceptance (`propscore terms accept --account <id>`); replays within the window work again afterwards. Nothing is charged.",
  credits: "none"
}, {
  terms_version: Schema.String.annotations({ description: "The version of the Terms of Service to accept." })
}) {}

export class DuplicateRequestInFlight extends problem<DuplicateRequestInFlight>()("DuplicateRequestInFlight", {
  slug: "duplicate-request-in-flight",
  status: 409,
  title: "An identical request is still being processed",
  description:
    "A request with the same `Idempotency-Key` and body is still running. Retry after `Retry-After` seconds; the " +
    "retry returns the stored result. Nothing is charged. (Or an earlier attempt under the key was cut off " +
    "without an answer, the service stopping while it ran, and still holds it until its deadline, which the " +
    "detail names: its Credits are refunded and the key freed within seconds of it, and the retry then runs as " +
    "a new request.)",
  credits: "none"
}, {
  retry_after: Schema.Int.annotations({ description: "Seconds to wait before retrying (as `Retry-After`)." })
}) {}

export class IdempotencyKeyConflict extends problem<IdempotencyKeyConflict>()("IdempotencyKeyConflict", {
  slug: "idempotency-key-conflict",
  status: 422,
  title: "The Idempotency-Key was used with another request",
  description:
    "The key was already used by this Account with a different body or on a different endpoint, and that call's stored answer is still within its 24-hour window. Use a new key for a new request. Nothing is charged.",
  credits: "none"
}) {}

export class UnscorableAddress extends problem<UnscorableAddress>()("UnscorableAddress", {
  slug: "unscorable-address",
  status: 422,
  title: "The address could not be scored",
  description:
    "The address lies inside the covered area but no scorable property was found for it: the street or the house number is not on record, or the address has no house number (a post office box, an intersection, a ZIP code alone). `suggestions`, when present, lists up to five recorded addresses close to it (the nearest house numbers on the street, or the streets spelt closest); send one of them if it is the property. A covered reason: the Credit is refunded.",
  credits: "refunded"
}, {
  suggestions: Schema.optionalWith(
    Schema.Array(Schema.String).annotations({
      description: "Up to five recorded addresses close to the one sent; send one of them if it is the property."
    }),
    { exact: true }
  )
}) {}

export class AmbiguousAddress extends problem<AmbiguousAddress>()("AmbiguousAddress", {
  slug: "ambiguous-address",
  status: 422,
  title: "The address matched more than one property",
  description:
    "The address matched several properties. `candidates` lists up to five of their addresses; send one of them. A covered reason: the Credit is refunded.",
  credits: "refunded"
}, {
  candidates: Schema.Array(Schema.String).annotations({
    description: "Up to five addresses the one sent matched; send the one meant."
  })
}) {}

export class OutsideCoverage extends problem<OutsideCoverage>()("OutsideCoverage", {
  slug: "outside-coverage",
  status: 422,
  title: "The address is outside the covered area",
  description: "The address lies outside every imported area; the detail names the covered markets and how far " +
    "their records run. A covered reason: the Credit is refunded.",
  credits: "refunded"
}) {}

export class MissingValuationFact extends problem<MissingValuationFact>()("MissingValuationFact", {
  slug: "missing-valuation-fact",
  status: 422,
  title: "A fact the valuation needs is missing",
  description:
    "The record lacks a fact the valuation needs and no override supplied it. `missing` names the facts, and `subject_property` the property the address named; `living_area_square_feet`, `lot_size_square_feet` and `property_type` can be supplied through `overrides` (`location`, no coordinates, neighbourhood or ZIP code on record, cannot). The Credit is refunded.",
  credits: "refunded"
}, {
  missing: Schema.Array(Schema.String).annotations({
    description: "The facts still missing; supply them as `overrides` (e.g. `living_area_square_feet`)."
  }),
  subject_property: Schema.optionalWith(SubjectProperty, { exact: true }).annotations({
    description: "The property the address named, as a Scored answer's `subject_property` (its id, address, " +
      "the facts on record and how the address matched): check it is the one meant before supplying the " +
      "missing facts. Present since 2026-11-25."
  })
}) {}

export class UnknownProperty extends problem<UnknownProperty>()("UnknownProperty", {
  slug: "unknown-property",
  status: 404,
  title: "No property has this property_id",
  description: "The history call named a `property_id` that no property carries. The Credit is refunded.",
  credits: "refunded"
}) {}

export class UpstreamUnavailable extends problem<UpstreamUnavailable>()("UpstreamUnavailable", {
  slug: "upstream-unavailable",
  status: 502,
  title: "The valuation or the records could not be produced",
  description:
    "Scoring (`predict`, a batch entry) or the read of the property's records (`history`) failed. A covered reason: the Credit is refunded, and a retry under the same `Idempotency-Key` is a fresh, charged attempt that can succeed.",
  credits: "refunded"
}) {}

export class UpstreamTimeout extends problem<UpstreamTimeout>()("UpstreamTimeout", {
  slug: "upstream-timeout",
  status: 504,
  title: "The valuation or the records did not answer in time",
  description:
    "Scoring (`predict`, a batch entry) or the read of the property's records (`history`) did not answer within 10 seconds, or the call ran past its deadline. A covered reason: the Credit is refunded, and a retry under the same `Idempotency-Key` is a fresh, charged attempt.",
  credits: "refunded"
}) {}

export class RateLimited extends problem<RateLimited>()("RateLimited", {
  slug: "rate-limited",
  status: 429,
  title: "Rate limit exceeded",
  description:
    "Requests are counted per Account across every endpoint. Wait `Retry-After` seconds (equal to `retry_after`) before retrying; the original `Idempotency-Key` stays valid. Nothing is charged.",
  credits: "none"
}, {
  retry_after: Schema.Int.annotations({ description: "Seconds to wait before retrying (as `Retry-After`)." })
}) {}

export class SpendCapExceeded extends problem<SpendCapExceeded>()("SpendCapExceeded", {
  slug: "spend-cap-exceeded",
  status: 429,
  title: "Daily spend cap reached",
  description:
    "The Account's optional daily spend cap (Credits per UTC day, set by the operator) would be exceeded by this call. It resets at midnight UTC; there is no `Retry-After`. Nothing is charged.",
  credits: "none"
}, {
  spend_cap: Schema.Int.annotations({ description: "The Account's daily cap, in Credits per UTC day." }),
  remaining_today: Schema.Int.annotations({
    description: "The Credits the cap leaves to spend today (UTC): a batch of at most this many properties fits."
  })
}) {}

export class InsufficientCredits extends problem<InsufficientCredits>()("InsufficientCredits", {
  slug: "insufficient-credits",
  status: 402,
  title: "The Balance cannot cover this call",
  description:
    "The Account's Balance is smaller than the call's cost. A batch is never split: top up and retry it unchanged. Nothing is charged.",
  credits: "none"
}, {
  balance: Schema.Int.annotations({ description: "The Credits the Account holds." }),
  required: Schema.Int.annotations({ description: "The Credits the call needs." })
}) {}

export class LedgerUnreachable extends problem<LedgerUnreachable>()("LedgerUnreachable", {
  slug: "ledger-unreachable",
  status: 503,
  title: "The Ledger could not be reached",
  description: "The call never started: the Ledger did not answer, so nothing is consumed. Retry after " +
    "`Retry-After` seconds. A Spend " +
    "the database recorded after all (a statement delivered late) is refunded within seconds of the database " +
    "answering again.",
  credits: "none"
}) {}

export class CallNotStarted extends problem<CallNotStarted>()("CallNotStarted", {
  slug: "call-not-started",
  status: 503,
  title: "The call did not start",
  description:
    "A failure happened before the Ledger was called, so no Spend was recorded. Retry after `Retry-After` seconds. Validate also answers this for a connected app while its approval cannot be read.",
  credits: "none"
}) {}

export class SpendIndeterminate extends problem<SpendIndeterminate>()("SpendIndeterminate", {
  slug: "spend-indeterminate",
  status: 503,
  title: "The batch was stopped",
  description:
    "A refusal outside the covered reasons stopped the batch. No results are returned and every Credit recorded for the batch is refunded. The request can be retried after `Retry-After` seconds.",
  credits: "refunded-if-recorded"
}) {}

export class BatchTooLarge extends problem<BatchTooLarge>()("BatchTooLarge", {
  slug: "batch-too-large",
  status: 413,
  title: "The batch has too many properties",
  description:
    "`properties` holds more items than the cap. `limit` is the cap and `submitted` the number sent. Nothing is charged.",
  credits: "none"
}, {
  limit: Schema.Int.annotations({ description: "The most properties a batch may hold." }),
  submitted: Schema.Int.annotations({ description: "The properties the batch held." })
}) {}

export class RequestTooLarge extends problem<RequestTooLarge>()("RequestTooLarge", {
  slug: "request-too-large",
  status: 413,
  title: "The request body is too large",
  description: "Request bodies are limited to 1 MiB (`limit_bytes`). Nothing is charged.",
  credits: "none"
}, {
  limit_bytes: Schema.Int.annotations({ description: "The largest body accepted, in bytes." })
}) {}

export class RequestTimeout extends problem<RequestTimeout>()("RequestTimeout", {
  slug: "request-timeout",
  status: 408,
  title: "The request was not received in time",
  description:
    "The client did not send the request's headers within 20 seconds, or the whole request within 60 seconds. The connection is closed. Nothing is charged.",
  credits: "none"
}) {}

export class RequestHeadersTooLarge extends problem<RequestHeadersTooLarge>()("RequestHeadersTooLarge", {
  slug: "request-headers-too-large",
  status: 431,
  title: "Request headers too large",
  description:
    "The request line and headers together are larger than the server accepts (16 KiB). The connection is closed. Nothing is charged.",
  credits: "none"
}) {}

export class NotFound extends problem<NotFound>()("NotFound", {
  slug: "not-found",
  status: 404,
  title: "No such resource",
  description: "No route answers this path. Every operation lives under `/v1`.",
  credits: "none"
}) {}

export class MethodNotAllowed extends problem<MethodNotAllowed>()("MethodNotAllowed", {
  slug: "method-not-allowed",
  status: 405,
  title: "Method not allowed",
  description:
    "The path exists but does not answer this HTTP method. The `Allow` header (and `allow`) lists the ones it does.",
  credits: "none"
}, {
  allow: Schema.Array(Schema.String).annotations({ description: "The methods the path answers (as `Allow`)." })
}) {}

export class UnsupportedMediaType extends problem<UnsupportedMediaType>()("UnsupportedMediaType", {
  slug: "unsupported-media-type",
  status: 415,
  title: "Unsupported media type",
  description: "Request bodies must be JSON: sent with `Content-Type: application/json` (or another JSON " +
    "type, such as `application/problem+json`), or with no `Content-Type` at all, which is read as JSON. Any " +
    "other declared type (a form, `text/plain`) is refused with this before the body is read; nothing is charged.",
  credits: "none"
}) {}

export class InternalError extends problem<InternalError>()("InternalError", {
  slug: "internal-error",
  status: 500,
  title: "Internal error",
  description:
    "The service failed unexpectedly. The failure is logged under the response's trace id; quote `trace_id` when reporting it.",
  credits: "none"
}) {}

/** Every problem class, in the order of the documentation. */
export const problemClasses = [
  InvalidRequest,
  InvalidKey,
  InsufficientCredits,
  TermsNotAccepted,
  NotFound,
  UnknownProperty,
  MethodNotAllowed,
  DuplicateRequestInFlight,
  BatchTooLarge,
  RequestTooLarge,
  RequestHeadersTooLarge,
  RequestTimeout,
  UnsupportedMediaType,
  IdempotencyKeyConflict,
  UnscorableAddress,
  AmbiguousAddress,
  OutsideCoverage,
  MissingValuationFact,
  RateLimited,
  SpendCapExceeded,
  InternalError,
  UpstreamUnavailable,
  LedgerUnreachable,
  CallNotStarted,
  SpendIndeterminate,
  UpstreamTimeout
] as const

export type Problem = InstanceType<typeof problemClasses[number]>

/** The metadata of a problem instance or class tag. */
export const problemMeta = (tag: string): ProblemMeta | undefined => registry.get(tag)

export const allProblemMeta = (): ReadonlyArray<ProblemMeta> => problemClasses.map((cls) => registry.get(cls._tag)!)

export const isProblem = (u: unknown): u is Problem =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && registry.has(u._tag)

/**
 * The covered reasons (ERR-3): the problems whose class says the Credit is refunded. A Metered Call whose
 * work ends in one of them is refunded, and in a batch it becomes that entry's Problem Detail (BAT-8). The
 * five of the interface (ambiguous, outside coverage, unscorable, upstream failed, upstream timeout), a
 * missing valuation fact, and history's unknown `property_id`.
 */
export type CoveredReason = InstanceType<Extract<typeof problemClasses[number], { readonly credits: "refunded" }>>

export const isCoveredReason = (u: unknown): u is CoveredReason =>
  isProblem(u) && problemMeta(u._tag)?.credits === "refunded"
