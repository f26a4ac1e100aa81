/** `GET /docs/errors` and `GET /docs/errors/<slug>`: the page behind every problem `type` URI (ERR-1). */
import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { problemType } from "../../schema/problem-detail.js"
import { allProblemMeta, type CreditOutcome, NotFound, type ProblemMeta } from "../../schema/problems.js"
import { AppConfig } from "../config.js"
import { escapeHtml } from "./html.js"

/** Inline code spans (`x`) in the descriptions become <code>. */
const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>")

const creditsText: Record<CreditOutcome, string> = {
  none: "Nothing is charged.",
  refunded: "A covered reason: the Credit of the call (or of the batch entry) is refunded.",
  "refunded-if-recorded": "Every Credit recorded for the call is refunded."
}

const page = (title: string, body: string) =>
  HttpServerResponse.html(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · propscore</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f1f1f1;padding:0 .25em;border-radius:3px}
table{border-collapse:collapse}td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}
a{color:#0b57d0}
</style>
</head>
<body>
${body}
</body>
</html>`)

const errorPage = (meta: ProblemMeta, docsBaseUrl: string) =>
  page(
    meta.title,
    `<p><a href="${escapeHtml(docsBaseUrl)}/errors">All errors</a> · <a href="${
      escapeHtml(docsBaseUrl)
    }">API reference</a></p>
<h1>${escapeHtml(meta.title)}</h1>
<table>
<tr><th scope="row">Slug</th><td><code>${meta.slug}</code></td></tr>
<tr><th scope="row">Status</th><td>${meta.status}</td></tr>
<tr><th scope="row">Type</th><td><code>${escapeHtml(problemType(docsBaseUrl, meta.slug))}</code></td></tr>
<tr><th scope="row">Credits</th><td>${creditsText[meta.credits]}</td></tr>
</table>
<p>${prose(meta.description)}</p>
<p>Every error is an RFC 9457 Problem Detail (<code>application/problem+json</code>) with <code>type</code>,
<code>title</code>, <code>status</code>, <code>detail</code> and <code>trace_id</code>. Branch on <code>type</code>,
not on the status alone.</p>`
  )

const indexPage = (docsBaseUrl: string) =>
  page(
    "Errors",
    `<p><a href="${escapeHtml(docsBaseUrl)}">API reference</a></p>
<h1>Errors</h1>
<table>
<thead><tr><th scope="col">Status</th><th scope="col">Slug</th><th scope="col">Meaning</th></tr></thead>
<tbody>
${
      allProblemMeta().map((meta) =>
        `<tr><td>${meta.status}</td><td><a href="${
          escapeHtml(docsBaseUrl)
        }/errors/${meta.slug}"><code>${meta.slug}</code></a></td><td>${escapeHtml(meta.title)}</td></tr>`
      ).join("\n")
    }
</tbody>
</table>`
  )

const bySlug = new Map(allProblemMeta().map((meta) => [meta.slug, meta]))

export const ErrorDocsRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const index = indexPage(config.docsBaseUrl)
    yield* router.get("/docs/errors", Effect.succeed(index))
    yield* router.get(
      "/docs/errors/:slug",
      Effect.gen(function*() {
        const { slug } = yield* HttpRouter.params
        const meta = slug === undefined ? undefined : bySlug.get(slug)
        if (!meta) return yield* new NotFound({ detail: `No error has the slug ${slug}.` })
        return errorPage(meta, config.docsBaseUrl)
      })
    )
  })
)
