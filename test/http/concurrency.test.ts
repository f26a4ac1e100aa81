import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { TestDatabase } from "../harness/database.js"
import { fakeScoringLayer } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { newAccount, request, serverWith } from "../harness/server.js"

// The real Ledger, idempotency store and credentials on the test database (PostgreSQL in CI), with a
// scripted scoring step so every paid call can succeed.
const services = Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, RateLimitsMemory).pipe(
  Layer.provideMerge(TestDatabase),
  Layer.merge(fakeScoringLayer({ "42 Elm St, Riverton": { answer: { _tag: "Outcome", outcome }, delay: "50 millis" } }))
)

layer(serverWith(services), { timeout: "300 seconds", excludeTestServices: true })("concurrent Metered Calls", (it) => {
  it.effect(
    "SVC-4 BAT-7: 200 concurrent predicts on an Account holding 50 Credits: 50 answered, 150 × 402, balance 0",
    () =>
      Effect.gen(function*() {
        const { accountId, apiKey } = yield* newAccount({ credits: 50 })
        const responses = yield* Effect.all(
          Array.from(
            { length: 200 },
            () => request("/v1/predict", { key: apiKey, body: { address: "42 Elm St, Riverton" } })
          ),
          { concurrency: 200 }
        )
        const statuses = responses.map((r) => r.status)
        expect(statuses.filter((s) => s === 200)).toHaveLength(50)
        expect(statuses.filter((s) => s === 402)).toHaveLength(150)
        expect(yield* reconciles(accountId)).toBe(0)
      }),
    { timeout: 300_000 }
  )

  it.effect(
    "IDEM-7: the same key and body sent 20 times at once: one charge, every answer identical or a 409",
    () =>
      Effect.gen(function*() {
        const { accountId, apiKey } = yield* newAccount({ credits: 10 })
        const responses = yield* Effect.all(
          Array.from({ length: 20 }, () =>
            request("/v1/predict", {
              key: apiKey,
              body: { address: "42 Elm St, Riverton" },
              headers: { "idempotency-key": "burst" }
            })),
          { concurrency: 20 }
        )
        const answered = responses.filter((r) => r.status === 200)
        expect(answered.length).toBeGreaterThanOrEqual(1)
        expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true)
        expect(new Set(answered.map((r) => r.text)).size).toBe(1)
        expect(yield* reconciles(accountId)).toBe(9)
      }),
    { timeout: 300_000 }
  )
})
