/**
 * The reference as an integrator reads it (`/openapi.json`, `/docs`): every member described in written words,
 * the `Idempotency-Key` header declared, and a real example request and answer per operation, checked against
 * the live service on the synthetic demo county (the one every first start loads), with the real scoring
 * engine and Ledger. An example that the service refuses, or an answer its own schema rejects, fails here.
 */
import { expect, layer } from "@effect/vitest"
import { Ajv2020 } from "ajv/dist/2020.js"
import { Effect, Either, Schema } from "effect"
import { BatchAnswer } from "../../schema/batch.js"
import { examples } from "../../schema/examples.js"
import { HistoryAnswer } from "../../schema/history.js"
import { inlineRefs, isGeneratedText, undescribedMembers } from "../../schema/json-schema.js"
import { ScoredAnswer } from "../../schema/scored-answer.js"
import { ValidationAnswer } from "../../schema/validate.js"
import { demoCountyServices } from "../harness/demo-county.js"
import { newAccount, request, serverWith } from "../harness/server.js"

const services = demoCountyServices()

const ajv = new Ajv2020({ strict: false, allErrors: true })
/** The violations of `value` against a schema of the document (its `$ref`s resolved in the document). */
const violations = (spec: any, schema: object, value: unknown) => {
  const check = ajv.compile(inlineRefs(schema, spec.components.schemas) as object)
  return check(value) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

const paid = [
  ["/v1/predict", "predict"],
  ["/v1/predict/batch", "batch"],
  ["/v1/history", "history"]
] as const

const fetchSpec = Effect.map(request("/openapi.json"), (response) => response.body as any)

layer(serverWith(services), { timeout: "180 seconds", excludeTestServices: true })("the reference's examples", (it) => {
  it.effect("REQ-1 VAL-1 HIS-1: every example request in /openapi.json is answered 200 by the live service, and the answer fits the documented schema", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const { apiKey } = yield* newAccount({ credits: 20 })
      for (const path of ["/v1/predict", "/v1/predict/batch", "/v1/history", "/v1/validate"]) {
        const operation = spec.paths[path].post
        const bodyExamples = operation.requestBody.content["application/json"].examples
        expect(Object.keys(bodyExamples).length, path).toBeGreaterThan(0)
        for (const [name, example] of Object.entries<any>(bodyExamples)) {
          const answered = yield* request(path, { key: apiKey, body: example.value })
          expect({ path, name, status: answered.status }, answered.text).toEqual({ path, name, status: 200 })
          const documented = operation.responses["200"].content["application/json"].schema
          expect({ path, name, violations: violations(spec, documented, answered.body) }).toEqual({
            path,
            name,
            violations: []
          })
        }
      }
    }))

  it.effect("ANS-1: the example answers are what the demo county answers today (the same properties and records)", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount({ credits: 20 })
      const predict = yield* request("/v1/predict", { key: apiKey, body: examples.predict.request })
      expect(predict.body.subject_property).toEqual(examples.predict.answer.subject_property)
      const batch = yield* request("/v1/predict/batch", { key: apiKey, body: examples.batch.request })
      expect(batch.body.results[0].subject_property.property_id).toBe(
        (examples.batch.answer.results[0] as any).subject_property.property_id
      )
      const { type: _type, ...ambiguousEntry } = examples.batch.answer.results[1] as Record<string, unknown>
      expect(batch.body.results[1]).toMatchObject(ambiguousEntry)
      const history = yield* request("/v1/history", { key: apiKey, body: examples.history.request })
      expect(history.body).toEqual(examples.history.answer)
      for (
        const [address, slug] of [["2 Maple St", "ambiguous-address"], ["4 Pine Ct, Riverton", "unscorable-address"]]
      ) {
        const refused = yield* request("/v1/predict", { key: apiKey, body: { address } })
        const { trace_id: _, type: __, ...expected } = examples.problems[slug as keyof typeof examples.problems]
        expect(refused.body).toMatchObject(expected)
      }
    }))

  it.effect("ANS-1 ERR-1: every example in the document fits its own schema and decodes with the wire schemas of schema/", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      const decoders: Record<string, Schema.Schema.Any> = {
        "/v1/predict": ScoredAnswer,
        "/v1/predict/batch": BatchAnswer,
        "/v1/history": HistoryAnswer,
        "/v1/validate": ValidationAnswer
      }
      for (const [path, decoder] of Object.entries(decoders)) {
        const ok = spec.paths[path].post.responses["200"].content["application/json"]
        for (const example of Object.values<any>(ok.examples)) {
          expect({ path, violations: violations(spec, ok.schema, example.value) }).toEqual({ path, violations: [] })
          expect(Either.isRight(Schema.decodeUnknownEither(decoder as Schema.Schema<unknown, unknown>)(example.value)))
            .toBe(true)
        }
        for (
          const bodyExample of Object.values<any>(
            spec.paths[path].post.requestBody.content["application/json"].examples
          )
        ) {
          const schema = spec.paths[path].post.requestBody.content["application/json"].schema
          expect({ path, violations: violations(spec, schema, bodyExample.value) }).toEqual({ path, violations: [] })
        }
      }
      const refused = spec.paths["/v1/predict"].post.responses["422"].content["application/problem+json"]
      expect(Object.keys(refused.examples).sort()).toEqual(["ambiguous-address", "unscorable-address"])
      for (const example of Object.values<any>(refused.examples)) {
        expect(violations(spec, refused.schema, example.value)).toEqual([])
      }
    }))

  it.effect("IDEM-1: every paid operation declares the Idempotency-Key header, described; validate does not take one", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      for (const [path] of paid) {
        const header = spec.paths[path].post.parameters.find((p: any) => p.name === "Idempotency-Key")
        expect(header, path).toMatchObject({
          in: "header",
          required: false,
          schema: { type: "string", maxLength: 255 }
        })
        expect(header.description).toMatch(/24 hours/)
        expect(spec.paths[path].post.description).toMatch(/Idempotency-Key/)
      }
      expect(spec.paths["/v1/validate"].post.parameters ?? []).toEqual([])
    }))

  it.effect("ERR-6 IDEM-4 AUTH-4: the document declares the response headers the service sends, and a live answer carries them (an integrator's audit, 2026-11-30: none were declared)", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      expect(spec.servers).toEqual([{ url: "/", description: expect.any(String) }])
      for (const [path, operations] of Object.entries<any>(spec.paths)) {
        for (const [method, operation] of Object.entries<any>(operations)) {
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            const headers = response.headers ?? {}
            const where = `${method} ${path} ${status}`
            expect(headers["trace-id"], where).toEqual({ $ref: "#/components/headers/TraceId" })
            expect(headers["RateLimit-Policy"], where).toBeDefined()
            const required = (name: string) => {
              const ref: string | undefined = headers[name]?.$ref
              return ref === undefined ? undefined : spec.components.headers[ref.split("/").at(-1)!].required === true
            }
            if (status === "409" || status === "503") expect(required("Retry-After"), where).toBe(true)
            // (A 429 spend-cap-exceeded carries none: ERR-6.)
            const paidCall = paid.some(([paidPath]) => paidPath === path)
            if (status === "429") expect(required("Retry-After"), where).toBe(!paidCall)
            if (status === "401") expect(required("WWW-Authenticate"), where).toBe(true)
            expect(required("trace-id"), where).toBe(true)
            expect(required("RateLimit"), where).toBe(false)
            expect(headers["Idempotent-Replayed"] !== undefined, where).toBe(paidCall && status === "200")
          }
        }
      }
      for (const ref of Object.keys(spec.components.headers)) {
        expect(spec.components.headers[ref].description.length, ref).toBeGreaterThan(20)
      }
      // Live: the declared headers are the ones sent.
      const { apiKey } = yield* newAccount({ credits: 5 })
      const body = { address: "3 Pine Ct, Riverton" }
      const first = yield* request("/v1/predict", { key: apiKey, body, headers: { "idempotency-key": "declared-1" } })
      const again = yield* request("/v1/predict", { key: apiKey, body, headers: { "idempotency-key": "declared-1" } })
      for (const answered of [first, again]) {
        expect(answered.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
        for (
          const name of ["ratelimit-policy", "ratelimit", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"]
        ) {
          expect(answered.headers.get(name), name).not.toBeNull()
        }
      }
      expect(first.headers.get("idempotent-replayed")).toBeNull()
      expect(again.headers.get("idempotent-replayed")).toBe("true")
      const unauthorized = yield* request("/v1/validate", { body })
      expect(unauthorized.status).toBe(401)
      expect(unauthorized.headers.get("www-authenticate")).toMatch(/^Bearer resource_metadata=/)
    }))

  it.effect("ERR-1: every member in the document has a written description, and none is one Effect generated", () =>
    Effect.gen(function*() {
      const spec = yield* fetchSpec
      expect(undescribedMembers(spec.components)).toEqual([])
      expect(undescribedMembers(spec.paths)).toEqual([])
      const generated: Array<string> = []
      const walk = (node: unknown, at: string): void => {
        if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`))
        if (typeof node !== "object" || node === null) return
        for (const [key, value] of Object.entries(node)) {
          if ((key === "description" || key === "title") && typeof value === "string" && isGeneratedText(value)) {
            generated.push(`${at}/${key}: ${value}`)
          }
          if (key !== "examples") walk(value, `${at}/${key}`)
        }
      }
      walk(spec, "")
      expect(generated).toEqual([])
      // Written for people: the operations say what they cost and how to act on a refusal.
      expect(spec.paths["/v1/predict"].post.description).toMatch(/ambiguous-address.*candidates/)
    }))

  it.effect("ERR-1: /docs hides the reference tool's own toolbar and keeps every response status visible", () =>
    Effect.gen(function*() {
      const docs = yield* request("/docs")
      expect(docs.status).toBe(200)
      expect(docs.text).toContain("showToolbar")
      expect(docs.text).toContain("never")
      expect(docs.text).toContain("flex-wrap")
      // "Test Request" asks for the API key at once: the key's scheme is preselected.
      expect(docs.text).toMatch(/preferredSecurityScheme[^a-zA-Z]+apiKey/)
    }))
})
