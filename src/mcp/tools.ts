/**
 * The four MCP tools (interface "Agent tools"): each re-enters the same operation as its REST endpoint,
 * with the same decoding, errors, terms check, idempotency and Credits. What a host and its model are given
 * is built for them: input schemas that are plain objects with every member inline and described (the
 * schemas of `schema/`, `$ref`s inlined, no top-level combinator), an output schema per tool, annotations,
 * descriptions that say what a call costs, what comes back and how to act on each refusal, and `instructions`.
 * The SDK does not validate the arguments itself, so a bad argument is judged by the operation and answered
 * with the same `invalid-request` Problem Detail as REST, as a tool error.
 */
import {
  type CallToolResult,
  McpServer,
  type StandardSchemaWithJSON,
  type ToolAnnotations
} from "@modelcontextprotocol/server"
import { Effect, Either, Schema } from "effect"
import { BatchAnswer, BatchRequest } from "../../schema/batch.js"
import { decodeHistoryRequest, decodeIdempotencyKey } from "../../schema/decode.js"
import { examples } from "../../schema/examples.js"
import { HistoryAnswer, HistoryRequest } from "../../schema/history.js"
import { plainJsonSchema } from "../../schema/json-schema.js"
import { operations, type OperationText, safeRetries, withRecovery } from "../../schema/operations.js"
import { problemBody } from "../../schema/problem-detail.js"
import { type BatchTooLarge, InvalidRequest, isProblem, type Problem, problemMeta } from "../../schema/problems.js"
import { CAUTION_CODES, ScoredAnswer } from "../../schema/scored-answer.js"
import { ScoredCall } from "../../schema/scored-call.js"
import { ValidationAnswer } from "../../schema/validate.js"
import type { AppConfig } from "../config.js"
import { acceptBatch, acceptScoredCall, bothRefused } from "../operations/accept.js"
import { accountSummary } from "../operations/account.js"
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

type Json = Record<string, unknown>

// Its length in the schema too, for a host that checks arguments before sending them (an agent's audit,
// 2026-11-29: the limit was in the description only); the operation judges it either way (IDEM-10).
const IdempotencyKeyArgument = Schema.optional(
  Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)).annotations({
    description: "Makes retrying safe, like the REST `Idempotency-Key` header: up to 255 characters, unique per " +
      "intended call (a UUID). The same key with the same arguments within 24 hours returns the stored answer, " +
      "not charged again; with other arguments it is refused (`idempotency-key-conflict`).",
    examples: ["6f1c2d9e-5b7a-4e0f-9a44-1d2b3c4d5e6f"]
  })
)

/**
 * A JSON Schema for the SDK, with a validation that accepts any object: the operation decides, so MCP and
 * REST refuse a bad body with the same Problem Detail. Outputs are the operations' own answers, encoded by
 * the same schemas; they are not judged again here (a test holds them to the output schemas).
 */
const asToolSchema = (jsonSchema: Json): StandardSchemaWithJSON<Json, Json> => ({
  "~standard": {
    version: 1,
    vendor: "propscore",
    validate: (value: unknown) =>
      typeof value === "object" && value !== null && !Array.isArray(value)
        ? { value: value as Json }
        : { issues: [{ message: "The arguments must be a JSON object." }] },
    jsonSchema: { input: () => jsonSchema, output: () => jsonSchema }
  }
})

/** A tool's input schema: the request schema's members and `idempotency_key`, with an example. */
const toolInput = (fields: Schema.Struct.Fields, description: string, example: object): Json => ({
  ...plainJsonSchema(Schema.Struct({ ...fields, idempotency_key: IdempotencyKeyArgument })),
  description,
  examples: [example]
})

