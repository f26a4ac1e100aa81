/**
 * `GET /`: where the service says what it is and where everything lives, and `GET /health`: whether it can
 * take paid calls now. A browser (Accept preferring text/html) gets a small page, anything else a JSON
 * document. HEAD answers both (the router serves HEAD from GET; Node sends no body).
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { type Health, serviceHealth } from "../operations/health.js"
import { Ledger } from "../services/ledger.js"
import { html, pageSecurityHeaders } from "./html.js"
import { paths as portalPaths } from "./portal-pages.js"

export const frontPagePaths = {
  home: "/",
  health: "/health",
  docs: "/docs",
  openapi: "/openapi.json",
  portal: portalPaths.overview,
  mcp: "/mcp"
} as const

/** The routes of this file, for 404 versus 405 (src/http/routes.ts). */
export const frontPageRoutes: ReadonlyArray<{ readonly method: string; readonly path: string }> = [
  { method: "GET", path: frontPagePaths.home },
  { method: "GET", path: frontPagePaths.health }
]

const DESCRIPTION = "Rehab-aware property valuation and maximum allowable offer, metered per call"

// The page's only resource is the Portal's stylesheet: nothing else may load, run, frame it or be posted.
const securityHeaders = pageSecurityHeaders(
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
)

/** The quality the Accept header gives a media type (RFC 9110 §12.5.1): its most specific range wins. */
export const acceptQuality = (accept: string | undefined, mediaType: string): number => {
  if (accept === undefined || accept.trim() === "") return 1
  const [type] = mediaType.split("/")
  let best = { specificity: -1, quality: 0 }
  for (const part of accept.split(",")) {
    const [range = "", ...parameters] = part.trim().toLowerCase().split(";").map((piece) => piece.trim())
    const specificity = range === mediaType ? 2 : range === `${type}/*` ? 1 : range === "*/*" ? 0 : -1
    if (specificity <= best.specificity) continue
    const q = parameters.find((parameter) => parameter.startsWith("q="))
    const quality = q === undefined ? 1 : Number(q.slice(2))
    best = { specificity, quality: Number.isFinite(quality) ? quality : 0 }
  }
  return best.quality
}

/** A browser's Accept prefers HTML; `*\/*` alone (curl, fetch) or JSON does not. */
export const prefersHtml = (accept: string | undefined) =>
  acceptQuality(accept, "text/html") > acceptQuality(accept, "application/json")

const statusLine = (health: Health) =>
  health.status === "ok"
    ? "ok: the database answers, so calls that spend Credits can be served"
    : "unavailable: the database does not answer, so calls that spend Credits are refused for now " +
      "(validate still answers)"

const frontPageHtml = (health: Health) =>
  html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>propscore</title><link rel="stylesheet" href="${portalPaths.stylesheet}"></head>
<body><a class="skip" href="#main">Skip to content</a>
<header class="top"><div class="bar"><span class="brand">propscore</span></div></header>
<main id="main" tabindex="-1">
<h1>propscore</h1>
<p>${DESCRIPTION}: send a street address, get county-record facts, comparable sales, a valuation and the most a
cash flip buyer can pay.</p>
<p class="${health.status === "ok" ? "notice" : "error"}" role="status">Service status: ${statusLine(health)}.
<a href="${frontPagePaths.health}">Health as JSON</a></p>
<ul>
<li><a href="${frontPagePaths.docs}">API reference</a>: every endpoint and every error</li>
<li><a href="${frontPagePaths.openapi}">OpenAPI document</a> (OpenAPI 3.1, JSON)</li>
<li><a href="${frontPagePaths.portal}">Portal</a>: for account holders — balance, API keys, usage, Terms of Service</li>
<li><a href="${frontPagePaths.health}">Health</a>: the status above, for monitors</li>
</ul>
<p class="muted">AI assistants connect at <code>${frontPagePaths.mcp}</code>, with an API key or by signing in.</p>
</main></body></html>`.value

const healthStatus = (health: Health) => (health.status === "ok" ? 200 : 503)

export const FrontPageRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const health = Effect.provideService(serviceHealth, Ledger, yield* Ledger)
    yield* router.get(
      frontPagePaths.home,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const now = yield* health
        const response = prefersHtml(request.headers["accept"])
          ? HttpServerResponse.html(frontPageHtml(now)).pipe(HttpServerResponse.setHeaders(securityHeaders))
          : yield* HttpServerResponse.json({
            name: "propscore",
            description: DESCRIPTION,
            docs: frontPagePaths.docs,
            openapi: frontPagePaths.openapi,
            portal: frontPagePaths.portal,
            health: frontPagePaths.health,
            mcp: frontPagePaths.mcp,
            status: now.status
          }).pipe(Effect.orDie, Effect.map(HttpServerResponse.setHeader("cache-control", "no-store")))
        return HttpServerResponse.setHeader(response, "vary", "Accept")
      })
    )
    yield* router.get(
      frontPagePaths.health,
      Effect.flatMap(health, (now) =>
        HttpServerResponse.json(now, { status: healthStatus(now) }).pipe(
          Effect.orDie,
          Effect.map(HttpServerResponse.setHeader("cache-control", "no-store"))
        ))
    )
  })
)
