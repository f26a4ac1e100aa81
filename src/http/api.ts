/**
 * The HTTP interface as an `HttpApi` definition: routes, success and error schemas, security. It is what
 * the router, `/openapi.json` and `/docs` are generated from. Bodies are read as JSON by the `JsonBody`
 * middleware and judged by the operations (so REST and MCP share one decoding); the OpenAPI document
 * describes them through the request schemas of `schema/`.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, type HttpMethod, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { AccountSummary } from "../../schema/account.js"
import { BatchAnswer, BatchRequest } from "../../schema/batch.js"
import { ConnectionList, Disconnected } from "../../schema/connections.js"
import { examples } from "../../schema/examples.js"
import { HistoryAnswer, HistoryRequest } from "../../schema/history.js"
import { idempotencyKeyDescription } from "../../schema/idempotency-key.js"
import { dataKeywords, withoutGeneratedText } from "../../schema/json-schema.js"
import { operations, type OperationText, safeRetries, withRecovery } from "../../schema/operations.js"
import {
  AmbiguousAddress,
  BatchTooLarge,
  CallNotStarted,
  DuplicateRequestInFlight,
  IdempotencyKeyConflict,
  InsufficientCredits,
  InternalError,
  InvalidRequest,
  LedgerUnreachable,
  MissingValuationFact,
  NotFound,
  OutsideCoverage,
  SpendCapExceeded,
  SpendIndeterminate,
  TermsNotAccepted,
  UnknownProperty,
  UnscorableAddress,
  UpstreamTimeout,
  UpstreamUnavailable
} from "../../schema/problems.js"
import { ScoredAnswer } from "../../schema/scored-answer.js"
import { ScoredCall } from "../../schema/scored-call.js"
import { ValidationAnswer } from "../../schema/validate.js"
import { documented } from "./documented.js"
import { Authentication, JsonBody } from "./middleware.js"

/** Request bodies documented in `components.schemas`, by name. */
const documentedBodies: Record<string, Schema.Schema.Any> = { ScoredCall, BatchRequest, HistoryRequest }

/** A paid operation's text for the reference: its words from `schema/operations.ts` and the REST header. */
const paidDescription = (operation: OperationText) =>
  `${withRecovery(operation)}\n\n${safeRetries} Send the key as the \`Idempotency-Key\` header; a replay ` +
  "answers with `Idempotent-Replayed: true`."

type Example = { readonly summary: string; readonly value: unknown }

const jsonBody = (schema: object, bodyExamples: Record<string, Example>) => ({
  requestBody: { required: true, content: { "application/json": { schema, examples: bodyExamples } } }
})

/** The `Idempotency-Key` header, declared on every paid operation. */
const idempotencyKeyHeader = {
  parameters: [{
    name: "Idempotency-Key",
    in: "header",
    required: false,
    description: idempotencyKeyDescription,
    schema: { type: "string", minLength: 1, maxLength: 255 }
  }]
}

/** The demo county's example request and the answer it gets, for the reference (`npm run examples`). */
const exampleOf = (name: "predict" | "batch" | "history", summary: string) => ({
  request: { [name]: { summary, value: examples[name].request } },
  answer: { [name]: { summary: "The answer the demo county gives it", value: examples[name].answer } }
})

const predictExample = exampleOf("predict", "A light rehab in the demo county, with a 20% target margin")
const batchExample = exampleOf("batch", "Two addresses: one scored, one matching several properties")
const historyExample = exampleOf("history", "A demo county house that was flipped")

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

export const ValidateGroup = HttpApiGroup.make("validate")
  .add(
    HttpApiEndpoint.post("validate", "/v1/validate")
      .addSuccess(ValidationAnswer)
      .addError(documented(InvalidRequest))
      .addError(documented(BatchTooLarge))
      .annotate(OpenApi.Summary, operations.validate.summary)
      .annotate(
        OpenApi.Description,
        `${withRecovery(operations.validate)}\n\nFree: works at a zero Balance and during a Ledger outage; ` +
          "an `Idempotency-Key` header is ignored."
      )
      .annotate(
        OpenApi.Override,
        jsonBody({ anyOf: [ref("ScoredCall"), ref("BatchRequest")] }, {
          single: { summary: "One property's request, as predict takes it", value: examples.validate.request },
          batch: { summary: "A batch envelope, as batch takes it", value: examples.batch.request }
        })
      )
  )
  .middleware(JsonBody)
  .middleware(Authentication)

