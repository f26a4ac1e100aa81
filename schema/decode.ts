/**
 * Decoding of request bodies into the wire types, with every refusal turned into the 400
 * `invalid-request` Problem Detail and its `errors: [{pointer, detail}]` list. REST and MCP both decode
 * through these functions, so the same body is judged the same way everywhere.
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import { BATCH_LIMIT, BatchRequest } from "./batch.js"
import { HistoryRequest } from "./history.js"
import { IdempotencyKey } from "./idempotency-key.js"
import { overridableFactNames } from "./overrides.js"
import { BatchTooLarge, type FieldError, InvalidRequest } from "./problems.js"
import { ScoredCall } from "./scored-call.js"

const parseOptions = { errors: "all", onExcessProperty: "error" } as const

/**
 * How deeply a request body may nest arrays and objects. The deepest body the interface accepts nests 4
 * (a batch's `properties`, an entry, its `overrides`); anything past this is refused before it is decoded.
 */
export const MAX_JSON_DEPTH = 32

/** Whether a parsed JSON value nests arrays and objects deeper than `limit` (iterative: no recursion). */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const stack: Array<readonly [unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth + 1 > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}

const tooDeep = () => {
  const detail = `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`
  return new InvalidRequest({ detail: `The body ${detail}.`, errors: [{ pointer: "", detail }] })
}

/** RFC 6901 JSON Pointer for a decoding path. */
export const jsonPointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment) => "/" + String(segment).replace(/~/g, "~0").replace(/\//g, "~1")).join("")

const valueAt = (input: unknown, path: ReadonlyArray<PropertyKey>): unknown => {
  let current = input
  for (const segment of path) {
    if (typeof current !== "object" || current === null) return undefined
    current = (current as Record<PropertyKey, unknown>)[segment]
  }
  return current
}

const describe = (issue: ParseResult.ArrayFormatterIssue, input: unknown): string => {
  const path = issue.path
  switch (issue._tag) {
    case "Missing":
      return "is required"
    case "Unexpected":
      // (In a batch, `/properties/<i>/overrides/<key>`: the same words as a single call's.)
      return path.at(-2) === "overrides" &&
          (path.length === 2 || (path.length === 4 && path[0] === "properties" && typeof path[1] === "number"))
        ? `is not an overridable fact; the overridable facts are ${overridableFactNames.join(", ")}`
        : "is not an accepted member"
    default:
      if (path.length === 0 && (typeof input !== "object" || input === null || Array.isArray(input))) {
        return "must be a JSON object"
      }
      if (path.length > 0 && valueAt(input, path) === null) return "must not be null"
      return readableType(issue.message, path)
  }
}

/** Structs of the requests, named in the library's messages by their schema identifiers. */
const REQUEST_STRUCTS = new Set(["ScoredCall", "Overrides", "BatchRequest", "HistoryRequest"])

/**
 * A value of the wrong JSON kind, said in the caller's terms rather than the schema's (`Expected ScoredCall,
 * actual "3 Pine Ct"` is `must be a JSON object`): the schemas' names and the library's type notation mean
 * nothing to a caller.
 */
const readableType = (message: string, path: ReadonlyArray<PropertyKey>): string => {
  const expected = /^Expected (.+?), actual /s.exec(message)?.[1]
  if (expected === undefined) return message
  if (expected.startsWith("ReadonlyArray<") || expected.startsWith("Array<")) {
    return path.at(-1) === "properties"
      ? "must be an array of properties, each a JSON object with an `address`"
      : "must be an array"
  }
  if (expected.startsWith("{") || REQUEST_STRUCTS.has(expected)) {
    return typeof path.at(-1) === "number" ? "must be a JSON object with an `address`" : "must be a JSON object"
  }
  if (expected === "string") return "must be a string"
  if (expected === "number" || expected.startsWith("Int")) return "must be a number"
  if (expected === "boolean") return "must be true or false"
  return message
}

/** The `errors` list of a 400 for a decoding failure, pointers prefixed by `base`. */
export const fieldErrors = (
  error: ParseResult.ParseError,
  input: unknown,
  base: ReadonlyArray<PropertyKey> = []
): Array<FieldError> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    pointer: jsonPointer([...base, ...issue.path]),
    detail: describe(issue, valueAt(input, base))
  }))

