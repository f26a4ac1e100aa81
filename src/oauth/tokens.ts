/**
 * Tokens: issued at the token endpoint, refreshed, revoked, and verified when `/mcp` is called.
 *
 * `@node-oauth/oauth2-server` runs the authorization-code and refresh-token grants (code single use, PKCE
 * verification, redirect URI check, refresh rotation) over our store. Tokens are opaque and stored as
 * SHA-256; access tokens live an hour. A rotated refresh token presented again revokes its grant.
 */
import OAuth2Server from "@node-oauth/oauth2-server"
import { Clock, Effect, Option, Runtime } from "effect"
import { AppConfig } from "../config.js"
import { hashSecret } from "../domain/api-key.js"
import { newAccessToken, newGrantId, newRefreshToken } from "../domain/oauth-token.js"
import { Connections, type GrantContext } from "../services/connections.js"
import { type ConnectedApp, Ledger } from "../services/ledger.js"
import { type ClientMetadataFetcher, SUPPORTED_GRANT_TYPES } from "./clients.js"
import {
  InvalidAccessToken,
  InvalidClient,
  InvalidGrant,
  InvalidScope,
  InvalidTarget,
  MalformedRequest,
  TokenEndpointFailed,
  type TokenRefusal,
  UnauthorizedClient,
  UnsupportedGrantType
} from "./errors.js"
import { isSupportedScope, SCOPES, tokenAudience } from "./metadata.js"
import { resolveClient } from "./registration.js"

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3_600
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 86_400

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface IssuedTokens {
  readonly access_token: string
  readonly token_type: string
  readonly expires_in: number
  readonly refresh_token?: string
  readonly scope?: string
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

/**
 * The library's refusal, as ours. Two of its codes are RFC 6749 §5.2's others: a `redirect_uri` other than the
 * one the code was issued for is `invalid_grant` (the library says `invalid_request`), and a missing
 * `code_verifier` is `invalid_request` (it says `invalid_grant`): an assistant developer's audit, 2026-11-30.
 */
const refusalOf = (
  failure: OAuth2Server.OAuthError,
  request: { readonly grantType: string; readonly viaAuthorizationHeader: boolean }
): TokenRefusal => {
  const reason = failure.message
  switch (failure.name) {
    case "invalid_request":
      return reason === "Invalid request: `redirect_uri` is invalid"
        ? new InvalidGrant({ reason: "The redirect_uri is not the one the authorization code was issued for." })
        : new MalformedRequest({ reason })
    case "invalid_client":
      return new InvalidClient({ reason, viaAuthorizationHeader: request.viaAuthorizationHeader })
    case "invalid_grant":
      return reason.startsWith("Missing parameter:") ? new MalformedRequest({ reason }) : new InvalidGrant({ reason })
    case "unauthorized_client":
      return new UnauthorizedClient({ reason })
    case "unsupported_grant_type":
      return new UnsupportedGrantType({ grantType: request.grantType })
    case "invalid_scope":
      return new InvalidScope({ reason })
    default:
      return new TokenEndpointFailed({ reason })
  }
}

/** POST /oauth/token: the authorization-code and refresh-token grants, by the library over our store. */
export const exchangeToken = (form: Record<string, string>, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const grantType = form["grant_type"]
    if (grantType === undefined || grantType === "") {
      return yield* new MalformedRequest({ reason: "grant_type is required." })
    }
    // client_credentials and the rest: no grant but these two is run, whoever asks (RFC 6749 §5.2).
    if (!(SUPPORTED_GRANT_TYPES as ReadonlyArray<string>).includes(grantType)) {
      return yield* new UnsupportedGrantType({ grantType })
    }
    const requested = form["resource"]
    if (requested !== undefined && tokenAudience(config.publicBaseUrl, requested) === undefined) {
      return yield* new InvalidTarget({ resource: requested })
    }
    const runtime = yield* Effect.runtime<Connections | ClientMetadataFetcher | AppConfig>()
    const run = <A, E>(effect: Effect.Effect<A, E, Connections | ClientMetadataFetcher | AppConfig>) =>
      Runtime.runPromise(runtime)(effect)
    const connections = yield* Connections

    const model: OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel = {
      // Every client is public: a client_secret (in the form or the Authorization header) is ignored, not
      // checked. None was issued, so there is nothing to compare it with; the code is bound to the client's
      // PKCE verifier and a refresh token to its client id, and rotates.
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
          // A revoked refresh token presented again: rotated (someone holds a copy: everything of the grant stops
          // working), or given up by the client or cut off by a disconnection (its grant is already revoked).
          if (record.revoked) {
            yield* connections.revokeGrant(record.grantId)
            yield* Effect.logWarning(
              "a revoked refresh token (rotated, given up or disconnected) was presented; its grant is revoked",
              {
                grant_id: record.grantId
              }
            )
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
    if (failure === undefined) return response.body as IssuedTokens
    const known = failure instanceof OAuth2Server.OAuthError
    if (!known || failure.name === "server_error") yield* Effect.logError("token endpoint failed", failure)
    return yield* known
      ? refusalOf(failure, {
        grantType: form["grant_type"] ?? "",
        viaAuthorizationHeader: headers["authorization"] !== undefined
      })
      : new TokenEndpointFailed({ reason: "The token request failed unexpectedly." })
  })

/** POST /oauth/revoke (RFC 7009): a client gives up a token; it succeeds whatever the token was. */
export const revokeToken = (request: { readonly token: string | undefined; readonly clientId: string | undefined }) =>
  Effect.gen(function*() {
    if (!request.token || !request.clientId) {
      return yield* new MalformedRequest({ reason: "token and client_id are required." })
    }
    const connections = yield* Connections
    yield* connections.revokeByClient(hashSecret(request.token), request.clientId)
  })

/**
 * The connected app an access token acts for, confirmed by the one Ledger read of its call (VAL-3), which
 * also finds it revoked or its connection disconnected (AUTH-3); it must be unexpired and issued for
 * `resource` (its RFC 8707 audience).
 */
export const verifyAccessToken = (token: string, resource: string) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const found = yield* ledger.confirmConnection(hashSecret(token))
    if (Option.isNone(found)) return yield* new InvalidAccessToken({ reason: "unknown" })
    if (found.value.expiresAt.getTime() <= (yield* Clock.currentTimeMillis)) {
      return yield* new InvalidAccessToken({ reason: "expired", connectionId: found.value.connectionId })
    }
    if (found.value.resource !== resource) {
      return yield* new InvalidAccessToken({
        reason: "other-resource",
        issuedFor: found.value.resource,
        connectionId: found.value.connectionId
      })
    }
    return found.value satisfies ConnectedApp as ConnectedApp
  })
