/** Connections and the authorization server's records on PostgreSQL (or the embedded PGlite). */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { DatabaseHealth } from "../../src/db/health.js"
import { newConnectionId } from "../../src/domain/oauth-token.js"
import {
  type AuthorizationRequest,
  type ClientSource,
  ConnectionNotFound,
  Connections,
  type ConnectionView,
  type FoundCode,
  type RefreshTokenRecord
} from "../../src/services/connections.js"

interface ConnectionRow {
  readonly id: string
  readonly client_id: string
  readonly client_name: string
  readonly created_at: Date
}

const toView = (row: ConnectionRow): ConnectionView => ({
  connection_id: row.id,
  client_id: row.client_id,
  client_name: row.client_name,
  connected_at: row.created_at.toISOString()
})

export const ConnectionsPg = Layer.effect(
  Connections,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** A step of the store under the storage deadlines, its database failures `StorageUnavailable`. */
    const store = (yield* DatabaseHealth).guard("Connections")

    /** A transaction-scoped lock on one grant id (an advisory lock: a grant has no row of its own). */
    const lockGrant = (grantId: string) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${grantId}, 0))`

    // The grant's lock orders this against a saveTokens of the same grant: either the tokens are saved
    // first and revoked here, or the mark is here first and they are saved revoked.
    const revokeGrant = (grantId: string) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* lockGrant(grantId)
        yield* sql`INSERT INTO oauth_revoked_grants (grant_id) VALUES (${grantId}) ON CONFLICT (grant_id) DO NOTHING`
        yield* sql`UPDATE oauth_tokens SET revoked_at = now() WHERE grant_id = ${grantId} AND revoked_at IS NULL`
      }))

    return Connections.of({
      saveClient: (client) =>
        sql`
          INSERT INTO oauth_clients (client_id, source, client_name, redirect_uris, metadata, fresh_until)
          VALUES (${client.clientId}, ${client.source}, ${client.clientName}, ${
          JSON.stringify(client.redirectUris)
        }::jsonb,
                  ${JSON.stringify(client.metadata)}::jsonb, ${client.freshUntil})
          ON CONFLICT (client_id) DO UPDATE SET client_name = excluded.client_name, redirect_uris = excluded.redirect_uris,
            metadata = excluded.metadata, fresh_until = excluded.fresh_until
          WHERE oauth_clients.source = 'metadata-document'`.pipe(Effect.asVoid, store),

      findClient: (clientId) =>
        sql<{
          client_id: string
          source: ClientSource
          client_name: string | null
          redirect_uris: ReadonlyArray<string>
          metadata: Record<string, unknown>
          fresh_until: Date | null
        }>`SELECT client_id, source, client_name, redirect_uris, metadata, fresh_until FROM oauth_clients WHERE client_id = ${clientId}`
          .pipe(
            store,
            Effect.map((rows) =>
              Option.map(Option.fromNullable(rows[0]), (row) => ({
                clientId: row.client_id,
                source: row.source,
                clientName: row.client_name,
                redirectUris: row.redirect_uris,
                metadata: row.metadata,
                freshUntil: row.fresh_until
              }))
            )
          ),

      savePending: (pending) =>
        sql`
          INSERT INTO oauth_requests (id, client_id, params, expires_at)
          VALUES (${pending.id}, ${pending.params.client_id}, ${
          JSON.stringify(pending.params)
        }::jsonb, ${pending.expiresAt})`
          .pipe(Effect.asVoid, store),

      findPending: (id, now) =>
        sql<{ id: string; params: AuthorizationRequest; expires_at: Date }>`
          SELECT id, params, expires_at FROM oauth_requests WHERE id = ${id} AND expires_at > ${now}`.pipe(
          store,
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row) => ({
              id: row.id,
              params: row.params,
              expiresAt: row.expires_at
            }))
          )
        ),

      reserveAttempt: (id, maxAttempts) =>
        sql<{ failed_attempts: number }>`
          UPDATE oauth_requests SET failed_attempts = failed_attempts + 1
          WHERE id = ${id} AND failed_attempts < ${maxAttempts} RETURNING failed_attempts`.pipe(
          Effect.map((rows) => Option.fromNullable(rows[0]?.failed_attempts)),
          store
        ),

      takePending: (id) =>
        sql<{ id: string }>`DELETE FROM oauth_requests WHERE id = ${id} RETURNING id`.pipe(
          Effect.map((rows) => rows.length === 1),
          store
        ),

      connect: (accountId, clientId, clientName) =>
        sql.withTransaction(Effect.gen(function*() {
          // One live connection per Account and client: a second approval reuses it.
          yield* sql`SELECT id FROM accounts WHERE id = ${accountId} FOR UPDATE`
          const [live] = yield* sql<{ id: string }>`
            UPDATE oauth_connections SET client_name = ${clientName}
            WHERE account_id = ${accountId} AND client_id = ${clientId} AND disconnected_at IS NULL
            RETURNING id`
          if (live) return live.id
          const id = newConnectionId()
          yield* sql`
            INSERT INTO oauth_connections (id, account_id, client_id, client_name)
            VALUES (${id}, ${accountId}, ${clientId}, ${clientName})`
          return id
        })).pipe(store),

      saveCode: (code) =>
        sql`
          INSERT INTO oauth_codes (code_sha256, connection_id, client_id, redirect_uri, scope, resource, code_challenge,
                                   code_challenge_method, expires_at)
          VALUES (${code.codeSha256}, ${code.connectionId}, ${code.clientId}, ${code.redirectUri}, ${code.scope},
                  ${code.resource}, ${code.codeChallenge}, ${code.codeChallengeMethod}, ${code.expiresAt})`
          .pipe(Effect.asVoid, store),

      findCode: (codeSha256) =>
        sql<{
          connection_id: string
          account_id: string
          client_id: string
          redirect_uri: string
          scope: string
          resource: string
          code_challenge: string
          code_challenge_method: string
          expires_at: Date
          used_for: string | null
        }>`
          SELECT k.connection_id, c.account_id, k.client_id, k.redirect_uri, k.scope, k.resource, k.code_challenge,
                 k.code_challenge_method, k.expires_at, k.used_for
          FROM oauth_codes k JOIN oauth_connections c ON c.id = k.connection_id
          WHERE k.code_sha256 = ${codeSha256} AND c.disconnected_at IS NULL`.pipe(
          store,
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row): FoundCode => ({
              codeSha256,
              connectionId: row.connection_id,
              accountId: row.account_id,
              clientId: row.client_id,
              redirectUri: row.redirect_uri,
              scope: row.scope,
              resource: row.resource,
              codeChallenge: row.code_challenge,
              codeChallengeMethod: row.code_challenge_method,
              expiresAt: row.expires_at,
              usedFor: row.used_for
            }))
          )
        ),

      takeCode: (codeSha256, grantId) =>
        sql<{ connection_id: string }>`
          UPDATE oauth_codes SET used_at = now(), used_for = ${grantId}
          WHERE code_sha256 = ${codeSha256} AND used_at IS NULL
          RETURNING connection_id`.pipe(
          Effect.map((rows) => rows.length === 1),
          store
        ),

      // Each by its expiry index (migrations 0011 and 0012), so a purge with nothing to do reads nothing; by
      // row address, in bounded batches, skipping rows another request holds.
      purgeExpired: ({ codesAndTokensBefore, limit, requestsBefore }) => {
        const purge = (table: string, column: string, before: Date) =>
          sql`
            DELETE FROM ${sql(table)} WHERE ctid = ANY (ARRAY(
              SELECT ctid FROM ${sql(table)} WHERE ${sql(column)} < ${before} LIMIT ${limit} FOR UPDATE SKIP LOCKED
            )) RETURNING 1`.pipe(Effect.map((rows) => rows.length))
        return Effect.all([
          purge("oauth_requests", "expires_at", requestsBefore),
          purge("oauth_codes", "expires_at", codesAndTokensBefore),
          purge("oauth_tokens", "expires_at", codesAndTokensBefore),
          purge("oauth_revoked_grants", "revoked_at", codesAndTokensBefore)
        ]).pipe(Effect.map((counts) => counts.reduce((a, b) => a + b, 0)), store)
      },

      // Under the grant's lock (see revokeGrant): a grant revoked for good gets its new tokens revoked.
      saveTokens: (grant, tokens) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lockGrant(grant.grantId)
          const insert = (sha: Uint8Array, kind: "access" | "refresh", expiresAt: Date) =>
            sql`
              INSERT INTO oauth_tokens (token_sha256, kind, grant_id, connection_id, client_id, scope, resource, expires_at,
                                        revoked_at)
              VALUES (${sha}, ${kind}, ${grant.grantId}, ${grant.connectionId}, ${grant.clientId}, ${grant.scope},
                      ${grant.resource}, ${expiresAt},
                      (SELECT revoked_at FROM oauth_revoked_grants WHERE grant_id = ${grant.grantId}))`
          yield* insert(tokens.accessSha256, "access", tokens.accessExpiresAt)
          if (tokens.refreshSha256 && tokens.refreshExpiresAt) {
            yield* insert(tokens.refreshSha256, "refresh", tokens.refreshExpiresAt)
          }
          yield* sql`UPDATE oauth_connections SET last_used_at = now() WHERE id = ${grant.connectionId}`
        })).pipe(store),

      findRefreshToken: (sha256) =>
        sql<{
          grant_id: string
          connection_id: string
          account_id: string
          client_id: string
          scope: string
          resource: string
          expires_at: Date
          revoked: boolean
        }>`
          SELECT t.grant_id, t.connection_id, c.account_id, t.client_id, t.scope, t.resource, t.expires_at,
                 (t.revoked_at IS NOT NULL) AS revoked
          FROM oauth_tokens t JOIN oauth_connections c ON c.id = t.connection_id
          WHERE t.token_sha256 = ${sha256} AND t.kind = 'refresh' AND c.disconnected_at IS NULL`.pipe(
          store,
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row): RefreshTokenRecord => ({
              grantId: row.grant_id,
              connectionId: row.connection_id,
              accountId: row.account_id,
              clientId: row.client_id,
              scope: row.scope,
              resource: row.resource,
              expiresAt: row.expires_at,
              revoked: row.revoked
            }))
          )
        ),

      revokeToken: (sha256) =>
        sql<{ kind: string }>`
          UPDATE oauth_tokens SET revoked_at = now() WHERE token_sha256 = ${sha256} AND revoked_at IS NULL RETURNING kind`
          .pipe(
            Effect.map((rows) => rows.length === 1),
            store
          ),

      revokeGrant: (grantId) => revokeGrant(grantId).pipe(store),

      revokeByClient: (sha256, clientId) =>
        Effect.gen(function*() {
          const [token] = yield* sql<{ grant_id: string; connection_id: string }>`
            SELECT grant_id, connection_id FROM oauth_tokens WHERE token_sha256 = ${sha256} AND client_id = ${clientId}`
          if (!token) return
          yield* revokeGrant(token.grant_id)
          // The app signed itself out: a connection left without a refresh token that works is disconnected, so
          // the account holder's list does not show an app as connected that no longer is (an agent audit).
          yield* sql`
            UPDATE oauth_connections SET disconnected_at = now()
            WHERE id = ${token.connection_id} AND disconnected_at IS NULL AND NOT EXISTS (
              SELECT 1 FROM oauth_tokens
              WHERE connection_id = ${token.connection_id} AND kind = 'refresh' AND revoked_at IS NULL
                AND expires_at > now())`
        }).pipe(store),

      list: (accountId) =>
        sql<ConnectionRow>`
          SELECT id, client_id, client_name, created_at FROM oauth_connections
          WHERE account_id = ${accountId} AND disconnected_at IS NULL ORDER BY created_at, id`.pipe(
          Effect.map((rows) => rows.map(toView)),
          store
        ),

      disconnect: (accountId, connectionId) =>
        sql.withTransaction(Effect.gen(function*() {
          const [row] = yield* sql<ConnectionRow>`
            UPDATE oauth_connections SET disconnected_at = now()
            WHERE id = ${connectionId} AND account_id = ${accountId} AND disconnected_at IS NULL
            RETURNING id, client_id, client_name, created_at`
          if (!row) return Option.none<ConnectionView>()
          yield* sql`UPDATE oauth_tokens SET revoked_at = now() WHERE connection_id = ${connectionId} AND revoked_at IS NULL`
          yield* sql`DELETE FROM oauth_codes WHERE connection_id = ${connectionId}`
          return Option.some(toView(row))
        })).pipe(
          store,
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new ConnectionNotFound({ connectionId })),
            onSome: Effect.succeed
          }))
        )
    })
  })
)
