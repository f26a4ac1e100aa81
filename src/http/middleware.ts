/**
 * The endpoint middleware of the pipeline, in the order a request meets them: authentication (401 before
 * anything else about the request is judged), then the JSON body (415, 413, malformed JSON).
 */
import { HttpApiMiddleware, HttpApiSecurity, HttpServerRequest, OpenApi } from "@effect/platform"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import {
  CallNotStarted,
  InvalidKey,
  InvalidRequest,
  RateLimited,
  RequestTooLarge,
  UnsupportedMediaType
} from "../../schema/problems.js"
import { CurrentCaller } from "../services/credentials.js"
import { authenticateAndCountWith, type AuthenticationServices } from "./authenticate.js"
import { readBodyText } from "./body.js"
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

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.map(Effect.context<AuthenticationServices>(), (context) => {
    const authenticate = authenticateAndCountWith(context)
    return { apiKey: (token: Redacted.Redacted) => authenticate(Redacted.value(token)) }
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
/** The JSON body of a request (415, 413, malformed JSON): the API's `JsonBody` and the `/mcp` route. */
export const readJsonBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const contentType = request.headers["content-type"]
    if (contentType !== undefined && !jsonContentType.test(contentType.trim())) {
      return yield* new UnsupportedMediaType({
        detail: `Content-Type ${contentType} is not accepted; send the body as application/json.`
      })
    }
    const declaredLength = Number(request.headers["content-length"] ?? 0)
    if (declaredLength > MAX_BODY_BYTES) return yield* tooLarge()
    const text = yield* readBodyText(request, MAX_BODY_BYTES).pipe(
      Effect.catchTags({
        BodyTooLarge: () => Effect.fail(tooLarge()),
        BodyUnreadable: () => Effect.fail(notJson("The request body could not be read."))
      })
    )
    if (text.trim() === "") return yield* notJson("The request has no body; send a JSON object.")
    return yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (error) => notJson(`The body is not valid JSON: ${(error as Error).message}.`)
    })
  })

export const JsonBodyLive = Layer.succeed(JsonBody, Effect.flatMap(HttpServerRequest.HttpServerRequest, readJsonBody))
