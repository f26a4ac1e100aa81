/**
 * CORS, for browser-based clients (MCP Inspector, assistants running in a page). Applied by the front door
 * to every response of the paths below, failures included, and answering their preflights:
 *
 * - `/mcp`: only for an Origin that passes the route's DNS-rebinding check (the public base URL's host name
 *   and the localhost names, any port), which is echoed. A preflight from any other Origin, or to a Host
 *   not served, is refused with the same 403 as the request itself, and no response carries CORS headers
 *   for it, so the browser keeps the page out.
 * - The discovery documents, registration, token and revocation endpoints: any origin (`*`). They use no
 *   cookies or ambient credentials, so a page learns nothing through them it could not learn by itself.
 *
 * The consent page and the authorize endpoint are navigations of the browser, not fetches: no CORS.
 */
import { HttpServerResponse } from "@effect/platform"
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse
} from "@modelcontextprotocol/server"

type CorsPolicy = "mcp" | "open"

const OPEN_PATHS: ReadonlySet<string> = new Set([
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/.well-known/oauth-protected-resource/mcp",
  "/oauth/register",
  "/oauth/token",
  "/oauth/revoke"
])

/** The CORS policy of a path, if it has one. */
export const corsPolicyOf = (path: string): CorsPolicy | undefined =>
  path === "/mcp" ? "mcp" : OPEN_PATHS.has(path) ? "open" : undefined

/** Who may reach `/mcp` (DNS rebinding): Host names served, and Origin host names (any port). */
export const mcpAllowlists = (publicBaseUrl: string) => {
  const publicHost = new URL(publicBaseUrl).hostname
  return {
    hosts: [...new Set([publicHost, ...localhostAllowedHostnames()])],
    origins: [...new Set([publicHost, ...localhostAllowedOrigins()])]
  }
}

/** What MCP clients send (both protocol generations) and the sign-in endpoints read. */
const MCP_REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "Mcp-Session-Id",
  "Mcp-Protocol-Version",
  "Mcp-Method",
  "Mcp-Name",
  "Last-Event-ID"
].join(", ")
const OPEN_REQUEST_HEADERS = "Authorization, Content-Type, Mcp-Protocol-Version"
const EXPOSED_HEADERS = "Mcp-Session-Id, WWW-Authenticate, Retry-After, trace-id"

/**
 * The refusal of a request to `/mcp` whose Host or Origin is not allowed (the SDK's own 403 with a JSON-RPC
 * error); none when it may proceed.
 */
export const mcpRebindingRefusal = (
  url: URL,
  headers: Readonly<Record<string, string | undefined>>,
  allowlists: ReturnType<typeof mcpAllowlists>
): HttpServerResponse.HttpServerResponse | undefined => {
  const web = new Request(url, { method: "POST", headers: new Headers(headers as Record<string, string>) })
  const refused = hostHeaderValidationResponse(web, allowlists.hosts) ??
    originValidationResponse(web, allowlists.origins)
  return refused === undefined ? undefined : HttpServerResponse.fromWeb(refused)
}

/** The CORS headers of a response under `policy`, to a request from `origin`. */
export const corsHeaders = (
  policy: CorsPolicy,
  origin: string | undefined,
  allowlists: ReturnType<typeof mcpAllowlists>
): Record<string, string> => {
  if (policy === "open") {
    return { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED_HEADERS }
  }
  if (origin === undefined || originValidationResponse(withOrigin(origin), allowlists.origins) !== undefined) {
    return { vary: "Origin" }
  }
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSED_HEADERS,
    vary: "Origin"
  }
}

const withOrigin = (origin: string) => new Request("http://localhost/", { headers: { origin } })

/**
 * The answer to `OPTIONS` (a preflight) under `policy`; the front door adds the CORS headers of the
 * response as for any other.
 */
export const preflightResponse = (
  policy: CorsPolicy,
  url: URL,
  headers: Readonly<Record<string, string | undefined>>,
  allowlists: ReturnType<typeof mcpAllowlists>
): HttpServerResponse.HttpServerResponse => {
  if (policy === "mcp") {
    const refused = mcpRebindingRefusal(url, headers, allowlists)
    if (refused) return refused
  }
  return HttpServerResponse.empty({
    status: 204,
    headers: {
      "access-control-allow-methods": policy === "mcp" ? "GET, POST, DELETE, OPTIONS" : "GET, POST, OPTIONS",
      "access-control-allow-headers": policy === "mcp" ? MCP_REQUEST_HEADERS : OPEN_REQUEST_HEADERS,
      "access-control-max-age": "600"
    }
  })
}
