/**
 * Answered calls on PostgreSQL: the response stored on the key's row and the Spend's open mark deleted in
 * one statement. Retried as a whole until it succeeds (Settlement), which repeats nothing harmful: the
 * row of a claim is only ever completed with the same answer, and a settled Spend has no open mark.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect, Layer } from "effect"
import { DatabaseHealth } from "../../src/db/health.js"
import { AnsweredCalls } from "../../src/services/answers.js"

export const AnsweredCallsPg = Layer.effect(
  AnsweredCalls,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { guard } = yield* DatabaseHealth
    return AnsweredCalls.of({
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
            guard("AnsweredCalls.storeAndSettle")
          )
    })
  })
)
