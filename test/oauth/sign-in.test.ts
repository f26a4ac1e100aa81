/**
 * Account sign-in for AI assistants, end to end against the real server: the SDK's own clients of both
 * protocol generations discover sign-in from the 401, register (dynamic registration or a client metadata
 * document), send the account holder to the consent page, exchange the code with PKCE, call tools as the
 * Account, refresh, and are cut off by a disconnect.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https"
import * as path from "node:path"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { ConnectionsPg } from "../../layers/connections/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { PortalSessionsPg } from "../../layers/portal-sessions/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { AppConfig } from "../../src/config.js"
import { newAccessToken } from "../../src/domain/oauth-token.js"
import { HttpAppLive, nodeServer } from "../../src/http/server.js"
import { ClientMetadataFetcherLive } from "../../src/oauth/clients.js"
import { purgeExpiredSignIns } from "../../src/operations/housekeeping.js"
import { SettlementLive } from "../../src/operations/settlement.js"
import { disconnect, listConnections, setLogin } from "../../src/operations/sign-in.js"
import { Accounts } from "../../src/services/accounts.js"
import { Connections } from "../../src/services/connections.js"
import { Ledger } from "../../src/services/ledger.js"
import { FaultyTestDatabase } from "../harness/database.js"
import { fakeScoringLayer, type ScriptEntry } from "../harness/fake-scoring.js"
import { DatabaseFaultsTag } from "../harness/fault-proxy.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { freePort } from "../harness/process.js"
import { newAccount } from "../harness/server.js"

const tls = path.join(import.meta.dirname, "../fixtures/tls")
const cert = fs.readFileSync(path.join(tls, "cert.pem"), "utf8")
const key = fs.readFileSync(path.join(tls, "key.pem"), "utf8")

const script: Record<string, ScriptEntry> = { "42 Elm St": { answer: { _tag: "Outcome", outcome } } }

/**
 * Counts every call the server makes to the Ledger for requests (VAL-3: exactly one read for a connected app's
 * validate). The node's own background rounds (its heartbeat every 2 s, the sweeper's look for overdue Spends
 * and dead nodes) run on real time beside the request and are not counted: on a busy machine a heartbeat
 * landed inside the request once.
 */
const BACKGROUND_LEDGER_CALLS: ReadonlySet<string> = new Set(["heartbeat", "overdue", "forgetNodes"])
let ledgerCalls: Array<string> = []
const CountingLedger = Layer.effect(
  Ledger,
  Effect.map(Ledger, (ledger) =>
    Object.fromEntries(
      Object.entries(ledger).map(([name, member]) => [
        name,
        typeof member === "function"
          ? (...args: Array<unknown>) => {
            if (!BACKGROUND_LEDGER_CALLS.has(name)) ledgerCalls.push(name)
            return (member as (...a: Array<unknown>) => unknown)(...args)
          }
          : member
      ])
    ) as unknown as Ledger["Type"])
).pipe(Layer.provide(LedgerPg))

/**
 * The real server on a port picked up front, so its public base URL (the issuer, the resource) is the
 * address the clients reach: http on localhost, which the SDK's clients accept for development.
 */
const SignInServer = Layer.unwrapEffect(
  Effect.promise(freePort).pipe(Effect.map((port) => {
    const config = Layer.succeed(AppConfig, AppConfig.make({ port, publicBaseUrl: `http://localhost:${port}` }))
    const services = Layer.mergeAll(
      AccountsPg,
      CredentialsPg,
      CountingLedger,
      IdempotencyPg,
      ConnectionsPg,
      PortalSessionsPg,
      RateLimitsMemory,
      // Development: the test's own metadata server is on loopback, with a self-signed certificate.
      ClientMetadataFetcherLive({ allowPrivateAddresses: true, ca: cert })
    ).pipe(Layer.provideMerge(FaultyTestDatabase), Layer.merge(fakeScoringLayer(script, {})))
    return HttpAppLive.pipe(
      Layer.provideMerge(nodeServer(port)),
      Layer.provideMerge(SettlementLive.pipe(Layer.provideMerge(services))),
      Layer.provideMerge(config)
    )
  }))
)

const base = Effect.map(AppConfig, (config) => config.publicBaseUrl)

/** An account holder with a login and Credits. */
const holder = (credits = 10, rateLimitPerMinute?: number) =>
  Effect.gen(function*() {
    const account = yield* newAccount(rateLimitPerMinute === undefined ? { credits } : { credits, rateLimitPerMinute })
    const email = `holder-${randomBytes(4).toString("hex")}@example.com`
    const password = "correct horse battery staple"
    yield* setLogin(account.accountId, email, password)
    return { ...account, email, password }
  })

