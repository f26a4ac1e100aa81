import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Either, Layer, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { IdempotencyMemory } from "../../layers/idempotency/memory.js"
import { LedgerMemory } from "../../layers/ledger/memory.js"
import { RateLimitsRedis } from "../../layers/rate-limits/redis.js"
import { RateLimits, type RateSubject } from "../../src/services/rate-limits.js"
import { fakeScoringLayer } from "../harness/fake-scoring.js"
import { faultProxy } from "../harness/fault-proxy.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { freePort } from "../harness/process.js"
import { request, serverWith } from "../harness/server.js"

const redisUrl = process.env.TEST_REDIS_URL

/** Counts `n` requests of `subject` on a node; the outcomes in order (true: counted, false: 429). */
const countOn = (node: Layer.Layer<RateLimits>, subject: RateSubject, n: number) =>
  Effect.gen(function*() {
    const limits = yield* RateLimits
    const outcomes: Array<boolean> = []
    for (let i = 0; i < n; i++) outcomes.push(Either.isRight(yield* Effect.either(limits.count(subject))))
    return outcomes
  }).pipe(Effect.provide(node))

const account = (limit: number): RateSubject => ({ _tag: "Account", accountId: `acct_${randomUUID()}`, limit })

describe.runIf(redisUrl !== undefined)("the Redis rate-limit store (TEST_REDIS_URL)", () => {
  it.live("LIM-1: two nodes on one Redis share one count per Account", () =>
    Effect.gen(function*() {
      const nodeA = RateLimitsRedis(Redacted.make(redisUrl!))
      const nodeB = RateLimitsRedis(Redacted.make(redisUrl!))
      const subject = account(5)
      expect(yield* countOn(nodeA, subject, 3)).toEqual([true, true, true])
      expect(yield* countOn(nodeB, subject, 3)).toEqual([true, true, false])
      expect(yield* countOn(nodeA, subject, 1)).toEqual([false])
    }), 30_000)

  it.live(
    "a Redis outage mid-way: counts go on in the node's memory (never unlimited), then back to Redis when it answers",
    () =>
      Effect.gen(function*() {
        const target = new URL(redisUrl!)
        const proxy = yield* faultProxy({ host: target.hostname, port: Number(target.port || 6379) })
        const node = RateLimitsRedis(Redacted.make(`redis://127.0.0.1:${proxy.port}`))
        const subject = account(3)
        yield* Effect.gen(function*() {
          const limits = yield* RateLimits
          const remaining = () =>
            Effect.map(Effect.either(limits.count(subject)), (r) => (Either.isRight(r) ? r.right.remaining : -1))
          expect(yield* remaining()).toBe(2)
          yield* proxy.faults.cut
          // Redis is gone: the node counts on its own, from zero, and still refuses past the limit.
          expect([yield* remaining(), yield* remaining(), yield* remaining(), yield* remaining()]).toEqual([
            2,
            1,
            0,
            -1
          ])
          yield* proxy.faults.restore
          // Back on Redis (once the client has reconnected): the count Redis kept, one request in.
          let back = -2
          for (let attempt = 0; attempt < 40 && back !== 1 && back !== 0 && back !== -1; attempt++) {
            yield* Effect.sleep("250 millis")
            back = yield* remaining()
          }
          expect(back).toBe(1)
        }).pipe(Effect.provide(node))
      }).pipe(Effect.scoped),
    60_000
  )
})

// Redis unreachable from the start, on a port nothing listens on: the same rules, counted per node.
const deadRedis = Layer.unwrapEffect(
  Effect.map(Effect.promise(() => freePort()), (port) => RateLimitsRedis(Redacted.make(`redis://127.0.0.1:${port}`)))
)
const credentials = makeCredentialsMemory([{ accountId: "acct_outage", tier: "public", rateLimitPerMinute: null }])
const outageServer = serverWith(
  Layer.mergeAll(
    credentials.layer,
    LedgerMemory({ acct_outage: { balance: 100 } }),
    IdempotencyMemory,
    deadRedis,
    fakeScoringLayer({ "42 Elm St": { answer: { _tag: "Outcome", outcome } } })
  )
)

layer(outageServer, { timeout: "60 seconds", excludeTestServices: true })("with Redis unreachable", (it) => {
  it.effect("LIM-3 LIM-4: the gates stay closed (60 answers, then 429) and nothing is charged for the refusal", () =>
    Effect.gen(function*() {
      const statuses: Array<number> = []
      for (let i = 0; i < 61; i++) {
        statuses.push(
          (yield* request("/v1/predict", { key: credentials.keys[0]!.apiKey, body: { address: "42 Elm St" } })).status
        )
      }
      expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true)
      expect(statuses[60]).toBe(429)
      expect(yield* reconciles("acct_outage")).toBe(40)
    }))
})
