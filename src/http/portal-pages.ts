/**
 * The Portal's pages: server-rendered HTML that works without JavaScript (the one script only adds a copy
 * button), with labelled fields, one h1 per page, a skip link, visible focus, AA contrast, and a layout
 * that reads on a phone. Rendering only: what a page shows was decided by src/operations/portal.ts.
 */
import { HttpServerResponse } from "@effect/platform"
import type { Overview, UsageFilter } from "../operations/portal.js"
import type { AccountView, KeyView, TermsVersion } from "../services/accounts.js"
import type { ConnectionView } from "../services/connections.js"
import type { DailyTotal, LedgerEntry } from "../services/ledger.js"
import { type Html, html, pageSecurityHeaders } from "./html.js"

export const PORTAL = "/portal"
export const paths = {
  overview: PORTAL,
  signIn: `${PORTAL}/sign-in`,
  signOut: `${PORTAL}/sign-out`,
  keys: `${PORTAL}/keys`,
  revokeKey: (keyId: string) => `${PORTAL}/keys/${encodeURIComponent(keyId)}/revoke`,
  usage: `${PORTAL}/usage`,
  usageCsv: `${PORTAL}/usage.csv`,
  connections: `${PORTAL}/connections`,
  disconnect: (connectionId: string) => `${PORTAL}/connections/${encodeURIComponent(connectionId)}/disconnect`,
  terms: `${PORTAL}/terms`,
  acceptTerms: `${PORTAL}/terms/accept`,
  stylesheet: `${PORTAL}/assets/portal.css`,
  script: `${PORTAL}/assets/portal.js`
} as const

const securityHeaders = pageSecurityHeaders(
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; form-action 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'"
)

/** What every signed-in page knows: the Account, its forms' CSRF token, and where it is. */
export interface PageContext {
  readonly account: AccountView
  readonly csrf: string
  readonly path: string
  /** What the page says about the action that sent the holder here, if one did. */
  readonly notice?: string | undefined
}

const nav: ReadonlyArray<readonly [string, string]> = [
  [paths.overview, "Overview"],
  [paths.keys, "API keys"],
  [paths.usage, "Usage"],
  [paths.connections, "Connections"],
  [paths.terms, "Terms"]
]

const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`

const document = (title: string, header: Html | string, body: Html, status: number) =>
  HttpServerResponse.html(
    html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · propscore Portal</title><link rel="stylesheet" href="${paths.stylesheet}">
<script src="${paths.script}" defer></script></head>
<body><a class="skip" href="#main">Skip to content</a>${header}
<main id="main" tabindex="-1">${body}</main></body></html>`.value
  ).pipe(HttpServerResponse.setStatus(status), HttpServerResponse.setHeaders(securityHeaders))

/** The header of a page shown without a session. */
const anonymousHeader =
  html`<header class="top"><div class="bar"><span class="brand">propscore Portal</span></div></header>`

const signedInHeader = (ctx: PageContext) =>
  html`<header class="top">
  <div class="bar"><span class="brand">propscore Portal</span>
    <span class="who">${ctx.account.name} <span class="muted">(${ctx.account.account_id})</span></span>
    <form method="post" action="${paths.signOut}" class="sign-out">${
    csrfField(ctx.csrf)
  }<button type="submit" class="link">Sign out</button></form>
  </div>
  <nav aria-label="Portal"><ul>${
    nav.map(([href, label]) =>
      html`<li><a href="${href}"${ctx.path === href ? html` aria-current="page"` : ""}>${label}</a></li>`
    )
  }</ul></nav>
</header>${
    ctx.account.terms.accepted ? "" : html`
<div class="banner" role="status">New Terms of Service (version ${ctx.account.terms.current_version}) wait for your
acceptance; until then calls that spend Credits are refused. <a href="${paths.terms}">Review and accept</a></div>`
  }`

/** A page of the signed-in Portal. */
export const portalPage = (ctx: PageContext, title: string, body: Html, status = 200) =>
  document(title, signedInHeader(ctx), body, status)

const notice = (text: string | undefined) => text ? html`<p class="notice" role="status">${text}</p>` : ""
const alert = (text: string | undefined) => text ? html`<p class="error" role="alert">${text}</p>` : ""

const time = (iso: string | null) =>
  iso === null
    ? html`<span class="muted">never</span>`
    : html`<time datetime="${iso}">${iso.slice(0, 16).replace("T", " ")} UTC</time>`

