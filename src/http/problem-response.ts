/**
 * The one place a problem becomes an HTTP response: RFC 9457 `application/problem+json` with `type`
 * `{docs_base}/errors/<slug>`, `title`, `status`, `detail`, `trace_id` and the class's extension members,
 * plus the headers some problems carry (`WWW-Authenticate`, `Retry-After`, `Allow`).
 */
import { HttpServerResponse } from "@effect/platform"
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/server"
import { Duration } from "effect"
import { problemBody } from "../../schema/problem-detail.js"
import { type Problem, problemMeta } from "../../schema/problems.js"
import { SWEEP_INTERVAL } from "../operations/sweeper.js"

export interface ProblemContext {
  readonly traceId: string
  readonly docsBaseUrl: string
  readonly publicBaseUrl: string
  /** The request path: `/mcp` gets its own protected-resource metadata URL. */
  readonly path: string
  /** The request presented a bearer token (RFC 6750 §3.1: a 401 then says `error="invalid_token"`). */
  readonly bearerPresented?: boolean
}

/** Where a 401 points (RFC 9728): the `/mcp` resource's document on `/mcp`, the API's elsewhere. */
export const protectedResourceMetadataUrl = (publicBaseUrl: string, path: string) =>
  getOAuthProtectedResourceMetadataUrl(
    new URL(path === "/mcp" || path.startsWith("/mcp/") ? `${publicBaseUrl}/mcp` : publicBaseUrl)
  )

/** An auth-param's quoted-string as RFC 6750 §3 allows it in `error_description`: printable ASCII, no `"` or `\`. */
const quotable = (text: string) => text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, "")

/**
 * The challenge of a 401 (AUTH-4): where to learn how to authenticate (RFC 9728). A request that presented
 * a bearer token is also told the token was refused (RFC 6750 §3.1), so a client refreshes it or signs in
 * again; a request with none gets the bare challenge (RFC 6750 §3.1: no error code then).
 */
const bearerChallenge = (problem: Problem, context: ProblemContext) => {
  const metadata = `resource_metadata="${protectedResourceMetadataUrl(context.publicBaseUrl, context.path)}"`
  return context.bearerPresented
    ? `Bearer ${metadata}, error="invalid_token", error_description="${quotable(problem.detail)}"`
    : `Bearer ${metadata}`
}

/**
 * The `Retry-After` of a 503 (RFC 9110 §10.2.3), the sweeper's round: for `ledger-unreachable` and
 * `call-not-started`, storage that did not answer, whose outage's length is unknown, and whose late-taken Spends
 * the next round refunds; for `spend-indeterminate`, a stopped batch, a pause before the same batch is sent again
 * (its refunds are made before the answer where the database takes them). (An integrator's audit, 2026-11-30:
 * the 503s said "retry later" with no header a client's retry logic reads.)
 */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = Math.round(Duration.toSeconds(SWEEP_INTERVAL))

const problemHeaders = (problem: Problem, context: ProblemContext): Record<string, string> => {
  switch (problem._tag) {
    case "InvalidKey":
      return { "www-authenticate": bearerChallenge(problem, context) }
    case "RateLimited":
    case "DuplicateRequestInFlight":
      return { "retry-after": String(problem.retry_after) }
    case "LedgerUnreachable":
    case "CallNotStarted":
    case "SpendIndeterminate":
      return { "retry-after": String(UNAVAILABLE_RETRY_AFTER_SECONDS) }
    case "MethodNotAllowed":
      return { allow: problem.allow.join(", ") }
    default:
      return {}
  }
}

export const problemResponse = (problem: Problem, context: ProblemContext): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(problemBody(problem, context), {
    status: problemMeta(problem._tag)!.status,
    contentType: "application/problem+json",
    headers: problemHeaders(problem, context)
  })