/** `validate_request` takes either shape: one property's members, or a batch's `properties`, all optional. */
const validateInput = (): Json => {
  const single = plainJsonSchema(ScoredCall) as { properties: Record<string, Json> }
  const envelope = plainJsonSchema(BatchRequest) as { properties: Record<string, Json> }
  return {
    type: "object",
    properties: {
      ...single.properties,
      address: {
        ...single.properties["address"],
        description: `${single.properties["address"]!["description"]} Send this (with the other members of one ` +
          "property) to check one property, or `properties` to check a batch, not both."
      },
      properties: {
        ...envelope.properties["properties"],
        description: "To check a batch instead of one property: 1 to 100 properties, each with the members above."
      },
      idempotency_key: {
        ...(plainJsonSchema(Schema.Struct({ idempotency_key: IdempotencyKeyArgument })) as {
          properties: Record<string, Json>
        }).properties["idempotency_key"],
        description: "Optional: judged as the paid tools judge it (so the exact arguments meant for one can be " +
          "checked), then ignored; nothing is stored under it."
      }
    },
    additionalProperties: false,
    description: "One property's members (`address`, …), or a batch's `properties`.",
    examples: [examples.validate.request, examples.batch.request]
  }
}

/** Errors are not the output schema's: said once, in every tool's description. */
const ON_ERROR = "A refusal comes back as a tool error (`isError: true`) whose text is an RFC 9457 Problem Detail " +
  "as JSON (`type`, `title`, `status`, `detail`, `trace_id` and members such as `candidates`); the output schema " +
  "describes answers only."

const paidDescription = (operation: OperationText) =>
  `${withRecovery(operation)}\n\n${safeRetries} Pass it as \`idempotency_key\`.\n\n${ON_ERROR}`

interface ToolDefinition {
  readonly title: string
  readonly description: string
  readonly inputSchema: StandardSchemaWithJSON<Json, Json>
  readonly outputSchema: StandardSchemaWithJSON<Json, Json>
  readonly annotations: ToolAnnotations
}

/** A paid tool spends Credits (not read-only), destroys nothing, and is idempotent only with a key. */
const paid = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const

/** A paid tool: its operation's words, its request's members with `idempotency_key`, its answer's schema. */
const paidTool = (
  operation: OperationText,
  input: { readonly fields: Schema.Struct.Fields; readonly description: string; readonly example: object },
  answer: Schema.Schema.All
): ToolDefinition => ({
  title: operation.summary,
  description: paidDescription(operation),
  inputSchema: asToolSchema(toolInput(input.fields, input.description, input.example)),
  outputSchema: asToolSchema(plainJsonSchema(answer)),
  annotations: { title: operation.summary, ...paid }
})

/** The four tools as a host lists them (built once; the servers of every request share them). */
export const toolDefinitions: Record<string, ToolDefinition> = {
  score_property: paidTool(
    operations.predict,
    { fields: ScoredCall.fields, description: "One property to score.", example: examples.predict.request },
    ScoredAnswer
  ),
  score_property_batch: paidTool(
    operations.batch,
    { fields: BatchRequest.fields, description: "Up to 100 properties to score.", example: examples.batch.request },
    BatchAnswer
  ),
  property_history: paidTool(
    operations.history,
    {
      fields: HistoryRequest.from.fields,
      description: "The property, by exactly one of `address` or `property_id`.",
      example: examples.history.request
    },
    HistoryAnswer
  ),
  validate_request: {
    title: operations.validate.summary,
    description: `${withRecovery(operations.validate)}\n\n${ON_ERROR}`,
    inputSchema: asToolSchema(validateInput()),
    outputSchema: asToolSchema(plainJsonSchema(ValidationAnswer)),
    annotations: {
      title: operations.validate.summary,
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    }
  }
}

/** The resource a connected app (or a key) reads the Account from: Balance, tier, rate limit. */
export const ACCOUNT_RESOURCE = "propscore://account"

