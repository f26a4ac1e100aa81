/**
 * Who may ask for sign-in: registration metadata and redirect URIs, and the Client ID Metadata Document
 * fetcher's guards (https only, no private addresses outside development, bounded size, JSON only).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import { createServer, type Server } from "node:https"
import * as path from "node:path"
import {
  FETCH_TIMEOUT_MS,
  fetchMetadataDocument,
  isMetadataDocumentClientId,
  isPrivateAddress,
  MAX_DOCUMENT_BYTES,
  redirectUriMatches,
  redirectUriProblem,
  validateClientMetadata
} from "../../src/oauth/clients.js"

const tls = path.join(import.meta.dirname, "../fixtures/tls")
const cert = fs.readFileSync(path.join(tls, "cert.pem"), "utf8")
const key = fs.readFileSync(path.join(tls, "key.pem"), "utf8")

describe("client registration metadata", () => {
  it("redirect URIs: https, http only to loopback, private-use schemes; never fragments, credentials or script schemes", () => {
    expect(redirectUriProblem("https://app.example/cb")).toBeUndefined()
    expect(redirectUriProblem("http://127.0.0.1:33418/callback")).toBeUndefined()
    expect(redirectUriProblem("http://localhost/cb")).toBeUndefined()
    expect(redirectUriProblem("com.example.app:/oauth")).toBeUndefined()
    expect(redirectUriProblem("http://app.example/cb")).toContain("https")
    expect(redirectUriProblem("https://app.example/cb#frag")).toContain("fragment")
    expect(redirectUriProblem("https://user:pw@app.example/cb")).toContain("credentials")
    expect(redirectUriProblem("javascript:alert(1)")).toContain("scheme")
    expect(redirectUriProblem("/relative")).toContain("absolute")
  })

  it.effect("a registration is validated and answered as a public client; anything else is invalid_client_metadata", () =>
    Effect.gen(function*() {
      const ok = yield* validateClientMetadata({
        client_name: " Claude ",
        redirect_uris: ["https://claude.example/cb"]
      })
      expect(ok.metadata).toEqual({
        client_name: "Claude",
        redirect_uris: ["https://claude.example/cb"],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none"
      })
      const refused = (body: unknown) => Effect.either(validateClientMetadata(body)).pipe(Effect.map(Either.getLeft))
      expect(yield* refused({ redirect_uris: [] })).toMatchObject({ value: { error: "invalid_redirect_uri" } })
      expect(yield* refused({ redirect_uris: ["http://evil.example/cb"] })).toMatchObject({
        value: { error: "invalid_redirect_uri" }
      })
      expect(
        yield* refused({ redirect_uris: ["https://a.example/cb"], token_endpoint_auth_method: "client_secret_basic" })
      )
        .toMatchObject({ value: { error: "invalid_client_metadata" } })
      expect(yield* refused({ redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] }))
        .toMatchObject({ value: { error: "invalid_client_metadata" } })
      expect(yield* refused({ redirect_uris: ["https://a.example/cb"], response_types: ["token"] }))
        .toMatchObject({ value: { error: "invalid_client_metadata" } })
      expect(yield* refused([1, 2])).toMatchObject({ value: { error: "invalid_client_metadata" } })
    }))

  it("a loopback redirect URI matches on any port; every other one exactly", () => {
    expect(redirectUriMatches("http://127.0.0.1/cb", "http://127.0.0.1:4711/cb")).toBe(true)
    expect(redirectUriMatches("http://[::1]:80/cb", "http://[::1]:9999/cb")).toBe(true)
    expect(redirectUriMatches("http://127.0.0.1/cb", "http://127.0.0.1:4711/other")).toBe(false)
    expect(redirectUriMatches("https://app.example/cb", "https://app.example:8443/cb")).toBe(false)
    expect(redirectUriMatches("https://app.example/cb", "https://app.example/cb?x=1")).toBe(false)
  })

  it.effect("client names with control or formatting characters are refused (terminal escapes, right-to-left overrides)", () =>
    Effect.gen(function*() {
      for (const name of ["evil\u001b[2J", "gpt\u202Etxt.exe", "two\nlines"]) {
        const refused = yield* Effect.flip(
          validateClientMetadata({ client_name: name, redirect_uris: ["https://a.example/cb"] })
        )
        expect(refused.description).toContain("control or formatting")
      }
    }))

  it("a metadata-document client id is an https URL with a path and no fragment", () => {
    expect(isMetadataDocumentClientId("https://app.example/oauth/client.json")).toBe(true)
    expect(isMetadataDocumentClientId("https://app.example/")).toBe(false)
    expect(isMetadataDocumentClientId("http://app.example/client.json")).toBe(false)
    expect(isMetadataDocumentClientId("https://app.example/client.json#x")).toBe(false)
    expect(isMetadataDocumentClientId("client_abc")).toBe(false)
  })

  it("private, loopback, link-local and mapped addresses are recognised", () => {
    for (
      const address of [
        "127.0.0.1",
        "10.1.2.3",
        "172.20.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "::1",
        "fd00::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "0.0.0.0",
        "::7f00:1",
        "64:ff9b:1::a00:1",
        "2002:7f00:1::1",
        "fec0::1"
      ]
    ) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "::ffff:93.184.216.34"]) {
      expect(isPrivateAddress(address), address).toBe(false)
    }
  })
})

describe("the client metadata document fetcher", () => {
  const serve = (handler: (res: import("node:http").ServerResponse) => void) =>
    Effect.acquireRelease(
      Effect.promise(() =>
        new Promise<Server>((resolve) => {
          const server = createServer({ key, cert }, (_req, res) => handler(res)).listen(
            0,
            "127.0.0.1",
            () => resolve(server)
          )
        })
      ),
      (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
    ).pipe(Effect.map((server) => `https://localhost:${(server.address() as { port: number }).port}/client.json`))

  const development = { allowPrivateAddresses: true, ca: cert }

  it.scoped("outside development a loopback address is refused, by name or literally, before anything is sent", () =>
    Effect.gen(function*() {
      let requests = 0
      const url = yield* serve((res) => {
        requests++
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
      const byName = yield* Effect.flip(fetchMetadataDocument(url, { allowPrivateAddresses: false, ca: cert }))
      expect(byName.reason).toContain("private or loopback")
      const literal = yield* Effect.flip(
        fetchMetadataDocument(url.replace("localhost", "127.0.0.1"), { allowPrivateAddresses: false, ca: cert })
      )
      expect(literal.reason).toContain("private or loopback")
      expect(requests).toBe(0)
      // In development the same document is fetched.
      const fetched = yield* fetchMetadataDocument(url, development)
      expect(fetched.body).toEqual({})
      expect(requests).toBe(1)
    }))

  it.scoped("only https, only 200 JSON, at most 64 KiB, no redirects followed; the cache time is bounded", () =>
    Effect.gen(function*() {
      const plain = yield* Effect.flip(fetchMetadataDocument("http://localhost/client.json", development))
      expect(plain.reason).toContain("https")
      const redirecting = yield* serve((res) =>
        res.writeHead(302, { location: "https://elsewhere.example/c.json" }).end()
      )
      expect((yield* Effect.flip(fetchMetadataDocument(redirecting, development))).reason).toContain("302")
      const html = yield* serve((res) => res.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>"))
      expect((yield* Effect.flip(fetchMetadataDocument(html, development))).reason).toContain("not JSON")
      const huge = yield* serve((res) =>
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ pad: "x".repeat(MAX_DOCUMENT_BYTES) })
        )
      )
      expect((yield* Effect.flip(fetchMetadataDocument(huge, development))).reason).toContain("larger than")
      // A server that never answers is given up on after FETCH_TIMEOUT_MS.
      const silent = yield* serve(() => undefined)
      const started = Date.now()
      expect((yield* Effect.flip(fetchMetadataDocument(silent, development))).reason).toContain("did not arrive")
      expect(Date.now() - started).toBeGreaterThanOrEqual(FETCH_TIMEOUT_MS - 100)
      const long = yield* serve((res) =>
        res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=9999999" }).end("{}")
      )
      expect((yield* fetchMetadataDocument(long, development)).maxAgeSeconds).toBe(86_400)
      const none = yield* serve((res) =>
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end("{}")
      )
      expect((yield* fetchMetadataDocument(none, development)).maxAgeSeconds).toBe(300)
    }))
})