const credits = (n: number) => `${n.toLocaleString("en-US")} Credit${n === 1 ? "" : "s"}`

// ---------------------------------------------------------------------------------------------------------

export const signInPage = (options: {
  readonly csrf: string
  readonly email?: string | undefined
  readonly next?: string | undefined
  readonly error?: string | undefined
  readonly notice?: string | undefined
  readonly status?: number
}) =>
  document(
    "Sign in",
    anonymousHeader,
    html`<div class="narrow">
<h1>Sign in to your account</h1>
${notice(options.notice)}${alert(options.error)}
<form method="post" action="${paths.signIn}">
  ${csrfField(options.csrf)}
  ${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ""}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" value="${options.email ?? ""}" required autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions"><button type="submit" class="primary">Sign in</button></div>
</form>
<p class="muted">Your login is the one the operator set up for your account; it is also how AI assistants connect to it.</p>
</div>`,
    options.status ?? 200
  )

export const overviewPage = (ctx: PageContext, view: Overview) => {
  const { account } = view
  return portalPage(
    ctx,
    "Overview",
    html`<h1>Overview</h1>
<dl class="figures">
  <div><dt>Balance</dt><dd>${credits(account.balance)}</dd></div>
  <div><dt>Tier</dt><dd>${account.tier}</dd></div>
  <div><dt>Rate limit</dt><dd>${view.rateLimitPerMinute.toLocaleString("en-US")} requests per minute${
      view.rateLimitIsTierDefault ? html` <span class="muted">(the ${account.tier} tier's)</span>` : ""
    }</dd></div>
  <div><dt>Daily spend cap</dt><dd>${
      account.daily_spend_cap === null
        ? "None"
        // (Which figure is net of refunds, said: "9 Credits spent today" beside "Spent in November: 39" on the
        // same day read as a contradiction, a Portal audit, 2026-11-30.)
        : html`${credits(account.daily_spend_cap)} <span class="muted">(${
          credits(view.spentToday)
        } spent today, UTC, less today's refunds)</span>`
    }</dd></div>
  <div><dt>Spent in ${view.month.label}, before refunds</dt><dd>${credits(view.month.spent)}</dd></div>
  <div><dt>Refunded in ${view.month.label}</dt><dd>${credits(view.month.refunded)}</dd></div>
</dl>
<p>Terms of Service: ${
      account.terms.current_version === null
        ? "none published yet."
        : account.terms.accepted
        ? html`version ${account.terms.current_version}, accepted.`
        : html`version ${account.terms.current_version} is <strong>not accepted</strong>. <a href="${paths.terms}">Accept it</a>.`
    }</p>
<p><a href="${paths.keys}">Manage API keys</a> · <a href="${paths.usage}">See usage</a></p>`
  )
}

// ---------------------------------------------------------------------------------------------------------

export interface IssuedKeyView {
  readonly key_id: string
  readonly name: string | null
  readonly api_key: string
}

export const keysPage = (
  ctx: PageContext,
  keys: ReadonlyArray<KeyView>,
  options: { readonly issued?: IssuedKeyView; readonly error?: string; readonly name?: string } = {},
  status = 200
) => {
  const active = keys.filter((key) => key.revoked_at === null)
  const revoked = keys.filter((key) => key.revoked_at !== null)
  return portalPage(
    ctx,
    "API keys",
    html`<h1>API keys</h1>
${notice(ctx.notice)}
${
      options.issued
        ? html`<section class="issued" aria-labelledby="issued-title">
  <h2 id="issued-title">Your new key${options.issued.name ? html` “${options.issued.name}”` : ""}</h2>
  <p><strong>Copy it now: it is shown only this once.</strong> Send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
  <label for="new-key">API key</label>
  <div class="copy-row"><input id="new-key" class="secret" type="text" readonly value="${options.issued.api_key}" spellcheck="false" autocomplete="off">
  <button type="button" class="copy" data-copy="new-key" hidden>Copy</button></div>
  <p class="muted" data-copied aria-live="polite"></p>
</section>`
        : ""
    }
<section aria-labelledby="issue-title">
<h2 id="issue-title">Issue a key</h2>
${alert(options.error)}
<form method="post" action="${paths.keys}" class="inline">
  ${csrfField(ctx.csrf)}
  <input type="hidden" name="keys_seen" value="${String(keys.length)}">
  <label for="key-name">Name <span class="muted">(optional, to tell your keys apart)</span></label>
  <input id="key-name" name="name" type="text" maxlength="60" value="${options.name ?? ""}">
  <button type="submit" class="primary">Issue key</button>
</form>
</section>
<section aria-labelledby="active-title">
<h2 id="active-title">Active keys</h2>
${
      active.length === 0
        ? html`<p>No active keys.</p>`
        : html`<div class="table"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Key id</th><th scope="col">Issued</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${
          active.map((key) =>
            html`<tr><td>${
              key.name ?? html`<span class="muted">unnamed</span>`
            }</td><td><code>${key.key_id}</code></td><td>${time(key.created_at)}</td><td>${
              time(key.last_used_at)
            }</td><td><a href="${
              paths.revokeKey(key.key_id)
            }" class="danger-link">Revoke<span class="visually-hidden"> ${key.name ?? key.key_id}</span></a></td></tr>`
          )
        }</tbody></table></div>`
    }
</section>
${
      revoked.length === 0 ? "" : html`<section aria-labelledby="revoked-title">
