/**
 * On a real PostgreSQL server (TEST_DATABASE_URL; skipped without one) every statement of a Metered Call is
 * prepared once per connection, named by a digest of its text: the server parses and plans it the first time,
 * and binds and executes it after that. The client here has one connection, so that the session the
 * statements ran in is the one `pg_prepared_statements` shows. The calls behave as they do unprepared
 * (round-trips.test.ts).
 */
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { statementName } from "../../src/db/client.js"
import { predict } from "../../src/operations/predict.js"
import { SettlementLive } from "../../src/operations/settlement.js"
import { Ledger } from "../../src/services/ledger.js"
import { testDatabase, usingRealServer } from "../harness/database.js"
import { type ScriptEntry, sqlServicesWithFakeScoring } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { newAccount } from "../harness/server.js"
import { callerOf, counted } from "../harness/statements.js"

const script: Record<string, ScriptEntry> = { "42 Elm St": { answer: { _tag: "Outcome", outcome } } }
const oneConnection = testDatabase((client) => ({ ...client, connections: 1 }))
const services = SettlementLive.pipe(Layer.provideMerge(sqlServicesWithFakeScoring(script, {}, oneConnection)))

interface PreparedRow {
  readonly name: string
  readonly statement: string
  readonly prepare_time: Date
  readonly generic_plans: number
  readonly custom_plans: number
}

describe.runIf(usingRealServer())("statements prepared once per connection (PostgreSQL)", () => {
  layer(services)("a keyed predict, its replay and an unkeyed predict on prepared statements", (it) => {
    it.effect(
      "IDEM-3 SVC-2 SVC-3: each call answers and charges as unprepared; its statements are parsed once on the connection and reused by the next calls",
      () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const ledger = yield* Ledger
          const { accountId } = yield* newAccount({ credits: 10 })
          const caller = callerOf(accountId)
          const call = (key: string | undefined, trace: string) =>
            counted(
              predict({ caller, body: { address: "42 Elm St" }, idempotencyKeyHeader: key, traceId: trace.repeat(32) })
            )
          // Without parameters: not named, so it does not show among the statements it reads.
          const preparedNow = sql<PreparedRow>`SELECT name, statement, prepare_time, generic_plans, custom_plans
            FROM pg_prepared_statements ORDER BY name`

          const round = (n: number) =>
            Effect.gen(function*() {
              const keyed = yield* call(`prepared-${n}`, "a")
              expect(keyed.result.replayed).toBe(false)
              const replay = yield* call(`prepared-${n}`, "b")
              expect(replay.result.replayed).toBe(true)
              expect(replay.result.response.json).toBe(keyed.result.response.json)
              expect(replay.statements).toHaveLength(1)
              const unkeyed = yield* call(undefined, "c")
              expect(unkeyed.result.replayed).toBe(false)
              return [...keyed.statements, ...replay.statements, ...unkeyed.statements]
            })

          const first = yield* round(1)
          // Two predicts charged, the replay not.
          expect(yield* ledger.balance(accountId)).toBe(8)
          const afterFirst = yield* preparedNow
          const names = new Set(afterFirst.map((row) => row.name))
          // Every statement the calls sent is prepared under its text's name, as that text.
          for (const text of first) {
            expect(names, text).toContain(statementName(text))
            expect(afterFirst.find((row) => row.name === statementName(text))!.statement).toBe(text)
          }

          const second = yield* round(2)
          expect(new Set(second)).toEqual(new Set(first))
          expect(yield* ledger.balance(accountId)).toBe(6)
          // Not prepared again: each is the statement prepared in the first round, executed again (each
          // execution picks a plan, generic or custom).
          const afterSecond = yield* preparedNow
          const plans = (row: PreparedRow) => row.generic_plans + row.custom_plans
          for (const text of new Set(first)) {
            const name = statementName(text)
            const before = afterFirst.find((row) => row.name === name)!
            const after = afterSecond.find((row) => row.name === name)!
            expect(after.prepare_time, text).toEqual(before.prepare_time)
            const uses = first.filter((sent) => sent === text).length
            expect(plans(after) - plans(before), text).toBeGreaterThanOrEqual(uses)
          }
          expect(yield* reconciles(accountId)).toBe(6)
        })
    )
  })
})
