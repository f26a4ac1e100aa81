/**
 * `POST /mcp` (interface "Agent tools"): the MCP TypeScript SDK's `createMcpHandler` mounted as a route of
 * the Effect server. It serves the current protocol revision (2026-07-28, stateless) and 2025-era clients
 * (stateless fallback; their GET and DELETE answer 405). Before the SDK sees a request, this route guards
 * against DNS rebinding (Host and Origin allowlists), authenticates the bearer credential and counts the
 * request, exactly as the REST routes do; the caller reaches the tools as the SDK's `authInfo`.
 *
 * Also the protected-resource metadata (RFC 9728) the 401 challenge points at, for `/mcp` and the API.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { createMcpHandler } from "@modelcontextprotocol/server"
import { Effect, Either, FiberRef, Option, Runtime } from "effect"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../../schema/decode.js"
import { problemBody } from "../../schema/problem-detail.js"
import { InvalidRequest } from "../../schema/problems.js"
import { AppConfig } from "../config.js"
import { costOfRefusal, mcpServerFor, toolResult, type ToolServices } from "../mcp/tools.js"
import { mcpResourceMetadata, oauthEndpoints, rootResourceMetadata } from "../oauth/metadata.js"
import type { Caller, Credentials } from "../services/credentials.js"
import type { Ledger } from "../services/ledger.js"
import type { RateLimits } from "../services/rate-limits.js"
import { Scoring } from "../services/scoring.js"
import { authenticateAndCount, bearerToken } from "./authenticate.js"
import { mcpAllowlists, mcpRebindingRefusal } from "./cors.js"
import { readJsonBody } from "./middleware.js"
import { CurrentTraceId } from "./trace.js"

interface CallerInfo {
  readonly caller: Caller
  readonly traceId: string
  readonly coverage: string | undefined
}

/** The id of a JSON-RPC `tools/call` request; undefined for any other message. */
const toolCallId = (body: Option.Option<unknown>): string | number | undefined => {
  if (Option.isNone(body)) return undefined
  const message = body.value as { method?: unknown; id?: unknown } | null
  if (typeof message !== "object" || message === null || Array.isArray(message)) return undefined
  return message.method === "tools/call" && (typeof message.id === "string" || typeof message.id === "number")
    ? message.id
    : undefined
}

/** A JSON-RPC message with a tool call's arguments left out. */
const withoutToolArguments = (message: unknown): unknown => {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return message
  const params = (message as { params?: unknown }).params
  if (typeof params !== "object" || params === null || Array.isArray(params)) return message
  return { ...message, params: { ...params, arguments: null } }
}