<h2 id="revoked-title">Revoked keys</h2>
<div class="table"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Key id</th><th scope="col">Last used</th><th scope="col">Revoked</th></tr></thead>
<tbody>${
        revoked.map((key) =>
          html`<tr><td>${
            key.name ?? html`<span class="muted">unnamed</span>`
          }</td><td><code>${key.key_id}</code></td><td>${time(key.last_used_at)}</td><td>${
            time(key.revoked_at)
          }</td></tr>`
        )
      }</tbody></table></div></section>`
    }`,
    status
  )
}

export const revokeKeyPage = (ctx: PageContext, key: KeyView) =>
  portalPage(
    ctx,
    "Revoke key",
    html`<h1>Revoke this key?</h1>
<p>Key <strong>${key.name ?? "unnamed"}</strong> (<code>${key.key_id}</code>), last used ${time(key.last_used_at)}.</p>
<p>Every request with it is refused with 401 from then on. This cannot be undone; you can issue a new key.</p>
<form method="post" action="${paths.revokeKey(key.key_id)}" class="actions">
  ${csrfField(ctx.csrf)}
  <button type="submit" class="danger">Revoke key</button>
  <a href="${paths.keys}" class="button">Cancel</a>
</form>`
  )

// ---------------------------------------------------------------------------------------------------------

const kindLabel: Record<LedgerEntry["kind"], string> = { spend: "Spend", refund: "Refund", grant: "Grant" }

/** What an entry was for: the property's address as the call sent it (the first of a batch's, and how many more). */
const subjectOf = (entry: LedgerEntry) =>
  entry.subjects.length === 0
    ? ""
    : ` — ${entry.subjects[0]}${entry.subjects.length > 1 ? ` and ${entry.subjects.length - 1} more` : ""}`

const entryDescription = (entry: LedgerEntry) =>
  entry.kind === "spend"
    ? `${entry.operation ?? "call"}${entry.units !== null && entry.units !== 1 ? ` × ${entry.units}` : ""}${
      subjectOf(entry)
    }`
    : entry.kind === "refund"
    ? `of spend #${entry.refundOf}${entry.detail ? `: ${entry.detail}` : ""}${subjectOf(entry)}`
    : entry.detail ?? ""

const usageLink = (filter: UsageFilter, extra: Record<string, string> = {}, base: string = paths.usage) => {
  const params = new URLSearchParams()
  if (filter.fromDay) params.set("from", filter.fromDay)
  if (filter.toDay) params.set("to", filter.toDay)
  if (filter.kind) params.set("kind", filter.kind)
  for (const [name, value] of Object.entries(extra)) params.set(name, value)
  const query = params.toString()
  return query === "" ? base : `${base}?${query}`
}

