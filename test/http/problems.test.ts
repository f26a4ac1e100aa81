import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Logger } from "effect"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { allProblemMeta } from "../../schema/problems.js"
import { Credentials } from "../../src/services/credentials.js"
import { fakeServices, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

const memory = makeCredentialsMemory([{ accountId: "acct_test", tier: "public" }])
const apiKey = memory.keys[0]!.apiKey
const MiB = 1024 * 1024

const expectProblem = (
  response: { status: number; headers: Headers; body: any },
  slug: string,
  status: number
) => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toBe("application/problem+json")
  const traceId = response.headers.get("trace-id")
  expect(traceId).toMatch(/^[0-9a-f]{32}$/)
  expect(response.body).toMatchObject({
    type: `${TEST_BASE_URL}/docs/errors/${slug}`,
    title: expect.any(String),
    status,
    detail: expect.any(String),
    trace_id: traceId
  })
}

layer(serverWith(fakeServices(memory.layer)), { timeout: "120 seconds" })("Problem Details and trace ids", (it) => {
  it.effect("SVC-7: a success carries a trace-id of 32 lowercase hex digits", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/validate", { key: apiKey, body: { address: "1 Main St" } })
      expect(response.status).toBe(200)
      expect(response.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
    }))

  it.effect("SVC-7: a valid W3C traceparent supplies the trace id, of successes and failures alike", () =>
    Effect.gen(function*() {
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      const traceparent = `00-${traceId}-00f067aa0ba902b7-01`
      const ok = yield* request("/v1/validate", {
        key: apiKey,
        body: { address: "1 Main St" },
        headers: { traceparent }
      })
      const notFound = yield* request("/nowhere", { headers: { traceparent } })
      expect(ok.headers.get("trace-id")).toBe(traceId)
      expect(notFound.headers.get("trace-id")).toBe(traceId)
      expect(notFound.body.trace_id).toBe(traceId)
    }))

  it.effect("SVC-7: an invalid traceparent is ignored and a fresh trace id is made", () =>
    Effect.gen(function*() {
      for (
        const traceparent of [
          "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
          "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
          "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
          "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
          "garbage"
        ]
      ) {
        const response = yield* request("/v1/validate", {
          key: apiKey,
          body: { address: "x" },
          headers: { traceparent }
        })
        expect(response.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
        expect(response.headers.get("trace-id")).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736")
      }
    }))

  it.effect("ERR-1 SVC-7: an unknown route is a 404 not-found problem", () =>
    Effect.gen(function*() {
      expectProblem(yield* request("/v2/predict", { body: {} }), "not-found", 404)
      // `/` is the front page now (test/http/front-page.test.ts); a path nothing answers is still 404.
      expectProblem(yield* request("/nothing-here"), "not-found", 404)
    }))

  it.effect("ERR-1: a wrong method is a 405 method-not-allowed problem with Allow", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/validate", { method: "GET" })
      expectProblem(response, "method-not-allowed", 405)
      expect(response.headers.get("allow")).toBe("POST")
      const put = yield* request("/openapi.json", { method: "DELETE" })
      expectProblem(put, "method-not-allowed", 405)
      expect(put.headers.get("allow")).toBe("GET")
    }))

  it.effect("ERR-1: a body that is not JSON by its content type is a 415 unsupported-media-type problem", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/validate", {
        key: apiKey,
        body: "address=1+Main+St",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expectProblem(response, "unsupported-media-type", 415)
    }))

  it.effect("ERR-1: malformed JSON is a 400 invalid-request problem with an errors list", () =>
    Effect.gen(function*() {
      for (const body of ["{\"address\": ", "", "[1,2", "nul"]) {
        const response = yield* request("/v1/validate", {
          key: apiKey,
          body,
          headers: { "content-type": "application/json" }
        })
        expectProblem(response, "invalid-request", 400)
        expect(response.body.errors).toEqual([{ pointer: "", detail: expect.any(String) }])
      }
    }))

  it.effect("ERR-1: a schema refusal lists every refused member by JSON Pointer", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/validate", {
        key: apiKey,
        body: { address: 12, condition: "gut_job", overrides: { bedrooms: null, latitude: 40.7 }, property_id: "p1" }
      })
      expectProblem(response, "invalid-request", 400)
      expect(response.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
        "/address",
        "/condition",
        "/overrides/bedrooms",
        "/overrides/latitude",
        "/property_id"
      ])
    }))

  it.effect("ERR-1: a body over 1 MiB is a 413 request-too-large problem", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ address: "x".repeat(MiB) })
      const response = yield* request("/v1/validate", {
        key: apiKey,
        body,
        headers: { "content-type": "application/json" }
      })
      expectProblem(response, "request-too-large", 413)
      expect(response.body.limit_bytes).toBe(MiB)
    }))

  it.effect("ERR-1: a body just under 1 MiB is read and judged", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ address: "x".repeat(MiB - 100) })
      const response = yield* request("/v1/validate", {
        key: apiKey,
        body,
        headers: { "content-type": "application/json" }
      })
      expectProblem(response, "invalid-request", 400)
      expect(response.body.errors[0].pointer).toBe("/address")
    }))

  it.effect("ERR-1 AUTH-4: a 401 carries WWW-Authenticate with the protected-resource metadata URL", () =>
    Effect.gen(function*() {
      const response = yield* request("/v1/validate", { body: { address: "1 Main St" } })
      expectProblem(response, "invalid-key", 401)
      expect(response.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${TEST_BASE_URL}/.well-known/oauth-protected-resource"`
      )
    }))
})

