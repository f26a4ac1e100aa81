/**
 * Hostile input is a 4xx with a trace id, never a 500, a crash or a reset connection: bodies nested
 * thousands deep, NUL and other control characters in text the sign-in stores, bodies streamed past the cap
 * without a Content-Length, headers past Node's bound and requests Node cannot parse. Nothing is charged.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import * as net from "node:net"
import { Ledger } from "../../src/services/ledger.js"
import { baseUrl, newAccount, request, TEST_BASE_URL, TestServer } from "../harness/server.js"

/** 5,000 arrays deep in 10 KB: the kind of body that overflowed the decoder's stack. */
const deep = "[".repeat(5_000) + "]".repeat(5_000)

/** A raw HTTP/1.1 exchange over one socket: what Node's own parser refuses never reaches fetch's client. */
const raw = (text: string, options: { readonly halfClose?: boolean } = {}) =>
  Effect.flatMap(baseUrl, (base) =>
    Effect.async<string>((resume) => {
      const socket = net.connect(Number(new URL(base).port), "127.0.0.1")
      let answer = ""
      socket.on("data", (chunk) => (answer += chunk.toString("utf8")))
      socket.on("close", () => resume(Effect.succeed(answer)))
      socket.on("error", () => resume(Effect.succeed(answer)))
      // Half-closed: the client's side ends with the request (its FIN), the server's stays open for the answer.
      if (options.halfClose === true) socket.end(text)
      else socket.write(text)
    }))

/** A response of a raw exchange: status, headers (lower-cased names) and the parsed body. */
const parse = (answer: string) => {
  const [head = "", body = ""] = answer.split("\r\n\r\n")
  const [statusLine = "", ...headerLines] = head.split("\r\n")
  const headers = Object.fromEntries(headerLines.map((line) => {
    const at = line.indexOf(":")
    return [line.slice(0, at).toLowerCase(), line.slice(at + 1).trim()]
  }))
  return { status: Number(statusLine.split(" ")[1]), headers, body: body === "" ? undefined : JSON.parse(body) }
}

/** The JSON-RPC message of an MCP answer, sent as JSON or as one server-sent event. */
const jsonRpcMessage = (text: string) => {
  const data = text.split("\n").find((line) => line.startsWith("data: "))
  return JSON.parse(data === undefined ? text : data.slice("data: ".length))
}

const expectProblem = (
  response: { status: number; headers: { get?: (name: string) => string | null } | Record<string, string>; body: any },
  status: number,
  slug: string
) => {
  expect(response.status).toBe(status)
  const header = (name: string) =>
    typeof response.headers.get === "function"
      ? (response.headers as { get: (name: string) => string | null }).get(name)
      : (response.headers as Record<string, string>)[name]
  expect(header("content-type")).toContain("application/problem+json")
  expect(header("trace-id")).toMatch(/^[0-9a-f]{32}$/)
  expect(response.body).toMatchObject({ type: `${TEST_BASE_URL}/docs/errors/${slug}`, status })
  expect(response.body.trace_id).toBe(header("trace-id"))
}