/** The daily-spend chart: an SVG bar chart with a text alternative, and the same figures as a table. */
const spendChart = (days: ReadonlyArray<DailyTotal>) => {
  const width = 620
  const height = 190
  const left = 44
  const top = 12
  const plotHeight = 140
  const slot = (width - left - 8) / days.length
  const max = Math.max(1, ...days.map((day) => day.spent))
  const total = days.reduce((sum, day) => sum + day.spent, 0)
  const bars = days.map((day, i) => {
    const h = Math.round((day.spent / max) * plotHeight)
    return html`<rect x="${(left + i * slot + 2).toFixed(1)}" y="${top + plotHeight - h}" width="${
      (slot - 4).toFixed(1)
    }" height="${h}" class="bar"><title>${day.day}: ${
      credits(day.spent)
    } spent, ${day.refunded} refunded</title></rect>`
  })
  const label = (i: number) =>
    html`<text x="${(left + i * slot + slot / 2).toFixed(1)}" y="${
      top + plotHeight + 18
    }" text-anchor="middle" class="axis">${days[i]!.day.slice(5)}</text>`
  return html`<figure class="chart">
<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">Credits spent per day, last ${days.length} days (UTC)</title>
<desc id="chart-desc">${credits(total)} spent from ${days[0]!.day} to ${
    days[days.length - 1]!.day
  }; the most in one day was ${max === 1 && total === 0 ? 0 : max}.</desc>
<line x1="${left}" y1="${top + plotHeight}" x2="${width - 8}" y2="${top + plotHeight}" class="axis-line"/>
<text x="${left - 6}" y="${top + 4}" text-anchor="end" class="axis">${total === 0 ? 0 : max}</text>
<text x="${left - 6}" y="${top + plotHeight}" text-anchor="end" class="axis">0</text>
${bars}${label(0)}${label(Math.floor(days.length / 2))}${label(days.length - 1)}
</svg>
<figcaption>Credits spent per day over the last ${days.length} days (UTC), before refunds.</figcaption>
</figure>
<details><summary>The chart's figures</summary><div class="table"><table>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col">Spent</th><th scope="col">Refunded</th></tr></thead>
<tbody>${days.map((day) => html`<tr><td>${day.day}</td><td>${day.spent}</td><td>${day.refunded}</td></tr>`)}</tbody>
</table></div></details>`
}

export const usagePage = (
  ctx: PageContext,
  view: {
    readonly filter: UsageFilter
    readonly entries: ReadonlyArray<LedgerEntry>
    readonly olderThan: number | null
    readonly paged: boolean
    readonly chart: ReadonlyArray<DailyTotal>
    readonly problems: ReadonlyArray<string>
  },
  status = 200
) => {
  const { filter } = view
  return portalPage(
    ctx,
    "Usage",
    html`<h1>Usage</h1>
${spendChart(view.chart)}
<h2 id="entries-title">Ledger entries</h2>
${
      view.problems.length > 0
        ? html`<div class="error" role="alert"><ul>${view.problems.map((p) => html`<li>${p}</li>`)}</ul></div>`
        : ""
    }
<form method="get" action="${paths.usage}" class="filters" aria-label="Filter entries">
  <div><label for="from">From</label><input id="from" name="from" type="date" value="${filter.fromDay ?? ""}"></div>
  <div><label for="to">To</label><input id="to" name="to" type="date" value="${filter.toDay ?? ""}"></div>
  <div><label for="kind">Kind</label><select id="kind" name="kind">
    <option value="">All</option>${
      (["spend", "refund", "grant"] as const).map((kind) =>
        html`<option value="${kind}"${filter.kind === kind ? html` selected` : ""}>${kindLabel[kind]}</option>`
      )
    }
  </select></div>
  <div class="actions"><button type="submit">Apply</button> <a href="${paths.usage}" class="button">Clear</a>${
      view.problems.length > 0
        ? ""
        : html`
  <a href="${usageLink(filter, {}, paths.usageCsv)}" class="button" download>Export CSV</a>`
    }</div>
</form>
${
      view.problems.length > 0
        ? html`<p>No entries are listed until the filter is mended.</p>`
        : view.entries.length === 0
        ? html`<p>No entries${filter.fromDay || filter.toDay || filter.kind ? " match this filter" : " yet"}.</p>`
        : html`<div class="table"><table aria-labelledby="entries-title">
<thead><tr><th scope="col">Time</th><th scope="col">Kind</th><th scope="col" class="num">Credits</th><th scope="col">Detail</th><th scope="col">Trace id</th></tr></thead>
<tbody>${
          view.entries.map((entry) =>
            html`<tr><td>${time(entry.createdAt.toISOString())}</td><td>${
              kindLabel[entry.kind]
            } <span class="muted">#${entry.id}</span></td><td class="num">${
              entry.kind === "spend" ? `−${entry.amount}` : `+${entry.amount}`
            }</td><td>${entryDescription(entry)}</td><td>${
              entry.traceId ? html`<code class="trace">${entry.traceId}</code>` : ""
            }</td></tr>`
          )
        }</tbody></table></div>`
    }
<nav class="pager" aria-label="Pages of entries">${
      view.paged ? html`<a href="${usageLink(filter)}">Newest entries</a>` : ""
    }${
      view.olderThan !== null
        ? html`<a href="${usageLink(filter, { before: String(view.olderThan) })}" rel="next">Older entries</a>`
        : ""
    }</nav>`,
    status
  )
}

