/**
 * Problems as the OpenAPI document describes them. `HttpApi` encodes the errors it knows itself, without
 * the trace id or the headers a Problem Detail needs, so these schemas only document: they describe the
 * wire body (status, `application/problem+json`) and never encode, which leaves every problem to the front
 * door's single renderer (`problem-response.ts`).
 */
import { HttpApiSchema } from "@effect/platform"
import { ParseResult, Schema } from "effect"
import { problemMeta } from "../../schema/problems.js"

interface ProblemClass<A> {
  readonly _tag: string
  readonly fields: Schema.Struct.Fields
  new(...args: ReadonlyArray<any>): A
}

const renderedByTheFrontDoor = (_: unknown, __: unknown, ast: any) =>
  ParseResult.fail(new ParseResult.Forbidden(ast, _, "Problems are rendered by the front door"))

export const documented = <A>(cls: ProblemClass<A>): Schema.Schema<A, unknown> => {
  const meta = problemMeta(cls._tag)!
  const { _tag: _, detail: __, ...extensions } = cls.fields
  const wire = Schema.Struct({
    type: Schema.String.annotations({
      description: `The problem's documentation page, \`{docs_base}/errors/${meta.slug}\`.`
    }),
    title: Schema.String.annotations({ description: "The problem's short summary, the same for every occurrence." }),
    status: Schema.Literal(meta.status).annotations({ description: "The HTTP status." }),
    detail: Schema.String.annotations({ description: "What went wrong with this request." }),
    trace_id: Schema.String.annotations({ description: "The request's trace id, as the `trace-id` header." }),
    ...extensions
  }).annotations({ identifier: `Problem.${meta.slug}`, title: meta.title, description: meta.description })
  return Schema.transformOrFail(wire, Schema.declare((_: unknown): _ is A => false), {
    strict: false,
    decode: renderedByTheFrontDoor,
    encode: renderedByTheFrontDoor
  }).pipe(
    HttpApiSchema.withEncoding({ kind: "Json", contentType: "application/problem+json" }),
    (schema) => schema.annotations(HttpApiSchema.annotations({ status: meta.status, description: meta.title }))
  ) as unknown as Schema.Schema<A, unknown>
}