/** What a host passes to its model about this server as a whole (`initialize`'s `instructions`). */
export const SERVER_INSTRUCTIONS = [
  "propscore values residential properties for real-estate investors: from a street address, the " +
  "property's recorded facts, comparable sales, a value distribution, the repaired value and the maximum " +
  "allowable offer (MAO) a cash flip buyer can pay at a target margin, with its cost stack; and a property's " +
  "recorded history (transfers, flips, listing, permits). Amounts are in the currency of the market's records " +
  "(US dollars in US markets, Australian dollars in Melbourne), which each answer's `currency` names; " +
  "`evidence.data_through` says how recent the " +
  "records are.",
  `The Account's Balance, tier, rate limit and daily spend cap (with what is left of it today): read the resource \`${ACCOUNT_RESOURCE}\` (free).`,
  "Costs: `score_property` and `property_history` one Credit each, `score_property_batch` one per property; " +
  "`validate_request` is free. A call whose property cannot be found or scored is refunded. Check " +
  "`subject_property.address` in each answer: it is the property that was valued; and read its `cautions` when " +
  // (Every code, from the schema's list: a prose list here had fallen seven codes behind, an agent's audit found.)
  `present (codes: ${CAUTION_CODES.join(", ")}; each with a \`detail\` to read, and new codes may come) before ` +
  "relying on the figures.",
  "Retries: send an `idempotency_key` (a new UUID per intended call) with every paid call and reuse it when " +
  "retrying that call; a retry is then never charged twice (the stored answer comes back, free, with a second " +
  "text saying so, and `\"propscore/idempotent_replayed\": true` in the result's `_meta`).",
  "Refusals come back as tool errors carrying a Problem Detail, with a second text saying what the call cost " +
  "(nothing, or a Credit refunded); a batch's answer says how many Credits it charged. Each tool's description " +
  "says how to act on refusals (e.g. `ambiguous-address`: call again with one of `candidates`)."
].join("\n\n")

/**
 * What a tool answers: an answer as text and as structured content (it conforms to the output schema); a
 * problem is a tool error whose text is the Problem Detail's JSON, without structured content. The output
 * schema describes answers only, and the official TypeScript client (1.x) validates structured content
 * against it even on a tool error, so a Problem Detail there would reach the model as a protocol error.
 */
export const toolResult = (
  body: unknown,
  isError: boolean,
  meta?: Record<string, unknown>,
  /** What the call cost, in words (`costOfRefusal`, `costOfBatch`): a second text, where no replay's is. */
  cost?: string
): CallToolResult => ({
  content: [
    { type: "text", text: JSON.stringify(body) },
    // Hosts pass a model the content, not `_meta`: a replay says so in words too (an agent audit).
    ...(meta?.[REPLAYED_META] === true
      ? [{ type: "text" as const, text: REPLAYED_TEXT }]
      : cost === undefined
      ? []
      : [{ type: "text" as const, text: cost }])
  ],
  ...(isError ? { isError: true } : { structuredContent: body as Record<string, unknown> }),
  ...(meta === undefined ? {} : { _meta: meta })
})

/**
 * What a refusal cost, in words: its problem's Credit outcome (an agent's audit, 2026-11-30: only four of the
 * refusals said whether anything was charged, and an agent reconciling its spend had to read the Balance).
 */
export const costOfRefusal = (problem: Problem): string | undefined => {
  switch (problemMeta(problem._tag)?.credits) {
    case "none":
      return "Nothing was charged for this call."
    case "refunded":
      return "The Credit this call took was refunded: it cost nothing."
    case "refunded-if-recorded":
      return "Every Credit recorded for this call is refunded: it costs nothing."
    case undefined:
      return undefined
  }
}

/**
 * What a batch cost, in words: one Credit for each property answered, the failed entries refunded (the same
 * audit: a model had to count the entries with a `type` to know what 100 properties had cost).
 */
