/**
 * The authorization server's HTTP surface (src/oauth/ decides everything; this file translates):
 *
 * - `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata.
 * - `POST /oauth/register`: RFC 7591 dynamic client registration (JSON).
 * - `GET /oauth/authorize`: the sign-in and consent page; `POST /oauth/authorize`: the account holder's answer.
 * - `POST /oauth/token`: authorization-code and refresh-token grants (form-encoded, OAuth JSON errors).
 * - `POST /oauth/revoke`: RFC 7009 token revocation.
 *
 * The machine endpoints answer any origin (CORS, added by the front door: ./cors.ts), since browser-based
 * assistants call them; the consent page is same-origin HTML and cannot be framed.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../config.js"
import { answerAuthorization, type AuthorizationStep, beginAuthorization } from "../oauth/authorization.js"
import { type ClientMetadataFetcher, InvalidClientMetadata } from "../oauth/clients.js"
import { AuthorizationRefused, type SignInAttemptsExhausted, type TokenRefusal } from "../oauth/errors.js"
import { authorizationServerMetadata, oauthEndpoints } from "../oauth/metadata.js"
import { registerClient } from "../oauth/registration.js"
import { exchangeToken, revokeToken } from "../oauth/tokens.js"
import type { Accounts } from "../services/accounts.js"
import type { Connections } from "../services/connections.js"
import type { RateLimits } from "../services/rate-limits.js"
import type { StorageUnavailable } from "../services/storage.js"
import { consentPage, errorPage } from "./consent-page.js"
import { type FormRefused, readBody, readForm } from "./form.js"
import { seeOther as redirect } from "./html.js"

const oauthJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store", ...headers } })

const errorJson = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
  oauthJson(status, { error, error_description: description }, headers)

const unavailableDescription =
  "The sign-in service could not reach its database; nothing was changed. Try again in a moment."

/** A refusal of the token or revocation endpoint as its OAuth error (RFC 6749 §5.2, RFC 8707 §2). */
const tokenRefusal = (refusal: TokenRefusal) => {
  switch (refusal._tag) {
    case "MalformedRequest":
      return errorJson(400, "invalid_request", refusal.reason)
    case "InvalidClient":
      // A client that tried the Authorization header is answered with a challenge for it.
      return refusal.viaAuthorizationHeader
        ? errorJson(401, "invalid_client", refusal.reason, { "www-authenticate": "Basic realm=\"propscore\"" })
        : errorJson(400, "invalid_client", refusal.reason)
    case "InvalidGrant":
      return errorJson(400, "invalid_grant", refusal.reason)
    case "UnauthorizedClient":
      return errorJson(400, "unauthorized_client", refusal.reason)
    case "UnsupportedGrantType":
      return errorJson(
        400,
        "unsupported_grant_type",
        "The grant types supported are authorization_code and refresh_token."
      )
    case "InvalidScope":
      return errorJson(400, "invalid_scope", refusal.reason)
    case "InvalidTarget":
      return errorJson(400, "invalid_target", "Tokens are issued for one resource only, the /mcp endpoint.")
    case "TokenEndpointFailed":
      return errorJson(500, "server_error", refusal.reason)
  }
}

const registrationRefusal = (refusal: InvalidClientMetadata) => errorJson(400, refusal.error, refusal.description)

const queryParams = (request: HttpServerRequest.HttpServerRequest) => {
  const params: Record<string, string | Array<string>> = {}
  for (const [name, value] of new URL(request.url, "http://localhost").searchParams) {
    const seen = params[name]
    params[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
  }
  return params
}

/**
 * The client id of `Authorization: Basic` (RFC 6749 §2.3.1: form-encoded, then base64), as a client that
 * registered for client_secret_basic sends it; its secret is ignored (every client is public).
 */
const basicClientId = (header: string | undefined): string | undefined => {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "")
  if (!match) return undefined
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  try {
    return decodeURIComponent((colon === -1 ? decoded : decoded.slice(0, colon)).replace(/\+/g, " ")) || undefined
  } catch {
    return undefined
  }
}

const malformed = (error: FormRefused) => errorJson(400, "invalid_request", error.message)

/** A handler of refusals that answers them. */
const answer = <E>(translate: (refusal: E) => HttpServerResponse.HttpServerResponse) => (refusal: E) =>
  Effect.succeed(translate(refusal))

