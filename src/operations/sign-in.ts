/**
 * Account sign-in for AI assistants: this service as an OAuth 2.1 authorization server for `/mcp`.
 *
 * - Clients: dynamic registration (RFC 7591) or a Client ID Metadata Document (an https client id).
 * - Authorization: code with PKCE S256 only, exact redirect URI match, one protected resource (RFC 8707:
 *   `<base>/mcp`), the `iss` response parameter (RFC 9207). The account holder signs in with email and
 *   password on the consent page and approves or denies; approval makes (or reuses) a connection.
 * - Token endpoint: `@node-oauth/oauth2-server` runs the authorization-code and refresh-token grants (code
 *   single use, PKCE verification, redirect URI check, refresh rotation) over our store; opaque tokens,
 *   stored as SHA-256, access tokens for an hour. A rotated refresh token presented again revokes its grant.
 *
 * The HTTP routes only translate (src/http/oauth-routes.ts); every decision is here.
 */
import OAuth2Server from "@node-oauth/oauth2-server"
import { Clock, Data, Effect, Option, Runtime } from "effect"
import { hasControlCharacters } from "../../schema/text.js"
import { AppConfig } from "../config.js"
import { hashSecret } from "../domain/api-key.js"
import {
  newAccessToken,
  newAuthorizationCode,
  newClientId,
  newGrantId,
  newRefreshToken,
  newRequestId
} from "../domain/oauth-token.js"
import {
  decoyHash,
  emailProblem,
  hashPassword,
  normalizeEmail,
  passwordProblem,
  verifyPassword
} from "../domain/password.js"
import {
  ClientMetadataFetcher,
  isMetadataDocumentClientId,
  redirectUriMatches,
  SUPPORTED_GRANT_TYPES,
  validateClientMetadata
} from "../oauth/clients.js"
import { Accounts } from "../services/accounts.js"
import { type AuthorizationRequest, Connections, type GrantContext, type OAuthClient } from "../services/connections.js"
import { RateLimits } from "../services/rate-limits.js"
import type { StorageUnavailable } from "../services/storage.js"

export const SCOPES = ["mcp"] as const
const isSupportedScope = (scope: string) => (SCOPES as ReadonlyArray<string>).includes(scope)
export const CODE_LIFETIME_SECONDS = 60
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3_600
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 86_400
export const PENDING_LIFETIME_SECONDS = 600
export const MAX_LOGIN_ATTEMPTS = 5

/** The sign-in endpoints, from the public base URL. */
export const oauthEndpoints = (base: string) => ({
  issuer: base,
  authorization: `${base}/oauth/authorize`,
  token: `${base}/oauth/token`,
  registration: `${base}/oauth/register`,
  revocation: `${base}/oauth/revoke`,
  /** The one protected resource tokens are issued for. */
  resource: `${base}/mcp`
})

