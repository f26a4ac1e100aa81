/**
 * The four MCP tools (interface "Agent tools"): each re-enters the same operation as its REST endpoint,
 * with the same decoding, errors, terms check, idempotency and Credits. Their argument schemas are the
 * REST request schemas of `schema/` (plus `idempotency_key` for the paid ones), turned into JSON Schema;
 * the SDK does not validate the arguments itself, so a bad argument is judged by the operation and
 * answered with the same `invalid-request` Problem Detail as REST, as a tool error.
 */
import { type CallToolResult, McpServer, type StandardSchemaWithJSON } from "@modelcontextprotocol/server"
import { Effect, JSONSchema, Schema } from "effect"
import { BatchRequest } from "../../schema/batch.js"
import { HistoryRequest } from "../../schema/history.js"
import { problemBody } from "../../schema/problem-detail.js"
import { InvalidRequest, isProblem, type Problem } from "../../schema/problems.js"
import { ScoredCall } from "../../schema/scored-call.js"
import type { AppConfig } from "../config.js"
import { batch } from "../operations/batch.js"
import { history } from "../operations/history.js"
import type { MeteredAnswer, MeteredInput } from "../operations/metered.js"
import { predict } from "../operations/predict.js"
import type { Settlement } from "../operations/settlement.js"
import { validate } from "../operations/validate.js"
import type { Caller } from "../services/credentials.js"
import type { IdempotencyStore } from "../services/idempotency.js"
import type { Ledger } from "../services/ledger.js"
import type { Scoring } from "../services/scoring.js"

const IdempotencyKeyArgument = Schema.optional(Schema.String.annotations({
  description:
    "Makes retries safe, like the Idempotency-Key header: a replay within 24 hours returns the stored answer, not charged."
}))

/**
 * The arguments' JSON Schema for `tools/list`, with a validation that accepts anything: the operation
 * decides, so MCP and REST refuse a bad body with the same Problem Detail.
 */
const toolArguments = <A, I>(
  schema: Schema.Schema<A, I>
): StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>> => {
  const { $schema: _, ...generated } = JSONSchema.make(schema) as unknown as Record<string, unknown>
  // MCP wants an object schema at the root (validate's is a choice of two objects).
  const jsonSchema = { type: "object", ...generated }
  return {
    "~standard": {
      version: 1,
      vendor: "propscore",
      validate: (value: unknown) =>
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? { value: value as Record<string, unknown> }
          : { issues: [{ message: "The arguments must be a JSON object." }] },
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema }
    }
  }
}

const scoredCallArguments = toolArguments(
  Schema.Struct({ ...ScoredCall.fields, idempotency_key: IdempotencyKeyArgument })
)
const batchArguments = toolArguments(Schema.Struct({ ...BatchRequest.fields, idempotency_key: IdempotencyKeyArgument }))
const historyArguments = toolArguments(
  Schema.Struct({ ...HistoryRequest.from.fields, idempotency_key: IdempotencyKeyArgument })
)
const validateArguments = toolArguments(Schema.Union(ScoredCall, BatchRequest))

/** What a tool answers: the JSON as text and as structured content; a problem is a tool error. */
const toolResult = (body: unknown, isError: boolean): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(body) }],
  structuredContent: body as Record<string, unknown>,
  ...(isError ? { isError: true } : {})
})

/** What the operations behind the tools need. */
export type ToolServices = Ledger | IdempotencyStore | Scoring | AppConfig | Settlement

export interface ToolContext {
  readonly caller: Caller
  /** The HTTP request's trace id: one tool call per request, so its Ledger entries and problems carry it. */
  readonly traceId: string
  readonly docsBaseUrl: string
  /** Runs an operation in the server's runtime. */
  readonly run: <A>(effect: Effect.Effect<A, never, ToolServices>) => Promise<A>
}

const answerOf = (context: ToolContext, traceId: string, effect: Effect.Effect<unknown, unknown, ToolServices>) =>
  context.run(
    effect.pipe(
      Effect.map((body) => toolResult(body, false)),
      Effect.catchAll((error) =>
        isProblem(error)
          ? Effect.succeed(
            toolResult(problemBody(error as Problem, { traceId, docsBaseUrl: context.docsBaseUrl }), true)
          )
          : Effect.die(error)
      )
    )
  )

const meteredTool = (
  context: ToolContext,
  operation: (input: MeteredInput) => Effect.Effect<MeteredAnswer, unknown, ToolServices>
) =>
async (args: Record<string, unknown>) => {
  const { idempotency_key, ...body } = args
  const traceId = context.traceId
  // The argument follows the header's rules; one that is not a string is refused, never ignored (a retry
  // would otherwise be charged again).
  const notAString = idempotency_key !== undefined && typeof idempotency_key !== "string"
  return answerOf(
    context,
    traceId,
    notAString
      ? Effect.fail(
        new InvalidRequest({
          detail: "idempotency_key must be a string.",
          errors: [{ pointer: "/idempotency_key", detail: "must be a string" }]
        })
      )
      : Effect.map(
        operation({
          caller: context.caller,
          body,
          idempotencyKeyHeader: idempotency_key as string | undefined,
          traceId
        }),
        (answer) => answer.response.body
      )
  )
}

/** A server with the four tools, for one request of one caller. */
export const mcpServerFor = (context: ToolContext) => {
  const server = new McpServer({ name: "propscore", version: "1.0.0" })
  server.registerTool("score_property", {
    title: "Score a property",
    description:
      "POST /v1/predict: a rehab-aware valuation of one street address and the maximum allowable offer. One Credit, " +
      "refunded when the address cannot be scored for a covered reason.",
    inputSchema: scoredCallArguments
  }, meteredTool(context, predict))
  server.registerTool("score_property_batch", {
    title: "Score up to 100 properties",
    description:
      "POST /v1/predict/batch: one Credit per property submitted; an entry that fails for a covered reason is refunded.",
    inputSchema: batchArguments
  }, meteredTool(context, batch))
  server.registerTool("property_history", {
    title: "A property's recorded history",
    description:
      "POST /v1/history: chain of title, flips, listing state and permits, by exactly one of address or property_id. One Credit.",
    inputSchema: historyArguments
  }, meteredTool(context, history))
  server.registerTool("validate_request", {
    title: "Check a request for free",
    description: "POST /v1/validate: judges a Scored Call body or a batch envelope without scoring it. Free.",
    inputSchema: validateArguments
  }, async (args: Record<string, unknown>) => answerOf(context, context.traceId, validate(args)))
  return server
}
