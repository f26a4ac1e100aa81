/**
 * The authorization endpoint: the authorization code with PKCE S256 only, exact redirect URI match (a
 * loopback one on any port), one protected resource (RFC 8707), the `iss` response parameter (RFC 9207).
 * The account holder signs in with email and password on the consent page and approves or denies;
 * approval makes (or reuses) a connection and issues a code for it.
 */
import { Clock, Effect, Option } from "effect"
import { hasControlCharacters } from "../../schema/text.js"
import { AppConfig } from "../config.js"
import { hashSecret } from "../domain/api-key.js"
import { newAuthorizationCode, newRequestId } from "../domain/oauth-token.js"
import { attemptSignIn } from "../operations/sign-in.js"
import { type AuthorizationRequest, Connections, type OAuthClient } from "../services/connections.js"
import { redirectUriMatches } from "./clients.js"
import { AuthorizationRefused, SignInAttemptsExhausted } from "./errors.js"
import { isSupportedScope, oauthEndpoints, SCOPES, tokenAudience } from "./metadata.js"
import { displayName, resolveClient } from "./registration.js"

export const CODE_LIFETIME_SECONDS = 60
export const PENDING_LIFETIME_SECONDS = 600
export const MAX_LOGIN_ATTEMPTS = 5

export type AuthorizationStep =
  /** The consent page: first shown, shown again after a wrong password, or after too many for the email. */
  | { readonly _tag: "Consent"; readonly view: ConsentView; readonly outcome: "asked" | "wrong-login" | "throttled" }
  | { readonly _tag: "Redirect"; readonly location: string }
  /**
   * A bad request from a known client, before the account holder did anything: shown on the page with a
   * link back to the app carrying the error, never redirected automatically (this server's origin must not
   * bounce a visitor to any URI someone registered: RFC 9700 §4.11.2).
   */
  | { readonly _tag: "Refused"; readonly message: string; readonly location: string }

/** What the consent page shows. */
export interface ConsentView {
  readonly requestId: string
  readonly clientName: string
  /** Where the client's identity comes from: its metadata document's host, or "registered here". */
  readonly clientOrigin: string
  readonly verified: boolean
  readonly redirectHost: string
  readonly email: string
  readonly error: string | null
}

const refused = (reason: string) => new AuthorizationRefused({ reason })

const single = (params: Record<string, string | ReadonlyArray<string>>, name: string): string | undefined | null => {
  const value = params[name]
  if (value === undefined) return undefined
  if (typeof value === "string") return value
  return value.length === 1 ? value[0]! : null
}

/**
 * GET /oauth/authorize: judges the request. A bad client or redirect URI is refused on the page with no way
 * back; any other refusal is shown with a link back to the client carrying the error; a good request waits
 * for the account holder on the consent page.
 */
export const beginAuthorization = (params: Record<string, string | ReadonlyArray<string>>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const endpoints = oauthEndpoints(config.publicBaseUrl)
    // OAuth parameters are printable text (RFC 6749 Appendix A); nothing else is kept or looked up.
    if (Object.entries(params).some(([name, value]) => [name, ...[value].flat()].some(hasControlCharacters))) {
      return yield* refused("The request's parameters must not contain control characters.")
    }
    const clientId = single(params, "client_id")
    if (!clientId) return yield* refused("The request does not name its app (client_id is missing).")
    const client = yield* resolveClient(clientId).pipe(
      Effect.catchTag("UnusableClient", ({ reason }) => refused(reason))
    )
    // Always required (the token request must repeat it), and never redirected to unless registered.
    const redirectUri = single(params, "redirect_uri")
    if (!redirectUri) return yield* refused("The request must name its redirect_uri once.")
    if (!client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
      return yield* refused("The redirect_uri is not one the app registered; nothing was sent back to it.")
    }
    const state = single(params, "state")
    const refuse = (error: string, description: string): AuthorizationStep => ({
      _tag: "Refused",
      message: description,
      location: redirectWith(redirectUri, { error, error_description: description, state, iss: endpoints.issuer })
    })
    if (state === null) return refuse("invalid_request", "state must be given once.")
    if (single(params, "response_type") !== "code") {
      return refuse("unsupported_response_type", "Only response_type=code is supported.")
    }
    const challenge = single(params, "code_challenge")
    if (!challenge || !/^[A-Za-z0-9._~-]{43,128}$/.test(challenge)) {
      return refuse(
        "invalid_request",
        "PKCE is required: send a code_challenge (43-128 characters) with code_challenge_method=S256."
      )
    }
    if (single(params, "code_challenge_method") !== "S256") {
      return refuse("invalid_request", "code_challenge_method must be S256.")
    }
    const resources = params["resource"]
    const resourceList = resources === undefined ? [] : typeof resources === "string" ? [resources] : resources
    const audience = resourceList.length === 0
      ? endpoints.resource
      : resourceList.length === 1
      ? tokenAudience(config.publicBaseUrl, resourceList[0]!)
      : undefined
    if (audience === undefined) {
      return refuse("invalid_target", `Tokens are issued for one resource only: ${endpoints.resource}.`)
    }
    // Scopes this server does not offer beside one it does (`mcp openid`, as clients add by habit) are left
    // out of the grant (RFC 6749 §3.3; the token answer names the scope granted); none offered is refused.
    const scope = single(params, "scope")
    const requested = (scope ?? "").split(" ").filter((s) => s !== "")
    const scopes = requested.filter(isSupportedScope)
    if (scope === null || (requested.length > 0 && scopes.length === 0)) {
      return refuse("invalid_scope", `The scopes offered are: ${SCOPES.join(" ")}.`)
    }
    const request: AuthorizationRequest = {
      client_id: client.clientId,
      redirect_uri: redirectUri,
      state: state ?? null,
      scope: scopes.length === 0 ? SCOPES.join(" ") : scopes.join(" "),
      resource: audience,
      code_challenge: challenge,
      code_challenge_method: "S256"
    }
    const now = yield* Clock.currentTimeMillis
    const id = newRequestId()
    const connections = yield* Connections
    yield* connections.savePending({ id, params: request, expiresAt: new Date(now + PENDING_LIFETIME_SECONDS * 1000) })
    return {
      _tag: "Consent",
      view: consentView(id, client, request, "", null),
      outcome: "asked"
    } satisfies AuthorizationStep as AuthorizationStep
  })

