/**
 * Sign-in as the clients in the field do it, by plain HTTP against the real server: a hosted assistant that
 * registers asking for a client secret, a client that falls back to the root's protected-resource
 * document, a client told its token is no longer good, a client asking for a grant this server does not
 * run, and a browser-based client (MCP Inspector) that needs CORS.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { setLogin } from "../../src/operations/sign-in.js"
import { baseUrl, newAccount, request, TEST_BASE_URL, TestServer } from "../harness/server.js"

const REDIRECT = "http://127.0.0.1:9/callback"
const MCP_METADATA = `${TEST_BASE_URL}/.well-known/oauth-protected-resource/mcp`
const INSPECTOR = "http://localhost:6274"

/** An account holder with a login. */
const holder = Effect.gen(function*() {
  const account = yield* newAccount({ credits: 5 })
  const email = `holder-${randomBytes(4).toString("hex")}@example.com`
  const password = "correct horse battery staple"
  yield* setLogin(account.accountId, email, password)
  return { ...account, email, password }
})

const form = (path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
  request(path, {
    method: "POST",
    body: new URLSearchParams(params).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers }
  })

const basic = (clientId: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")}`

const register = (metadata: Record<string, unknown>) =>
  request("/oauth/register", {
    body: { client_name: "Hosted assistant", redirect_uris: [REDIRECT], ...metadata }
  })

/**
 * The authorization code of an approved request: the consent page is fetched, the holder signs in and
 * approves, and the code is read off the redirect.
 */
const authorize = (clientId: string, holderLogin: { email: string; password: string }, resource?: string) =>
  Effect.gen(function*() {
    const verifier = randomBytes(32).toString("base64url")
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      state: "s-1",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      ...(resource === undefined ? {} : { resource })
    })
    const page = yield* request(`/oauth/authorize?${query}`)
    expect(page.status, page.text).toBe(200)
    expect(page.headers.get("access-control-allow-origin")).toBeNull()
    const requestId = /name="request_id" value="([^"]+)"/.exec(page.text)![1]!
    const base = yield* baseUrl
    const answer = yield* Effect.promise(() =>
      fetch(`${base}/oauth/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ request_id: requestId, ...holderLogin, decision: "approve" })
      })
    )
    expect(answer.status).toBe(303)
    const code = new URL(answer.headers.get("location")!).searchParams.get("code")!
    return { code, verifier }
  })

/** A tool call on /mcp with a bearer token, as a 2026-07-28 client sends it. */
const validateOnMcp = (token: string | undefined, headers: Record<string, string> = {}) =>
  request("/mcp", {
    ...(token === undefined ? {} : { key: token }),
    headers: {
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "validate_request",
      ...headers
    },
    body: {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: {
        name: "validate_request",
        arguments: { address: "42 Elm St" },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {}
        }
      }
    }
  })

/** The parameters of a `WWW-Authenticate: Bearer …` challenge. */
const challengeOf = (header: string | null) => {
  expect(header).toMatch(/^Bearer /)
  return Object.fromEntries([...header!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]))
}

layer(TestServer, { timeout: "120 seconds", excludeTestServices: true })("sign-in interop", (it) => {
  it.effect("AUTH-2: a client registering with client_secret_post is registered public (none, no secret); its secret is ignored through code + PKCE, refresh and revocation", () =>
    Effect.gen(function*() {
      const login = yield* holder
      const registered = yield* register({
        token_endpoint_auth_method: "client_secret_post",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"]
      })
      expect(registered.status, registered.text).toBe(201)
      expect(registered.body.token_endpoint_auth_method).toBe("none")
      expect(registered.body.client_secret).toBeUndefined()
      const clientId = registered.body.client_id as string
      const secret = "a-secret-the-client-made-up"

      const { code, verifier } = yield* authorize(clientId, login)
      const issued = yield* form("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: clientId,
        client_secret: secret
      })
      expect(issued.status, issued.text).toBe(200)
      expect(issued.headers.get("cache-control")).toBe("no-store")
      expect(issued.body).toMatchObject({ token_type: "Bearer", scope: "mcp" })
      expect((yield* validateOnMcp(issued.body.access_token)).status).toBe(200)

      const refreshed = yield* form("/oauth/token", {
        grant_type: "refresh_token",
        refresh_token: issued.body.refresh_token,
        client_id: clientId,
        client_secret: secret
      })
      expect(refreshed.status, refreshed.text).toBe(200)
      const access = refreshed.body.access_token as string
      expect((yield* validateOnMcp(access)).status).toBe(200)

      const revoked = yield* form("/oauth/revoke", {
        token: refreshed.body.refresh_token,
        client_id: clientId,
        client_secret: secret
      })
      expect(revoked.status).toBe(200)
      expect((yield* validateOnMcp(access)).status).toBe(401)
      const afterRevocation = yield* form("/oauth/token", {
        grant_type: "refresh_token",
        refresh_token: refreshed.body.refresh_token,
        client_id: clientId
      })
      expect(afterRevocation.body.error).toBe("invalid_grant")
    }))

  it.effect("AUTH-2: a client registering with client_secret_basic gets none too, and may send its id and any secret in the Authorization header", () =>
    Effect.gen(function*() {
      const login = yield* holder
      const registered = yield* register({ token_endpoint_auth_method: "client_secret_basic" })
      expect(registered.status).toBe(201)
      expect(registered.body.token_endpoint_auth_method).toBe("none")
      expect(registered.body.client_secret).toBeUndefined()
      const clientId = registered.body.client_id as string
      const authorization = basic(clientId, "whatever")

      const { code, verifier } = yield* authorize(clientId, login)
      const issued = yield* form("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT
      }, { authorization })
      expect(issued.status, issued.text).toBe(200)
      const refreshed = yield* form("/oauth/token", {
        grant_type: "refresh_token",
        refresh_token: issued.body.refresh_token
      }, { authorization })
      expect(refreshed.status, refreshed.text).toBe(200)
      expect((yield* form("/oauth/revoke", { token: refreshed.body.access_token }, { authorization })).status).toBe(200)
      expect((yield* validateOnMcp(refreshed.body.access_token)).status).toBe(401)

      // Methods that need something other than a shared secret are still refused.
      const jwt = yield* register({ token_endpoint_auth_method: "private_key_jwt" })
      expect(jwt.status).toBe(400)
      expect(jwt.body.error).toBe("invalid_client_metadata")
    }))

  it.effect("MCP-5 AUTH-2: the root protected-resource document names the authorization server; a client that signs in from it asks for the root and gets a token for /mcp", () =>
    Effect.gen(function*() {
      const root = yield* request("/.well-known/oauth-protected-resource")
      expect(root.status).toBe(200)
      expect(root.body).toMatchObject({
        resource: TEST_BASE_URL,
        authorization_servers: [TEST_BASE_URL],
        scopes_supported: ["mcp"]
      })
      const server = yield* request("/.well-known/oauth-authorization-server")
      expect(server.body.issuer).toBe(root.body.authorization_servers[0])

      const login = yield* holder
      const clientId = (yield* register({})).body.client_id as string
      const { code, verifier } = yield* authorize(clientId, login, TEST_BASE_URL)
      const issued = yield* form("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: clientId,
        resource: TEST_BASE_URL
      })
      expect(issued.status, issued.text).toBe(200)
      expect((yield* validateOnMcp(issued.body.access_token)).status).toBe(200)
      // Still one audience: the API takes API keys only.
      const onApi = yield* request("/v1/validate", { key: issued.body.access_token, body: { address: "42 Elm St" } })
      expect(onApi.status).toBe(401)
    }))

  it.effect("AUTH-4 AUTH-3: a revoked or unknown bearer token on /mcp is a 401 invalid_token (RFC 6750) with resource_metadata, its body about the token; no credential keeps the bare challenge", () =>
    Effect.gen(function*() {
      const login = yield* holder
      const clientId = (yield* register({})).body.client_id as string
      const { code, verifier } = yield* authorize(clientId, login)
      const issued = yield* form("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: clientId
      })
      const access = issued.body.access_token as string
      expect((yield* validateOnMcp(access)).status).toBe(200)
      const connected = () =>
        Effect.map(
          request("/v1/account/connections", { method: "GET", headers: { authorization: `Bearer ${login.apiKey}` } }),
          (listed) => (listed.body as { connections: ReadonlyArray<unknown> }).connections.length
        )
      expect(yield* connected()).toBe(1)
      expect((yield* form("/oauth/revoke", { token: access, client_id: clientId })).status).toBe(200)
      // The app gave its grant up: the account holder no longer sees it as connected (an agent audit did).
      expect(yield* connected()).toBe(0)

      const randomAccessToken = `psat_${randomBytes(32).toString("base64url")}`
      const randomToken = randomBytes(24).toString("hex")
      for (const token of [access, randomAccessToken, randomToken]) {
        const refused = yield* validateOnMcp(token)
        expect(refused.status).toBe(401)
        expect(refused.headers.get("content-type")).toBe("application/problem+json")
        const challenge = challengeOf(refused.headers.get("www-authenticate"))
        expect(challenge).toEqual({
          resource_metadata: MCP_METADATA,
          error: "invalid_token",
          error_description: refused.body.detail
        })
        expect(refused.body).toMatchObject({ type: `${TEST_BASE_URL}/docs/errors/invalid-key`, status: 401 })
        expect(refused.body.detail).toMatch(/token/)
        expect(refused.body.detail).not.toMatch(/API key is|not a propscore API key/)
      }
      // A token in an API key's form is an API key refused: said so, with both ways on ("Sign in again" alone
      // misled an agent holding a revoked key).
      const unknownKey = yield* validateOnMcp(`ps_${"a".repeat(12)}_${"b".repeat(40)}`)
      expect(unknownKey.status).toBe(401)
      expect(unknownKey.body.detail).toBe(
        "The API key is not known. Send a current API key (an account holder issues one in the Portal), or sign " +
          "in: the `WWW-Authenticate` header's `resource_metadata` leads an MCP client to this server's account sign-in."
      )

      const none = yield* validateOnMcp(undefined)
      expect(none.status).toBe(401)
      expect(none.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${MCP_METADATA}"`)
    }))

  it.effect("AUTH-2: client_credentials and any other grant this server does not run is 400 unsupported_grant_type, whoever asks; a missing grant_type is invalid_request", () =>
    Effect.gen(function*() {
      const clientId = (yield* register({})).body.client_id as string
      for (
        const params of [
          { grant_type: "client_credentials", client_id: clientId, client_secret: "s" },
          { grant_type: "client_credentials" },
          { grant_type: "password", username: "a", password: "b", client_id: clientId },
          { grant_type: "urn:ietf:params:oauth:grant-type:device_code", client_id: "client_nobody" }
        ]
      ) {
        const refused = yield* form("/oauth/token", params)
        expect(refused.status, JSON.stringify(params)).toBe(400)
        expect(refused.body.error).toBe("unsupported_grant_type")
      }
      const basicCredentials = yield* form("/oauth/token", { grant_type: "client_credentials" }, {
        authorization: basic(clientId, "s")
      })
      expect(basicCredentials.status).toBe(400)
      expect(basicCredentials.body.error).toBe("unsupported_grant_type")
      const missing = yield* form("/oauth/token", { client_id: clientId })
      expect(missing.status).toBe(400)
      expect(missing.body.error).toBe("invalid_request")
    }))

  it.effect("MCP-5: CORS on /mcp for an allowed Origin: the preflight is answered with the headers MCP clients send, and every answer (a 401 included) exposes Mcp-Session-Id and WWW-Authenticate", () =>
    Effect.gen(function*() {
      const preflight = yield* request("/mcp", {
        method: "OPTIONS",
        headers: {
          origin: INSPECTOR,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization,content-type,mcp-protocol-version,mcp-session-id"
        }
      })
      expect(preflight.status).toBe(204)
      expect(preflight.headers.get("access-control-allow-origin")).toBe(INSPECTOR)
      expect(preflight.headers.get("vary")).toMatch(/Origin/)
      expect(preflight.headers.get("access-control-allow-methods")).toMatch(/\bPOST\b/)
      const allowed = preflight.headers.get("access-control-allow-headers")!.toLowerCase().split(/,\s*/)
      for (
        const header of ["authorization", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id"]
      ) {
        expect(allowed).toContain(header)
      }
      expect(preflight.headers.get("trace-id")).toMatch(/^[0-9a-f]{32}$/)

      const exposed = (response: { headers: Headers }) =>
        response.headers.get("access-control-expose-headers")!.toLowerCase().split(/,\s*/)
      const unauthenticated = yield* validateOnMcp(undefined, { origin: INSPECTOR })
      expect(unauthenticated.status).toBe(401)
      expect(unauthenticated.headers.get("access-control-allow-origin")).toBe(INSPECTOR)
      expect(exposed(unauthenticated)).toEqual(expect.arrayContaining(["mcp-session-id", "www-authenticate"]))

      const { apiKey } = yield* newAccount()
      const answered = yield* validateOnMcp(apiKey, { origin: INSPECTOR })
      expect(answered.status, answered.text).toBe(200)
      expect(answered.headers.get("access-control-allow-origin")).toBe(INSPECTOR)
      expect(exposed(answered)).toEqual(expect.arrayContaining(["mcp-session-id", "www-authenticate"]))

      // A client that sends no Origin (not a browser) is untouched.
      const server = yield* validateOnMcp(apiKey)
      expect(server.status).toBe(200)
      expect(server.headers.get("access-control-allow-origin")).toBeNull()
    }))

  it.effect("MCP-5: a disallowed Origin is refused on /mcp, preflight and request alike, with 403 and no CORS headers", () =>
    Effect.gen(function*() {
      const { apiKey } = yield* newAccount()
      for (const origin of ["https://evil.example", "null"]) {
        const preflight = yield* request("/mcp", {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST" }
        })
        expect(preflight.status).toBe(403)
        expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
        expect(preflight.headers.get("access-control-allow-headers")).toBeNull()
        const call = yield* validateOnMcp(apiKey, { origin })
        expect(call.status).toBe(403)
        expect(call.headers.get("access-control-allow-origin")).toBeNull()
      }
    }))

  it.effect("MCP-5 AUTH-2: the discovery documents, registration and token endpoints answer any origin, preflight and response, failures included", () =>
    Effect.gen(function*() {
      const origin = "https://assistant.example"
      for (
        const path of [
          "/.well-known/oauth-authorization-server",
          "/.well-known/oauth-protected-resource",
          "/.well-known/oauth-protected-resource/mcp",
          "/oauth/register",
          "/oauth/token",
          "/oauth/revoke"
        ]
      ) {
        const preflight = yield* request(path, {
          method: "OPTIONS",
          headers: {
            origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,mcp-protocol-version"
          }
        })
        expect(preflight.status, path).toBe(204)
        expect(preflight.headers.get("access-control-allow-origin")).toBe("*")
        expect(preflight.headers.get("access-control-allow-headers")!.toLowerCase()).toContain("content-type")
      }
      for (
        const path of [
          "/.well-known/oauth-authorization-server",
          "/.well-known/oauth-protected-resource",
          "/.well-known/oauth-protected-resource/mcp"
        ]
      ) {
        const document = yield* request(path, { headers: { origin } })
        expect(document.status).toBe(200)
        expect(document.headers.get("access-control-allow-origin")).toBe("*")
      }
      const registered = yield* request("/oauth/register", {
        body: { redirect_uris: [REDIRECT] },
        headers: { origin }
      })
      expect(registered.status).toBe(201)
      expect(registered.headers.get("access-control-allow-origin")).toBe("*")
      const refused = yield* form("/oauth/token", { grant_type: "authorization_code", code: "nope" }, { origin })
      expect(refused.status).toBe(400)
      expect(refused.headers.get("access-control-allow-origin")).toBe("*")
      // The consent page is a navigation, not a fetch: no CORS.
      const page = yield* request("/oauth/authorize", { headers: { origin } })
      expect(page.headers.get("access-control-allow-origin")).toBeNull()
      expect((yield* request("/oauth/authorize", { method: "OPTIONS", headers: { origin } })).status).toBe(405)
    }))
})
