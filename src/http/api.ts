/**
 * The HTTP interface as an `HttpApi` definition: routes, success and error schemas, security. It is what
 * the router, `/openapi.json` and `/docs` are generated from. Bodies are read as JSON by the `JsonBody`
 * middleware and judged by the operations (so REST and MCP share one decoding); the OpenAPI document
 * describes them through the request schemas of `schema/`.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, type HttpMethod, OpenApi } from "@effect/platform"
import { JSONSchema, Schema } from "effect"
import { BatchAnswer, BatchRequest } from "../../schema/batch.js"
import { ConnectionList, Disconnected } from "../../schema/connections.js"
import { HistoryAnswer, HistoryRequest } from "../../schema/history.js"
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

const jsonBody = (schema: object) => ({
  requestBody: { required: true, content: { "application/json": { schema } } }
})

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

export const ValidateGroup = HttpApiGroup.make("validate")
  .add(
    HttpApiEndpoint.post("validate", "/v1/validate")
      .addSuccess(ValidationAnswer)
      .addError(documented(InvalidRequest))
      .addError(documented(BatchTooLarge))
      .annotate(OpenApi.Summary, "Check a request without spending")
      .annotate(
        OpenApi.Description,
        "Judges a Scored Call body, or a batch envelope `{properties: [...]}`, exactly as predict or batch would, " +
          "and answers `{valid: true}` or the same 400 or 413. Free; works at a zero Balance and during a Ledger " +
          "outage. `Idempotency-Key` is ignored."
      )
      .annotate(OpenApi.Override, jsonBody({ anyOf: [ref("ScoredCall"), ref("BatchRequest")] }))
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

/**
 * Brings the generated document in line with what the service answers: request bodies from `schema/`,
 * every error response as `application/problem+json` (never `HttpApi`'s own decode error, which the
 * service does not send), and the 500 every operation may answer.
 */
const patchOpenApi = (spec: Record<string, any>) => {
  const schemas: Record<string, unknown> = { ...spec.components?.schemas }
  for (const name of decodeErrorComponents) delete schemas[name]
  for (const [name, schema] of Object.entries(documentedBodies)) schemas[name] = componentSchema(schema, schemas)
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
      paths[path][method] = { ...operation, responses }
    }
  }
  return { ...spec, paths, components: { ...spec.components, schemas } }
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
      .annotate(OpenApi.Summary, "Score one address (one Credit)")
      .annotate(
        OpenApi.Description,
        "Scores one address: county-record facts, comparable sales, the pricing model's distribution, the comp band, " +
          "the rehab-adjusted ARV and the maximum allowable offer with its cost stack. One Credit, spent before scoring " +
          "and refunded for the covered reasons. Send `Idempotency-Key` to make retries safe: a replay within 24 hours " +
          "returns the stored answer with `Idempotent-Replayed: true` and is not charged."
      )
      .annotate(OpenApi.Override, jsonBody(ref("ScoredCall")))
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
      .annotate(OpenApi.Summary, "Score up to 100 addresses (one Credit each)")
      .annotate(
        OpenApi.Description,
        "One Spend for the whole batch; results in submission order. A property failing for a covered reason becomes " +
          "its Problem Detail with its own one-Credit Refund; any other refusal stops the batch with 503 " +
          "`spend-indeterminate` and refunds every Credit of it."
      )
      .annotate(OpenApi.Override, jsonBody(ref("BatchRequest")))
  )
  .middleware(JsonBody)
  .middleware(Authentication)

export const HistoryGroup = HttpApiGroup.make("history")
  .add(
    HttpApiEndpoint.post("history", "/v1/history")
      .addSuccess(HistoryAnswer)
      .pipe(withMeteringErrors, withCoveredReasons)
      .addError(documented(UnknownProperty))
      .annotate(OpenApi.Summary, "A property's recorded history (one Credit)")
      .annotate(
        OpenApi.Description,
        "Chain of title, flips, listing state and recorded permit work. Exactly one of `address` or `property_id`."
      )
      .annotate(OpenApi.Override, jsonBody(ref("HistoryRequest")))
  )
  .middleware(JsonBody)
  .middleware(Authentication)

export const AccountGroup = HttpApiGroup.make("account")
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