/** The account holder at the consent page: signs in and answers; returns the redirect's query. */
const consent = (authorizationUrl: URL, email: string, password: string, decision = "approve") =>
  Effect.promise(async () => {
    const page = await fetch(authorizationUrl, { redirect: "manual" })
    const html = await page.text()
    expect(page.status, html).toBe(200)
    expect(page.headers.get("x-frame-options")).toBe("DENY")
    const requestId = /name="request_id" value="([^"]+)"/.exec(html)![1]!
    const answer = await fetch(new URL("/oauth/authorize", authorizationUrl), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ request_id: requestId, email, password, decision })
    })
    expect(answer.status).toBe(303)
    return new URL(answer.headers.get("location")!)
  })

const REDIRECT = "http://127.0.0.1:9/callback"

/** An in-memory OAuth client provider, as an assistant keeps one. */
class AssistantProvider {
  info: any
  stored: any
  verifier = ""
  authorizationUrl: URL | undefined
  constructor(readonly clientMetadataUrl?: string) {}
  get redirectUrl() {
    return REDIRECT
  }
  get clientMetadata() {
    return {
      client_name: "Test assistant",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none"
    }
  }
  clientInformation() {
    return this.info ?? (this.clientMetadataUrl ? { client_id: this.clientMetadataUrl } : undefined)
  }
  saveClientInformation(info: unknown) {
    this.info = info
  }
  tokens() {
    return this.stored
  }
  saveTokens(tokens: unknown) {
    this.stored = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
  discovery: unknown
  saveDiscoveryState(state: unknown) {
    this.discovery = state
  }
  discoveryState() {
    return this.discovery
  }
}

interface McpClient {
  connect: (transport: any) => Promise<void>
  listTools: () => Promise<{ tools: ReadonlyArray<{ name: string }> }>
  callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<any>
  readResource: (params: { uri: string }) => Promise<{ contents: ReadonlyArray<{ text?: string }> }>
  close: () => Promise<void>
}

type Generation = "2026-07-28" | "2025"

const newClient = (generation: Generation, mcpUrl: URL, provider: AssistantProvider) => {
  if (generation === "2026-07-28") {
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider as any })
    const client = new Client({ name: "assistant", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } }
    })
    return { client: client as unknown as McpClient, transport: transport as any }
  }
  const transport = new LegacyTransport(mcpUrl, { authProvider: provider as any })
  const client = new LegacyClient({ name: "assistant-2025", version: "1.0.0" })
  return { client: client as unknown as McpClient, transport: transport as any }
}

/**
 * What an assistant does given only the server URL: the first call is refused with 401, the SDK discovers
 * sign-in from the challenge and registers, the account holder approves, the code is exchanged.
 * Returns a connected client.
 */
const signIn = (generation: Generation, provider: AssistantProvider, email: string, password: string) =>
  Effect.gen(function*() {
    const mcpUrl = new URL(`${yield* base}/mcp`)
    const first = newClient(generation, mcpUrl, provider)
    const refused = yield* Effect.promise(() =>
      first.client.connect(first.transport).then(() => first.client.listTools()).then(
        () => "connected",
        (error) => String(error)
      )
    )
    expect(refused).toMatch(/Unauthorized/i)
    expect(provider.authorizationUrl).toBeDefined()
    const url = provider.authorizationUrl!
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("resource")).toBe(mcpUrl.toString())
    const callback = yield* consent(url, email, password)
    expect(callback.searchParams.get("iss")).toBe(yield* base)
    expect(callback.searchParams.get("state")).toBe(url.searchParams.get("state"))
    const code = callback.searchParams.get("code")!
    yield* Effect.promise(() =>
      generation === "2026-07-28" ? first.transport.finishAuth(callback.searchParams) : first.transport.finishAuth(code)
    )
    const second = newClient(generation, mcpUrl, provider)
    yield* Effect.promise(() => second.client.connect(second.transport))
    return second.client
  })

const call = (client: McpClient, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

const postForm = (url: string, params: Record<string, string>) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(params)
    })
    return { status: response.status, body: await response.json().catch(() => null) as any, headers: response.headers }
  })

const mcpToolCall = (token: string, name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const url = `${yield* base}/mcp`
    return yield* Effect.promise(async () => {
      const response = await fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": name
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: {
            name,
            arguments: args,
            _meta: {
              "io.modelcontextprotocol/protocolVersion": "2026-07-28",
              "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
              "io.modelcontextprotocol/clientCapabilities": {}
            }
          }
        })
      })
      return { status: response.status, headers: response.headers, text: await response.text() }
    })
  })

