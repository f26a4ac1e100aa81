/**
 * What the authorization server refuses, each with its reason and no HTTP status: src/http/oauth-routes.ts
 * translates a refusal into its OAuth error code, status and body (or the page that shows it).
 * A registration's refusal is `InvalidClientMetadata` (./clients.ts); a database that does not answer stays
 * `StorageUnavailable`.
 */
import { Data } from "effect"

// Token and revocation endpoints (RFC 6749 §5.2, RFC 7009 §2.2.1) -------------------------------------------

/** The request is malformed: a parameter missing, repeated or unreadable (`invalid_request`). */
export class MalformedRequest extends Data.TaggedError("MalformedRequest")<{ readonly reason: string }> {}

/** The client could not be identified (`invalid_client`). */
export class InvalidClient extends Data.TaggedError("InvalidClient")<{
  readonly reason: string
  /** The client sent its credentials in the `Authorization` header (RFC 6749 §5.2 wants a challenge back). */
  readonly viaAuthorizationHeader: boolean
}> {}

/** The code or refresh token is unknown, expired, used, revoked or not the client's (`invalid_grant`). */
export class InvalidGrant extends Data.TaggedError("InvalidGrant")<{ readonly reason: string }> {}

/** The client may not use the grant it asked for (`unauthorized_client`). */
export class UnauthorizedClient extends Data.TaggedError("UnauthorizedClient")<{ readonly reason: string }> {}

/** A grant type this server does not run (`unsupported_grant_type`): it runs authorization_code and refresh_token. */
export class UnsupportedGrantType extends Data.TaggedError("UnsupportedGrantType")<{ readonly grantType: string }> {}

/** A scope this server does not offer (`invalid_scope`). */
export class InvalidScope extends Data.TaggedError("InvalidScope")<{ readonly reason: string }> {}

/** A `resource` other than the one tokens are issued for (`invalid_target`, RFC 8707). */
export class InvalidTarget extends Data.TaggedError("InvalidTarget")<{ readonly resource: string }> {}

/** The token endpoint failed for a reason of its own (`server_error`); the cause is logged. */
export class TokenEndpointFailed extends Data.TaggedError("TokenEndpointFailed")<{ readonly reason: string }> {}

export type TokenRefusal =
  | MalformedRequest
  | InvalidClient
  | InvalidGrant
  | UnauthorizedClient
  | UnsupportedGrantType
  | InvalidScope
  | InvalidTarget
  | TokenEndpointFailed

// The authorization page ---------------------------------------------------------------------------------

/**
 * An authorization request that cannot be answered to the app: no usable client, a redirect URI it did not
 * register, control characters, or a request expired or already answered. Shown on the page, with no way
 * back to the app (its redirect URI cannot be trusted, or nothing is waiting for it).
 */
export class AuthorizationRefused extends Data.TaggedError("AuthorizationRefused")<{ readonly reason: string }> {}

/** Too many wrong passwords for one authorization request: it is dropped. */
export class SignInAttemptsExhausted extends Data.TaggedError("SignInAttemptsExhausted")<{ readonly reason: string }> {}

// Access tokens presented to the protected resource ----------------------------------------------------------

/**
 * An access token `/mcp` does not accept: unknown (never issued, revoked, or its connection disconnected),
 * expired, or issued for another resource.
 */
export class InvalidAccessToken extends Data.TaggedError("InvalidAccessToken")<{
  readonly reason: "unknown" | "expired" | "other-resource"
  /** For `other-resource`: the audience the token was issued for. */
  readonly issuedFor?: string
  /** For `expired` and `other-resource`: the connection the token was issued to (it is known). */
  readonly connectionId?: string
}> {}

// Clients ------------------------------------------------------------------------------------------------------

/** A client id that names no usable client: not registered, or its metadata document cannot be used. */
export class UnusableClient extends Data.TaggedError("UnusableClient")<{ readonly reason: string }> {}
