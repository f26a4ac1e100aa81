/**
 * The sign-in and consent page of the authorization server: plain server-rendered HTML, no script,
 * readable on a phone, labelled fields. It cannot be framed (clickjacking) and is never cached.
 */
import { HttpServerResponse } from "@effect/platform"
import type { ConsentView } from "../oauth/authorization.js"
import { type Html, html, pageSecurityHeaders } from "./html.js"

const style = html`
  body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1b1f24; }
  main { max-width: 28rem; margin: 2rem auto; background: #fff; padding: 1.5rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
  h1 { font-size: 1.35rem; margin-top: 0; }
  label { display: block; font-weight: 600; margin-top: 1rem; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .6rem; font-size: 1rem; border: 1px solid #6b7280; border-radius: 4px; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; flex-wrap: wrap; }
  button { font-size: 1rem; padding: .6rem 1.2rem; border-radius: 4px; border: 1px solid #1d4ed8; cursor: pointer; }
  button.approve { background: #1d4ed8; color: #fff; }
  button.deny { background: #fff; color: #1d4ed8; }
  .error { background: #fde8e8; color: #8a1c1c; padding: .6rem; border-radius: 4px; }
  .note { color: #374151; font-size: .95rem; }
  :focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
`

const securityHeaders = pageSecurityHeaders(
  "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'"
)

const page = (title: string, body: Html, status: number) =>
  HttpServerResponse.html(
    html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · propscore</title><style>${style}</style></head>
<body><main>${body}</main></body></html>`.value
  ).pipe(HttpServerResponse.setStatus(status), HttpServerResponse.setHeaders(securityHeaders))

export const consentPage = (view: ConsentView, authorizeUrl: string, status = 200) =>
  page(
    `Connect ${view.clientName}`,
    html`<h1>Connect ${view.clientName} to your propscore account</h1>
<p class="note">${
      view.verified
        ? html`This app identifies itself from <strong>${view.clientOrigin}</strong>.`
        : "This app registered itself with propscore; its name is not verified."
    } After you approve, you are sent back to <strong>${view.redirectHost}</strong>.</p>
<p>Once connected it can act as your account: score properties and read their history, spending your
Credits at your account's rate. You can disconnect it at any time.</p>
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ""}
<form method="post" action="${authorizeUrl}">
  <input type="hidden" name="request_id" value="${view.requestId}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" value="${view.email}" required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <div class="actions">
    <button class="approve" type="submit" name="decision" value="approve">Sign in and approve</button>
    <button class="deny" type="submit" name="decision" value="deny" formnovalidate>Deny</button>
  </div>
</form>`,
    status
  )

export const errorPage = (message: string, status: number, returnTo?: string) =>
  page(
    "Sign-in problem",
    html`<h1>This sign-in cannot continue</h1><p class="error" role="alert">${message}</p>${
      returnTo ? html`<p><a href="${returnTo}" rel="noreferrer">Return to the app</a> (it is told why).</p>` : ""
    }`,
    status
  )
