/**
 * The RFC 9457 Problem Detail of a problem, as JSON: `type` `{docs_base}/errors/<slug>`, `title`, `status`,
 * `detail`, `trace_id` and the class's extension members. The HTTP responses, the MCP tool errors and the
 * failed batch entries all carry this one body.
 */
import { Schema } from "effect"
import { type Problem, problemClasses, problemMeta } from "./problems.js"

const classesByTag = new Map<string, Schema.Schema.AnyNoContext>(
  problemClasses.map((cls) => [cls._tag, cls as unknown as Schema.Schema.AnyNoContext])
)

/** The `type` URI of a problem slug. */
export const problemType = (docsBaseUrl: string, slug: string) => `${docsBaseUrl}/errors/${slug}`

/** The Problem Detail body of a problem. */
export const problemBody = (problem: Problem, context: { readonly traceId: string; readonly docsBaseUrl: string }) => {
  const meta = problemMeta(problem._tag)!
  const { _tag, detail, ...extensions } = Schema.encodeSync(classesByTag.get(problem._tag)!)(problem) as {
    readonly _tag: string
    readonly detail: string
  }
  return {
    type: problemType(context.docsBaseUrl, meta.slug),
    title: meta.title,
    status: meta.status,
    detail,
    trace_id: context.traceId,
    ...extensions
  }
}