const invalid = (errors: Array<FieldError>): InvalidRequest =>
  new InvalidRequest({
    detail: errors.length === 1
      ? `${errors[0]!.pointer === "" ? "The body" : errors[0]!.pointer} ${errors[0]!.detail}.`
      : `${errors.length} problems were found in the request; see errors.`,
    errors
  })

const decodeWith = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, parseOptions)
  return (input: unknown, base: ReadonlyArray<PropertyKey> = []): Either.Either<A, Array<FieldError>> =>
    Either.mapLeft(decode(input), (error) => fieldErrors(error, input, base))
}

/** Every body is judged for its depth first: a hostile nesting is a 400, never a stack overflow. */
const shallow = <A, E>(decode: (body: unknown) => Effect.Effect<A, E>) => (body: unknown) =>
  nestsDeeperThan(body, MAX_JSON_DEPTH) ? Effect.fail(tooDeep()) : decode(body)

const decodeScoredCallEither = decodeWith(ScoredCall)

/** A Scored Call body (`POST /v1/predict`). */
export const decodeScoredCall: (body: unknown) => Effect.Effect<ScoredCall, InvalidRequest> = shallow((body) =>
  Either.match(decodeScoredCallEither(body), {
    onLeft: (errors) => Effect.fail(invalid(errors)),
    onRight: Effect.succeed
  })
)

const decodeBatchEither = decodeWith(BatchRequest)

/**
 * A batch envelope (`POST /v1/predict/batch`). The cap is judged first, on the count alone, so a batch over
 * it is a 413 with honest counts whatever its entries hold (BAT-11).
 */
export const decodeBatchRequest = (body: unknown): Effect.Effect<BatchRequest, InvalidRequest | BatchTooLarge> => {
  const properties = typeof body === "object" && body !== null
    ? (body as { properties?: unknown }).properties
    : undefined
  if (Array.isArray(properties) && properties.length > BATCH_LIMIT) {
    return Effect.fail(
      new BatchTooLarge({
        detail: `The batch holds ${properties.length} properties; at most ${BATCH_LIMIT} are accepted in one call.`,
        limit: BATCH_LIMIT,
        submitted: properties.length
      })
    )
  }
  return decodeBatchEntries(body)
}

const decodeBatchEntries = shallow((body) =>
  Either.match(decodeBatchEither(body), {
    onLeft: (errors) => Effect.fail(invalid(errors)),
    onRight: Effect.succeed
  })
)

const decodeHistoryEither = decodeWith(HistoryRequest)

/** A history request (`POST /v1/history`): exactly one of `address` or `property_id` (HIS-1). */
export const decodeHistoryRequest: (body: unknown) => Effect.Effect<HistoryRequest, InvalidRequest> = shallow((body) =>
  Either.match(decodeHistoryEither(body), { onLeft: (errors) => Effect.fail(invalid(errors)), onRight: Effect.succeed })
)

const decodeKey = Schema.decodeUnknownEither(IdempotencyKey)

/** The optional `Idempotency-Key` header (IDEM-10); absent is fine, invalid is a 400 before any Spend. */
export const decodeIdempotencyKey = (
  header: string | undefined
): Effect.Effect<IdempotencyKey | undefined, InvalidRequest> => {
  if (header === undefined) return Effect.succeed(undefined)
  return Either.match(decodeKey(header), {
    onRight: Effect.succeed,
    onLeft: (error) => {
      const detail = ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "is invalid"
      return Effect.fail(
        new InvalidRequest({
          detail: `The Idempotency-Key header ${detail}.`,
          errors: [{ pointer: "", header: "Idempotency-Key", detail }]
        })
      )
    }
  })
}
