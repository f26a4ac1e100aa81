/**
 * The idempotency store on PostgreSQL: one row per (Account, key), claimed under a row lock so that two
 * identical requests racing for one key cannot both run. Shared by every node on the same database.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { DatabaseHealth } from "../../src/db/health.js"
import {
  type Claim,
  type ClaimRequest,
  decideClaim,
  fromStoredJson,
  IdempotencyStore,
  type KeyRecord
} from "../../src/services/idempotency.js"
import { StorageUnavailable } from "../../src/services/storage.js"
import { abandonedAttempt } from "../ledger/pg.js"

/** A key's row as the store reads it. */
export interface KeyRow {
  readonly claim_id: string
  readonly fingerprint: string
  readonly status: KeyRecord["status"]
  readonly completed_at: number | null
  readonly deadline: number
  readonly response_status: number | null
  /** The stored body as the JSON text first sent. */
  readonly response_body: string | null
}

/** Claims started again after a purge took the key's row away under them, before giving up. */
const CLAIM_ATTEMPTS = 3

export const toRecord = (row: KeyRow): KeyRecord => ({
  claimId: row.claim_id,
  fingerprint: row.fingerprint,
  status: row.status,
  completedAt: row.completed_at,
  deadline: row.deadline,
  // The stored text is kept as it is: a REST replay sends it without parsing it (MCP parses it on use).
  response: row.response_status === null ? null : fromStoredJson(row.response_status, row.response_body ?? "null")
})

/**
 * The INSERT that claims an unseen key under the caller's claim id, unless its caller gave up on it
 * (`Ledger.abandon`: the statement arrived late); on a key with a row, nothing. Shared with the joint steps.
 */
export const insertClaim = (sql: SqlClient.SqlClient, request: ClaimRequest) =>
  sql`
    INSERT INTO idempotency_keys (account_id, key, claim_id, fingerprint, status, deadline)
    SELECT ${request.accountId}, ${request.key}, ${request.claimId}, ${request.fingerprint}, 'in_flight', ${request.deadline}
    WHERE NOT ${abandonedAttempt(sql, request.claimId)}
    ON CONFLICT (account_id, key) DO NOTHING`

export const IdempotencyPg = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { guard } = yield* DatabaseHealth

    // The key's row, or undefined when the sweeper purged it between two statements (its window had ended).
    const keyRow = (request: ClaimRequest, lock: boolean) =>
      sql<KeyRow>`
        SELECT claim_id, fingerprint, status, completed_at, deadline, response_status, response_body
        FROM idempotency_keys WHERE account_id = ${request.accountId} AND key = ${request.key}
        ${sql.literal(lock ? "FOR UPDATE" : "")}`.pipe(Effect.map(([row]) => (row ? toRecord(row) : undefined)))

    // One statement, one round trip, whatever the key's state: the INSERT claims a key never seen before (the
    // common case), and the same statement reads the key's row as it was when it began, so a replay, a
    // conflict or a request in flight is decided without a second read. A key with a row is taken over
    // under that row's lock. A row the statement could not see (inserted by a racing claim after it began)
    // or that was purged under a claim (its window ended) is read, or claimed, again.
    // The claim takes the caller's id (`ClaimRequest.claimId`), and nothing when its caller gave up on it.
    const claim = (request: ClaimRequest) =>
      Effect.gen(function*() {
        const claimId = request.claimId
        for (let attempt = 1;; attempt++) {
          const [result] = yield* sql<KeyRow & { readonly inserted: boolean }>`
            WITH inserted AS (
              ${insertClaim(sql, request)}
              RETURNING 1
            )
            SELECT EXISTS (SELECT 1 FROM inserted) AS inserted, k.claim_id, k.fingerprint, k.status, k.completed_at,
                   k.deadline, k.response_status, k.response_body
            FROM (SELECT 1) AS one
            LEFT JOIN idempotency_keys k ON k.account_id = ${request.accountId} AND k.key = ${request.key}`
          if (result!.inserted) return { _tag: "Claimed", claimId } as Claim
          // Replays, conflicts and waits for a request in flight only read the row: no lock, so a burst of
          // retries of one key never queues on it. A take-over is decided again under the lock.
          const existing = result!.claim_id !== null ? toRecord(result!) : yield* keyRow(request, false)
          if (existing !== undefined) {
            const decision = decideClaim(existing, request)
            if (typeof decision !== "string") return decision
            const taken = yield* takeOver(request)
            if (taken !== undefined) return taken
          }
          // The row was purged between two statements (its window had ended): the next INSERT takes the key.
          if (attempt === CLAIM_ATTEMPTS) {
            return yield* new StorageUnavailable({
              step: "IdempotencyStore.claim",
              cause: new Error(`the key's row was purged under ${CLAIM_ATTEMPTS} claims in a row`)
            })
          }
        }
      }).pipe(guard("IdempotencyStore.claim"))

    const takeOver = (request: ClaimRequest) =>
      sql.withTransaction(Effect.gen(function*() {
        const existing = yield* keyRow(request, true)
        if (existing === undefined) return undefined
        const decision = decideClaim(existing, request)
        if (typeof decision !== "string") return decision as Claim
        const claimId = request.claimId
        const taken = yield* sql`
          UPDATE idempotency_keys
          SET claim_id = ${claimId}, fingerprint = ${request.fingerprint}, status = 'in_flight', completed_at = NULL,
              deadline = ${request.deadline}, response_status = NULL, response_body = NULL, spend_id = NULL
          WHERE account_id = ${request.accountId} AND key = ${request.key} AND NOT ${abandonedAttempt(sql, claimId)}
          RETURNING 1`
        // None taken: the caller gave up on this claim before it arrived (`Ledger.abandon`); nobody waits.
        if (taken.length === 0) {
          return yield* new StorageUnavailable({ step: "IdempotencyStore.claim", cause: new Error("abandoned claim") })
        }
        return { _tag: "Claimed", claimId } as Claim
      }))

    return IdempotencyStore.of({
      claim,
      complete: (claimId, response, spendId) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          sql`
            UPDATE idempotency_keys
            SET status = 'completed', completed_at = ${now}, response_status = ${response.status},
                response_body = ${response.json ?? JSON.stringify(response.body)}, spend_id = ${spendId}
            WHERE claim_id = ${claimId}`).pipe(Effect.asVoid, guard("IdempotencyStore.complete")),
      release: (claimId) =>
        sql`UPDATE idempotency_keys SET status = 'released' WHERE claim_id = ${claimId} AND status = 'in_flight'`.pipe(
          Effect.asVoid,
          guard("IdempotencyStore.release")
        ),
      abandoned: (now, gaveUp) =>
        sql<{ claim_id: string; account_id: string; key: string }>`
          SELECT claim_id, account_id, key FROM idempotency_keys
          WHERE status = 'in_flight' AND (deadline <= ${now} OR claim_id = ANY (${gaveUp}::text[]))`.pipe(
          Effect.map((rows) => rows.map((row) => ({ claimId: row.claim_id, accountId: row.account_id, key: row.key }))),
          guard("IdempotencyStore.abandoned")
        ),
      // The expression index of migration 0010 finds the ended rows (a released row has no completed_at,
      // so its end is its deadline); they are deleted by their row address, so the table is never scanned.
      // Rows a take-over holds are skipped: it decides them.
      purge: (before, limit) =>
        sql`
          DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
            SELECT ctid FROM idempotency_keys
            WHERE status <> 'in_flight' AND COALESCE(completed_at, deadline) <= ${before}
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED
          )) RETURNING 1`.pipe(Effect.map((rows) => rows.length), guard("IdempotencyStore.purge"))
    })
  })
)
