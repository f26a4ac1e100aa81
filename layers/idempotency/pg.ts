/**
 * The idempotency store on PostgreSQL: one row per (Account, key), claimed under a row lock so that two
 * identical requests racing for one key cannot both run. Shared by every node on the same database.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { type Claim, type ClaimRequest, decideClaim, IdempotencyStore, type KeyRecord } from "../../src/services/idempotency.js"

interface Row {
  readonly claim_id: string
  readonly fingerprint: string
  readonly status: KeyRecord["status"]
  readonly completed_at: number | null
  readonly deadline: number
  readonly response_status: number | null
  /** The stored body as the JSON text first sent. */
  readonly response_body: string | null
}

const toRecord = (row: Row): KeyRecord => ({
  claimId: row.claim_id,
  fingerprint: row.fingerprint,
  status: row.status,
  completedAt: row.completed_at,
  deadline: row.deadline,
  response: row.response_status === null ? null : { status: row.response_status, body: JSON.parse(row.response_body ?? "null") }
})

export const IdempotencyPg = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    // Rows are never deleted: once a key's first claim has inserted its row, every later claim finds it.
    const keyRow = (request: ClaimRequest, lock: boolean) =>
      sql<Row>`
        SELECT claim_id, fingerprint, status, completed_at, deadline, response_status, response_body
        FROM idempotency_keys WHERE account_id = ${request.accountId} AND key = ${request.key}
        ${sql.literal(lock ? "FOR UPDATE" : "")}`.pipe(
        Effect.flatMap(([row]) => row ? Effect.succeed(toRecord(row)) : Effect.dieMessage(`idempotency key row missing for ${request.key}`))
      )

    // A key never seen before (the common case) is claimed in one statement; a key with a row is decided
    // under that row's lock.
    const claim = (request: ClaimRequest) =>
      Effect.gen(function*() {
        const claimId = randomUUID()
        const inserted = yield* sql<{ claim_id: string }>`
          INSERT INTO idempotency_keys (account_id, key, claim_id, fingerprint, status, deadline)
          VALUES (${request.accountId}, ${request.key}, ${claimId}, ${request.fingerprint}, 'in_flight', ${request.deadline})
          ON CONFLICT (account_id, key) DO NOTHING
          RETURNING claim_id`
        if (inserted.length === 1) return { _tag: "Claimed", claimId } as Claim
        // Replays, conflicts and waits for a request in flight only read the row: no lock, so a burst of
        // retries of one key never queues on it. A take-over is decided again under the lock.
        const decision = decideClaim(yield* keyRow(request, false), request)
        if (typeof decision !== "string") return decision
        return yield* takeOver(request)
      }).pipe(Effect.orDie)

    const takeOver = (request: ClaimRequest) =>
      sql.withTransaction(Effect.gen(function*() {
        const decision = decideClaim(yield* keyRow(request, true), request)
        if (typeof decision !== "string") return decision as Claim
        const claimId = randomUUID()
        yield* sql`
          UPDATE idempotency_keys
          SET claim_id = ${claimId}, fingerprint = ${request.fingerprint}, status = 'in_flight', completed_at = NULL,
              deadline = ${request.deadline}, response_status = NULL, response_body = NULL, spend_id = NULL
          WHERE account_id = ${request.accountId} AND key = ${request.key}`
        return { _tag: "Claimed", claimId } as Claim
      }))

    return IdempotencyStore.of({
      claim,
      complete: (claimId, response, spendId) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          sql`
            UPDATE idempotency_keys
            SET status = 'completed', completed_at = ${now}, response_status = ${response.status},
                response_body = ${JSON.stringify(response.body)}, spend_id = ${spendId}
            WHERE claim_id = ${claimId}`).pipe(Effect.asVoid, Effect.orDie),
      release: (claimId) =>
        sql`UPDATE idempotency_keys SET status = 'released' WHERE claim_id = ${claimId} AND status = 'in_flight'`.pipe(Effect.asVoid, Effect.orDie),
      abandoned: (now) =>
        sql<{ claim_id: string; account_id: string; key: string }>`
          SELECT claim_id, account_id, key FROM idempotency_keys
          WHERE status = 'in_flight' AND deadline <= ${now}`.pipe(
          Effect.map((rows) => rows.map((row) => ({ claimId: row.claim_id, accountId: row.account_id, key: row.key }))),
          Effect.orDie
        )
    })
  })
)
