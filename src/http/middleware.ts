/**
 * The endpoint middleware of the pipeline, in the order a request meets them: authentication (401 before
 * anything else about the request is judged), then the JSON body (415, 413, malformed JSON).
 */
import { HttpApiMiddleware, HttpApiSecurity, HttpIncomingMessage, HttpServerRequest, OpenApi } from "@effect/platform"
import { Context, Effect, FiberRef, Layer, Option, Redacted, Schema } from "effect"
import {
  CallNotStarted,
  InvalidKey,
  InvalidRequest,
  RateLimited,
  RequestTooLarge,
  UnsupportedMediaType
} from "../../schema/problems.js"
import { Credentials, CurrentCaller } from "../services/credentials.js"
import { RateLimits, type RateSubject, subjectOf } from "../services/rate-limits.js"
import { CurrentRateCount } from "./rate-limit-headers.js"
import { documented } from "./documented.js"

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Authentication", {
  provides: CurrentCaller,
  failure: Schema.Union(documented(InvalidKey), documented(CallNotStarted), documented(RateLimited)),
  security: {
    apiKey: HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(
      OpenApi.Description,
      "An API key: `Authorization: Bearer ps_…`. Keys are issued by the operator (`propscore keys issue`)."
    ))
  }
}) {}

/**
 * Authentication, then the rate count (LIM-1, AUTH-4): a valid key counts against its Account, a missing
 * or incorrect one against the count all such requests share, so a burst of them may get 429 instead of
 * 401. A key that cannot be checked (503 `call-not-started`) is not counted.
 */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const credentials = yield* Credentials
    const limits = yield* RateLimits
    const counted = (subject: RateSubject) =>
      Effect.flatMap(FiberRef.get(CurrentRateCount), (cell) =>
        limits.count(subject).pipe(
          Effect.tap((count) => {
            cell.current = count
          }),
          Effect.catchAll(({ count, problem }) => {
            cell.current = count
            return Effect.fail(problem)
          })
        ))
    return {
      apiKey: (token: Redacted.Redacted) => {
        const value = Redacted.value(token)
        const caller = value === ""
          ? Effect.fail(new InvalidKey({ detail: "Send the API key as `Authorization: Bearer <API_KEY>`." }))
          : credentials.authenticate(value)
        return caller.pipe(
          Effect.tap((caller) => counted(subjectOf(caller))),
          Effect.tapErrorTag("InvalidKey", () => counted({ _tag: "Unauthenticated" }))
        )
      }
    }
  })
)

/** The parsed JSON body of the request, provided by `JsonBody`. */
export class RequestBody extends Context.Tag("propscore/RequestBody")<RequestBody, unknown>() {}

export const MAX_BODY_BYTES = 1024 * 1024

export class JsonBody extends HttpApiMiddleware.Tag<JsonBody>()("JsonBody", {
  provides: RequestBody,
  failure: Schema.Union(documented(UnsupportedMediaType), documented(RequestTooLarge), documented(InvalidRequest))
}) {}

const jsonContentType = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i

const tooLarge = () =>
  new RequestTooLarge({
    detail: `The request body is larger than ${MAX_BODY_BYTES} bytes.`,
    limit_bytes: MAX_BODY_BYTES
  })

const notJson = (detail: string) => new InvalidRequest({ detail, errors: [{ pointer: "", detail }] })

/** A request without a Content-Type is read as JSON; any other declared type is refused. */
export const JsonBodyLive = Layer.succeed(
  JsonBody,
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !jsonContentType.test(contentType.trim())) {
      return yield* new UnsupportedMediaType({
        detail: `Content-Type ${contentType} is not accepted; send the body as application/json.`
      })
    }
    const declaredLength = Number(request.headers["content-length"] ?? 0)
    if (declaredLength > MAX_BODY_BYTES) return yield* tooLarge()
    const text = yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES)),
      Effect.mapError((error) =>
        String((error as { cause?: { message?: string } }).cause?.message).includes("maxBytes")
          ? tooLarge()
          : notJson("The request body could not be read.")
      )
    )
    if (text.trim() === "") return yield* notJson("The request has no body; send a JSON object.")
    return yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (error) => notJson(`The body is not valid JSON: ${(error as Error).message}.`)
    })
  })
)