/** RFC 8414 authorization server metadata. */
export const authorizationServerMetadata = (base: string) => {
  const endpoints = oauthEndpoints(base)
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...SUPPORTED_GRANT_TYPES],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs`
  }
}

/** A refusal shown on the authorization page itself: the client or redirect URI cannot be trusted. */
export class AuthorizationPageError extends Data.TaggedError("AuthorizationPageError")<{
  readonly status: number
  readonly message: string
}> {}

/** An OAuth error answered as JSON (token, registration and revocation endpoints). */
export class OAuthJsonError extends Data.TaggedError("OAuthJsonError")<{
  readonly status: number
  readonly error: string
  readonly description: string
}> {}

export type AuthorizationStep =
  | { readonly _tag: "Consent"; readonly view: ConsentView; readonly status: 200 | 400 | 429 }
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

const pageError = (status: number, message: string) => new AuthorizationPageError({ status, message })

const displayName = (client: OAuthClient) =>
  client.clientName ?? (isMetadataDocumentClientId(client.clientId) ? new URL(client.clientId).host : client.clientId)

/** The client of a client id: a registered one, or its metadata document (cached, fetched when stale). */
/** A client that cannot be used is shown on the page; a store that cannot answer stays what it is. */
const clientRefusal = (failure: string | StorageUnavailable) =>
  typeof failure === "string" ? pageError(400, failure) : failure

export const resolveClient = (clientId: string) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const known = yield* connections.findClient(clientId)
    if (!isMetadataDocumentClientId(clientId)) {
      return yield* Option.match(known, {
        onNone: () => Effect.fail(`No client is registered with the id ${clientId}.`),
        onSome: (client) => Effect.succeed(client)
      })
    }
    const now = yield* Clock.currentTimeMillis
    if (Option.isSome(known) && known.value.freshUntil !== null && known.value.freshUntil.getTime() > now) {
      return known.value
    }
    const fetcher = yield* ClientMetadataFetcher
    const document = yield* fetcher.fetch(clientId).pipe(
      Effect.mapError(({ reason }) => `The client's metadata document could not be used: ${reason}.`)
    )
    const body = document.body as Record<string, unknown> | null
    if (typeof body !== "object" || body === null || body["client_id"] !== clientId) {
      return yield* Effect.fail("The client's metadata document does not name its own URL as client_id.")
    }
    const valid = yield* validateClientMetadata(body).pipe(
      Effect.mapError((problem) => `The client's metadata document is not valid: ${problem.description}`)
    )
    const client: OAuthClient = {
      clientId,
      source: "metadata-document",
      clientName: valid.clientName,
      redirectUris: valid.redirectUris,
      metadata: { client_id: clientId, ...valid.metadata },
      freshUntil: new Date(now + document.maxAgeSeconds * 1000)
    }
    yield* connections.saveClient(client)
    return client
  })

/** RFC 7591 dynamic registration of a public client. */
export const registerClient = (body: unknown) =>
  Effect.gen(function*() {
    const valid = yield* validateClientMetadata(body).pipe(
      Effect.mapError((problem) =>
        new OAuthJsonError({ status: 400, error: problem.error, description: problem.description })
      )
    )
    const clientId = newClientId()
    const issuedAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const connections = yield* Connections
    yield* connections.saveClient({
      clientId,
      source: "registration",
      clientName: valid.clientName,
      redirectUris: valid.redirectUris,
      metadata: valid.metadata,
      freshUntil: null
    })
    return { client_id: clientId, client_id_issued_at: issuedAt, ...valid.metadata }
  })

const single = (params: Record<string, string | ReadonlyArray<string>>, name: string): string | undefined | null => {
  const value = params[name]
  if (value === undefined) return undefined
  if (typeof value === "string") return value
  return value.length === 1 ? value[0]! : null
}

const sameResource = (a: string, b: string) => a.replace(/\/$/, "") === b.replace(/\/$/, "")

/**
 * GET /oauth/authorize: judges the request. A bad client or redirect URI is shown on the page with no way
 * back; any other refusal is shown with a link back to the client carrying the error; a good request waits
 * for the account holder on the consent page.
 */