for (const generation of ["2026-07-28", "2025"] as const) {
  layer(SignInServer, { timeout: "180 seconds", excludeTestServices: true })(
    `account sign-in, ${generation} client`,
    (it) => {
      it.effect("AUTH-2 AUTH-3 MCP-1: given only the URL, the client discovers sign-in, registers, the holder approves, score_property spends the Account's one Credit, and the app reads the Balance", () =>
        Effect.gen(function*() {
          const { accountId, email, password } = yield* holder(10)
          const provider = new AssistantProvider()
          const client = yield* signIn(generation, provider, email, password)
          expect(provider.info.client_id).toMatch(/^client_/)
          const { tools } = yield* Effect.promise(() => client.listTools())
          expect(tools.map((t) => t.name).sort()).toEqual([
            "property_history",
            "score_property",
            "score_property_batch",
            "validate_request"
          ])
          const scored = yield* call(client, "score_property", { address: "42 Elm St" })
          expect(scored.isError).toBeFalsy()
          expect(yield* reconciles(accountId)).toBe(9)
          // The connected app reads the Account's Balance (a resource, not a tool; free).
          const account = yield* Effect.promise(() => client.readResource({ uri: "propscore://account" }))
          expect(JSON.parse(account.contents[0]!.text!)).toMatchObject({ account_id: accountId, balance: 9 })
          expect(yield* reconciles(accountId)).toBe(9)
          const entries = yield* Effect.flatMap(Ledger, (ledger) => ledger.entries(accountId))
          expect(entries.filter((e) => e.kind === "spend")).toHaveLength(1)

          // The connection is listed with its date; disconnecting it makes the next call fail 401, with no spend.
          const connections = yield* listConnections(accountId)
          expect(connections).toEqual([
            expect.objectContaining({ client_name: "Test assistant", connected_at: expect.any(String) })
          ])
          yield* disconnect(accountId, connections[0]!.connection_id)
          const after = yield* mcpToolCall(provider.stored.access_token, "score_property", { address: "42 Elm St" })
          expect(after.status).toBe(401)
          expect(after.headers.get("www-authenticate")).toContain("/.well-known/oauth-protected-resource/mcp")
          expect(yield* reconciles(accountId)).toBe(9)
          // Its refresh token died with it.
          const refreshed = yield* postForm(`${yield* base}/oauth/token`, {
            grant_type: "refresh_token",
            refresh_token: provider.stored.refresh_token,
            client_id: provider.info.client_id
          })
          expect(refreshed.status).toBe(400)
          expect(refreshed.body.error).toBe("invalid_grant")
          yield* Effect.promise(() => client.close())
        }))
    }
  )
}

