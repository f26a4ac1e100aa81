/** Portal sessions on PostgreSQL (or the embedded PGlite). */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { PortalSessions } from "../../src/services/portal-sessions.js"

export const PortalSessionsPg = Layer.effect(
  PortalSessions,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return PortalSessions.of({
      start: (tokenSha256, session, now) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`DELETE FROM portal_sessions WHERE expires_at <= ${now}`
          yield* sql`
            INSERT INTO portal_sessions (token_sha256, account_id, expires_at)
            VALUES (${tokenSha256}, ${session.accountId}, ${session.expiresAt})`
        })).pipe(Effect.orDie),
      find: (tokenSha256, now) =>
        sql<{ account_id: string; expires_at: Date }>`
          SELECT account_id, expires_at FROM portal_sessions
          WHERE token_sha256 = ${tokenSha256} AND expires_at > ${now}`.pipe(
          Effect.orDie,
          Effect.map((rows) =>
            Option.map(
              Option.fromNullable(rows[0]),
              (row) => ({ accountId: row.account_id, expiresAt: row.expires_at })
            )
          )
        ),
      end: (tokenSha256) =>
        sql`DELETE FROM portal_sessions WHERE token_sha256 = ${tokenSha256}`.pipe(Effect.orDie, Effect.asVoid)
    })
  })
)