describe("an unexpected defect", () => {
  const logged: Array<string> = []
  const capture = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, cause, message }) => {
      logged.push(`${String(message)} ${JSON.stringify(Object.fromEntries(annotations))} ${String(cause)}`)
    })
  )
  const exploding = Layer.succeed(Credentials, {
    authenticate: () => Effect.die(new Error("database password is hunter2")),
    refresh: Effect.void
  })

  layer(serverWith(fakeServices(exploding)).pipe(Layer.provide(capture)), { timeout: "120 seconds" })(
    "in a handler",
    (it) => {
      it.effect("ERR-1 SVC-7: answers 500 internal-error with the trace id, logs it with the trace id, leaks no stack", () =>
        Effect.gen(function*() {
          const response = yield* request("/v1/validate", { key: apiKey, body: { address: "1 Main St" } })
          expectProblem(response, "internal-error", 500)
          expect(response.text).not.toContain("hunter2")
          expect(response.text).not.toMatch(/\bat .+:\d+:\d+/)
          const traceId = response.headers.get("trace-id")!
          expect(logged.some((line) => line.includes(traceId) && line.includes("hunter2"))).toBe(true)
        }))
    }
  )
})

layer(serverWith(fakeServices(memory.layer)), { timeout: "120 seconds" })("documentation", (it) => {
  it.effect("GET /openapi.json is OpenAPI 3.1 and describes every error as application/problem+json", () =>
    Effect.gen(function*() {
      const response = yield* request("/openapi.json")
      expect(response.status).toBe(200)
      expect(response.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
      const spec = response.body
      expect(spec.openapi).toBe("3.1.0")
      const validate = spec.paths["/v1/validate"].post
      expect(validate.requestBody.content["application/json"].schema).toBeDefined()
      expect(spec.components.schemas.ScoredCall.properties.overrides).toBeDefined()
      for (const [status, answer] of Object.entries<any>(validate.responses)) {
        if (Number(status) >= 400) expect(Object.keys(answer.content)).toEqual(["application/problem+json"])
      }
      expect(Object.keys(validate.responses).sort()).toEqual(["200", "400", "401", "413", "415", "429", "500", "503"])
      expect(JSON.stringify(spec)).not.toContain("HttpApiDecodeError")
      // An error response with no schema left (only the decode error no endpoint without a body sends) is
      // not documented at all: an empty `anyOf` matches nothing and breaks client generators.
      const emptyAlternatives = Object.entries<any>(spec.paths).flatMap(([path, operations]) =>
        Object.entries<any>(operations).flatMap(([method, operation]) =>
          Object.entries<any>(operation.responses ?? {}).filter(([, answer]) =>
            Object.values<any>(answer.content ?? {}).some(({ schema }) =>
              Array.isArray(schema?.anyOf) && schema.anyOf.length === 0
            )
          ).map(([status]) => `${method.toUpperCase()} ${path} ${status}`)
        )
      )
      expect(emptyAlternatives).toEqual([])
      expect(spec.paths["/v1/account"].get.responses["400"]).toBeUndefined()
    }))

  it.effect("GET /docs is the API reference, served without any external script", () =>
    Effect.gen(function*() {
      const response = yield* request("/docs")
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toContain("text/html")
      expect(response.text).not.toMatch(/<script[^>]+src=/)
      expect(response.text).toContain("/v1/validate")
    }))

  it.effect("ERR-1: GET /docs/errors/<slug> serves a page for every slug", () =>
    Effect.gen(function*() {
      for (const meta of allProblemMeta()) {
        const response = yield* request(`/docs/errors/${meta.slug}`)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toContain("text/html")
        expect(response.text).toContain(meta.title)
        expect(response.text).toContain(String(meta.status))
      }
      const index = yield* request("/docs/errors")
      expect(index.status).toBe(200)
      for (const meta of allProblemMeta()) expect(index.text).toContain(`/errors/${meta.slug}`)
      expectProblem(yield* request("/docs/errors/no-such-error"), "not-found", 404)
    }))
})

it("ERR-2 VER-2: every slug named by the interface and CONTRACT.md has a problem class with its status", () => {
  const statuses = Object.fromEntries(allProblemMeta().map((meta) => [meta.slug, meta.status]))
  expect(statuses).toMatchObject({
    "invalid-request": 400,
    "invalid-key": 401,
    "insufficient-credits": 402,
    "terms-not-accepted": 403,
    "not-found": 404,
    "unknown-property": 404,
    "method-not-allowed": 405,
    "duplicate-request-in-flight": 409,
    "batch-too-large": 413,
    "request-too-large": 413,
    "unsupported-media-type": 415,
    "idempotency-key-conflict": 422,
    "unscorable-address": 422,
    "ambiguous-address": 422,
    "outside-coverage": 422,
    "missing-valuation-fact": 422,
    "rate-limited": 429,
    "spend-cap-exceeded": 429,
    "upstream-unavailable": 502,
    "ledger-unreachable": 503,
    "call-not-started": 503,
    "spend-indeterminate": 503,
    "upstream-timeout": 504
  })
})
