/**
 * Stored answers (a keyed call's body, kept for its replays) are compressed with lz4 where the server has it,
 * the cheaper method for PostgreSQL to write and read (migration 0022, docs/benchmarks.md); PGlite has no lz4
 * and keeps the default. Either way a replay is the answer byte for byte.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { predict } from "../../src/operations/predict.js"
import { SettlementLive } from "../../src/operations/settlement.js"
import { usingRealServer } from "../harness/database.js"
import { type ScriptEntry, sqlServicesWithFakeScoring } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { newAccount } from "../harness/server.js"
import { callerOf } from "../harness/statements.js"

const script: Record<string, ScriptEntry> = { "42 Elm St": { answer: { _tag: "Outcome", outcome } } }
const services = SettlementLive.pipe(Layer.provideMerge(sqlServicesWithFakeScoring(script)))

layer(services)("a stored answer", (it) => {
  it.effect(
    "IDEM-3 IDEM-4: is kept lz4-compressed on a server that has lz4 (the default method on PGlite) and replayed byte for byte",
    () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const { accountId } = yield* newAccount({ credits: 5 })
        const call = () =>
          predict({
            caller: callerOf(accountId),
            body: { address: "42 Elm St" },
            idempotencyKeyHeader: "stored-lz4",
            traceId: "a".repeat(32)
          })
        const first = yield* call()
        const [column] = yield* sql<{ readonly method: string }>`
          SELECT attcompression AS method FROM pg_attribute
          WHERE attrelid = 'idempotency_keys'::regclass AND attname = 'response_body'`
        expect(column!.method).toBe(usingRealServer() ? "l" : "")
        // Long enough to be compressed at all (over PostgreSQL's 2 KB threshold), and compressed so.
        const [stored] = yield* sql<{ readonly size: number; readonly method: string | null }>`
          SELECT length(response_body) AS size, pg_column_compression(response_body) AS method
          FROM idempotency_keys WHERE account_id = ${accountId} AND key = 'stored-lz4'`
        expect(stored!.size).toBe(first.response.json!.length)
        expect(stored!.size).toBeGreaterThan(2_048)
        expect(stored!.method).toBe(usingRealServer() ? "lz4" : "pglz")
        const replay = yield* call()
        expect(replay.replayed).toBe(true)
        expect(replay.response.json).toBe(first.response.json)
      })
  )
})