const consentView = (
  requestId: string,
  client: OAuthClient,
  request: AuthorizationRequest,
  email: string,
  error: string | null
): ConsentView => ({
  requestId,
  clientName: displayName(client),
  clientOrigin: client.source === "metadata-document" ? new URL(client.clientId).host : "registered with this service",
  verified: client.source === "metadata-document",
  redirectHost: redirectHost(request.redirect_uri),
  email,
  error
})

const redirectHost = (uri: string) => {
  const url = new URL(uri)
  return url.host === "" ? `${url.protocol}//…` : url.host
}

const redirectWith = (redirectUri: string, params: Record<string, string | null | undefined>) => {
  const url = new URL(redirectUri)
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) url.searchParams.append(name, value)
  }
  return url.toString()
}

/**
 * POST /oauth/authorize: the account holder's answer on the consent page. Approve needs the email and
 * password; a wrong one shows the page again, and after MAX_LOGIN_ATTEMPTS the request is dropped.
 */
export const answerAuthorization = (form: {
  readonly requestId: string
  readonly email: string
  readonly password: string
  readonly decision: string
}) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const issuer = oauthEndpoints(config.publicBaseUrl).issuer
    const connections = yield* Connections
    const now = yield* Clock.currentTimeMillis
    const expired = refused("This sign-in request has expired or was already answered. Start again from your app.")
    const pending = yield* connections.findPending(form.requestId, new Date(now))
    if (Option.isNone(pending)) return yield* expired
    const request = pending.value.params
    const client = yield* resolveClient(request.client_id).pipe(
      Effect.catchTag("UnusableClient", ({ reason }) => refused(reason))
    )
    if (form.decision !== "approve") {
      if (!(yield* connections.takePending(form.requestId))) return yield* expired
      const location = redirectWith(request.redirect_uri, {
        error: "access_denied",
        error_description: "The account holder did not approve the connection.",
        state: request.state,
        iss: issuer
      })
      return { _tag: "Redirect", location } satisfies AuthorizationStep as AuthorizationStep
    }
    // Bounded twice before any hash is computed: per request (MAX_LOGIN_ATTEMPTS, reserved atomically) and
    // per email across requests (SIGN_IN_ATTEMPTS_PER_MINUTE), so a new request buys no new guesses.
    const tooMany = Effect.zipRight(
      connections.takePending(form.requestId),
      new SignInAttemptsExhausted({ reason: "Too many wrong sign-in attempts. Start again from your app." })
    )
    const attempt = yield* connections.reserveAttempt(form.requestId, MAX_LOGIN_ATTEMPTS)
    if (Option.isNone(attempt)) return yield* tooMany
    const answer = yield* attemptSignIn(form.email, form.password)
    if (answer._tag !== "SignedIn") {
      if (attempt.value >= MAX_LOGIN_ATTEMPTS) return yield* tooMany
      return {
        _tag: "Consent",
        view: consentView(form.requestId, client, request, form.email, answer.message),
        outcome: answer._tag === "Wrong" ? "wrong-login" : "throttled"
      } satisfies AuthorizationStep as AuthorizationStep
    }
    if (!(yield* connections.takePending(form.requestId))) return yield* expired
    const connectionId = yield* connections.connect(answer.accountId, client.clientId, displayName(client))
    const code = newAuthorizationCode()
    yield* connections.saveCode({
      codeSha256: hashSecret(code),
      connectionId,
      accountId: answer.accountId,
      clientId: client.clientId,
      redirectUri: request.redirect_uri,
      scope: request.scope,
      resource: request.resource,
      codeChallenge: request.code_challenge,
      codeChallengeMethod: request.code_challenge_method,
      expiresAt: new Date(now + CODE_LIFETIME_SECONDS * 1000)
    })
    const location = redirectWith(request.redirect_uri, { code, state: request.state, iss: issuer })
    return { _tag: "Redirect", location } satisfies AuthorizationStep as AuthorizationStep
  })
