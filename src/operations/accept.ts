/**
 * What every Metered Call and validate refuse before any Spend (VAL-6: validate answers exactly what
 * predict or batch would): the body's decoding and the endpoint rule that refuses `condition: tear_down`
 * even with a `rehab_budget` (REQ-3).
 */
import { Effect, Either } from "effect"
import type { BatchRequest } from "../../schema/batch.js"
import { decodeBatchRequest, decodeIdempotencyKey, decodeScoredCall } from "../../schema/decode.js"
import { type BatchTooLarge, type FieldError, InvalidRequest } from "../../schema/problems.js"
import type { ScoredCall } from "../../schema/scored-call.js"

const tearDownRefusal = (pointer: string): FieldError => ({
  pointer,
  detail: "tear_down is not scored: a tear-down is valued as land, which this service does not do"
})

const refused = (errors: ReadonlyArray<FieldError>) =>
  new InvalidRequest({
    detail: errors.length === 1
      ? `${errors[0]!.pointer} ${errors[0]!.detail}.`
      : `${errors.length} properties ask for condition tear_down, which is not scored; see errors.`,
    errors
  })

const asksForTearDown = (entry: unknown) =>
  typeof entry === "object" && entry !== null && (entry as { condition?: unknown }).condition === "tear_down"

/** The tear-down refusals of a batch's entries, decoded or as sent (anything that is not an array has none). */
const batchTearDowns = (properties: unknown): Array<FieldError> =>
  Array.isArray(properties)
    ? properties.flatMap((entry, index) =>
      asksForTearDown(entry) ? [tearDownRefusal(`/properties/${index}/condition`)] : []
    )
    : []

/** One refusal listing several refused values, in pointer order (a header's, pointer "", first). */
const allRefused = (errors: ReadonlyArray<FieldError>): InvalidRequest => {
  const sorted = [...errors].sort((a, b) => a.pointer.localeCompare(b.pointer, "en", { numeric: true }))
  return new InvalidRequest({
    detail: `${sorted.length} problems were found in the request; see errors.`,
    errors: sorted
  })
}

/**
 * A body refused for its decoding also names the tear-downs it asks for: every refused value in one answer,
 * not one round of refusals after another.
 */
const withTearDowns = (error: InvalidRequest, tearDowns: ReadonlyArray<FieldError>): InvalidRequest =>
  tearDowns.length === 0 ? error : allRefused([...error.errors, ...tearDowns])

/** Two refusals of one request as one. */
export const bothRefused = (first: InvalidRequest, second: InvalidRequest): InvalidRequest =>
  allRefused([...first.errors, ...second.errors])

/**
 * A body refused before any Spend also names a bad Idempotency-Key header (IDEM-10), every refusal in one answer:
 * the header's was found only once the body was fixed, a second round (an agent's audit, 2026-11-29).
 */
export const withKeyRefusal =
  (header: string | undefined) =>
  <A, E extends InvalidRequest | BatchTooLarge>(accepted: Effect.Effect<A, E>): Effect.Effect<A, E | InvalidRequest> =>
    Effect.catchAll(accepted, (error) =>
      error._tag !== "InvalidRequest"
        ? Effect.fail(error)
        : Effect.flatMap(
          Effect.either(decodeIdempotencyKey(header)),
          (key) => Effect.fail(Either.isLeft(key) ? bothRefused(key.left, error as InvalidRequest) : error)
        ))

export const acceptScoredCall = (body: unknown): Effect.Effect<ScoredCall, InvalidRequest> =>
  decodeScoredCall(body).pipe(
    Effect.mapError((error) =>
      withTearDowns(error, error.errors.length > 0 && asksForTearDown(body) ? [tearDownRefusal("/condition")] : [])
    ),
    Effect.flatMap((call) =>
      asksForTearDown(call) ? Effect.fail(refused([tearDownRefusal("/condition")])) : Effect.succeed(call)
    )
  )

/** A batch with any refused entry is refused whole, its pointers naming the entries. */
export const acceptBatch = (body: unknown): Effect.Effect<BatchRequest, InvalidRequest | BatchTooLarge> =>
  decodeBatchRequest(body).pipe(
    Effect.mapError((error) =>
      error._tag !== "InvalidRequest" || error.errors.length === 0
        ? error
        : withTearDowns(
          error,
          batchTearDowns(typeof body === "object" && body !== null ? (body as { properties?: unknown }).properties : [])
        )
    ),
    Effect.flatMap((batch) => {
      const errors = batchTearDowns(batch.properties)
      return errors.length > 0 ? Effect.fail(refused(errors)) : Effect.succeed(batch)
    })
  )

const isBatchEnvelope = (body: unknown) =>
  typeof body === "object" && body !== null && !Array.isArray(body) && "properties" in body

/** Validate judges a batch envelope as batch would, anything else as predict would. */
export const acceptValidationBody = (
  body: unknown
): Effect.Effect<ScoredCall | BatchRequest, InvalidRequest | BatchTooLarge> =>
  isBatchEnvelope(body) ? acceptBatch(body).pipe(Effect.mapError(bothShapes(body))) : acceptScoredCall(body)

/** `address` beside `properties`: said as the mix of two shapes it is, not as a member a batch lacks. */
const bothShapes = (body: unknown) => <E extends InvalidRequest | BatchTooLarge>(error: E): E | InvalidRequest => {
  if (error._tag !== "InvalidRequest" || !("address" in (body as object))) return error
  const detail = "is not accepted beside `properties`: send one property's members, or a batch's `properties`, " +
    "not both"
  return new InvalidRequest({
    detail: error.errors.length === 1 ? `/address ${detail}.` : error.detail,
    errors: error.errors.map((field) => (field.pointer === "/address" ? { ...field, detail } : field))
  })
}
