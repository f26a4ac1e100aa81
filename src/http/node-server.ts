/**
 * The Node HTTP server under the application, with its connection settings chosen on purpose and its own
 * refusals (before any request reaches the application) answered as Problem Details with a trace id:
 *
 * - headers too large (over Node's 16 KiB): 431 `request-headers-too-large`;
 * - headers not received within `HEADERS_TIMEOUT`, or the request within `REQUEST_TIMEOUT`: 408
 *   `request-timeout`;
 * - a request Node cannot parse (a malformed request line or header): 400 `invalid-request`.
 *
 * Each closes the connection. A connection the client already closed, or reset, is just let go.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer } from "effect"
import * as http from "node:http"
import type { Duplex } from "node:stream"
import { problemBody } from "../../schema/problem-detail.js"
import { InvalidRequest, type Problem, RequestHeadersTooLarge, RequestTimeout } from "../../schema/problems.js"
import { AppConfig } from "../config.js"
import { newTraceId } from "./trace.js"

/**
 * How long an idle kept-alive connection is held open. Longer than the idle timeouts of common clients and
 * load balancers (60 s), so that they close an idle connection first: a server closing one at the moment a
 * client reuses it makes that client's request fail with a reset.
 */
export const KEEP_ALIVE_TIMEOUT = Duration.seconds(65)
/** How long a request's headers may take to arrive (slow clients hold a connection otherwise). */
export const HEADERS_TIMEOUT = Duration.seconds(20)
/** How long a whole request may take to arrive: its body is at most 1 MiB. */
export const REQUEST_TIMEOUT = Duration.seconds(60)

const reasons: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  431: "Request Header Fields Too Large"
}

/** What Node's own refusal of a connection's request means. */
const problemFor = (error: NodeJS.ErrnoException): Problem => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return new RequestHeadersTooLarge({ detail: "The request line and headers are larger than 16 KiB." })
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new RequestTimeout({
        detail: `The request did not arrive in time (headers within ${Duration.format(HEADERS_TIMEOUT)}, ` +
          `the whole request within ${Duration.format(REQUEST_TIMEOUT)}).`
      })
    default: {
      const detail = "The request could not be parsed as HTTP/1.1."
      return new InvalidRequest({ detail, errors: [{ pointer: "", detail }] })
    }
  }
}

const answerClientError = (docsBaseUrl: string) => (error: NodeJS.ErrnoException, socket: Duplex) => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const traceId = newTraceId()
  const detail = problemBody(problemFor(error), { traceId, docsBaseUrl })
  const body = JSON.stringify(detail)
  const status = detail.status
  socket.end(
    `HTTP/1.1 ${status} ${reasons[status] ?? "Bad Request"}\r\n` +
      "Content-Type: application/problem+json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `trace-id: ${traceId}\r\n` +
      "Connection: close\r\n\r\n" +
      body
  )
}

/** A Node server with the settings above, listening on `port` (0 picks a free one). */
export const nodeServer = (port: number) =>
  Layer.unwrapEffect(
    Effect.map(AppConfig, (config) =>
      NodeHttpServer.layer(() => {
        const server = http.createServer({
          keepAliveTimeout: Duration.toMillis(KEEP_ALIVE_TIMEOUT),
          headersTimeout: Duration.toMillis(HEADERS_TIMEOUT),
          requestTimeout: Duration.toMillis(REQUEST_TIMEOUT),
          connectionsCheckingInterval: 5_000
        })
        server.on("clientError", answerClientError(config.docsBaseUrl))
        // A client that half-closes its side once its request is sent (`shutdown(SHUT_WR)`, `socket.end(request)`)
        // still gets its answer: by default Node ends the connection at the client's FIN, the answer is lost, and
        // an unkeyed call's Credit waits for the sweeper (an integrator's audit, 2026-11-30). With this set, Node
        // ends it once the answer is written (`http.Server`'s own `httpAllowHalfOpen`).
        const halfOpen: { httpAllowHalfOpen: boolean } = server as unknown as { httpAllowHalfOpen: boolean }
        halfOpen.httpAllowHalfOpen = true
        return server
      }, { port }))
  )
