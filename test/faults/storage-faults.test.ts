/**
 * The fault suite: the real HTTP server with the real Ledger, idempotency store and credentials, its
 * database behind a proxy the test cuts or stalls, before and during keyed and unkeyed predict, batch and
 * history calls. Whatever happens, a caller gets the interface's answer in time (503 within 6 s, never a
 * 500, never a hang), and afterwards the books are exact: every balance equals its entries, no Spend is left
 * open, and every answered property is charged once.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer, type Vitest } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, FiberId, Layer } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { JointStepsPg } from "../../layers/joint-steps/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import type { HistoryAnswer } from "../../schema/history.js"
import { OutsideCoverage } from "../../schema/problems.js"
import type { DatabaseHealth } from "../../src/db/health.js"
import { ClaimDeadline } from "../../src/operations/metered.js"
import { sweepAbandoned } from "../../src/operations/sweeper.js"
import { Ledger } from "../../src/services/ledger.js"
import { clockAhead, clockAt } from "../harness/clock.js"
import { FaultyTestDatabase } from "../harness/database.js"
import { fakeScoringLayer, type ScriptEntry } from "../harness/fake-scoring.js"
import { DatabaseFaultsTag } from "../harness/fault-proxy.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { newAccount, request, serverWith, TEST_BASE_URL, type TestResponse } from "../harness/server.js"

const story: HistoryAnswer = {
  property_id: "demo-000042",
  address: "42 ELM ST, RIVERTON, ZZ 99103",
  chain_of_title: [],
  flips: [],
  listing: { status: "unknown" },
  permits: []
}
const script: Record<string, ScriptEntry> = {
  "good": { answer: { _tag: "Outcome", outcome } },
  // Scored once the test has cut or stalled the database and opens the gate.
  "slow": { answer: { _tag: "Outcome", outcome }, gate: Effect.suspend(() => Deferred.await(gate)) },
  "outside": { answer: { _tag: "Failure", error: new OutsideCoverage({ detail: "outside" }) } }
}

/** The gate "slow" scoring waits at; a test makes a new one, and opens it once the fault is in place. */
let gate = Deferred.unsafeMake<void>(FiberId.none)
const newGate = Effect.sync(() => {
  gate = Deferred.unsafeMake<void>(FiberId.none)
})
const openGate = Effect.suspend(() => Deferred.succeed(gate, undefined))

const servicesWith = <A>(steps: Layer.Layer<A, never, SqlClient.SqlClient | DatabaseHealth>) =>
  Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, RateLimitsMemory, steps).pipe(
    Layer.provideMerge(FaultyTestDatabase),
    Layer.merge(fakeScoringLayer(script, { "42 Elm St": story })),
    Layer.merge(Layer.succeed(ClaimDeadline, Duration.seconds(20)))
  )
/** The idempotency store and the Ledger one step at a time. */
const services = servicesWith(Layer.empty)
/** A keyed call's claim and Spend in one statement, as a server on PostgreSQL takes them. */
const jointServices = servicesWith(JointStepsPg)

/** How long any call may take to answer while the database is cut or stalled. */
const ANSWER_WITHIN_MILLIS = 6_000

const timed = <E, R>(effect: Effect.Effect<TestResponse, E, R>) =>
  Effect.map(Effect.timed(effect), ([took, response]) => ({ response, millis: Duration.toMillis(took) }))

const calls = (apiKey: string, label: string) => ({
  keyedPredict: request("/v1/predict", {
    key: apiKey,
    body: { address: "good" },
    headers: { "idempotency-key": `p-${label}` }
  }),
  unkeyedPredict: request("/v1/predict", { key: apiKey, body: { address: "good" } }),
  keyedBatch: request("/v1/predict/batch", {
    key: apiKey,
    body: { properties: [{ address: "good" }, { address: "outside" }] },
    headers: { "idempotency-key": `b-${label}` }
  }),
  unkeyedBatch: request("/v1/predict/batch", { key: apiKey, body: { properties: [{ address: "good" }] } }),
  keyedHistory: request("/v1/history", {
    key: apiKey,
    body: { address: "42 Elm St" },
    headers: { "idempotency-key": `h-${label}` }
  }),
  unkeyedHistory: request("/v1/history", { key: apiKey, body: { address: "42 Elm St" } })
})

