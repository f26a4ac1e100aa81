import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { IdempotencyMemory } from "../../layers/idempotency/memory.js"
import { LedgerMemory } from "../../layers/ledger/memory.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { UpstreamUnavailable } from "../../schema/problems.js"
import { Ledger } from "../../src/services/ledger.js"
import { Scoring } from "../../src/services/scoring.js"
import { type FakeScoringCall, makeFakeScoring, type ScriptEntry } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { request, serverWith } from "../harness/server.js"

// Rules about what the service does around a call, checked on the app built from fakes.
class ScoringCalls
  extends Context.Tag("test/ScoringCalls")<ScoringCalls, Effect.Effect<ReadonlyArray<FakeScoringCall>>>()
{}

const script: Record<string, ScriptEntry> = {
  "good": { answer: { _tag: "Outcome", outcome } },
  "failing": { answer: { _tag: "Failure", error: new UpstreamUnavailable({ detail: "down" }) } }
}
const scoring = Layer.effectContext(
  Effect.map(
    makeFakeScoring(script),
    ({ calls, service }) => Context.make(Scoring, service).pipe(Context.add(ScoringCalls, calls))
  )
)

const credentials = makeCredentialsMemory([
  { accountId: "acct_retry", tier: "public" },
  { accountId: "acct_condition", tier: "public" },
  { accountId: "acct_capped", tier: "public" }
])
const key = (i: number) => credentials.keys[i]!.apiKey
const services = Layer.mergeAll(
  credentials.layer,
  LedgerMemory({
    acct_retry: { balance: 10 },
    acct_condition: { balance: 10 },
    acct_capped: { balance: 10, dailySpendCap: 1 }
  }),
  IdempotencyMemory,
  RateLimitsMemory,
  scoring
)
const balance = (accountId: string) => Effect.flatMap(Ledger, (ledger) => ledger.balance(accountId))

layer(serverWith(services), { timeout: "120 seconds", excludeTestServices: true })("service rules", (it) => {
  it.effect("SVC-6: the service never retries on the caller's behalf: a failed scoring step is called once", () =>
    Effect.gen(function*() {
      const calls = yield* ScoringCalls
      const before = (yield* calls).length
      const failed = yield* request("/v1/predict", { key: key(0), body: { address: "failing" } })
      expect(failed.status).toBe(502)
      const batch = yield* request("/v1/predict/batch", {
        key: key(0),
        body: { properties: [{ address: "failing" }, { address: "good" }] }
      })
      expect(batch.status).toBe(200)
      expect((yield* calls).slice(before).map((c) => c.address)).toEqual(["failing", "failing", "good"])
      expect(yield* balance("acct_retry")).toBe(9)
    }))

  it.effect("REQ-4: `condition` never changes the cost", () =>
    Effect.gen(function*() {
      for (const condition of ["turn_key", "light_rehab", "moderate_rehab", "major_rehab"]) {
        const before = yield* balance("acct_condition")
        const response = yield* request("/v1/predict", { key: key(1), body: { address: "good", condition } })
        expect(response.status).toBe(200)
        expect(yield* balance("acct_condition")).toBe(before - 1)
      }
    }))

  it.effect("ERR-6: spend-cap-exceeded is a 429 that carries no Retry-After; GET /v1/account tells the cap and what is left of it today", () =>
    Effect.gen(function*() {
      const cap = () =>
        Effect.map(request("/v1/account", { method: "GET", key: key(2) }), (r) => r.body.daily_spend_cap)
      expect(yield* cap()).toEqual({ credits: 1, remaining_today: 1 })
      expect((yield* request("/v1/predict", { key: key(2), body: { address: "good" } })).status).toBe(200)
      expect(yield* cap()).toEqual({ credits: 1, remaining_today: 0 })
      // An Account without a cap has no member for one.
      expect((yield* request("/v1/account", { method: "GET", key: key(0) })).body).not.toHaveProperty("daily_spend_cap")
      const capped = yield* request("/v1/predict", { key: key(2), body: { address: "good" } })
      expect(capped.status).toBe(429)
      expect(capped.body.type).toMatch(/\/errors\/spend-cap-exceeded$/)
      expect(capped.headers.get("retry-after")).toBeNull()
      expect(capped.body).not.toHaveProperty("retry_after")
      expect(yield* balance("acct_capped")).toBe(9)
    }))

  it.effect("VER-1: every operation of the API lives under /v1", () =>
    Effect.gen(function*() {
      const spec = (yield* request("/openapi.json")).body
      const paths = Object.keys(spec.paths)
      expect(paths.length).toBeGreaterThan(0)
      for (const path of paths) expect(path).toMatch(/^\/v1\//)
    }))
})