const componentSchema = (schema: Schema.Schema.Any, definitions: Record<string, unknown>) =>
  JSONSchema.fromAST(schema.ast, {
    definitions: definitions as Record<string, JSONSchema.JsonSchema7>,
    definitionPath: "#/components/schemas/",
    target: "openApi3.1",
    topLevelReferenceStrategy: "skip"
  })

const decodeErrorComponents = ["HttpApiDecodeError", "Issue", "PropertyKey"]
const isDecodeErrorRef = (schema: any) => schema?.$ref === "#/components/schemas/HttpApiDecodeError"

/** The alternatives of a response schema, flattened, without `HttpApi`'s own decode error, deduplicated. */
const alternatives = (schema: any): Array<unknown> => {
  const flat: Array<unknown> = Array.isArray(schema?.anyOf) ? schema.anyOf : [schema]
  const seen = new Set<string>()
  return flat.filter((alternative) => {
    const key = JSON.stringify(alternative)
    if (isDecodeErrorRef(alternative) || seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const problemExamples = {
  "ambiguous-address": {
    summary: "The address matched several properties: call again with one of `candidates`",
    value: examples.problems["ambiguous-address"]
  },
  "unscorable-address": {
    summary: "No such house number on record: `suggestions` lists the nearest recorded ones",
    value: examples.problems["unscorable-address"]
  }
}

/** Examples of each operation's answers, by operation id: its 200, and the refusals a caller acts on. */
const responseExamples: Record<string, { readonly ok: Record<string, Example>; readonly refused?: boolean }> = {
  "predict.predict": { ok: predictExample.answer, refused: true },
  "batch.batch": { ok: batchExample.answer },
  "history.history": { ok: historyExample.answer, refused: true },
  "validate.validate": { ok: { valid: { summary: "The request is valid", value: examples.validate.answer } } }
}

/**
 * A member that only points at a named schema gets that schema's description beside the `$ref` (OpenAPI 3.1
 * allows it), so every member reads with words of its own wherever it is shown.
 */
const describeRefMembers = (node: unknown, schemas: Record<string, any>): unknown => {
  if (Array.isArray(node)) return node.map((item) => describeRefMembers(item, schemas))
  if (typeof node !== "object" || node === null) return node
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => {
      if (dataKeywords.has(key)) return [key, value]
      if (key !== "properties" || typeof value !== "object" || value === null || Array.isArray(value)) {
        return [key, describeRefMembers(value, schemas)]
      }
      const members = Object.entries(value as Record<string, any>).map(([name, member]) => {
        const target = typeof member?.$ref === "string"
          ? schemas[decodeURIComponent(member.$ref.slice(member.$ref.lastIndexOf("/") + 1))]
          : undefined
        const described = target?.description !== undefined && member.description === undefined
          ? { ...member, description: target.description }
          : member
        return [name, describeRefMembers(described, schemas)]
      })
      return [key, Object.fromEntries(members)]
    })
  )
}

/**
 * Brings the generated document in line with what the service answers: request bodies from `schema/`,
 * every error response as `application/problem+json` (never `HttpApi`'s own decode error, which the
 * service does not send), the 500 every operation may answer, the demo county's examples, and only the
 * descriptions `schema/` wrote (never the ones Effect generates from its filters).
 */
/**
 * The response headers a client reads, declared where the service sends them (an integrator's audit,
 * 2026-11-30: the document declared none, so a generated client typed every response's headers as unknown).
 */
const retryAfterText = "Seconds to wait before retrying (equal to the body's `retry_after` where it has one); " +
  "what a client obeys."

const responseHeaders: Record<
  string,
  { readonly description: string; readonly schema: object; readonly required?: boolean }
> = {
  TraceId: {
    description: "The request's trace id (32 hex digits), on every response: quote it when reporting a problem.",
    required: true,
    schema: { type: "string", pattern: "^[0-9a-f]{32}$" }
  },
  RateLimitPolicy: {
    description: "The rate limit counting this request (IETF HTTPAPI RateLimit fields draft): " +
      "`\"account\";q=60;w=60`. On every counted response, success or Problem Detail.",
    schema: { type: "string" }
  },
  RateLimit: {
    description: "What is left of that limit and when its window ends: `\"account\";r=59;t=60`.",
    schema: { type: "string" }
  },
  RateLimitLimit: { description: "Requests a window allows (legacy field).", schema: { type: "integer" } },
  RateLimitRemaining: { description: "Requests left in the window (legacy field).", schema: { type: "integer" } },
  RateLimitReset: { description: "Seconds until the window ends (legacy field).", schema: { type: "integer" } },
  RetryAfter: { description: retryAfterText, required: true, schema: { type: "integer", minimum: 0 } },
  RetryAfterUnlessCapped: {
    description: `${retryAfterText} On 429 \`rate-limited\`; a 429 \`spend-cap-exceeded\` carries none (the ` +
      "cap's day ends at midnight UTC).",
    schema: { type: "integer", minimum: 0 }
  },
  IdempotentReplayed: {
    description: "`true` when the answer is the stored answer of an earlier identical request with the same " +
      "`Idempotency-Key` (nothing charged); absent otherwise.",
    schema: { type: "string", enum: ["true"] }
  },
  WwwAuthenticate: {
    description: "The Bearer challenge (RFC 6750), naming the protected-resource metadata (RFC 9728).",
    required: true,
    schema: { type: "string" }
  }
}

const headerRef = (name: keyof typeof responseHeaders) => ({ $ref: `#/components/headers/${name}` })

/** The headers of one response of an operation under `/v1`, by its status. */
const headersOf = (status: string, paid: boolean) => ({
  "trace-id": headerRef("TraceId"),
  "RateLimit-Policy": headerRef("RateLimitPolicy"),
  "RateLimit": headerRef("RateLimit"),
  "RateLimit-Limit": headerRef("RateLimitLimit"),
  "RateLimit-Remaining": headerRef("RateLimitRemaining"),
  "RateLimit-Reset": headerRef("RateLimitReset"),
  ...(status === "409" || status === "503" ? { "Retry-After": headerRef("RetryAfter") } : {}),
  // (Only a paid operation can answer `spend-cap-exceeded`, which has none: ERR-6.)
  ...(status === "429" ? { "Retry-After": headerRef(paid ? "RetryAfterUnlessCapped" : "RetryAfter") } : {}),
  ...(status === "200" && paid ? { "Idempotent-Replayed": headerRef("IdempotentReplayed") } : {}),
  ...(status === "401" ? { "WWW-Authenticate": headerRef("WwwAuthenticate") } : {})
})

const patchOpenApi = (spec: Record<string, any>) => {
  const generated: Record<string, unknown> = { ...spec.components?.schemas }
  for (const name of decodeErrorComponents) delete generated[name]
  for (const [name, schema] of Object.entries(documentedBodies)) {
    generated[name] = componentSchema(schema, generated)
  }
  const schemas = describeRefMembers(withoutGeneratedText(generated), generated as Record<string, any>) as Record<
    string,
    unknown
  >
  const internalError = componentSchema(documented(InternalError), schemas)
  const paths: Record<string, any> = {}
  for (const [path, operations] of Object.entries<Record<string, any>>(spec.paths)) {
    paths[path] = {}
    for (const [method, operation] of Object.entries<Record<string, any>>(operations)) {
      const responses: Record<string, any> = {}
      for (const [status, response] of Object.entries<Record<string, any>>(operation.responses)) {
        if (Number(status) < 400 || response.content === undefined) {
          responses[status] = response
          continue
        }
        const schema = Object.values<{ schema: unknown }>(response.content)[0]?.schema
        const remaining = alternatives(schema)
        // Only `HttpApi`'s own decode error, which the service never sends (an endpoint without a body or
        // parameters to decode): no such response, rather than an `anyOf` of nothing.
        if (remaining.length === 0) continue
        responses[status] = {
          ...response,
          description: response.description === "The request did not match the expected schema"
            ? "The request is invalid"
            : response.description,
          content: {
            "application/problem+json": { schema: remaining.length === 1 ? remaining[0] : { anyOf: remaining } }
          }
        }
      }
      responses["500"] = {
        description: "Internal error",
        content: { "application/problem+json": { schema: internalError } }
      }
      const paid = operation.parameters?.some((parameter: { name?: string }) => parameter.name === "Idempotency-Key")
      for (const [status, response] of Object.entries<Record<string, any>>(responses)) {
        responses[status] = { ...response, headers: { ...response.headers, ...headersOf(status, paid === true) } }
      }
      const exampled = responseExamples[operation.operationId]
      if (exampled !== undefined) {
        const ok = responses["200"]?.content?.["application/json"]
        if (ok !== undefined) ok.examples = exampled.ok
        const refused = responses["422"]?.content?.["application/problem+json"]
        if (exampled.refused === true && refused !== undefined) refused.examples = problemExamples
      }
      paths[path][method] = withoutGeneratedText({ ...operation, responses })
    }
  }
  return {
    ...spec,
    // The service itself, wherever this document was fetched from (a relative URL: OpenAPI 3.1 §4.8.5).
    servers: [{ url: "/", description: "This service: the address this document was served from." }],
    paths,
    components: { ...spec.components, schemas, headers: responseHeaders }
  }
}

/** The refusals every Metered Call can answer, whatever it does: key reuse, Credits, the Ledger. */
const withMeteringErrors = <
  Name extends string,
  Method extends HttpMethod.HttpMethod,
  Path,
  UrlParams,
  Payload,
  Headers,
  Success,
  Error,
  R,
  RE
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>
) =>
  endpoint
    .addError(documented(InvalidRequest))
    .addError(documented(TermsNotAccepted))
    .addError(documented(InsufficientCredits))
    .addError(documented(SpendCapExceeded))
    .addError(documented(LedgerUnreachable))
    .addError(documented(IdempotencyKeyConflict))
    .addError(documented(DuplicateRequestInFlight))
    .addError(documented(CallNotStarted))

/** The five refund-covered reasons (interface, Errors rule 3) a call that locates and scores a property can answer. */
const withCoveredReasons = <
  Name extends string,
  Method extends HttpMethod.HttpMethod,
  Path,
  UrlParams,
  Payload,
  Headers,
  Success,
  Error,
  R,
  RE
>(
  endpoint: HttpApiEndpoint.HttpApiEndpoint<Name, Method, Path, UrlParams, Payload, Headers, Success, Error, R, RE>
) =>
  endpoint
    .addError(documented(UnscorableAddress))
    .addError(documented(AmbiguousAddress))
    .addError(documented(OutsideCoverage))
    .addError(documented(UpstreamUnavailable))
    .addError(documented(UpstreamTimeout))

export const PredictGroup = HttpApiGroup.make("predict")
  .add(
    HttpApiEndpoint.post("predict", "/v1/predict")
      .addSuccess(ScoredAnswer)
      .pipe(withMeteringErrors, withCoveredReasons)
      .addError(documented(MissingValuationFact))
      .annotate(OpenApi.Summary, operations.predict.summary)
      .annotate(OpenApi.Description, paidDescription(operations.predict))
      .annotate(OpenApi.Override, { ...jsonBody(ref("ScoredCall"), predictExample.request), ...idempotencyKeyHeader })
  )
  .middleware(JsonBody)
  .middleware(Authentication)

export const BatchGroup = HttpApiGroup.make("batch")
  .add(
    HttpApiEndpoint.post("batch", "/v1/predict/batch")
      .addSuccess(BatchAnswer)
      .pipe(withMeteringErrors)
      .addError(documented(BatchTooLarge))
      .addError(documented(SpendIndeterminate))
      .annotate(OpenApi.Summary, operations.batch.summary)
      .annotate(OpenApi.Description, paidDescription(operations.batch))
      .annotate(OpenApi.Override, { ...jsonBody(ref("BatchRequest"), batchExample.request), ...idempotencyKeyHeader })
  )
  .middleware(JsonBody)
  .middleware(Authentication)

export const HistoryGroup = HttpApiGroup.make("history")
  .add(
    HttpApiEndpoint.post("history", "/v1/history")
      .addSuccess(HistoryAnswer)
      .pipe(withMeteringErrors, withCoveredReasons)
      .addError(documented(UnknownProperty))
      .annotate(OpenApi.Summary, operations.history.summary)
      .annotate(OpenApi.Description, paidDescription(operations.history))
      .annotate(OpenApi.Override, {
        ...jsonBody(ref("HistoryRequest"), historyExample.request),
        ...idempotencyKeyHeader
      })
  )
  .middleware(JsonBody)
  .middleware(Authentication)

export const AccountGroup = HttpApiGroup.make("account")
  .add(
    HttpApiEndpoint.get("account", "/v1/account")
      .addSuccess(AccountSummary)
      .addError(documented(CallNotStarted))
      .annotate(OpenApi.Summary, "The calling Account: its Balance, tier, rate limit and daily spend cap")
      .annotate(
        OpenApi.Description,
        "What paid calls draw on (the Balance), the Account's tier and its rate limit, and whether it has " +
          "accepted the current Terms. Free. An app connected by sign-in reads the same as the MCP resource " +
          "`propscore://account`."
      )
  )
  .add(
    HttpApiEndpoint.get("connections", "/v1/account/connections")
      .addSuccess(ConnectionList)
      .addError(documented(CallNotStarted))
      .annotate(OpenApi.Summary, "Apps connected to this Account by sign-in")
      .annotate(
        OpenApi.Description,
        "Every app (AI assistant) the account holder connected by signing in, with its connection date. Free. " +
          "Takes the Account's API key; a connected app's access token is for `/mcp` only."
      )
  )
  .add(
    HttpApiEndpoint.del("disconnect", "/v1/account/connections/:connection_id")
      .setPath(Schema.Struct({ connection_id: Schema.String }))
      .addSuccess(Disconnected)
      .addError(documented(NotFound))
      .addError(documented(CallNotStarted))
      .annotate(OpenApi.Summary, "Disconnect a connected app")
      .annotate(OpenApi.Description, "Its tokens stop working at once: its next call fails 401, with no spend. Free.")
  )
  .middleware(Authentication)

export class Api extends HttpApi.make("propscore")
  .add(ValidateGroup)
  .add(PredictGroup)
  .add(BatchGroup)
  .add(HistoryGroup)
  .add(AccountGroup)
  .annotate(OpenApi.Title, "propscore")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(
    OpenApi.Description,
    "Rehab-aware property valuation and maximum allowable offer for real-estate investors. Every error is an " +
      "RFC 9457 Problem Detail (`application/problem+json`) whose `type` links to its documentation page; " +
      "every response carries a `trace-id` header."
  )
  .annotate(OpenApi.Transform, patchOpenApi)
{}

/** Every route the service answers, for 405 `Allow` and 404 decisions. */
export const extraRoutes: ReadonlyArray<{ readonly method: string; readonly path: string }> = [
  { method: "GET", path: "/openapi.json" },
  { method: "GET", path: "/docs" },
  { method: "GET", path: "/docs/errors" },
  { method: "GET", path: "/docs/errors/:slug" },
  { method: "POST", path: "/mcp" },
  { method: "GET", path: "/.well-known/oauth-protected-resource" },
  { method: "GET", path: "/.well-known/oauth-protected-resource/mcp" },
  { method: "GET", path: "/.well-known/oauth-authorization-server" },
  { method: "POST", path: "/oauth/register" },
  { method: "GET", path: "/oauth/authorize" },
  { method: "POST", path: "/oauth/authorize" },
  { method: "POST", path: "/oauth/token" },
  { method: "POST", path: "/oauth/revoke" }
]