const tokenRefusals = {
  FormRefused: answer(malformed),
  MalformedRequest: answer(tokenRefusal),
  InvalidClient: answer(tokenRefusal),
  InvalidGrant: answer(tokenRefusal),
  UnauthorizedClient: answer(tokenRefusal),
  UnsupportedGrantType: answer(tokenRefusal),
  InvalidScope: answer(tokenRefusal),
  InvalidTarget: answer(tokenRefusal),
  TokenEndpointFailed: answer(tokenRefusal)
}

export const OAuthRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const services = yield* Effect.context<Connections | Accounts | ClientMetadataFetcher | RateLimits | AppConfig>()
    const endpoints = oauthEndpoints(config.publicBaseUrl)
    const metadata = authorizationServerMetadata(config.publicBaseUrl)

    const stepResponse = (step: AuthorizationStep) => {
      switch (step._tag) {
        case "Consent":
          return consentPage(
            step.view,
            endpoints.authorization,
            step.outcome === "asked" ? 200 : step.outcome === "wrong-login" ? 400 : 429
          )
        case "Refused":
          return errorPage(step.message, 400, step.location)
        case "Redirect":
          return redirect(step.location)
      }
    }

    /**
     * A machine endpoint: a database that does not answer is 503 `temporarily_unavailable` (RFC 6749
     * §4.1.2.1's code), to be retried.
     */
    const machine = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, StorageUnavailable, R>) =>
      effect.pipe(
        Effect.catchTag("StorageUnavailable", () =>
          Effect.succeed(errorJson(503, "temporarily_unavailable", unavailableDescription))),
        Effect.provide(services)
      )
    /** The authorization page: a refusal is shown on the page. */
    const page = <R>(
      effect: Effect.Effect<
        HttpServerResponse.HttpServerResponse,
        AuthorizationRefused | SignInAttemptsExhausted | StorageUnavailable,
        R
      >
    ) =>
      effect.pipe(
        Effect.catchTags({
          AuthorizationRefused: ({ reason }) =>
            Effect.succeed(errorPage(reason, 400)),
          SignInAttemptsExhausted: ({ reason }) => Effect.succeed(errorPage(reason, 429)),
          StorageUnavailable: () => Effect.succeed(errorPage(unavailableDescription, 503))
        }),
        Effect.provide(services)
      )

    yield* router.get(
      "/.well-known/oauth-authorization-server",
      Effect.succeed(oauthJson(200, metadata, { "cache-control": "max-age=300" }))
    )

    yield* router.post(
      "/oauth/register",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const text = yield* readBody(request)
        const body = yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: () =>
            new InvalidClientMetadata({ error: "invalid_client_metadata", description: "The body is not valid JSON." })
        })
        return oauthJson(201, yield* registerClient(body))
      }).pipe(
        Effect.catchTags({ FormRefused: answer(malformed), InvalidClientMetadata: answer(registrationRefusal) }),
        machine
      )
    )

    yield* router.get(
      "/oauth/authorize",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        return stepResponse(yield* beginAuthorization(queryParams(request)))
      }).pipe(page)
    )

    yield* router.post(
      "/oauth/authorize",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request).pipe(
          Effect.mapError((error) => new AuthorizationRefused({ reason: error.message }))
        )
        return stepResponse(
          yield* answerAuthorization({
            requestId: form["request_id"] ?? "",
            email: form["email"] ?? "",
            password: form["password"] ?? "",
            decision: form["decision"] ?? ""
          })
        )
      }).pipe(page)
    )

    yield* router.post(
      "/oauth/token",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request)
        const tokens = yield* exchangeToken(form, { ...request.headers })
        return oauthJson(200, tokens, { pragma: "no-cache" })
      }).pipe(Effect.catchTags(tokenRefusals), machine)
    )

    yield* router.post(
      "/oauth/revoke",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request)
        const clientId = basicClientId(request.headers["authorization"]) ?? form["client_id"]
        yield* revokeToken({ token: form["token"], clientId })
        return HttpServerResponse.empty({ status: 200, headers: { "cache-control": "no-store" } })
      }).pipe(
        Effect.catchTags({ FormRefused: answer(malformed), MalformedRequest: answer(tokenRefusal) }),
        machine
      )
    )
  })
)
