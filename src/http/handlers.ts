/** Handlers: each translates a request into its operation and the operation's answer back. */
import { HttpApiBuilder } from "@effect/platform"
import { HttpServerResponse } from "@effect/platform"
import { Effect, FiberRef, Layer } from "effect"
import { accountConnections, accountSummary, disconnectConnection } from "../operations/account.js"
import { batch } from "../operations/batch.js"
import { history } from "../operations/history.js"
import type { MeteredAnswer, MeteredInput } from "../operations/metered.js"
import { predict } from "../operations/predict.js"
import { validate } from "../operations/validate.js"
import { CurrentCaller } from "../services/credentials.js"
import { Api } from "./api.js"
import { AuthenticationLive, JsonBodyLive, RequestBody } from "./middleware.js"
import { CurrentTraceId } from "./trace.js"

/**
 * A Metered Call's answer: the stored status and body, marked when it is a replay. The body goes out as the
 * JSON text written when it was produced (or read back from the store), never encoded twice.
 */
const meteredResponse = (answer: MeteredAnswer) => {
  const options = {
    status: answer.response.status,
    headers: answer.replayed ? { "idempotent-replayed": "true" } : {}
  }
  return answer.response.json === undefined
    ? HttpServerResponse.unsafeJson(answer.response.body, options)
    : HttpServerResponse.text(answer.response.json, { ...options, contentType: "application/json" })
}

export const ValidateHandlers = HttpApiBuilder.group(
  Api,
  "validate",
  (handlers) => handlers.handle("validate", () => Effect.flatMap(RequestBody, validate))
)

/**
 * A header value as the characters its bytes spell in UTF-8, where they are UTF-8: Node hands headers over one
 * character a byte (latin1), so a key `Åsa` sent as UTF-8 arrived as `Ã\x85sa` and was refused as holding a
 * control character, and 128 `é` as over 255 characters (an audit, 2026-11-30). Bytes that are no UTF-8 are left
 * as they came. The same key is then the same whether sent as this header or as the MCP tools' `idempotency_key`.
 */
export const utf8HeaderValue = (value: string | undefined): string | undefined => {
  if (value === undefined || !/[^\u0000-\u007f]/.test(value) || /[^\u0000-\u00ff]/.test(value)) return value
  const decoded = Buffer.from(value, "latin1").toString("utf8")
  return Buffer.from(decoded, "utf8").toString("latin1") === value ? decoded : value
}

const meteredHandler =
  <E, R>(operation: (input: MeteredInput) => Effect.Effect<MeteredAnswer, E, R>) =>
  ({ request }: { readonly request: { readonly headers: Record<string, string | undefined> } }) =>
    Effect.gen(function*() {
      const answer = yield* operation({
        caller: yield* CurrentCaller,
        body: yield* RequestBody,
        idempotencyKeyHeader: utf8HeaderValue(request.headers["idempotency-key"]),
        traceId: yield* FiberRef.get(CurrentTraceId)
      })
      return meteredResponse(answer)
    })

export const PredictHandlers = HttpApiBuilder.group(
  Api,
  "predict",
  (handlers) => handlers.handle("predict", meteredHandler(predict))
)

export const BatchHandlers = HttpApiBuilder.group(
  Api,
  "batch",
  (handlers) => handlers.handle("batch", meteredHandler(batch))
)

export const HistoryHandlers = HttpApiBuilder.group(
  Api,
  "history",
  (handlers) => handlers.handle("history", meteredHandler(history))
)

export const AccountHandlers = HttpApiBuilder.group(Api, "account", (handlers) =>
  handlers
    .handle("account", () => Effect.flatMap(CurrentCaller, accountSummary))
    .handle("connections", () => Effect.flatMap(CurrentCaller, (caller) => accountConnections(caller.accountId)))
    .handle(
      "disconnect",
      ({ path }) =>
        Effect.flatMap(CurrentCaller, (caller) => disconnectConnection(caller.accountId, path.connection_id))
    ))

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(AccountHandlers),
  Layer.provide(BatchHandlers),
  Layer.provide(HistoryHandlers),
  Layer.provide(ValidateHandlers),
  Layer.provide(PredictHandlers),
  Layer.provide([AuthenticationLive, JsonBodyLive])
)