export const costOfBatch = (body: unknown): string | undefined => {
  const results = (body as { readonly results?: unknown } | undefined)?.results
  if (!Array.isArray(results)) return undefined
  const refused = results.filter((entry) => typeof entry === "object" && entry !== null && "type" in entry).length
  const answered = results.length - refused
  if (answered === 0) return "Nothing was charged: every entry failed, and its Credit was refunded."
  return `Charged ${answered} Credit${answered === 1 ? "" : "s"}, one for each property answered (${answered}). ` +
    (refused === 0
      ? "No entry failed."
      : `The ${refused} failed entr${refused === 1 ? "y's" : "ies'"} Credit${refused === 1 ? " was" : "s were"} ` +
        "refunded (each such entry is a Problem Detail with `type`).")
}

const REPLAYED_TEXT = "This is the stored answer of an earlier call with this idempotency_key, returned again: no " +
  "Credit was charged for it."

/**
 * The `_meta` key that marks a stored answer returned again for its `idempotency_key`, and charged nothing:
 * what `Idempotent-Replayed: true` says over REST (an agent reconciling its spend could not tell a replay).
 */
export const REPLAYED_META = "propscore/idempotent_replayed"

/** An operation's answer: its body, and whether it is a replay. */
interface ToolAnswer {
  readonly body: unknown
  readonly replayed?: boolean
}

/** What the operations behind the tools need. */
export type ToolServices = Ledger | IdempotencyStore | Scoring | AppConfig | Settlement

export interface ToolContext {
  readonly caller: Caller
  /** The HTTP request's trace id: one tool call per request, so its Ledger entries and problems carry it. */
  readonly traceId: string
  readonly docsBaseUrl: string
  /** The covered markets and how recent their records are (`Scoring.coverage`), said in `instructions`. */
  readonly coverage?: string | undefined
  /** Runs an operation in the server's runtime. */
  readonly run: <A>(effect: Effect.Effect<A, never, ToolServices>) => Promise<A>
}

const answerOf = (
  context: ToolContext,
  traceId: string,
  effect: Effect.Effect<ToolAnswer, unknown, ToolServices>,
  /** What an answer cost, in words (a batch's count); none for a single property's (one Credit, as described). */
  costOfAnswer?: (body: unknown) => string | undefined
) =>
  context.run(
    effect.pipe(
      Effect.map(({ body, replayed }) =>
        toolResult(body, false, replayed ? { [REPLAYED_META]: true } : undefined, costOfAnswer?.(body))
      ),
      Effect.catchAll((error) =>
        isProblem(error)
          ? Effect.succeed(
            toolResult(
              problemBody(error as Problem, { traceId, docsBaseUrl: context.docsBaseUrl }),
              true,
              undefined,
              costOfRefusal(error as Problem)
            )
          )
          : Effect.die(error)
      )
    )
  )

/**
 * The `idempotency_key` argument, held to the header's rules and refused as the argument it is: one that is
 * not a string is refused, never ignored (a retry would otherwise be charged again).
 */
const keyArgument = (value: unknown): Effect.Effect<string | undefined, InvalidRequest> => {
  if (value === undefined) return Effect.succeed(undefined)
  const refused = (detail: string) =>
    new InvalidRequest({ detail: `idempotency_key ${detail}.`, errors: [{ pointer: "/idempotency_key", detail }] })
  if (typeof value !== "string") return Effect.fail(refused("must be a string"))
  return decodeIdempotencyKey(value).pipe(
    Effect.mapError((error) => refused(error.errors[0]?.detail ?? "is not a valid key")),
    Effect.as(value)
  )
}

/**
 * The key judged, and where it is refused, the arguments too (`accepted`: what the tool refuses of them before any
 * Spend, judged alone): both refusals in one answer, as over HTTP (`withKeyRefusal`), not the arguments' in a
 * second round once the key is fixed (an agent's audit, 2026-11-29).
 */
const keyArgumentWith = (value: unknown, accepted: Effect.Effect<unknown, InvalidRequest | BatchTooLarge>) =>
  Effect.catchAll(keyArgument(value), (keyRefused) =>
    Effect.flatMap(Effect.either(accepted), (judged) =>
      Effect.fail(
        Either.isLeft(judged) && judged.left._tag === "InvalidRequest"
          ? bothRefused(keyRefused, judged.left)
          : keyRefused
      )))