// ---------------------------------------------------------------------------------------------------------

export const connectionsPage = (ctx: PageContext, connections: ReadonlyArray<ConnectionView>) =>
  portalPage(
    ctx,
    "Connections",
    html`<h1>Connected apps</h1>
${notice(ctx.notice)}
<p>Apps you connected by signing in (AI assistants) act as your account: they score properties and spend
your Credits at your account's rate. Disconnecting one makes its next call fail, with nothing spent.</p>
${
      connections.length === 0
        ? html`<p>No apps are connected.</p>`
        : html`<div class="table"><table>
<thead><tr><th scope="col">App</th><th scope="col">Client id</th><th scope="col">Connected</th><th scope="col"><span class="visually-hidden">Action</span></th></tr></thead>
<tbody>${
          connections.map((c) =>
            html`<tr><td>${c.client_name}</td><td><code class="wrap">${c.client_id}</code></td><td>${
              time(c.connected_at)
            }</td><td><a href="${
              paths.disconnect(c.connection_id)
            }" class="danger-link">Disconnect<span class="visually-hidden"> ${c.client_name}</span></a></td></tr>`
          )
        }</tbody></table></div>`
    }`
  )

export const disconnectPage = (ctx: PageContext, connection: ConnectionView) =>
  portalPage(
    ctx,
    "Disconnect app",
    html`<h1>Disconnect ${connection.client_name}?</h1>
<p>Connected ${time(connection.connected_at)}. Its next call fails authentication, with nothing spent; to use it again,
connect it again from the app.</p>
<form method="post" action="${paths.disconnect(connection.connection_id)}" class="actions">
  ${csrfField(ctx.csrf)}
  <button type="submit" class="danger">Disconnect</button>
  <a href="${paths.connections}" class="button">Cancel</a>
</form>`
  )

// ---------------------------------------------------------------------------------------------------------

export const termsPage = (
  ctx: PageContext,
  status: {
    readonly current: TermsVersion | null
    readonly accepted_version: string | null
    readonly accepted: boolean
  },
  options: { readonly error?: string | undefined } = {},
  httpStatus = 200
) =>
  portalPage(
    ctx,
    "Terms of Service",
    html`<h1>Terms of Service</h1>
${notice(ctx.notice)}${alert(options.error)}
${
      status.current === null
        ? html`<p>No Terms of Service have been published yet; there is nothing to accept.</p>`
        : html`<dl class="figures">
  <div><dt>Current version</dt><dd>${status.current.version} <span class="muted">(published ${
          time(status.current.published_at)
        })</span></dd></div>
  <div><dt>You accepted</dt><dd>${status.accepted_version ?? "no version yet"}</dd></div>
</dl>
${
          status.accepted
            ? html`<p class="notice">You have accepted the current version.</p>`
            : html`<p>Until you accept version ${status.current.version}, calls that spend Credits (predict, batch, history, and
their MCP tools) are refused with 403 <code>terms-not-accepted</code>.</p>
<form method="post" action="${paths.acceptTerms}" class="actions">
  ${csrfField(ctx.csrf)}
  <input type="hidden" name="version" value="${status.current.version}">
  <button type="submit" class="primary">Accept version ${status.current.version}</button>
</form>`
        }`
    }`,
    httpStatus
  )

// ---------------------------------------------------------------------------------------------------------

/** A refusal inside the Portal (signed in or not): its status, a message, and the way back. */
export const portalErrorPage = (ctx: PageContext | undefined, status: number, title: string, message: string) => {
  const body = html`<h1>${title}</h1>${alert(message)}<p><a href="${
    ctx ? paths.overview : paths.signIn
  }">Back to the Portal</a></p>`
  return ctx
    ? portalPage(ctx, title, body, status)
    : document(title, anonymousHeader, body, status)
}

// ---------------------------------------------------------------------------------------------------------
// Assets