export const beginAuthorization = (params: Record<string, string | ReadonlyArray<string>>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const endpoints = oauthEndpoints(config.publicBaseUrl)
    // OAuth parameters are printable text (RFC 6749 Appendix A); nothing else is kept or looked up.
    if (Object.entries(params).some(([name, value]) => [name, ...[value].flat()].some(hasControlCharacters))) {
      return yield* pageError(400, "The request's parameters must not contain control characters.")
    }
    const clientId = single(params, "client_id")
    if (!clientId) return yield* pageError(400, "The request does not name its app (client_id is missing).")
    const client = yield* resolveClient(clientId).pipe(Effect.mapError(clientRefusal))
    // Always required (the token request must repeat it), and never redirected to unless registered.
    const redirectUri = single(params, "redirect_uri")
    if (!redirectUri) return yield* pageError(400, "The request must name its redirect_uri once.")
    if (!client.redirectUris.some((registered) => redirectUriMatches(registered, redirectUri))) {
      return yield* pageError(400, "The redirect_uri is not one the app registered; nothing was sent back to it.")
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
    if (resourceList.length > 1 || (resourceList.length === 1 && !sameResource(resourceList[0]!, endpoints.resource))) {
      return refuse("invalid_target", `Tokens are issued for one resource only: ${endpoints.resource}.`)
    }
    const scope = single(params, "scope")
    const scopes = (scope ?? "").split(" ").filter((s) => s !== "")
    if (scope === null || !scopes.every(isSupportedScope)) {
      return refuse("invalid_scope", `The scopes offered are: ${SCOPES.join(" ")}.`)
    }
    const request: AuthorizationRequest = {
      client_id: client.clientId,
      redirect_uri: redirectUri,
      state: state ?? null,
      scope: scopes.length === 0 ? SCOPES.join(" ") : scopes.join(" "),
      resource: endpoints.resource,
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
      status: 200
    } satisfies AuthorizationStep
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
 * Password hashes at once on this node: each takes 128 MiB and a thread of libuv's small pool (shared with
 * DNS and file I/O), so a flood of sign-ins queues here instead of starving everything else.
 */
const hashing = Effect.unsafeMakeSemaphore(2)

/** The account holder's sign-in: the Account of an email and password, or none (in constant-ish time). */
export const verifyLogin = (email: string, password: string) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const login = yield* accounts.findLogin(normalizeEmail(email))
    const stored = Option.isSome(login) ? login.value.passwordHash : yield* Effect.promise(decoyHash)
    const matches = yield* hashing.withPermits(1)(Effect.promise(() => verifyPassword(password, stored)))
    return Option.isSome(login) && matches ? Option.some(login.value.accountId) : Option.none<string>()
  })

export type SignInAttempt =
  | { readonly _tag: "SignedIn"; readonly accountId: string }
  | { readonly _tag: "Wrong"; readonly message: string }
  | { readonly _tag: "Throttled"; readonly message: string }

/**
 * One password attempt of the account holder, on the consent page or the Portal. Attempts are bounded per
 * email across both (SIGN_IN_ATTEMPTS_PER_MINUTE) before any hash is computed: past the bound the attempt is
 * refused unchecked, even with the right password, until the window has room again.
 */
