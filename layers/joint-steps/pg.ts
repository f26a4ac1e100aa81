/**
 * The joint steps on PostgreSQL, where the idempotency store and the Ledger share the database:
 *
 * - claim and Spend: the key's INSERT, the Ledger's Spend (`spendSteps`, debited only if the INSERT took
 *   the key) and a read of the key's row as it was when the statement began, in one statement;
 * - store and settle: the answer stored on the key's row and the Spend's open mark deleted, in one statement.
 *   Retried as a whole until it succeeds (Settlement), which repeats nothing harmful: a claim's row is only
 *   ever completed with the same answer, and a settled Spend has no open mark.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { DatabaseHealth } from "../../src/db/health.js"
import { decideClaim } from "../../src/services/idempotency.js"
import { type JointClaim, JointSteps } from "../../src/services/joint-steps.js"
import { insertClaim, type KeyRow, toRecord } from "../idempotency/pg.js"
import { spendSteps } from "../ledger/pg.js"

export const JointStepsPg = Layer.effect(
  JointSteps,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { guard } = yield* DatabaseHealth
    return JointSteps.of({
      claimAndSpend: (claim, spend) =>
        Effect.gen(function*() {
          const claimId = claim.claimId
          const [row] = yield* sql<
            KeyRow & {
              readonly inserted: boolean
              readonly spend_id: number | null
              readonly amount: number | null
              readonly balance: number | null
            }
          >`
            WITH inserted AS (
              ${insertClaim(sql, claim)}
              RETURNING 1
            ), ${spendSteps(sql, spend, sql`EXISTS (SELECT 1 FROM inserted)`)}
            SELECT EXISTS (SELECT 1 FROM inserted) AS inserted,
                   (SELECT id FROM entry) AS spend_id, (SELECT amount FROM entry) AS amount,
                   (SELECT balance FROM debited) AS balance,
                   k.claim_id, k.fingerprint, k.status, k.completed_at, k.deadline, k.response_status, k.response_body
            FROM (SELECT 1) AS one
            LEFT JOIN idempotency_keys k ON k.account_id = ${claim.accountId} AND k.key = ${claim.key}`
          if (row!.inserted) {
            return row!.spend_id === null
              ? { _tag: "Claimed", claimId }
              : {
                _tag: "Spent",
                claimId,
                spend: {
                  spendId: row!.spend_id,
                  accountId: spend.accountId,
                  amount: row!.amount!,
                  balanceAfter: row!.balance!,
                  attemptId: spend.attemptId
                }
              }
          }
          // The key has a row: a replay, a conflict or a request in flight is decided on it; a take-over (or a
          // row inserted by a racing claim after the statement began) is left to the store's own claim.
          if (row!.claim_id === null) return { _tag: "Undecided" }
          const decision = decideClaim(toRecord(row!), claim)
          return typeof decision === "string" ? { _tag: "Undecided" } : { _tag: "Decided", claim: decision }
        }).pipe(
          Effect.map((joint) => joint as JointClaim),
          guard("JointSteps.claimAndSpend")
        ),
      storeAndSettle: (spendId, claimId, response) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          sql`
            WITH stored AS (
              UPDATE idempotency_keys
              SET status = 'completed', completed_at = ${now}, response_status = ${response.status},
                  response_body = ${response.json ?? JSON.stringify(response.body)}, spend_id = ${spendId}
              WHERE claim_id = ${claimId}
            )
            DELETE FROM open_spends WHERE spend_id = ${spendId}`).pipe(
            Effect.asVoid,
            guard("JointSteps.storeAndSettle")
          )
    })
  })
)
