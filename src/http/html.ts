import { HttpServerResponse } from "@effect/platform"

/**
 * Server-rendered HTML: escaping by default. `html` is a template tag whose interpolations are escaped
 * unless they are already `Html` (another `html` fragment); arrays are joined, and null, undefined and
 * false render nothing.
 */
export const escapeHtml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

export class Html {
  constructor(readonly value: string) {}
}

const render = (value: unknown): string =>
  value instanceof Html
    ? value.value
    : Array.isArray(value)
    ? value.map(render).join("")
    : value === null || value === undefined || value === false
    ? ""
    : escapeHtml(String(value))

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Html =>
  new Html(strings.reduce((out, text, i) => out + text + (i < values.length ? render(values[i]) : ""), ""))

/** 303 See Other: where a page's form sends the browser next; never cached, no referrer. */
export const seeOther = (location: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: { location, "cache-control": "no-store", "referrer-policy": "no-referrer" }
  })

/** Headers of every server-rendered page: never cached, never framed, no referrer, no sniffing. */
export const pageSecurityHeaders = (contentSecurityPolicy: string) => ({
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "content-security-policy": contentSecurityPolicy,
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
})