export const attemptSignIn = (email: string, password: string) =>
  Effect.gen(function*() {
    const limits = yield* RateLimits
    const throttled = yield* limits.count({ _tag: "SignIn", email: normalizeEmail(email) }).pipe(
      Effect.as(undefined),
      Effect.catchAll(({ problem }) => Effect.succeed(problem.detail))
    )
    if (throttled !== undefined) {
      return { _tag: "Throttled", message: throttled } satisfies SignInAttempt as SignInAttempt
    }
    return Option.match(yield* verifyLogin(email, password), {
      onNone: (): SignInAttempt => ({ _tag: "Wrong", message: "The email or password is not right." }),
      onSome: (accountId): SignInAttempt => ({ _tag: "SignedIn", accountId })
    })
  })

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
    const expired = pageError(
      400,
      "This sign-in request has expired or was already answered. Start again from your app."
    )
    const pending = yield* connections.findPending(form.requestId, new Date(now))
    if (Option.isNone(pending)) return yield* expired
    const request = pending.value.params
    const client = yield* resolveClient(request.client_id).pipe(Effect.mapError(clientRefusal))
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
      pageError(429, "Too many wrong sign-in attempts. Start again from your app.")
    )
    const attempt = yield* connections.reserveAttempt(form.requestId, MAX_LOGIN_ATTEMPTS)
    if (Option.isNone(attempt)) return yield* tooMany
    const answer = yield* attemptSignIn(form.email, form.password)
    if (answer._tag !== "SignedIn") {
      if (attempt.value >= MAX_LOGIN_ATTEMPTS) return yield* tooMany
      const view = consentView(form.requestId, client, request, form.email, answer.message)
      return {
        _tag: "Consent",
        view,
        status: answer._tag === "Wrong" ? 400 : 429
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

export interface TokenAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: unknown
}

/** What the library's model carries as its "user": the connection a token acts for. */
type GrantUser = Pick<GrantContext, "accountId" | "connectionId" | "resource" | "grantId">

const grantUser = (
  record: Pick<GrantContext, "accountId" | "connectionId" | "resource">,
  grantId: string
): GrantUser => ({
  accountId: record.accountId,
  connectionId: record.connectionId,
  resource: record.resource,
  grantId
})

/** POST /oauth/token: the authorization-code and refresh-token grants, by the library over our store. */
export const exchangeToken = (form: Record<string, string>, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const endpoints = oauthEndpoints(config.publicBaseUrl)
    if (form["resource"] !== undefined && !sameResource(form["resource"], endpoints.resource)) {
      return yield* new OAuthJsonError({
        status: 400,
        error: "invalid_target",
        description: `Tokens are issued for one resource only: ${endpoints.resource}.`
      })
    }
    const runtime = yield* Effect.runtime<Connections | ClientMetadataFetcher | AppConfig>()
    const run = <A, E>(effect: Effect.Effect<A, E, Connections | ClientMetadataFetcher | AppConfig>) =>
      Runtime.runPromise(runtime)(effect)
    const connections = yield* Connections

    const model: OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel = {
      getClient: (clientId) =>
        run(
          resolveClient(clientId).pipe(
            Effect.map((client) => ({
              id: client.clientId,
              redirectUris: [...client.redirectUris],
              grants: [...SUPPORTED_GRANT_TYPES]
            })),
            Effect.orElseSucceed(() => false as const)
          )
        ),
      generateAccessToken: async () => newAccessToken(),
      generateRefreshToken: async () => newRefreshToken(),
      getAuthorizationCode: (code) =>
        run(Effect.gen(function*() {
          const found = yield* connections.findCode(hashSecret(code))
          if (Option.isNone(found)) return false as const
          const record = found.value
          // A code presented again: it leaked, or the client misbehaves. The tokens issued for it stop
          // working (RFC 6749 §4.1.2; OAuth 2.1 §4.1.3), whichever party holds them.
          if (record.usedFor !== null) {
            yield* connections.revokeGrant(record.usedFor)
            yield* Effect.logWarning("authorization code presented again; its grant is revoked", {
              grant_id: record.usedFor
            })
            return false as const
          }
          return {
            authorizationCode: code,
            expiresAt: record.expiresAt,
            redirectUri: record.redirectUri,
            scope: record.scope.split(" "),
            client: { id: record.clientId, grants: [] },
            user: grantUser(record, newGrantId()),
            codeChallenge: record.codeChallenge,
            codeChallengeMethod: record.codeChallengeMethod
          }
        })),
      // Codes are issued by answerAuthorization (the consent page), never through the library.
      saveAuthorizationCode: async () => false,
      // The grant id chosen above goes with the used code: its tokens carry it (saveToken).
      revokeAuthorizationCode: (code) =>
        run(connections.takeCode(hashSecret(code.authorizationCode), (code.user as GrantUser).grantId)),
      validateScope: async (_user, _client, scope) => {
        const requested = scope && scope.length > 0 ? scope : [...SCOPES]
        return requested.every(isSupportedScope) ? requested : false
      },
      saveToken: (token, client, user) => {
        const grant = user as GrantUser
        return run(connections.saveTokens(
          {
            grantId: grant.grantId,
            connectionId: grant.connectionId,
            accountId: grant.accountId,
            clientId: client.id,
            scope: (token.scope ?? [...SCOPES]).join(" "),
            resource: grant.resource
          },
          {
            accessSha256: hashSecret(token.accessToken),
            accessExpiresAt: token.accessTokenExpiresAt!,
            refreshSha256: token.refreshToken ? hashSecret(token.refreshToken) : null,
            refreshExpiresAt: token.refreshTokenExpiresAt ?? null
          }
        )).then(() => ({ ...token, client, user }))
      },
      getRefreshToken: (refreshToken) =>
        run(Effect.gen(function*() {
          const found = yield* connections.findRefreshToken(hashSecret(refreshToken))
          if (Option.isNone(found)) return false as const
          const record = found.value
          // Reuse of a rotated refresh token: someone holds a copy. Everything of the grant stops working.
          if (record.revoked) {
            yield* connections.revokeGrant(record.grantId)
            yield* Effect.logWarning("refresh token reused; its grant is revoked", { grant_id: record.grantId })
            return false as const
          }
          return {
            refreshToken,
            refreshTokenExpiresAt: record.expiresAt,
            scope: record.scope.split(" "),
            client: { id: record.clientId, grants: [] },
            user: grantUser(record, record.grantId)
          }
        })),
      revokeToken: (token) => run(connections.revokeToken(hashSecret(token.refreshToken))),
      getAccessToken: async () => false
    }
    const server = new OAuth2Server({
      model,
      accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
      refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_SECONDS,
      requireClientAuthentication: { authorization_code: false, refresh_token: false },
      alwaysIssueNewRefreshToken: true
    })
    const request = new OAuth2Server.Request({ method: "POST", query: {}, headers, body: form })
    const response = new OAuth2Server.Response({ headers: {} })
    const failure = yield* Effect.promise(() =>
      server.token(request, response).then(() => undefined, (error: unknown) => error)
    )
    // The library answers its own errors on `response`, except a few it throws before (e.g. a form body
    // without a Content-Length): those become their OAuth error here, anything else a server error.
    const known = failure instanceof OAuth2Server.OAuthError
    if (failure !== undefined && (!known || failure.name === "server_error")) {
      yield* Effect.logError("token endpoint failed", failure)
    }
    if (failure !== undefined && (response.status ?? 200) < 400) {
      return yield* known
        ? new OAuthJsonError({ status: failure.code, error: failure.name, description: failure.message })
        : new OAuthJsonError({
          status: 500,
          error: "server_error",
          description: "The token request failed unexpectedly."
        })
    }
    const answerHeaders: Record<string, string> = { "cache-control": "no-store" }
    for (const [name, value] of Object.entries(response.headers ?? {})) {
      answerHeaders[name.toLowerCase()] = String(value)
    }
    return { status: response.status ?? 200, headers: answerHeaders, body: response.body } satisfies TokenAnswer
  })