layer(TestServer, { timeout: "120 seconds", excludeTestServices: true })("hostile input", (it) => {
  it.effect("SVC-4: a client that half-closes its side once its request is sent gets its answer, and a refused call's Credit back at once (an integrator's audit, 2026-11-30: 0 bytes, the Credit held until the sweeper)", () =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* newAccount({ credits: 5 })
      const body = JSON.stringify({ address: "1 Main St, Springfield" })
      for (const [path, status] of [["/v1/validate", 200], ["/v1/predict", 422]] as const) {
        const answer = parse(
          yield* raw(
            `POST ${path} HTTP/1.1\r\nHost: propscore.test\r\nAuthorization: Bearer ${apiKey}\r\n` +
              `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
            { halfClose: true }
          )
        )
        expect({ path, status: answer.status }).toEqual({ path, status })
        expect(answer.headers["trace-id"]).toMatch(/^[0-9a-f]{32}$/)
      }
      expect(yield* Effect.flatMap(Ledger, (ledger) => ledger.balance(accountId))).toBe(5)
    }))

  it.effect("ERR-1 SVC-4: a body nested 5,000 deep is a 400 invalid-request on every endpoint, nothing charged", () =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* newAccount({ credits: 5 })
      const bodies = {
        "/v1/predict": `{"address": ${deep}}`,
        "/v1/predict/batch": `{"properties": [{"address": "1 Main St", "overrides": ${deep}}]}`,
        "/v1/history": `{"property_id": ${deep}}`,
        "/v1/validate": deep
      }
      for (const [path, body] of Object.entries(bodies)) {
        const response = yield* request(path, { key: apiKey, body })
        expectProblem(response, 400, "invalid-request")
        expect(response.body.detail).toContain("32 levels")
      }
      expect(yield* Effect.flatMap(Ledger, (ledger) => ledger.balance(accountId))).toBe(5)
    }))

  it.effect("MCP-2: on /mcp a tool argument nested 5,000 deep is a tool error with the same Problem Detail, never the raw stack overflow", () =>
    Effect.gen(function*() {
      const { accountId, apiKey } = yield* newAccount({ credits: 5 })
      const headers = {
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18"
      }
      for (const tool of ["score_property", "validate_request", "property_history", "score_property_batch"]) {
        const response = yield* request("/mcp", {
          key: apiKey,
          headers,
          body:
            `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool}","arguments":{"address":${deep}}}}`
        })
        expect(response.text).not.toContain("Maximum call stack")
        expect(response.status, response.text).toBe(200)
        const { result } = jsonRpcMessage(response.text)
        expect(result.isError).toBe(true)
        expect(JSON.parse(result.content[0].text)).toMatchObject({
          type: `${TEST_BASE_URL}/docs/errors/invalid-request`,
          status: 400
        })
      }
      // Deep anywhere else in the message: refused, never a stack overflow.
      const elsewhere = yield* request("/mcp", {
        key: apiKey,
        headers,
        body: `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"x":${deep}}}}`
      })
      expect(elsewhere.text).not.toContain("Maximum call stack")
      expectProblem(elsewhere, 400, "invalid-request")
      expect(yield* Effect.flatMap(Ledger, (ledger) => ledger.balance(accountId))).toBe(5)
    }))

  it.effect("NUL and other control characters in what sign-in stores are 400 OAuth errors, never a 500", () =>
    Effect.gen(function*() {
      const register = (metadata: Record<string, unknown>) =>
        request("/oauth/register", {
          body: { client_name: "App", redirect_uris: ["https://app.example/cb"], ...metadata }
        })
      const nulUri = yield* register({ redirect_uris: ["https://app.example/cb\u0000"] })
      expect(nulUri.status).toBe(400)
      expect(nulUri.body.error).toBe("invalid_redirect_uri")
      for (
        const metadata of [{ client_name: "A\u0000pp" }, { scope: "mcp\u0000" }, {
          logo_uri: "https://a.example/\u0007"
        }]
      ) {
        const refused = yield* register(metadata)
        expect(refused.status).toBe(400)
        expect(refused.body.error).toBe("invalid_client_metadata")
      }
      const registered = yield* register({})
      expect(registered.status).toBe(201)
      const clientId: string = registered.body.client_id
      // The authorization request is stored while the holder signs in: its parameters are checked first.
      const authorize = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: "https://app.example/cb",
        code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
        code_challenge_method: "S256",
        state: "abc\u0000def"
      })
      const page = yield* request(`/oauth/authorize?${authorize}`)
      expect(page.status).toBe(400)
      expect(page.text).toContain("control characters")
      const token = yield* request("/oauth/token", {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code: "x", client_id: `${clientId}\u0000` })
          .toString()
      })
      expect(token.status).toBe(400)
      expect(token.body.error).toBe("invalid_request")
    }))

  it.effect("an id with a NUL in the path names nothing: 404, never a 500", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const response = yield* request("/v1/account/connections/conn_%00x", { method: "DELETE", key: apiKey })
      expectProblem(response, 404, "not-found")
    }))

  it.effect("a chunked body over the 1 MiB cap is a 413 request-too-large with a trace id, not a reset connection", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      const base = new URL(yield* baseUrl)
      const response = yield* Effect.async<{ status: number; headers: Record<string, string>; body: any }>((resume) => {
        const outgoing = http.request({
          host: "127.0.0.1",
          port: Number(base.port),
          path: "/v1/predict",
          method: "POST",
          headers: {
            authorization: `Bearer ${apiKey}`,
            "content-type": "application/json",
            "transfer-encoding": "chunked"
          }
        }, (incoming) => {
          let text = ""
          incoming.on("data", (chunk) => (text += chunk))
          incoming.on("end", () =>
            resume(Effect.succeed({
              status: incoming.statusCode!,
              headers: incoming.headers as Record<string, string>,
              body: JSON.parse(text)
            })))
        })
        outgoing.on("error", (error) => resume(Effect.die(error)))
        const chunk = Buffer.alloc(64 * 1024, " ")
        outgoing.write("{\"address\": \"1 Main St\", \"pad\": \"")
        for (let i = 0; i < 24; i++) outgoing.write(chunk)
        outgoing.end("\"}")
      })
      expectProblem(response, 413, "request-too-large")
      expect(response.body.limit_bytes).toBe(1024 * 1024)
    }))

  it.effect("headers past Node's 16 KiB are a 431 Problem Detail with a trace id; an unparsable request a 400", () =>
    Effect.gen(function*() {
      const big = parse(
        yield* raw(`GET /v1/validate HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)
      )
      expectProblem(big, 431, "request-headers-too-large")
      const broken = parse(yield* raw("GET /v1/validate HTTP/1.1\r\nHost x\r\n\r\n"))
      expectProblem(broken, 400, "invalid-request")
    }))

  it.effect("kept-alive connections are held 65 s, longer than clients' and load balancers' own idle timeouts", () =>
    Effect.gen(function*() {
      const kept = yield* raw(
        "GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\nGET /openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
      )
      expect(kept.toLowerCase()).toContain("keep-alive: timeout=65")
    }))
})