export const stylesheet = `
:root { --ink: #1b1f24; --muted: #4b5563; --line: #d1d5db; --accent: #1d4ed8; --danger: #b91c1c; --bg: #f4f5f7; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: var(--bg); color: var(--ink); line-height: 1.5; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: .5rem; }
.top { background: #111827; color: #fff; }
.bar { max-width: 64rem; margin: 0 auto; padding: .6rem 1rem; display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
.brand { font-weight: 700; }
.who { margin-left: auto; }
.who .muted { color: #d1d5db; }
.top nav ul { list-style: none; margin: 0 auto; padding: 0 1rem; max-width: 64rem; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; }
.top nav a { color: #e5e7eb; display: inline-block; padding: .5rem 0; text-decoration: none; border-bottom: 3px solid transparent; }
.top nav a[aria-current=page] { color: #fff; border-bottom-color: #f59e0b; font-weight: 600; }
.top nav a:hover { color: #fff; text-decoration: underline; }
.sign-out { margin: 0; }
button.link { background: none; border: 1px solid #9ca3af; color: #fff; padding: .3rem .7rem; border-radius: 4px; cursor: pointer; font-size: .95rem; }
main { max-width: 64rem; margin: 1.5rem auto; background: #fff; padding: 1.25rem 1.5rem 2rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
main:focus { outline: none; }
.narrow { max-width: 26rem; margin: 0 auto; }
h1 { font-size: 1.5rem; margin-top: 0; }
h2 { font-size: 1.15rem; margin-top: 1.75rem; }
a { color: var(--accent); }
label { display: block; font-weight: 600; margin-top: 1rem; }
input[type=email], input[type=password], input[type=text], input[type=date], select {
  width: 100%; padding: .55rem; font-size: 1rem; border: 1px solid #6b7280; border-radius: 4px; background: #fff; color: var(--ink); }
button, .button { display: inline-block; font-size: 1rem; padding: .55rem 1.1rem; border-radius: 4px; border: 1px solid var(--accent);
  background: #fff; color: var(--accent); cursor: pointer; text-decoration: none; line-height: 1.3; }
button.primary { background: var(--accent); color: #fff; }
button.danger { background: var(--danger); border-color: var(--danger); color: #fff; }
.danger-link { color: var(--danger); }
.actions { display: flex; gap: .75rem; margin-top: 1.25rem; flex-wrap: wrap; align-items: center; }
form.inline { display: grid; grid-template-columns: 1fr auto; gap: .5rem; align-items: end; max-width: 36rem; }
form.inline label { grid-column: 1 / -1; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: .25rem 1rem; align-items: end; }
.filters .actions { grid-column: 1 / -1; margin: .75rem 0 1rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 1rem; margin: 0; }
.figures div { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; }
.figures dt { color: var(--muted); font-size: .9rem; }
.figures dd { margin: .2rem 0 0; font-size: 1.2rem; font-weight: 600; }
.muted { color: var(--muted); font-weight: normal; }
.error { background: #fde8e8; color: #8a1c1c; padding: .6rem .8rem; border-radius: 4px; }
.error ul { margin: 0; padding-left: 1.2rem; }
.notice { background: #e7f5ec; color: #14532d; padding: .6rem .8rem; border-radius: 4px; }
.banner { background: #fef3c7; color: #713f12; padding: .75rem 1rem; text-align: center; }
.banner a { color: #713f12; font-weight: 600; }
.issued { border: 2px solid #15803d; border-radius: 8px; padding: 0 1rem 1rem; background: #f0fdf4; }
.copy-row { display: flex; gap: .5rem; }
.secret { font-family: ui-monospace, monospace; font-size: .95rem; }
.table { overflow-x: auto; position: relative; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f9fafb; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, monospace; font-size: .88rem; }
code.trace, code.wrap { word-break: break-all; }
.pager { display: flex; gap: 1.5rem; margin-top: 1rem; }
.chart { margin: 0 0 1rem; }
.chart svg { width: 100%; height: auto; max-height: 16rem; }
.chart .bar { fill: var(--accent); }
.chart .axis { font-size: 13px; fill: var(--muted); }
.chart .axis-line { stroke: #6b7280; }
figcaption { color: var(--muted); font-size: .9rem; }
details { margin-bottom: 1rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
@media (max-width: 40rem) {
  main { margin: 0; border-radius: 0; padding: 1rem; }
  form.inline { grid-template-columns: 1fr; }
  th, td { padding: .4rem; }
  td code { word-break: break-all; }
}
`

/** Progressive enhancement only: a copy button beside a newly issued key. */
export const script = `
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  if (!navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    var field = document.getElementById(button.getAttribute("data-copy"));
    var status = document.querySelector("[data-copied]");
    navigator.clipboard.writeText(field.value).then(function () {
      if (status) status.textContent = "Copied to the clipboard.";
    }, function () {
      field.select();
      if (status) status.textContent = "Select the key and copy it.";
    });
  });
});
`
