/**
 * What a Metered Call costs the database: the statements a predict sends, counted on the real SQL services
 * (each statement is one round trip: pg sends its parse, bind and execute together). The scoring is scripted,
 * so only the metering pipeline talks to the database.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { OutsideCoverage } from "../../schema/problems.js"
import { batch } from "../../src/operations/batch.js"
import { predict } from "../../src/operations/predict.js"
import { SettlementLive } from "../../src/operations/settlement.js"
import { Accounts } from "../../src/services/accounts.js"
import { Ledger } from "../../src/services/ledger.js"
import { type ScriptEntry, sqlServicesWithFakeScoring } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { newAccount, TestConfig } from "../harness/server.js"
import { callerOf, counted } from "../harness/statements.js"

const script: Record<string, ScriptEntry> = {
  "42 Elm St": { answer: { _tag: "Outcome", outcome } },
  "9 Nowhere Rd": { answer: { _tag: "Failure", error: new OutsideCoverage({ detail: "outside" }) } }
}
const services = SettlementLive.pipe(Layer.provideMerge(sqlServicesWithFakeScoring(script)), Layer.merge(TestConfig))

layer(services)("the round trips of a predict", (it) => {
  it.effect(
    "IDEM-3 IDEM-4 SVC-2: a keyed predict takes two round trips (claim with its Spend, store with the settle), a replay one, an unkeyed predict two; each charged once",
    () =>
      Effect.gen(function*() {
        const { accountId } = yield* newAccount({ credits: 5 })
        const caller = callerOf(accountId)
        const call = (key: string | undefined) =>
          counted(
            predict({ caller, body: { address: "42 Elm St" }, idempotencyKeyHeader: key, traceId: "a".repeat(32) })
          )

        const keyed = yield* call("round-trips-1")
        expect(keyed.result.replayed).toBe(false)
        expect(keyed.statements).toHaveLength(2)

        const replay = yield* call("round-trips-1")
        expect(replay.result.replayed).toBe(true)
        expect(replay.statements).toHaveLength(1)
        // The stored answer comes back as the JSON text stored, to be sent as it is.
        expect(replay.result.response.json).toBe(keyed.result.response.json)
        expect(replay.result.response.body).toEqual(keyed.result.response.body)

        const unkeyed = yield* call(undefined)
        expect(unkeyed.statements).toHaveLength(2)

        const ledger = yield* Ledger
        expect(yield* ledger.balance(accountId)).toBe(3)
        expect(yield* reconciles(accountId)).toBe(3)
      })
  )

  it.effect(
    "SVC-3 IDEM-5: a keyed predict the Balance cannot cover is refused with nothing recorded (its key freed), and the same request runs once Credits are granted",
    () =>
      Effect.gen(function*() {
        const { accountId } = yield* newAccount({ credits: 0 })
        const caller = callerOf(accountId)
        const call = predict({
          caller,
          body: { address: "42 Elm St" },
          idempotencyKeyHeader: "refused-then-paid",
          traceId: "b".repeat(32)
        })
        expect(yield* Effect.flip(call)).toMatchObject({ _tag: "InsufficientCredits", balance: 0, required: 1 })
        const ledger = yield* Ledger
        expect(yield* ledger.entries(accountId)).toEqual([])
        yield* Effect.flatMap(Accounts, (accounts) => accounts.grantCredits(accountId, 1))
        expect((yield* call).replayed).toBe(false)
        expect(yield* ledger.balance(accountId)).toBe(0)
        expect(yield* reconciles(accountId)).toBe(0)
      })
  )

  it.effect(
    "IDEM-5 BAT-8: a keyed batch whose every entry was refunded is settled with nothing stored and frees its key, on the database's joint steps too",
    () =>
      Effect.gen(function*() {
        const { accountId } = yield* newAccount({ credits: 5 })
        const caller = callerOf(accountId)
        const call = (addresses: ReadonlyArray<string>) =>
          batch({
            caller,
            body: { properties: addresses.map((address) => ({ address })) },
            idempotencyKeyHeader: "batch-all-refunded",
            traceId: "b".repeat(32)
          })
        const refused = yield* call(["9 Nowhere Rd", "9 Nowhere Rd"])
        expect(refused.replayed).toBe(false)
        const ledger = yield* Ledger
        expect(yield* ledger.balance(accountId)).toBe(5)
        const taken = yield* call(["42 Elm St", "9 Nowhere Rd"])
        expect(taken.replayed).toBe(false)
        expect(yield* ledger.balance(accountId)).toBe(4)
        expect((yield* call(["42 Elm St", "9 Nowhere Rd"])).replayed).toBe(true)
        expect(yield* ledger.balance(accountId)).toBe(4)
        expect(yield* reconciles(accountId)).toBe(4)
      })
  )
})
