import { expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { makeCredentialsMemory } from "../../layers/credentials/memory.js"
import { LedgerControl } from "../../layers/ledger/memory.js"
import { acceptQuality, prefersHtml } from "../../src/http/front-page.js"
import { baseUrl, fakeServices, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

const credentials = makeCredentialsMemory([{ accountId: "acct_front", tier: "public" }])
const server = serverWith(fakeServices(credentials.layer, { accounts: { acct_front: { balance: 1 } } }))

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

const links = (page: string) => [...page.matchAll(/href="([^"]+)"/g)].map((match) => match[1]!)

layer(server, { timeout: "120 seconds" })("the front page and health", (it) => {
  it.effect("SVC-7: GET / with a browser's Accept is a small HTML page linking the docs, the OpenAPI document, the Portal and health, with the status", () =>
    Effect.gen(function*() {
      const page = yield* request("/", { headers: { accept: BROWSER } })
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toContain("text/html")
      expect(page.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
      expect(page.headers.get("vary")).toBe("Accept")
      // The same guard as the Portal's pages: nothing inline may run, nothing may frame it.
      expect(page.headers.get("content-security-policy")).toContain("default-src 'none'")
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(page.headers.get("x-frame-options")).toBe("DENY")
      expect(page.headers.get("x-content-type-options")).toBe("nosniff")
      expect(page.text).not.toMatch(/<script|<style|style=/)
      expect(links(page.text)).toEqual(expect.arrayContaining(["/docs", "/openapi.json", "/portal", "/health"]))
      expect(page.text).toContain("Service status: ok")
      // Every link it gives is one the server answers.
      for (const href of new Set(links(page.text).filter((href) => href.startsWith("/") && href !== "/"))) {
        const base = yield* baseUrl
        const linked = yield* Effect.promise(() => fetch(`${base}${href}`, { redirect: "manual" }))
        expect([200, 303], href).toContain(linked.status)
      }
    }))

  it.effect("SVC-7: GET / for anything else (JSON, */*, no Accept) is a JSON document with the same links and the status", () =>
    Effect.gen(function*() {
      for (const accept of ["application/json", "*/*", undefined, "text/plain"]) {
        const answer = yield* request("/", { headers: accept === undefined ? {} : { accept } })
        expect(answer.status, String(accept)).toBe(200)
        expect(answer.headers.get("content-type")).toContain("application/json")
        expect(answer.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)
        expect(answer.body).toEqual({
          name: "propscore",
          description: expect.any(String),
          docs: "/docs",
          openapi: "/openapi.json",
          portal: "/portal",
          health: "/health",
          mcp: "/mcp",
          status: "ok"
        })
      }
    }))

  it.effect("HEAD / and HEAD /health answer like GET, with no body; POST / is 405 with Allow", () =>
    Effect.gen(function*() {
      for (const path of ["/", "/health"]) {
        const head = yield* request(path, { method: "HEAD" })
        expect(head.status, path).toBe(200)
        expect(head.headers.get("content-type")).toContain("application/json")
        expect(head.text).toBe("")
      }
      const post = yield* request("/", { method: "POST", body: {} })
      expect(post.status).toBe(405)
      expect(post.headers.get("allow")).toBe("GET")
      expect(post.body.type).toBe(`${TEST_BASE_URL}/docs/errors/method-not-allowed`)
    }))

  it.effect("while the Ledger does not answer, /health is 503 unavailable and the front page says so; then ok again", () =>
    Effect.gen(function*() {
      const control = yield* LedgerControl
      expect((yield* request("/health")).body).toEqual({ status: "ok", checks: { database: "ok" } })
      yield* control.setFaults({ unreachable: true })
      const down = yield* request("/health")
      expect(down.status).toBe(503)
      expect(down.headers.get("cache-control")).toBe("no-store")
      expect(down.body).toEqual({ status: "unavailable", checks: { database: "unreachable" } })
      expect((yield* request("/")).body.status).toBe("unavailable")
      const page = yield* request("/", { headers: { accept: BROWSER } })
      expect(page.status).toBe(200)
      expect(page.text).toContain("Service status: unavailable")
      yield* control.setFaults({ unreachable: false })
      expect((yield* request("/health")).status).toBe(200)
    }))
})

it("the Accept header decides: HTML only when it is preferred to JSON", () => {
  expect(prefersHtml(BROWSER)).toBe(true)
  expect(prefersHtml("text/html")).toBe(true)
  expect(prefersHtml("text/*")).toBe(true)
  expect(prefersHtml("application/json, text/html;q=0.5")).toBe(false)
  expect(prefersHtml("text/html;q=0.5, application/json")).toBe(false)
  expect(prefersHtml("*/*")).toBe(false)
  expect(prefersHtml(undefined)).toBe(false)
  expect(prefersHtml("")).toBe(false)
  expect(acceptQuality("text/html;q=0, */*", "text/html")).toBe(0)
})
