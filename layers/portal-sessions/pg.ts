/** Portal sessions on PostgreSQL (or the embedded PGlite). */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { DatabaseHealth } from "../../src/db/health.js"
import { PortalSessions } from "../../src/services/portal-sessions.js"

export const PortalSessionsPg = Layer.effect(
  PortalSessions,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** A step of the store under the storage deadlines, its database failures `StorageUnavailable`. */
    const store = (yield* DatabaseHealth).guard("PortalSessions")
    return PortalSessions.of({
      start: (tokenSha256, session, now) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM portal_sessions WHERE expires_at <= ${now}`
          yield* sql`
            INSERT INTO portal_sessions (token_sha256, account_id, expires_at)
            VALUES (${tokenSha256}, ${session.accountId}, ${session.expiresAt})`
        })).pipe(store),
      find: (tokenSha256, now) =>
        sql<{ account_id: string; expires_at: Date }>`
          SELECT account_id, expires_at FROM portal_sessions
          WHERE token_sha256 = ${tokenSha256} AND expires_at > ${now}`.pipe(
          store,
          Effect.map((rows) =>
            Option.map(
              Option.fromNullable(rows[0]),
              (row) => ({ accountId: row.account_id, expiresAt: row.expires_at })
            )
          )
        ),
      end: (tokenSha256) =>
        sql`DELETE FROM portal_sessions WHERE token_sha256 = ${tokenSha256}`.pipe(store, Effect.asVoid)
    })
  })
)