layer(SignInServer, { timeout: "180 seconds", excludeTestServices: true })("the authorization server", (it) => {
  it.effect("MCP-5 AUTH-2: the discovery documents: protected resource (RFC 9728) and authorization server (RFC 8414)", () =>
    Effect.gen(function*() {
      const root = yield* base
      const resource = yield* Effect.promise(() =>
        fetch(`${root}/.well-known/oauth-protected-resource/mcp`).then((r) => r.json())
      )
      expect(resource).toMatchObject({
        resource: `${root}/mcp`,
        authorization_servers: [root],
        scopes_supported: ["mcp"],
        bearer_methods_supported: ["header"]
      })
      const server = yield* Effect.promise(() =>
        fetch(`${root}/.well-known/oauth-authorization-server`).then((r) => r.json())
      )
      expect(server).toMatchObject({
        issuer: root,
        authorization_endpoint: `${root}/oauth/authorize`,
        token_endpoint: `${root}/oauth/token`,
        registration_endpoint: `${root}/oauth/register`,
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true
      })
      const api = yield* Effect.promise(() =>
        fetch(`${root}/.well-known/oauth-protected-resource`).then((r) => r.json())
      )
      expect(api).toMatchObject({ resource: root, authorization_servers: [root] })
    }))

  it.effect("AUTH-2: a client identified by its metadata document (CIMD) signs in with no registration; the document is fetched once and cached", () =>
    Effect.gen(function*() {
      const { accountId, email, password } = yield* holder(5)
      let fetches = 0
      const documentServer = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<HttpsServer>((resolve) => {
            const server = createHttpsServer({ key, cert }, (req, res) => {
              fetches++
              const port = (server.address() as { port: number }).port
              const clientId = `https://localhost:${port}/assistant/client.json`
              res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" })
              res.end(JSON.stringify({
                client_id: clientId,
                client_name: "Metadata assistant",
                redirect_uris: [REDIRECT],
                grant_types: ["authorization_code", "refresh_token"],
                response_types: ["code"],
                token_endpoint_auth_method: "none"
              }))
            }).listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const clientId = `https://localhost:${(documentServer.address() as { port: number }).port}/assistant/client.json`
      const provider = new AssistantProvider(clientId)
      const client = yield* signIn("2026-07-28", provider, email, password)
      const scored = yield* call(client, "score_property", { address: "42 Elm St" })
      expect(scored.isError).toBeFalsy()
      expect(yield* reconciles(accountId)).toBe(4)
      expect(yield* listConnections(accountId)).toEqual([
        expect.objectContaining({ client_id: clientId, client_name: "Metadata assistant" })
      ])
      expect(fetches).toBe(1)
      yield* Effect.promise(() => client.close())
    }).pipe(Effect.scoped))

  it.effect("a metadata document that does not name its own URL as client_id, or is not https, is refused on the page, never redirected to", () =>
    Effect.gen(function*() {
      const documentServer = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<HttpsServer>((resolve) => {
            const server = createHttpsServer({ key, cert }, (_req, res) => {
              res.writeHead(200, { "content-type": "application/json" })
              res.end(
                JSON.stringify({ client_id: "https://someone-else.example/client.json", redirect_uris: [REDIRECT] })
              )
            }).listen(0, "127.0.0.1", () => resolve(server))
          })
        ),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const root = yield* base
      const authorize = (clientId: string) =>
        Effect.promise(() =>
          fetch(
            `${root}/oauth/authorize?${new URLSearchParams({
              response_type: "code",
              client_id: clientId,
              redirect_uri: REDIRECT,
              code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
              code_challenge_method: "S256"
            })}`,
            { redirect: "manual" }
          ).then(async (r) => ({ status: r.status, location: r.headers.get("location"), text: await r.text() }))
        )
      const mismatch = yield* authorize(
        `https://localhost:${(documentServer.address() as { port: number }).port}/client.json`
      )
      expect(mismatch.status).toBe(400)
      expect(mismatch.location).toBeNull()
      expect(mismatch.text).toContain("does not name its own URL")
      const plain = yield* authorize("http://localhost:9/client.json")
      expect(plain.status).toBe(400)
      expect(plain.location).toBeNull()
    }).pipe(Effect.scoped))

  /** A registered client and a PKCE pair, for driving the endpoints by hand. */
  const registered = Effect.gen(function*() {
    const root = yield* base
    const registration = yield* Effect.promise(() =>
      fetch(`${root}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Hand client", redirect_uris: [REDIRECT] })
      }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
    )
    expect(registration.status).toBe(201)
    expect(registration.body).toMatchObject({ token_endpoint_auth_method: "none", redirect_uris: [REDIRECT] })
    const verifier = randomBytes(32).toString("base64url")
    const challenge = createHash("sha256").update(verifier).digest("base64url")
    const authorize = (extra: Record<string, string> = {}) =>
      new URL(`${root}/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: registration.body.client_id,
        redirect_uri: REDIRECT,
        state: "s-1",
        code_challenge: challenge,
        code_challenge_method: "S256",
        resource: `${root}/mcp`,
        ...extra
      })}`)
    return { root, clientId: registration.body.client_id as string, verifier, authorize }
  })

  const redirectOf = (url: URL) =>
    Effect.promise(async () => {
      const response = await fetch(url, { redirect: "manual" })
      return { status: response.status, location: response.headers.get("location"), text: await response.text() }
    })

  /** A refusal before the holder acted: a 400 page whose only way back is a link carrying the error. */
  const refusalOf = (url: URL) =>
    Effect.gen(function*() {
      const page = yield* redirectOf(url)
      expect(page.status).toBe(400)
      expect(page.location).toBeNull()
      const href = /<a href="([^"]+)"/.exec(page.text)![1]!.replace(/&amp;/g, "&")
      return Object.fromEntries(new URL(href).searchParams)
    })

  it.effect("PKCE S256 is required; plain, a missing challenge, another resource or a bad scope are refused with a link back carrying the error and iss, never an automatic redirect; a foreign redirect_uri gets no link at all", () =>
    Effect.gen(function*() {
      const { authorize, root } = yield* registered
      expect(yield* refusalOf(authorize({ code_challenge_method: "plain" }))).toMatchObject({
        error: "invalid_request",
        state: "s-1",
        iss: root
      })
      const noChallenge = new URL(authorize())
      noChallenge.searchParams.delete("code_challenge")
      expect((yield* refusalOf(noChallenge)).error).toBe("invalid_request")
      expect((yield* refusalOf(authorize({ resource: "https://elsewhere.example/mcp" }))).error).toBe("invalid_target")
      expect((yield* refusalOf(authorize({ scope: "admin" }))).error).toBe("invalid_scope")
      expect((yield* refusalOf(authorize({ response_type: "token" }))).error).toBe("unsupported_response_type")
      for (
        const bad of [
          authorize({ redirect_uri: "https://attacker.example/cb" }),
          authorize({ client_id: "client_nobody" })
        ]
      ) {
        const page = yield* redirectOf(bad)
        expect(page.status).toBe(400)
        expect(page.location).toBeNull()
        expect(page.text).not.toContain("<a href")
      }
      const noRedirect = new URL(authorize())
      noRedirect.searchParams.delete("redirect_uri")
      expect((yield* redirectOf(noRedirect)).status).toBe(400)
    }))

  it.effect("a scope this server does not offer is registered as the one it does, and left out of a grant beside it (an agent audit: registered `mcp openid`, then refused at sign-in)", () =>
    Effect.gen(function*() {
      const { email, password } = yield* holder(1)
      const { authorize, clientId, root, verifier } = yield* registered
      const registration = yield* Effect.promise(() =>
        fetch(`${root}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ client_name: "Habit client", redirect_uris: [REDIRECT], scope: "mcp openid" })
        }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
      )
      expect(registration).toMatchObject({ status: 201, body: { scope: "mcp" } })
      const callback = yield* consent(authorize({ scope: "mcp openid" }), email, password)
      const exchanged = yield* postForm(`${root}/oauth/token`, {
        grant_type: "authorization_code",
        code: callback.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier
      })
      expect(exchanged.status).toBe(200)
      expect(exchanged.body).toMatchObject({ scope: "mcp" })
      // None offered is still refused.
      expect((yield* refusalOf(authorize({ scope: "openid profile" }))).error).toBe("invalid_scope")
    }))

  it.effect("AUTH-2: a loopback redirect URI matches on any port (native apps, RFC 8252), and the code must be redeemed with that same URI (else invalid_grant; no verifier, invalid_request)", () =>
    Effect.gen(function*() {
      const { email, password } = yield* holder(1)
      const { authorize, clientId, root, verifier } = yield* registered
      const onAnotherPort = "http://127.0.0.1:51234/callback"
      const callback = yield* consent(authorize({ redirect_uri: onAnotherPort }), email, password)
      expect(callback.origin).toBe("http://127.0.0.1:51234")
      const code = callback.searchParams.get("code")!
      const exchanged = yield* postForm(`${root}/oauth/token`, {
        grant_type: "authorization_code",
        code,
        redirect_uri: onAnotherPort,
        client_id: clientId,
        code_verifier: verifier
      })
      expect(exchanged.status).toBe(200)
      expect((yield* redirectOf(authorize({ redirect_uri: "http://127.0.0.1:51234/other" }))).status).toBe(400)
      // RFC 6749 §5.2: another redirect URI than the code's is invalid_grant; a missing verifier invalid_request
      // (the library had them the other way round: an assistant developer's audit, 2026-11-30).
      const redeemed = (extra: Record<string, string>, omit?: string) =>
        Effect.flatMap(consent(authorize(), email, password), (issued) => {
          const form: Record<string, string> = {
            grant_type: "authorization_code",
            code: issued.searchParams.get("code")!,
            redirect_uri: REDIRECT,
            client_id: clientId,
            code_verifier: verifier,
            ...extra
          }
          if (omit !== undefined) delete form[omit]
          return postForm(`${root}/oauth/token`, form)
        })
      expect((yield* redeemed({ redirect_uri: "http://127.0.0.1:9/other" })).body.error).toBe("invalid_grant")
      expect((yield* redeemed({}, "code_verifier")).body.error).toBe("invalid_request")
    }))

  it.effect("the code is single use, bound to its verifier and redirect URI; tokens are stored hashed; refresh rotates and a reused refresh token revokes the grant", () =>
    Effect.gen(function*() {
      const { accountId, email, password } = yield* holder(5)
      const { authorize, clientId, root, verifier } = yield* registered
      const token = `${root}/oauth/token`
      const callback = yield* consent(authorize(), email, password)
      const code = callback.searchParams.get("code")!
      const wrongVerifier = yield* postForm(token, {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: randomBytes(32).toString("base64url")
      })
      expect(wrongVerifier.body.error).toBe("invalid_grant")
      // A failed verification uses the code up (no guessing): a new authorization is needed.
      const used = yield* postForm(token, {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier
      })
      expect(used.body.error).toBe("invalid_grant")

      const again = yield* consent(authorize(), email, password)
      const exchanged = yield* postForm(token, {
        grant_type: "authorization_code",
        code: again.searchParams.get("code")!,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${root}/mcp`
      })
      expect(exchanged.status).toBe(200)
      expect(exchanged.headers.get("cache-control")).toBe("no-store")
      expect(exchanged.body).toMatchObject({ token_type: "Bearer", expires_in: expect.any(Number), scope: "mcp" })
      expect(exchanged.body.expires_in).toBeGreaterThan(3590)
      const { access_token, refresh_token } = exchanged.body as { access_token: string; refresh_token: string }
      expect(access_token).toMatch(/^psat_/)

      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ token_sha256: Uint8Array }>`SELECT token_sha256 FROM oauth_tokens`
      const hashes = stored.map((row) => Buffer.from(row.token_sha256).toString("hex"))
      expect(hashes).toContain(createHash("sha256").update(access_token).digest("hex"))
      const dump = JSON.stringify(yield* sql`SELECT * FROM oauth_tokens`)
      expect(dump).not.toContain(access_token)
      expect(dump).not.toContain(refresh_token)

      // Passwords are kept as scrypt hashes with their parameters, never as given.
      const [login] = yield* sql<
        { password_hash: string }
      >`SELECT password_hash FROM account_logins WHERE account_id = ${accountId}`
      expect(login!.password_hash).toMatch(/^scrypt\$17\$8\$1\$/)
      expect(login!.password_hash).not.toContain(password)

      // The access token is for /mcp only (its audience), not the API.
      const onApi = yield* Effect.promise(() =>
        fetch(`${root}/v1/validate`, {
          method: "POST",
          headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
          body: JSON.stringify({ address: "42 Elm St" })
        }).then((r) => r.status)
      )
      expect(onApi).toBe(401)

      // Short-lived: once its hour is over, the access token is refused (the refresh token still works).
      expect((yield* mcpToolCall(access_token, "validate_request", { address: "42 Elm St" })).status).toBe(200)
      yield* sql`UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE token_sha256 = ${
        createHash("sha256").update(access_token).digest()
      }`
      expect((yield* mcpToolCall(access_token, "validate_request", { address: "42 Elm St" })).status).toBe(401)

      const rotated = yield* postForm(token, { grant_type: "refresh_token", refresh_token, client_id: clientId })
      expect(rotated.status).toBe(200)
      expect(rotated.body.refresh_token).not.toBe(refresh_token)
      const newAccess = rotated.body.access_token as string
      expect((yield* mcpToolCall(newAccess, "validate_request", { address: "42 Elm St" })).status).toBe(200)
      // The old refresh token again: reuse. The whole grant is revoked, the new tokens included.
      const reused = yield* postForm(token, { grant_type: "refresh_token", refresh_token, client_id: clientId })
      expect(reused.body.error).toBe("invalid_grant")
      expect((yield* mcpToolCall(newAccess, "validate_request", { address: "42 Elm St" })).status).toBe(401)
      const afterReuse = yield* postForm(token, {
        grant_type: "refresh_token",
        refresh_token: rotated.body.refresh_token,
        client_id: clientId
      })
      expect(afterReuse.body.error).toBe("invalid_grant")
      expect(yield* reconciles(accountId)).toBe(5)
    }))

  it.effect("an authorization code presented again is refused and revokes its grant, also against a token request racing it; housekeeping purges expired rows", () =>
    Effect.gen(function*() {
      const { accountId, email, password } = yield* holder(5)
      const { authorize, clientId, root, verifier } = yield* registered
      const token = `${root}/oauth/token`
      const code = (yield* consent(authorize(), email, password)).searchParams.get("code")!
      const redeem = {
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: verifier
      }
      const first = yield* postForm(token, redeem)
      expect(first.status).toBe(200)
      const { access_token, refresh_token } = first.body as { access_token: string; refresh_token: string }
      expect((yield* mcpToolCall(access_token, "validate_request", { address: "42 Elm St" })).status).toBe(200)

      // The same code again (a copy in other hands, or a client that retried): refused, and the tokens it
      // bought stop working, the refresh token included.
      const second = yield* postForm(token, redeem)
      expect(second.status).toBe(400)
      expect(second.body.error).toBe("invalid_grant")
      expect((yield* mcpToolCall(access_token, "validate_request", { address: "42 Elm St" })).status).toBe(401)
      const refreshed = yield* postForm(token, { grant_type: "refresh_token", refresh_token, client_id: clientId })
      expect(refreshed.body.error).toBe("invalid_grant")

      // Another authorization of the same connection is untouched by that revocation.
      const fresh = yield* postForm(token, {
        ...redeem,
        code: (yield* consent(authorize(), email, password)).searchParams.get("code")!
      })
      expect(fresh.status).toBe(200)
      expect(
        (yield* mcpToolCall(fresh.body.access_token as string, "validate_request", { address: "42 Elm St" })).status
      ).toBe(200)

      // A token request racing the revocation (it took the code before the replay, and saves its tokens
      // after): its tokens are saved revoked.
      const connections = yield* Connections
      const sql = yield* SqlClient.SqlClient
      const sha = (secret: string) => createHash("sha256").update(secret).digest()
      const [grant] = yield* sql<{ grant_id: string; connection_id: string }>`
        SELECT grant_id, connection_id FROM oauth_tokens WHERE token_sha256 = ${sha(access_token)}`
      const late = newAccessToken()
      yield* connections.saveTokens(
        {
          grantId: grant!.grant_id,
          connectionId: grant!.connection_id,
          accountId,
          clientId,
          scope: "mcp",
          resource: `${root}/mcp`
        },
        {
          accessSha256: sha(late),
          accessExpiresAt: new Date(Date.now() + 3_600_000),
          refreshSha256: null,
          refreshExpiresAt: null
        }
      )
      expect((yield* mcpToolCall(late, "validate_request", { address: "42 Elm St" })).status).toBe(401)

      // Housekeeping: an expired authorization request goes; used codes and tokens stay 30 days past their
      // expiry (to recognise a reuse), then go.
      const count = (table: "oauth_codes" | "oauth_tokens", column: "code_sha256" | "token_sha256", secret: string) =>
        Effect.map(sql`SELECT 1 FROM ${sql(table)} WHERE ${sql(column)} = ${sha(secret)}`, (rows) => rows.length)
      expect((yield* sql`SELECT 1 FROM oauth_codes WHERE code_sha256 = ${sha(code)} AND used_for IS NOT NULL`).length)
        .toBe(1)
      const abandoned = yield* Effect.promise(() => fetch(authorize(), { redirect: "manual" }))
      expect(abandoned.status).toBe(200)
      const [request] = yield* sql<{ id: string }>`SELECT id FROM oauth_requests ORDER BY expires_at DESC LIMIT 1`
      yield* sql`UPDATE oauth_requests SET expires_at = now() - interval '1 second' WHERE id = ${request!.id}`
      yield* sql`UPDATE oauth_codes SET expires_at = now() - interval '30 days' + interval '1 minute' WHERE code_sha256 = ${
        sha(code)
      }`
      yield* sql`UPDATE oauth_tokens SET expires_at = now() - interval '30 days' + interval '1 minute' WHERE token_sha256 = ${
        sha(access_token)
      }`
      yield* sql`UPDATE oauth_tokens SET expires_at = now() - interval '30 days' - interval '1 minute' WHERE token_sha256 = ${
        sha(refresh_token)
      }`
      expect(yield* purgeExpiredSignIns).toBeGreaterThanOrEqual(2)
      expect((yield* sql`SELECT 1 FROM oauth_requests WHERE id = ${request!.id}`).length).toBe(0)
      expect(yield* count("oauth_codes", "code_sha256", code)).toBe(1)
      expect(yield* count("oauth_tokens", "token_sha256", access_token)).toBe(1)
      expect(yield* count("oauth_tokens", "token_sha256", refresh_token)).toBe(0)
      yield* sql`UPDATE oauth_codes SET expires_at = now() - interval '30 days' - interval '1 minute' WHERE code_sha256 = ${
        sha(code)
      }`
      yield* purgeExpiredSignIns
      expect(yield* count("oauth_codes", "code_sha256", code)).toBe(0)
    }))

  it.effect("the consent page: deny goes back as access_denied; a wrong password shows the page again; five wrong ones drop the request", () =>
    Effect.gen(function*() {
      const { email, password } = yield* holder(1)
      const { authorize, root } = yield* registered
      const denied = yield* consent(authorize(), email, password, "deny")
      expect(Object.fromEntries(denied.searchParams)).toMatchObject({ error: "access_denied", state: "s-1", iss: root })

      const page = yield* Effect.promise(() => fetch(authorize()).then((r) => r.text()))
      const requestId = /name="request_id" value="([^"]+)"/.exec(page)![1]!
      const attempt = (pw: string) =>
        Effect.promise(() =>
          fetch(`${root}/oauth/authorize`, {
            method: "POST",
            redirect: "manual",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: new URLSearchParams({ request_id: requestId, email, password: pw, decision: "approve" })
          }).then(async (r) => ({ status: r.status, text: await r.text() }))
        )
      for (let i = 1; i < 5; i++) {
        const wrong = yield* attempt("not the password at all")
        expect(wrong.status).toBe(400)
        expect(wrong.text).toContain("The email or password is not right.")
      }
      expect((yield* attempt("not the password at all")).status).toBe(429)
      // Dropped: even the right password cannot use it now.
      expect((yield* attempt(password)).status).toBe(400)
    }))

  it.effect("password guesses are bounded per email across requests: past 10 a minute the page refuses with 429 before checking", () =>
    Effect.gen(function*() {
      const { email, password } = yield* holder(1)
      const { authorize, root } = yield* registered
      const guess = (pw: string) =>
        Effect.gen(function*() {
          const page = yield* Effect.promise(() => fetch(authorize()).then((r) => r.text()))
          const requestId = /name="request_id" value="([^"]+)"/.exec(page)![1]!
          return yield* Effect.promise(() =>
            fetch(`${root}/oauth/authorize`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded" },
              body: new URLSearchParams({
                request_id: requestId,
                email: email.toUpperCase(),
                password: pw,
                decision: "approve"
              })
            }).then(async (r) => ({ status: r.status, text: await r.text() }))
          )
        })
      for (let i = 0; i < 10; i++) expect((yield* guess(`wrong guess number ${i}`)).status).toBe(400)
      const throttled = yield* guess(password)
      expect(throttled.status).toBe(429)
      expect(throttled.text).toContain("sign-in attempts")
    }))

  it.effect("AUTH-3: the JSON route lists the Account's connections with their dates and disconnects one; another Account sees none and cannot touch it", () =>
    Effect.gen(function*() {
      const { apiKey, email, password } = yield* holder(2)
      const stranger = yield* newAccount()
      const provider = new AssistantProvider()
      const client = yield* signIn("2026-07-28", provider, email, password)
      yield* Effect.promise(() => client.close())
      const root = yield* base
      const get = (key: string) =>
        Effect.promise(() =>
          fetch(`${root}/v1/account/connections`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
            status: r.status,
            body: await r.json() as any
          }))
        )
      const del = (key: string, id: string) =>
        Effect.promise(() =>
          fetch(`${root}/v1/account/connections/${id}`, {
            method: "DELETE",
            headers: { authorization: `Bearer ${key}` }
          }).then(async (r) => ({ status: r.status, body: await r.json() as any }))
        )
      const mine = yield* get(apiKey)
      expect(mine.status).toBe(200)
      expect(mine.body.connections).toEqual([
        {
          connection_id: expect.stringMatching(/^conn_/),
          client_id: provider.info.client_id,
          client_name: "Test assistant",
          connected_at: expect.any(String)
        }
      ])
      const id = mine.body.connections[0].connection_id as string
      expect((yield* get(stranger.apiKey)).body).toEqual({ connections: [] })
      expect((yield* del(stranger.apiKey, id)).status).toBe(404)
      expect((yield* mcpToolCall(provider.stored.access_token, "validate_request", { address: "42 Elm St" })).status)
        .toBe(200)
      // A connected app's own token cannot reach the account routes.
      expect((yield* get(provider.stored.access_token)).status).toBe(401)
      const gone = yield* del(apiKey, id)
      expect(gone.status).toBe(200)
      expect(gone.body).toMatchObject({ connection_id: id, disconnected: true })
      expect((yield* mcpToolCall(provider.stored.access_token, "validate_request", { address: "42 Elm St" })).status)
        .toBe(401)
      expect((yield* get(apiKey)).body).toEqual({ connections: [] })
    }))

  it.effect("AUTH-3 LIM-1 AUTH-5: a connected app shares the Account's rate count with its keys, and the Account's Terms", () =>
    Effect.gen(function*() {
      // 20 a minute: each request holds its token for 3 s, so the three below are seen together.
      const { apiKey, email, password } = yield* holder(2, 20)
      const provider = new AssistantProvider()
      const client = yield* signIn("2026-07-28", provider, email, password)
      yield* Effect.promise(() => client.close())
      const root = yield* base
      const count = () =>
        fetch(`${root}/v1/validate`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ address: "42 Elm St" })
        }).then((r) =>
          /;r=(\d+);t=(\d+)/.exec(r.headers.get("ratelimit") ?? "")!.slice(1).map(Number) as [number, number]
        )
      const remaining = Effect.promise(() => count().then(([r]) => r))
      const before = yield* remaining
      const viaApp = yield* mcpToolCall(provider.stored.access_token, "validate_request", { address: "42 Elm St" })
      expect(viaApp.headers.get("ratelimit")).toMatch(new RegExp(`;r=${before - 1};`))
      expect(yield* remaining).toBe(before - 2)

      const accounts = yield* Accounts
      yield* accounts.publishTerms(`terms-${randomBytes(3).toString("hex")}`)
      const refused = yield* mcpToolCall(provider.stored.access_token, "score_property", { address: "42 Elm St" })
      expect(refused.text).toContain("terms-not-accepted")
    }))

  it.effect("VAL-3: validate by a connected app makes exactly one Ledger read to confirm the connection; while it fails, 503 call-not-started", () =>
    Effect.gen(function*() {
      const { accountId, email, password } = yield* holder(3)
      const provider = new AssistantProvider()
      const client = yield* signIn("2026-07-28", provider, email, password)
      yield* Effect.promise(() => client.close())
      const token = provider.stored.access_token as string

      ledgerCalls = []
      const valid = yield* mcpToolCall(token, "validate_request", { address: "42 Elm St" })
      expect(valid.status, valid.text).toBe(200)
      expect(valid.text).toContain("\\\"valid\\\":true")
      expect(ledgerCalls).toEqual(["confirmConnection"])

      const faults = yield* DatabaseFaultsTag
      yield* faults.cut
      const down = yield* mcpToolCall(token, "validate_request", { address: "42 Elm St" }).pipe(
        Effect.ensuring(faults.restore)
      )
      expect(down.status).toBe(503)
      expect(JSON.parse(down.text)).toMatchObject({ type: expect.stringContaining("/errors/call-not-started") })
      expect(yield* reconciles(accountId)).toBe(3)
    }))
})
