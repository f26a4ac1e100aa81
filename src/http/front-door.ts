/**
 * The front door wraps every request, whatever route it reaches or fails to reach: it fixes the trace id,
 * renders every failure as a Problem Detail (unknown route 404, wrong method 405, a defect 500 logged with
 * its trace id and never leaking a stack), and puts `trace-id` on every response (SVC-7), the rate-limit
 * headers on every counted one, and the CORS headers (./cors.ts) on the paths browsers may fetch.
 */
import { type HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import {
  CallNotStarted,
  InternalError,
  isProblem,
  MethodNotAllowed,
  NotFound,
  type Problem
} from "../../schema/problems.js"
import { AppConfig } from "../config.js"
import { bearerToken } from "./authenticate.js"
import { corsHeaders, corsPolicyOf, mcpAllowlists, preflightResponse } from "./cors.js"
import { problemResponse } from "./problem-response.js"
import { CurrentRateCount, type RateCountCell, rateLimitHeaders } from "./rate-limit-headers.js"
import { methodsFor } from "./routes.js"
import { CurrentTraceId, traceIdFor } from "./trace.js"

const isStorageUnavailable = (u: unknown) =>
  typeof u === "object" && u !== null && "_tag" in u && u._tag === "StorageUnavailable"

const isRouteNotFound = (u: unknown) => typeof u === "object" && u !== null && "_tag" in u && u._tag === "RouteNotFound"

const problemForCause = (cause: Cause.Cause<unknown>, method: string, path: string): Effect.Effect<Problem> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    if (isProblem(failure.value)) return Effect.succeed(failure.value)
    // A route that left a storage failure unhandled: the database did not answer, so nothing was done.
    if (isStorageUnavailable(failure.value)) {
      return Effect.as(
        Effect.logWarning("storage unavailable", failure.value),
        new CallNotStarted({ detail: "The database did not answer; nothing was done. Retry later." })
      )
    }
    if (isRouteNotFound(failure.value)) {
      const allowed = methodsFor(path)
      return Effect.succeed(
        allowed.length === 0
          ? new NotFound({ detail: `No route answers ${path}.` })
          : new MethodNotAllowed({ detail: `${path} does not answer ${method}.`, allow: allowed })
      )
    }
  }
  return Effect.logError("request failed unexpectedly", cause).pipe(
    Effect.as(
      new InternalError({ detail: "The service failed unexpectedly; the failure is logged under this trace id." })
    )
  )
}

/**
 * The front door, with the configuration read once when the server is built (not merged into every
 * request's services).
 */
export const frontDoor = Effect.map(AppConfig, (config) => {
  const allowlists = mcpAllowlists(config.publicBaseUrl)
  return (app: HttpApp.Default) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const traceId = traceIdFor(request.headers["traceparent"])
      const path = new URL(request.url, "http://localhost").pathname
      const rateCount: RateCountCell = { current: undefined }
      const cors = corsPolicyOf(path)
      const handled = request.method === "OPTIONS" && cors !== undefined
        ? Effect.succeed(
          preflightResponse(cors, new URL(request.url, config.publicBaseUrl), request.headers, allowlists)
        )
        : app
      const response = yield* handled.pipe(
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.map(problemForCause(cause, request.method, path), (problem) =>
              problemResponse(problem, {
                traceId,
                docsBaseUrl: config.docsBaseUrl,
                publicBaseUrl: config.publicBaseUrl,
                path,
                bearerPresented: bearerToken(request.headers["authorization"]) !== ""
              }))
        ),
        Effect.locally(CurrentTraceId, traceId),
        Effect.locally(CurrentRateCount, rateCount),
        Effect.annotateLogs("trace_id", traceId)
      )
      const shared = cors === undefined
        ? response
        : HttpServerResponse.setHeaders(response, corsHeaders(cors, request.headers["origin"], allowlists))
      const counted = rateCount.current === undefined
        ? shared
        : HttpServerResponse.setHeaders(shared, rateLimitHeaders(rateCount.current))
      return HttpServerResponse.setHeader(counted, "trace-id", traceId)
    })
})
