/**
 * What every Metered Call and validate refuse before any Spend (VAL-6: validate answers exactly what
 * predict or batch would): the body's decoding and the endpoint rule that refuses `condition: tear_down`
 * even with a `rehab_budget` (REQ-3).
 */
import { Effect } from "effect"
import type { BatchRequest } from "../../schema/batch.js"
import { decodeBatchRequest, decodeScoredCall } from "../../schema/decode.js"
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

export const acceptScoredCall = (body: unknown): Effect.Effect<ScoredCall, InvalidRequest> =>
  Effect.flatMap(
    decodeScoredCall(body),
    (call) =>
      call.condition === "tear_down" ? Effect.fail(refused([tearDownRefusal("/condition")])) : Effect.succeed(call)
  )

/** A batch with any refused entry is refused whole, its pointers naming the entries. */
export const acceptBatch = (body: unknown): Effect.Effect<BatchRequest, InvalidRequest | BatchTooLarge> =>
  Effect.flatMap(decodeBatchRequest(body), (batch) => {
    const errors = batch.properties.flatMap((call, index) =>
      call.condition === "tear_down" ? [tearDownRefusal(`/properties/${index}/condition`)] : []
    )
    return errors.length > 0 ? Effect.fail(refused(errors)) : Effect.succeed(batch)
  })

const isBatchEnvelope = (body: unknown) =>
  typeof body === "object" && body !== null && !Array.isArray(body) && "properties" in body

/** Validate judges a batch envelope as batch would, anything else as predict would. */
export const acceptValidationBody = (
  body: unknown
): Effect.Effect<ScoredCall | BatchRequest, InvalidRequest | BatchTooLarge> =>
  isBatchEnvelope(body) ? acceptBatch(body) : acceptScoredCall(body)