/** Net Credits an account was charged: spends minus refunds. */
const netCharged = (accountId: string) =>
  Effect.map(
    Effect.flatMap(Ledger, (ledger) => ledger.entries(accountId)),
    (entries) =>
      entries.reduce((sum, e) => sum + (e.kind === "spend" ? e.amount : e.kind === "refund" ? -e.amount : 0), 0)
  )

/** The sweeper's round as it will run once every deadline of this test has passed. */
const sweepLater = sweepAbandoned.pipe(Effect.asVoid, Effect.withClock(clockAhead(Duration.minutes(10))))
/** A sweeper's round as it runs at `at`: before any deadline after it. */
const sweepAt = (at: number) => sweepAbandoned.pipe(Effect.asVoid, Effect.withClock(clockAt(at)))

const openSpends = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM open_spends`
)

/** Answered properties in a response: a scored predict or history, or the scored entries of a batch. */
const answered = (response: TestResponse) =>
  response.status !== 200
    ? 0
    : Array.isArray(response.body?.results)
    ? response.body.results.filter((entry: { status?: number }) => entry.status === undefined).length
    : 1

const serverOfSteps = serverWith(services)

/** Every metered call during an outage, then the books and the same keys once the database is back. */
const outageTest = (
  it: Vitest.MethodsNonLive<Layer.Layer.Success<typeof serverOfSteps>, true>,
  fault: "cut" | "stall"
) =>
  it.effect(
    `ERR-5 SVC-4 VAL-2: with the database ${
      fault === "cut" ? "cut" : "stalled"
    }, every metered call answers 503 within 6 s and nothing is charged; validate still answers; what the database took late is undone at the sweeper's next round`,
    () =>
      Effect.gen(function*() {
        const { accountId, apiKey } = yield* newAccount({ credits: 20 })
        // The node's credential snapshot knows the key once it has been used.
        expect((yield* request("/v1/validate", { key: apiKey, body: { address: "good" } })).status).toBe(200)
        const faults = yield* DatabaseFaultsTag
        yield* faults[fault]
        const during = yield* Effect.all(
          Object.entries(calls(apiKey, fault)).map(([name, call]) =>
            Effect.map(timed(call), (result) => ({ name, ...result }))
          ),
          { concurrency: "unbounded" }
        )
        const validated = yield* request("/v1/validate", { key: apiKey, body: { address: "good" } })
        // The calls' claims and Spends have deadlines 20 s from their start: a round as of now is before them.
        const restored = Date.now()
        yield* faults.restore
        for (const { millis, name, response } of during) {
          expect({ name, status: response.status }).toEqual({ name, status: 503 })
          const slug = name.startsWith("keyed") ? "call-not-started" : "ledger-unreachable"
          expect({ name, type: response.body.type }).toEqual({ name, type: `${TEST_BASE_URL}/docs/errors/${slug}` })
          expect(response.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
          expect({ name, retryAfter: response.headers.get("retry-after") }).toEqual({ name, retryAfter: "5" })
          expect({ name, within: millis <= ANSWER_WITHIN_MILLIS }).toEqual({ name, within: true })
        }
        expect(validated.status).toBe(200)
        // A claim or Spend the stalled database received may commit after the restore, after its call gave
        // up on it: the sweeper's next round (not its deadline) refunds and frees it, or it arrives after
        // that round and records nothing.
        yield* waitUntil(
          Effect.zipRight(sweepAt(restored), Effect.map(reconciles(accountId), (balance) => balance === 20))
        )
        // After the outage the same keys run and are charged as fresh requests, long before any deadline.
        const again = calls(apiKey, fault)
        expect((yield* again.keyedPredict).status).toBe(200)
        expect((yield* again.keyedBatch).status).toBe(200)
        expect((yield* again.keyedHistory).status).toBe(200)
        expect(yield* reconciles(accountId)).toBe(17)
      })
  )