const meteredTool = (
  context: ToolContext,
  operation: (input: MeteredInput) => Effect.Effect<MeteredAnswer, unknown, ToolServices>,
  /** What the operation refuses of the arguments before any Spend, judged alone (no Credit, no Ledger). */
  accept: (body: unknown) => Effect.Effect<unknown, InvalidRequest | BatchTooLarge>,
  costOfAnswer?: (body: unknown) => string | undefined
) =>
async (args: Record<string, unknown>) => {
  const { idempotency_key, ...body } = args
  const traceId = context.traceId
  return answerOf(
    context,
    traceId,
    keyArgumentWith(idempotency_key, accept(body)).pipe(
      Effect.flatMap((key) => operation({ caller: context.caller, body, idempotencyKeyHeader: key, traceId })),
      Effect.map((answer): ToolAnswer => ({ body: answer.response.body, replayed: answer.replayed }))
    ),
    costOfAnswer
  )
}

/**
 * The instructions, with the covered markets and the date each one's records run through where known: an
 * agent learnt them only from an `outside-coverage` refusal, and that every value in a market whose records
 * ended years ago is a value of then only after paying for one (an agent's audit, 2026-11-28).
 */
export const instructionsFor = (coverage: string | undefined) =>
  coverage === undefined ? SERVER_INSTRUCTIONS : [
    SERVER_INSTRUCTIONS,
    `Covered markets (a property elsewhere is refused, free): ${coverage}. Where a market's records end before ` +
    "the day of a call, its properties are valued as of that date (the answer's `valuation_date`, with a " +
    "`past-valuation-date` caution), not moved to the day of the call. Where the newest comparable sale of a " +
    "property's kind is long before its `valuation_date`, the value reflects the prices of that sale's time " +
    "(an `old-comparable-sales` caution says so)."
  ].join("\n\n")

/** `validate_request` judges the key as the paid tools do, then the request without it. */
const validateTool = (context: ToolContext) => async (args: Json) => {
  const { idempotency_key, ...body } = args
  return answerOf(
    context,
    context.traceId,
    Effect.zipRight(
      keyArgumentWith(idempotency_key, validate(body)),
      Effect.map(validate(body), (answer): ToolAnswer => ({ body: answer }))
    )
  )
}

/** A server with the four tools, for one request of one caller. */
export const mcpServerFor = (context: ToolContext) => {
  // The tool list never changes while the server runs: no `notifications/tools/list_changed` is ever sent. Nor
  // does the resource list (the one Account resource): it was advertised as changing (an agent's audit).
  const server = new McpServer({ name: "propscore", version: "1.0.0" }, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: instructionsFor(context.coverage)
  })
  const handlers = {
    score_property: meteredTool(context, predict, acceptScoredCall),
    score_property_batch: meteredTool(context, batch, acceptBatch, costOfBatch),
    property_history: meteredTool(context, history, decodeHistoryRequest),
    validate_request: validateTool(context)
  }
  for (const [name, definition] of Object.entries(toolDefinitions)) {
    server.registerTool(name, definition, handlers[name as keyof typeof handlers])
  }
  // Not a tool (the four are all): the Account, read as a connected app may (interface, Authentication 2).
  server.registerResource("account", ACCOUNT_RESOURCE, {
    title: "Your propscore Account",
    description: "The Account's Balance (Credits left), tier, rate limit a minute, whether it has accepted " +
      "the current Terms, and its daily spend cap with what is left of it today (when it has one). Free to read.",
    mimeType: "application/json"
  }, async (uri) => {
    const read = await context.run(Effect.either(accountSummary(context.caller)))
    if (read._tag === "Left") throw new Error(read.left.detail)
    return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(read.right) }] }
  })
  return server
}
