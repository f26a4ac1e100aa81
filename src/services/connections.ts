/**
 * Account sign-in for AI assistants: the authorization server's records (clients, pending authorization
 * requests, codes, tokens) and the connections account holders approved. Codes and tokens are looked up by
 * their SHA-256 only; the secrets themselves are never stored.
 */
import { Context, Data, type Effect, type Option } from "effect"
import type { StorageUnavailable } from "./storage.js"

export type ClientSource = "registration" | "metadata-document"

export interface OAuthClient {
  readonly clientId: string
  readonly source: ClientSource
  readonly clientName: string | null
  readonly redirectUris: ReadonlyArray<string>
  /** The registered metadata or fetched document, as the client sent it (after validation). */
  readonly metadata: Record<string, unknown>
  /** For a metadata document: until when the cached copy may be used without fetching it again. */
  readonly freshUntil: Date | null
}

/** The parameters of an authorization request the consent page is showing. */
export interface AuthorizationRequest {
  readonly client_id: string
  readonly redirect_uri: string
  readonly state: string | null
  readonly scope: string
  readonly resource: string
  readonly code_challenge: string
  readonly code_challenge_method: "S256"
}

export interface PendingAuthorization {
  readonly id: string
  readonly params: AuthorizationRequest
  readonly expiresAt: Date
}

export interface AuthorizationCodeRecord {
  readonly codeSha256: Uint8Array
  readonly connectionId: string
  readonly accountId: string
  readonly clientId: string
  readonly redirectUri: string
  readonly scope: string
  readonly resource: string
  readonly codeChallenge: string
  readonly codeChallengeMethod: string
  readonly expiresAt: Date
}

/** A stored code as the token endpoint finds it. */
export interface FoundCode extends AuthorizationCodeRecord {
  /** The grant the code was redeemed for (or tried for); null while it is unused. */
  readonly usedFor: string | null
}

/** What a token carries besides its secret; tokens of one authorization share `grantId`. */
export interface GrantContext {
  readonly grantId: string
  readonly connectionId: string
  readonly accountId: string
  readonly clientId: string
  readonly scope: string
  readonly resource: string
}

export interface TokenPair {
  readonly accessSha256: Uint8Array
  readonly accessExpiresAt: Date
  readonly refreshSha256: Uint8Array | null
  readonly refreshExpiresAt: Date | null
}

export interface RefreshTokenRecord extends GrantContext {
  readonly expiresAt: Date
  /** Rotated away or revoked: presenting it again is reuse. */
  readonly revoked: boolean
}

/** A connection as the account holder sees it (`propscore connections list`, the Portal). */
export interface ConnectionView {
  readonly connection_id: string
  readonly client_id: string
  readonly client_name: string
  readonly connected_at: string
}

export class ConnectionNotFound extends Data.TaggedError("ConnectionNotFound")<{ readonly connectionId: string }> {
  override get message() {
    return `This account has no connection ${this.connectionId}`
  }
}

export class Connections extends Context.Tag("propscore/Connections")<Connections, {
  readonly saveClient: (client: OAuthClient) => Effect.Effect<void, StorageUnavailable>
  readonly findClient: (clientId: string) => Effect.Effect<Option.Option<OAuthClient>, StorageUnavailable>
  readonly savePending: (pending: PendingAuthorization) => Effect.Effect<void, StorageUnavailable>
  /** A pending request that has not expired at `now`. */
  readonly findPending: (
    id: string,
    now: Date
  ) => Effect.Effect<Option.Option<PendingAuthorization>, StorageUnavailable>
  /**
   * Reserves one password attempt on a pending request before the password is checked (so parallel tries
   * cannot exceed the bound): the attempt's number, or none when `maxAttempts` were already made.
   */
  readonly reserveAttempt: (id: string, maxAttempts: number) => Effect.Effect<Option.Option<number>, StorageUnavailable>
  /** Uses a pending request up: true for the one caller that took it. */
  readonly takePending: (id: string) => Effect.Effect<boolean, StorageUnavailable>
  /**
   * The Account's live connection to the client, made now if there is none; the client's display name is
   * refreshed. Returns its id.
   */
  readonly connect: (
    accountId: string,
    clientId: string,
    clientName: string
  ) => Effect.Effect<string, StorageUnavailable>
  readonly saveCode: (code: AuthorizationCodeRecord) => Effect.Effect<void, StorageUnavailable>
  /** A code whose connection is still live, used or not (expiry is the caller's to judge). */
  readonly findCode: (codeSha256: Uint8Array) => Effect.Effect<Option.Option<FoundCode>, StorageUnavailable>
  /**
   * Uses a code up for `grantId`, the grant its tokens will carry: true for the one caller that took it.
   * The used code is kept, so that presenting it again can be recognised and its grant revoked.
   */
  readonly takeCode: (codeSha256: Uint8Array, grantId: string) => Effect.Effect<boolean, StorageUnavailable>
  /**
   * Deletes, at most `limit` rows of each kind, what has expired and can no longer matter: authorization
   * requests that expired before `requestsBefore`; codes (used or not) and tokens (revoked or not) that
   * expired before `codesAndTokensBefore`, and grant revocations recorded before it. Returns how many
   * rows were deleted.
   */
  readonly purgeExpired: (horizon: {
    readonly requestsBefore: Date
    readonly codesAndTokensBefore: Date
    readonly limit: number
  }) => Effect.Effect<number, StorageUnavailable>
  readonly saveTokens: (grant: GrantContext, tokens: TokenPair) => Effect.Effect<void, StorageUnavailable>
  /** A refresh token of a live connection, revoked or not. */
  readonly findRefreshToken: (
    sha256: Uint8Array
  ) => Effect.Effect<Option.Option<RefreshTokenRecord>, StorageUnavailable>
  /** Revokes one token: true when it was live (so only one of two racing rotations wins). */
  readonly revokeToken: (sha256: Uint8Array) => Effect.Effect<boolean, StorageUnavailable>
  /**
   * Revokes every token of a grant for good (a reused code or refresh token): a token saved for it later,
   * by a request that raced the revocation, is saved revoked.
   */
  readonly revokeGrant: (grantId: string) => Effect.Effect<void, StorageUnavailable>
  /** Revokes a token the client itself gives up (RFC 7009), with its grant's other tokens. */
  readonly revokeByClient: (sha256: Uint8Array, clientId: string) => Effect.Effect<void, StorageUnavailable>
  readonly list: (accountId: string) => Effect.Effect<ReadonlyArray<ConnectionView>, StorageUnavailable>
  /** Disconnects: every token of the connection stops working at once. */
  readonly disconnect: (
    accountId: string,
    connectionId: string
  ) => Effect.Effect<ConnectionView, ConnectionNotFound | StorageUnavailable>
}>() {}