layer(serverOfSteps, { timeout: "300 seconds", excludeTestServices: true })("storage faults", (it) => {
  for (const fault of ["cut", "stall"] as const) {
    outageTest(it, fault)

    it.effect(
      `BAT-9 BAT-10: the database ${
        fault === "cut" ? "cut" : "stalled"
      } mid-batch, so a covered entry cannot be refunded: 503 spend-indeterminate, and every Credit returned`,
      () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 10 })
          const faults = yield* DatabaseFaultsTag
          yield* newGate
          const fiber = yield* Effect.fork(
            timed(request("/v1/predict/batch", {
              key: apiKey,
              body: { properties: [{ address: "slow" }, { address: "outside" }, { address: "good" }] }
            }))
          )
          // The Spend is recorded before the first entry is scored; the slow entry waits for the fault.
          yield* waitForCharge(accountId, 3)
          yield* faults[fault]
          const faulted = Date.now()
          yield* openGate
          const { response } = yield* Fiber.join(fiber)
          const millis = Date.now() - faulted
          yield* faults.restore
          expect(response.status).toBe(503)
          expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/spend-indeterminate`)
          expect(response.headers.get("retry-after")).toBe("5")
          expect(response.body).not.toHaveProperty("results")
          expect(millis).toBeLessThanOrEqual(ANSWER_WITHIN_MILLIS)
          // The stop's refunds and anything the stalled database took late: all returned once it is back.
          yield* waitUntil(Effect.zipRight(sweepLater, Effect.map(reconciles(accountId), (balance) => balance === 10)))
          expect(yield* openSpends).toEqual([{ n: 0 }])
        })
    )

    it.effect(
      `BAT-10 IDEM-3: a call answered while the database is ${
        fault === "cut" ? "cut" : "stalled"
      } stays charged once, keyed or not, and its key replays once the database is back`,
      () =>
        Effect.gen(function*() {
          const { accountId, apiKey } = yield* newAccount({ credits: 10 })
          const faults = yield* DatabaseFaultsTag
          const headers = { "idempotency-key": `answered-${fault}` }
          yield* newGate
          const keyed = yield* Effect.fork(request("/v1/predict", { key: apiKey, body: { address: "slow" }, headers }))
          const unkeyed = yield* Effect.fork(request("/v1/predict", { key: apiKey, body: { address: "slow" } }))
          yield* waitForCharge(accountId, 2)
          yield* faults[fault]
          yield* openGate
          const responses = [yield* Fiber.join(keyed), yield* Fiber.join(unkeyed)]
          yield* faults.restore
          expect(responses.map((r) => r.status)).toEqual([200, 200])
          // The answered calls settle once the database is back; the sweeper, however late, refunds neither.
          yield* waitUntil(Effect.map(openSpends, ([row]) => row!.n === 0))
          yield* sweepLater
          expect(yield* netCharged(accountId)).toBe(responses.reduce((sum, r) => sum + answered(r), 0))
          expect(yield* reconciles(accountId)).toBe(8)
          const replay = yield* request("/v1/predict", { key: apiKey, body: { address: "slow" }, headers })
          expect(replay.status).toBe(200)
          expect(replay.headers.get("idempotent-replayed")).toBe("true")
          expect(yield* reconciles(accountId)).toBe(8)
        })
    )
  }
})

/** Waits (on the condition, never a fixed time) until the account has been charged `credits`. */
const waitForCharge = (accountId: string, credits: number) =>
  waitUntil(Effect.map(netCharged(accountId), (charged) => charged >= credits))

const waitUntil = <E, R>(condition: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 400; attempt++) {
      if (yield* condition) return
      yield* Effect.sleep("50 millis")
    }
    throw new Error("the condition never held")
  })

layer(serverWith(jointServices), { timeout: "300 seconds", excludeTestServices: true })(
  "storage faults, a keyed call's claim and Spend in one statement",
  (it) => {
    for (const fault of ["cut", "stall"] as const) outageTest(it, fault)
  }
)
