/**
 * The one place a problem becomes an HTTP response: RFC 9457 `application/problem+json` with `type`
 * `{docs_base}/errors/<slug>`, `title`, `status`, `detail`, `trace_id` and the class's extension members,
 * plus the headers some problems carry (`WWW-Authenticate`, `Retry-After`, `Allow`).
 */
import { HttpServerResponse } from "@effect/platform"
import { getOAuthProtectedResourceMetadataUrl } from "@modelcontextprotocol/server"
import { problemBody } from "../../schema/problem-detail.js"
import { type Problem, problemMeta } from "../../schema/problems.js"

export interface ProblemContext {
  readonly traceId: string
  readonly docsBaseUrl: string
  readonly publicBaseUrl: string
  /** The request path: `/mcp` gets its own protected-resource metadata URL. */
  readonly path: string
}

/** Where a 401 points (RFC 9728): the `/mcp` resource's document on `/mcp`, the API's elsewhere. */
export const protectedResourceMetadataUrl = (publicBaseUrl: string, path: string) =>
  getOAuthProtectedResourceMetadataUrl(
    new URL(path === "/mcp" || path.startsWith("/mcp/") ? `${publicBaseUrl}/mcp` : publicBaseUrl)
  )

const problemHeaders = (problem: Problem, context: ProblemContext): Record<string, string> => {
  switch (problem._tag) {
    case "InvalidKey":
      return {
        "www-authenticate": `Bearer resource_metadata="${
          protectedResourceMetadataUrl(context.publicBaseUrl, context.path)
        }"`
      }
    case "RateLimited":
    case "DuplicateRequestInFlight":
      return { "retry-after": String(problem.retry_after) }
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
