import { expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { LedgerControl } from "../../layers/ledger/memory.js"
import type { HistoryAnswer } from "../../schema/history.js"
import { OutsideCoverage } from "../../schema/problems.js"
import { sweepAbandoned } from "../../src/operations/sweeper.js"
import { Ledger } from "../../src/services/ledger.js"
import { clockAhead } from "../harness/clock.js"
import type { ScriptEntry } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { fakeServices, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

const script: Record<string, ScriptEntry> = {
  "good": { answer: { _tag: "Outcome", outcome } },
  "outside": { answer: { _tag: "Failure", error: new OutsideCoverage({ detail: "outside" }) } },
  "crashing": { answer: { _tag: "Defect", message: "scoring crashed" } },
  // An answer the valuation arithmetic cannot read: a defect outside the scoring step.
  "malformed": {
    answer: { _tag: "Outcome", outcome: { ...outcome, model: undefined as never, comps: undefined as never } }
  }
}
const story: HistoryAnswer = {
  property_id: "demo-000042",
  address: "42 ELM ST, RIVERTON, ZZ 99103",
  chain_of_title: [{ recorded_date: "2020-01-02", document_type: "deed", price: 250_000, arms_length: true }],
  flips: [],
  listing: { status: "unknown" },
  permits: []
}
const callers = Array.from({ length: 11 }, (_, i) => ({ accountId: `acct_b${i}`, tier: "public" as const }))
const credentials = makeCredentialsMemory(callers)
const key = (i: number) => credentials.keys[i]!.apiKey
const accounts = Object.fromEntries(callers.map((c, i) => [c.accountId, { balance: i === 2 ? 2 : 10 }]))
const balance = (i: number) => Effect.flatMap(Ledger, (ledger) => ledger.balance(`acct_b${i}`))

const services = fakeServices(credentials.layer, {
  accounts,
  script,
  histories: { "demo-000042": story, "42 Elm St": story }
})

layer(serverWith(services), { timeout: "120 seconds", excludeTestServices: true })("POST /v1/predict/batch", (it) => {
  it.effect("BAT-1 BAT-2 BAT-3 BAT-4 BAT-8 BAT-10: results in order; a covered failure is its Problem Detail, refunded", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/predict/batch", {
        key: key(0),
        body: {
          properties: [{ address: "good" }, { address: "outside" }, { address: "good", condition: "major_rehab" }]
        }
      })
      expect(response.status).toBe(200)
      const results = response.body.results
      expect(results).toHaveLength(3)
      expect(results[0]).toMatchObject({ subject_property: { property_id: "demo-000042" } })
      expect(results[0]).not.toHaveProperty("comps")
      expect(results[0]).not.toHaveProperty("status")
      expect(results[0]).not.toHaveProperty("type")
      expect(results[1]).toMatchObject({ type: `${TEST_BASE_URL}/docs/errors/outside-coverage`, status: 422 })
      expect(results[1]).not.toHaveProperty("trace_id")
      expect(results[2].rehab_budget).toBe(93_750)
      expect(response.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
      // Three Credits spent at once, one refunded: charged for the two that produced an answer.
      expect(yield* balance(0)).toBe(8)
    }))

  it.effect("BAT-5: duplicate addresses are allowed and each is charged", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/predict/batch", {
        key: key(1),
        body: { properties: [{ address: "good" }, { address: "good" }] }
      })
      expect(response.body.results).toHaveLength(2)
      expect(yield* balance(1)).toBe(8)
    }))

  it.effect("BAT-7: a batch the Balance cannot cover is refused whole, nothing charged; retryable after a top-up", () =>
    Effect.gen(function*() {
      const body = { properties: [{ address: "good" }, { address: "good" }, { address: "good" }] }
      const refused = yield* request("/v1/predict/batch", { key: key(2), body })
      expect(refused.status).toBe(402)
      expect(refused.body).toMatchObject({ balance: 2, required: 3 })
      expect(yield* balance(2)).toBe(2)
    }))

  it.effect("BAT-8 ERR-3: a crash of the scoring engine is that entry's covered upstream-unavailable, refunded; the batch goes on", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/predict/batch", {
        key: key(3),
        body: { properties: [{ address: "good" }, { address: "crashing" }, { address: "good" }] }
      })
      expect(response.status).toBe(200)
      expect(response.body.results.map((entry: { status?: number }) => entry.status ?? 200)).toEqual([200, 502, 200])
      expect(response.body.results[1].type).toBe(`${TEST_BASE_URL}/docs/errors/upstream-unavailable`)
      expect(yield* balance(3)).toBe(8)
    }))

  it.effect("BAT-9: a failure outside the scoring step stops the batch: 503 spend-indeterminate, no results, all refunded", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/predict/batch", {
        key: key(8),
        body: {
          properties: [{ address: "good" }, { address: "outside" }, { address: "malformed" }, { address: "good" }]
        }
      })
      expect(response.status).toBe(503)
      expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/spend-indeterminate`)
      expect(response.body).not.toHaveProperty("results")
      expect(yield* balance(8)).toBe(10)
    }))

  it.effect("BAT-9: a covered entry whose refund the Ledger cannot record stops the batch: 503 spend-indeterminate, never a 500", () =>
    Effect.gen(function*() {
      const control = yield* LedgerControl
      yield* control.setFaults({ failRefund: true })
      const response = yield* request("/v1/predict/batch", {
        key: key(9),
        body: { properties: [{ address: "good" }, { address: "outside" }, { address: "good" }] }
      })
      yield* control.setFaults({ failRefund: false })
      expect(response.status).toBe(503)
      expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/spend-indeterminate`)
      expect(response.body).not.toHaveProperty("results")
      // What the stop could not return now is returned by the sweeper once the call's deadline has passed.
      yield* sweepAbandoned.pipe(Effect.withClock(clockAhead(Duration.minutes(10))))
      expect(yield* balance(9)).toBe(10)
    }))

  it.effect("BAT-6 IDEM-4: a replayed batch is not charged again", () =>
    Effect.gen(function*() {
      const headers = { "idempotency-key": "batch-1" }
      const body = { properties: [{ address: "good" }] }
      yield* request("/v1/predict/batch", { key: key(4), body, headers })
      const again = yield* request("/v1/predict/batch", { key: key(4), body, headers })
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      expect(yield* balance(4)).toBe(9)
    }))

  it.effect("IDEM-5 BAT-8: a batch whose every entry was refunded frees its key, as a refunded single call does: the key is taken over by another body and charged; a batch with an answer keeps its key (a Credits audit)", () =>
    Effect.gen(function*() {
      const headers = { "idempotency-key": "all-refunded" }
      const refused = yield* request("/v1/predict/batch", {
        key: key(10),
        body: { properties: [{ address: "outside" }, { address: "outside" }] },
        headers
      })
      expect(refused.status).toBe(200)
      expect(refused.body.results.map((entry: { status: number }) => entry.status)).toEqual([422, 422])
      expect(yield* balance(10)).toBe(10)
      // The same body again runs again (refunded again), not a replay.
      const again = yield* request("/v1/predict/batch", {
        key: key(10),
        body: { properties: [{ address: "outside" }, { address: "outside" }] },
        headers
      })
      expect(again.headers.get("idempotent-replayed")).toBeNull()
      // Another body takes the key over, and is charged.
      const taken = yield* request("/v1/predict/batch", {
        key: key(10),
        body: { properties: [{ address: "good" }, { address: "outside" }] },
        headers
      })
      expect(taken.status).toBe(200)
      expect(taken.headers.get("idempotent-replayed")).toBeNull()
      expect(yield* balance(10)).toBe(9)
      // That batch answered one entry: its key is stored, replayed and never taken over.
      const replay = yield* request("/v1/predict/batch", {
        key: key(10),
        body: { properties: [{ address: "good" }, { address: "outside" }] },
        headers
      })
      expect(replay.headers.get("idempotent-replayed")).toBe("true")
      const conflict = yield* request("/v1/predict/batch", {
        key: key(10),
        body: { properties: [{ address: "good" }] },
        headers
      })
      expect(conflict.status).toBe(422)
      expect(yield* balance(10)).toBe(9)
    }))

  it.effect("IDEM-9: the same body to predict and batch under one key is a conflict, never a replay", () =>
    Effect.gen(function*() {
      const headers = { "idempotency-key": "cross" }
      const body = { address: "good" }
      expect((yield* request("/v1/predict", { key: key(5), body, headers })).status).toBe(200)
      const batch = yield* request("/v1/predict/batch", { key: key(5), body: { properties: [body] }, headers })
      expect(batch.status).toBe(422)
      expect(batch.body.type).toBe(`${TEST_BASE_URL}/docs/errors/idempotency-key-conflict`)
      expect(yield* balance(5)).toBe(9)
    }))

  it.effect("HIS-1: history with both or neither identifier is refused before any Credit", () =>
    Effect.gen(function*() {
      expect((yield* request("/v1/history", { key: key(6), body: { address: "good", property_id: "x" } })).status).toBe(
        400
      )
      expect((yield* request("/v1/history", { key: key(6), body: {} })).status).toBe(400)
      expect(yield* balance(6)).toBe(10)
    }))

  it.effect("HIS-2 ERR-3: an unknown property_id is a 404 unknown-property, refunded", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/history", { key: key(7), body: { property_id: "nope" } })
      expect(response.status).toBe(404)
      expect(response.body.type).toBe(`${TEST_BASE_URL}/docs/errors/unknown-property`)
      expect(yield* balance(7)).toBe(10)
    }))

  it.effect("HIS-2 SVC-3: the recorded story by property_id or address costs one Credit", () =>
    Effect.gen(function*() {
      const byId = yield* request("/v1/history", { key: key(7), body: { property_id: "demo-000042" } })
      expect(byId.status).toBe(200)
      expect(byId.body).toEqual(story)
      const byAddress = yield* request("/v1/history", { key: key(7), body: { address: "42 Elm St" } })
      expect(byAddress.body).toEqual(story)
      expect(yield* balance(7)).toBe(8)
    }))
})
