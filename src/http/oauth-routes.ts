/**
 * The authorization server's HTTP surface (src/operations/sign-in.ts decides everything):
 *
 * - `GET /.well-known/oauth-authorization-server`: RFC 8414 metadata.
 * - `POST /oauth/register`: RFC 7591 dynamic client registration (JSON).
 * - `GET /oauth/authorize`: the sign-in and consent page; `POST /oauth/authorize`: the account holder's answer.
 * - `POST /oauth/token`: authorization-code and refresh-token grants (form-encoded, OAuth JSON errors).
 * - `POST /oauth/revoke`: RFC 7009 token revocation.
 *
 * The machine endpoints answer any origin (CORS), since browser-based assistants call them; the consent
 * page is same-origin HTML and cannot be framed.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AppConfig } from "../config.js"
import type { ClientMetadataFetcher } from "../oauth/clients.js"
import {
  answerAuthorization,
  AuthorizationPageError,
  authorizationServerMetadata,
  type AuthorizationStep,
  beginAuthorization,
  exchangeToken,
  oauthEndpoints,
  OAuthJsonError,
  registerClient,
  revokeToken
} from "../operations/sign-in.js"
import type { Accounts } from "../services/accounts.js"
import type { Connections } from "../services/connections.js"
import type { RateLimits } from "../services/rate-limits.js"
import type { StorageUnavailable } from "../services/storage.js"
import { consentPage, errorPage } from "./consent-page.js"
import { type FormRefused, readBody, readForm } from "./form.js"
import { seeOther as redirect } from "./html.js"

const cors = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "600"
}

const oauthJson = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store", ...cors, ...headers } })

const unavailable = new OAuthJsonError({
  status: 503,
  error: "temporarily_unavailable",
  description: "The sign-in service could not reach its database; nothing was changed. Try again in a moment."
})

const oauthError = (error: OAuthJsonError) =>
  oauthJson(error.status, { error: error.error, error_description: error.description })

const asOAuthRequestError = (error: FormRefused) =>
  new OAuthJsonError({ status: 400, error: "invalid_request", description: error.message })
const readOAuthBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.mapError(readBody(request), asOAuthRequestError)
const readOAuthForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.mapError(readForm(request), asOAuthRequestError)

const queryParams = (request: HttpServerRequest.HttpServerRequest) => {
  const params: Record<string, string | Array<string>> = {}
  for (const [name, value] of new URL(request.url, "http://localhost").searchParams) {
    const seen = params[name]
    params[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value]
  }
  return params
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
          return consentPage(step.view, endpoints.authorization, step.status)
        case "Refused":
          return errorPage(step.message, 400, step.location)
        case "Redirect":
          return redirect(step.location)
      }
    }

    /**
     * The machine endpoints: a refusal is an OAuth error body; a database that does not answer is 503
     * `temporarily_unavailable` (RFC 6749 §4.1.2.1's code), to be retried.
     */
    const asOAuthJson = <A, R>(effect: Effect.Effect<A, OAuthJsonError | StorageUnavailable, R>) =>
      effect.pipe(
        Effect.catchTags({
          OAuthJsonError: (error) => Effect.succeed(oauthError(error)),
          StorageUnavailable: () => Effect.succeed(oauthError(unavailable))
        }),
        Effect.provide(services)
      )
    /** The authorization page: a refusal is shown on the page. */
    const asPage = <A, R>(effect: Effect.Effect<A, AuthorizationPageError | StorageUnavailable, R>) =>
      effect.pipe(
        Effect.catchTags({
          AuthorizationPageError: (error) => Effect.succeed(errorPage(error.message, error.status)),
          StorageUnavailable: () => Effect.succeed(errorPage(unavailable.description, 503))
        }),
        Effect.provide(services)
      )

    const preflight = HttpServerResponse.empty({ status: 204, headers: cors })
    for (
      const path of [
        "/.well-known/oauth-authorization-server",
        "/oauth/register",
        "/oauth/token",
        "/oauth/revoke"
      ] as const
    ) {
      yield* router.options(path, Effect.succeed(preflight))
    }

    yield* router.get(
      "/.well-known/oauth-authorization-server",
      Effect.succeed(oauthJson(200, metadata, { "cache-control": "max-age=300" }))
    )

    yield* router.post(
      "/oauth/register",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const text = yield* readOAuthBody(request)
        const body = yield* Effect.try({
          try: () => JSON.parse(text) as unknown,
          catch: () =>
            new OAuthJsonError({
              status: 400,
              error: "invalid_client_metadata",
              description: "The body is not valid JSON."
            })
        })
        return oauthJson(201, yield* registerClient(body))
      }).pipe(asOAuthJson)
    )

    yield* router.get(
      "/oauth/authorize",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        return stepResponse(yield* beginAuthorization(queryParams(request)))
      }).pipe(asPage)
    )

    yield* router.post(
      "/oauth/authorize",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readForm(request).pipe(
          Effect.mapError((error) => new AuthorizationPageError({ message: error.message, status: 400 }))
        )
        return stepResponse(
          yield* answerAuthorization({
            requestId: form["request_id"] ?? "",
            email: form["email"] ?? "",
            password: form["password"] ?? "",
            decision: form["decision"] ?? ""
          })
        )
      }).pipe(asPage)
    )

    yield* router.post(
      "/oauth/token",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* readOAuthForm(request)
        const answer = yield* exchangeToken(form, { ...request.headers })
        return oauthJson(answer.status, answer.body, answer.headers)
      }).pipe(asOAuthJson)
    )

    yield* router.post(
      "/oauth/revoke",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        yield* revokeToken(yield* readOAuthForm(request))
        return HttpServerResponse.empty({ status: 200, headers: { "cache-control": "no-store", ...cors } })
      }).pipe(asOAuthJson)
    )
  })
)
