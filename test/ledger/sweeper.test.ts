import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, TestClock } from "effect"
import { IdempotencyMemory } from "../../layers/idempotency/memory.js"
import { LedgerMemory } from "../../layers/ledger/memory.js"
import type { IdempotencyKey } from "../../schema/idempotency-key.js"
import { metered } from "../../src/operations/metered.js"
import { sweepAbandonedClaims } from "../../src/operations/sweeper.js"
import { Ledger } from "../../src/services/ledger.js"

const services = Layer.mergeAll(LedgerMemory({ acct_crash: { balance: 5 } }), IdempotencyMemory)

const request = {
  accountId: "acct_crash",
  operation: "predict" as const,
  units: 1,
  traceId: "t",
  idempotencyKey: "crash-key" as IdempotencyKey,
  fingerprint: "POST /v1/predict {}"
}

describe("the sweeper", () => {
  it.effect("SVC-4 ERR-5: a request that dies after its Spend is refunded once its claim's deadline has passed", () =>
    Effect.gen(function*() {
      const ledger = yield* Ledger
      const died = yield* Effect.exit(metered(request, () => Effect.die(new Error("the process died here"))))
      expect(Exit.isFailure(died)).toBe(true)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
      // Before the deadline the request may still be running: nothing is touched.
      expect(yield* sweepAbandonedClaims).toEqual({ claims: 0, refunded: 0 })
      yield* TestClock.adjust("61 seconds")
      expect(yield* sweepAbandonedClaims).toEqual({ claims: 1, refunded: 1 })
      expect(yield* ledger.balance("acct_crash")).toBe(5)
      expect(yield* sweepAbandonedClaims).toEqual({ claims: 0, refunded: 0 })
      // The key is free again: a retry runs and is charged.
      const retried = yield* metered(request, () => Effect.succeed({ status: 200, body: { ok: true } }))
      expect(retried.replayed).toBe(false)
      expect(yield* ledger.balance("acct_crash")).toBe(4)
    }).pipe(Effect.provide(services)))
})