export const McpRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const runtime = yield* Effect.runtime<ToolServices>()
    const run = Runtime.runPromise(runtime)
    const authentication = yield* Effect.context<Credentials | RateLimits | Ledger>()
    const scoring = yield* Scoring
    const resource = oauthEndpoints(config.publicBaseUrl).resource
    const allowlists = mcpAllowlists(config.publicBaseUrl)

    const handler = createMcpHandler((context) => {
      const info = context.authInfo?.extra as unknown as CallerInfo
      return mcpServerFor({
        caller: info.caller,
        traceId: info.traceId,
        coverage: info.coverage,
        docsBaseUrl: config.docsBaseUrl,
        run
      })
    })

    yield* router.post(
      "/mcp",
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        // The SDK gets the body already parsed (below), so its Request carries the headers only.
        const url = Option.getOrElse(HttpServerRequest.toURL(request), () => new URL(`${config.publicBaseUrl}/mcp`))
        const headers = new Headers(request.headers as Record<string, string>)
        // `Accept: */*` (or none) accepts both of the answers the transport requires a client to list; the SDK
        // answered such a client 406 (a 2025-era client in an agent's audit). Any other Accept is the SDK's to judge.
        const accept = headers.get("accept")?.trim() ?? ""
        if (accept === "" || accept.split(",").some((range) => range.split(";")[0]!.trim() === "*/*")) {
          if (!/application\/json/i.test(accept) || !/text\/event-stream/i.test(accept)) {
            headers.set("accept", "application/json, text/event-stream")
          }
        }
        const web = new Request(url, { method: "POST", headers })
        // DNS rebinding: a page on another site must not reach this server through a name it controls.
        // The SDK's own checks answer 403 with a JSON-RPC error, before anything else is looked at.
        const rejected = mcpRebindingRefusal(url, request.headers, allowlists)
        if (rejected) return rejected

        const token = bearerToken(request.headers["authorization"])
        const traceId = yield* FiberRef.get(CurrentTraceId)
        const authenticated = yield* Effect.either(
          authenticateAndCount(token, resource).pipe(Effect.provide(authentication))
        )
        if (Either.isLeft(authenticated)) {
          const refusal = authenticated.left
          // A tool call over the rate limit is the tool's error, as the tools' descriptions say every
          // refusal is: an HTTP 429 would reach the model as a transport failure, not as something to act on.
          if (refusal._tag === "RateLimited") {
            const id = toolCallId(yield* Effect.option(readJsonBody(request)))
            if (id !== undefined) {
              return HttpServerResponse.unsafeJson({
                jsonrpc: "2.0",
                id,
                result: {
                  ...toolResult(
                    problemBody(refusal, { traceId, docsBaseUrl: config.docsBaseUrl }),
                    true,
                    undefined,
                    costOfRefusal(refusal)
                  ),
                  // Required by the 2026-07-28 revision; earlier clients ignore it.
                  resultType: "complete"
                }
              }, { headers: { "retry-after": String(refusal.retry_after) } })
            }
          }
          return yield* Effect.fail(refusal)
        }
        const info: CallerInfo = { caller: authenticated.right, traceId, coverage: yield* scoring.coverage }
        // One message per request: a JSON-RPC batch (2025-03-26 allowed them) would run many paid tool
        // calls on one rate count and one trace id, so it is refused like any other bad body.
        const parsedBody = yield* readJsonBody(request)
        // A tool's arguments are judged by its operation (a too-deep one is that tool's invalid-request
        // error); the rest of the message is held to the same depth as any request body.
        if (nestsDeeperThan(withoutToolArguments(parsedBody), MAX_JSON_DEPTH)) {
          const detail = `The message nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.`
          return yield* new InvalidRequest({ detail, errors: [{ pointer: "", detail }] })
        }
        if (Array.isArray(parsedBody)) {
          const detail = "JSON-RPC batches are not accepted on /mcp: send one message per request."
          return yield* new InvalidRequest({ detail, errors: [{ pointer: "", detail }] })
        }
        const response = yield* Effect.promise(() =>
          handler.fetch(web, {
            authInfo: {
              token,
              clientId: info.caller.keyId,
              scopes: [],
              extra: info as unknown as Record<string, unknown>
            },
            parsedBody
          })
        )
        return HttpServerResponse.fromWeb(response)
      })
    )

    // RFC 9728: what a client reads after a 401 to learn how to authenticate. `/mcp` takes an API key or
    // an access token from this service's own authorization server (account sign-in); the root document
    // names that server too, for clients that fall back to it (src/oauth/metadata.ts).
    const cached = { "cache-control": "max-age=300" }
    const mcpMetadata = mcpResourceMetadata(config.publicBaseUrl)
    const apiMetadata = rootResourceMetadata(config.publicBaseUrl)
    yield* router.get(
      "/.well-known/oauth-protected-resource",
      Effect.succeed(HttpServerResponse.unsafeJson(apiMetadata, { headers: cached }))
    )
    yield* router.get(
      "/.well-known/oauth-protected-resource/mcp",
      Effect.succeed(HttpServerResponse.unsafeJson(mcpMetadata, { headers: cached }))
    )
  })
)