/** POST /oauth/revoke (RFC 7009): a client gives up a token; always 200, whatever the token was. */
export const revokeToken = (form: Record<string, string>) =>
  Effect.gen(function*() {
    const token = form["token"]
    const clientId = form["client_id"]
    if (!token || !clientId) {
      return yield* new OAuthJsonError({
        status: 400,
        error: "invalid_request",
        description: "token and client_id are required."
      })
    }
    const connections = yield* Connections
    yield* connections.revokeByClient(hashSecret(token), clientId)
  })

// ---------------------------------------------------------------------------------------------------------
// Account holders' logins and their connections (command line; the Portal later)

export class InvalidLogin extends Data.TaggedError("InvalidLogin")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

export const setLogin = (accountId: string, email: string, password: string) =>
  Effect.gen(function*() {
    const problem = emailProblem(email) ?? passwordProblem(password)
    if (problem) return yield* new InvalidLogin({ reason: problem })
    const passwordHash = yield* hashing.withPermits(1)(Effect.promise(() => hashPassword(password)))
    const accounts = yield* Accounts
    return yield* accounts.setLogin({ accountId, email: normalizeEmail(email), passwordHash })
  })

export const listConnections = (accountId: string) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* accounts.show(accountId)
    const connections = yield* Connections
    return yield* connections.list(accountId)
  })

export const disconnect = (accountId: string, connectionId: string) =>
  Effect.flatMap(Connections, (connections) => connections.disconnect(accountId, connectionId))
