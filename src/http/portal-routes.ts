/**
 * The Portal's HTTP surface under `/portal`: sessions, CSRF and page rendering. Everything an account
 * holder can see or do is an operation of src/operations/portal.ts, called with the Account of the
 * session and nothing else; a handler reads the request, calls one operation, and renders its answer.
 *
 * - The session cookie is HttpOnly, SameSite=Lax, Secure outside development, scoped to `/portal`, and
 *   ends with the session (SESSION_LIFETIME_SECONDS) or at sign-out.
 * - Every form posts a CSRF token: the session's (derived from its token) once signed in, a double-submit
 *   nonce on the sign-in form. A POST marked `Sec-Fetch-Site: cross-site` is refused before it is read.
 * - A page asked for without a session redirects to sign-in and comes back after it.
 */
import { HttpApiBuilder, HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { stringify } from "csv-stringify/sync"
import { Chunk, Clock, Effect, Either, Option, Stream } from "effect"
import type { LedgerUnreachable } from "../../schema/problems.js"
import { hasControlCharacters } from "../../schema/text.js"
import { AppConfig } from "../config.js"
import { csrfTokenFor, newFormNonce, sameSecret } from "../domain/portal-session.js"
import {
  acceptTerms,
  dailySpend,
  findKey,
  issueKey,
  KINDS,
  listKeys,
  overview,
  parseUsageQuery,
  revokeKey,
  SESSION_LIFETIME_SECONDS,
  sessionAccount,
  signedInAccount,
  signIn,
  signOut,
  termsStatus,
  usageEntries,
  usagePage
} from "../operations/portal.js"
import { disconnect, listConnections } from "../operations/sign-in.js"
import { type Accounts, KeyNotFound } from "../services/accounts.js"
import { ConnectionNotFound, type Connections } from "../services/connections.js"
import type { Credentials } from "../services/credentials.js"
import { type Ledger, type LedgerEntry, utcDay } from "../services/ledger.js"
import type { PortalSessions } from "../services/portal-sessions.js"
import type { RateLimits } from "../services/rate-limits.js"
import type { StorageUnavailable } from "../services/storage.js"
import { type FormRefused, readForm } from "./form.js"
import { seeOther as redirect } from "./html.js"
import {
  connectionsPage,
  disconnectPage,
  keysPage,
  overviewPage,
  type PageContext,
  paths,
  PORTAL,
  portalErrorPage,
  revokeKeyPage,
  script,
  signInPage,
  stylesheet,
  termsPage,
  usagePage as renderUsagePage
} from "./portal-pages.js"

export const SESSION_COOKIE = "propscore_portal"
export const SIGN_IN_COOKIE = "propscore_portal_sign_in"
const SIGN_IN_FORM_SECONDS = 3_600

/** The routes the Portal answers (for 404 versus 405). */
export const portalRoutes: ReadonlyArray<{ readonly method: string; readonly path: string }> = [
  { method: "GET", path: paths.overview },
  { method: "GET", path: paths.signIn },
  { method: "POST", path: paths.signIn },
  { method: "POST", path: paths.signOut },
  { method: "GET", path: paths.keys },
  { method: "POST", path: paths.keys },
  { method: "GET", path: `${PORTAL}/keys/:keyId/revoke` },
  { method: "POST", path: `${PORTAL}/keys/:keyId/revoke` },
  { method: "GET", path: paths.usage },
  { method: "GET", path: paths.usageCsv },
  { method: "GET", path: paths.connections },
  { method: "GET", path: `${PORTAL}/connections/:connectionId/disconnect` },
  { method: "POST", path: `${PORTAL}/connections/:connectionId/disconnect` },
  { method: "GET", path: paths.terms },
  { method: "POST", path: paths.acceptTerms },
  { method: "GET", path: paths.stylesheet },
  { method: "GET", path: paths.script }
]

/** Where to go after signing in: a Portal path only, never another site. */
const safeNext = (next: string | undefined) =>
  next !== undefined && /^\/portal(?:[/?]|$)/.test(next) && !/[\\\s]/.test(next) ? next : paths.overview

const requestUrl = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://portal.invalid")

/** What a page says when an action sent the holder back to it (`?done=`), by page. */
const notices: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  [paths.signIn]: {
    "signed-out": "You are signed out.",
    // (A form sent after the session ended bounced to a bare sign-in page: a Portal audit, 2026-11-30, could not
    // tell whether its key was issued.)
    "session-ended": "Your session ended (you signed out, or it expired): sign in again. A form sent after it " +
      "ended did nothing."
  },
  [paths.keys]: { revoked: "The key was revoked: requests with it are now refused with 401." },
  [paths.connections]: { disconnected: "The app was disconnected: its next call fails authentication." },
  [paths.terms]: { accepted: "Thank you: the Terms are accepted." }
}

const noticeFor = (url: URL) => {
  const done = url.searchParams.get("done")
  return done === null ? undefined : notices[url.pathname]?.[done]
}

/**
 * A text cell a spreadsheet would read as a formula (its first character `=`, `+`, `-`, `@`, a tab or a carriage
 * return: OWASP's CSV injection rule) is written after an apostrophe, which spreadsheets show as text and never
 * evaluate. The addresses are the callers' own text: a Portal audit, 2026-11-30, sent `=HYPERLINK(...), Riverton`
 * and the holder's export held it as a live formula (quoting a cell does not stop a spreadsheet reading it).
 */
export const spreadsheetText = (text: string) => /^[=+\-@\t\r]/.test(text) ? `'${text}` : text

/** The issue form's count of the keys it was shown beside (none from a form without it: issued as before). */
const keysSeen = (sent: string | undefined) => sent !== undefined && /^\d{1,6}$/.test(sent) ? Number(sent) : undefined

const isCrossSite = (request: HttpServerRequest.HttpServerRequest) => request.headers["sec-fetch-site"] === "cross-site"

/** The failures any signed-in page may meet, rendered the same way everywhere. */
type PageFailure = LedgerUnreachable | StorageUnavailable | KeyNotFound | ConnectionNotFound | FormRefused

const failurePage = (ctx: PageContext | undefined, failure: PageFailure) => {
  switch (failure._tag) {
    case "LedgerUnreachable":
      return portalErrorPage(
        ctx,
        503,
        "Try again in a moment",
        "Your account's Ledger did not answer. Nothing was changed."
      )
    case "StorageUnavailable":
      return portalErrorPage(
        ctx,
        503,
        "Try again in a moment",
        "The Portal's database did not answer. Nothing was changed."
      )
    case "KeyNotFound":
      return portalErrorPage(ctx, 404, "No such key", "This account has no such API key.")
    case "ConnectionNotFound":
      return portalErrorPage(ctx, 404, "No such connection", "This account has no such connected app.")
    case "FormRefused":
      return portalErrorPage(ctx, 400, "The form could not be read", failure.message)
  }
}

export const PortalRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const config = yield* AppConfig
    const services = yield* Effect.context<
      Accounts | Connections | Credentials | Ledger | PortalSessions | RateLimits | AppConfig
    >()
    const cookieOptions = { httpOnly: true, secure: !config.development, sameSite: "lax" as const }
    const withSession = (response: HttpServerResponse.HttpServerResponse, token: string) =>
      HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, token, {
        ...cookieOptions,
        path: PORTAL,
        maxAge: `${SESSION_LIFETIME_SECONDS} seconds`
      })
    const withoutCookie = (response: HttpServerResponse.HttpServerResponse, name: string, path: string) =>
      HttpServerResponse.unsafeSetCookie(response, name, "", {
        ...cookieOptions,
        path,
        expires: new Date(0),
        maxAge: 0
      })

    /** Where a request without a live session goes: sign-in, then back (a form's own page after a POST). */
    const signInUrl = (request: HttpServerRequest.HttpServerRequest, ended: boolean) => {
      const url = requestUrl(request)
      const here = request.method === "GET"
        ? url.pathname + url.search
        : url.pathname === paths.acceptTerms
        ? paths.terms
        : url.pathname === paths.signOut
        ? paths.overview
        : url.pathname
      const query = [
        ...(here === paths.overview ? [] : [`next=${encodeURIComponent(here)}`]),
        ...(ended ? ["done=session-ended"] : [])
      ]
      return query.length === 0 ? paths.signIn : `${paths.signIn}?${query.join("&")}`
    }

    /**
     * A page of the signed-in Portal: no session (or an ended one) goes to sign-in; a POST must come from
     * our own pages (CSRF token, not cross-site). `handle` gets the page context and the form.
     */
    const signedIn = <R>(
      handle: (
        ctx: PageContext,
        form: Record<string, string>,
        token: string
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, PageFailure, R>
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = request.cookies[SESSION_COOKIE]
        const accountId = token === undefined ? Option.none<string>() : yield* sessionAccount(token)
        if (token === undefined || Option.isNone(accountId)) {
          const response = redirect(signInUrl(request, token !== undefined || request.method === "POST"))
          return token === undefined ? response : withoutCookie(response, SESSION_COOKIE, PORTAL)
        }
        const csrf = csrfTokenFor(token)
        const url = requestUrl(request)
        const ctx: PageContext = {
          account: yield* signedInAccount(accountId.value),
          csrf,
          path: url.pathname,
          notice: noticeFor(url)
        }
        let form: Record<string, string> = {}
        if (request.method === "POST") {
          const refused = portalErrorPage(
            ctx,
            403,
            "This form cannot be accepted",
            "It did not come from this Portal's own page. Reload the page and try again."
          )
          if (isCrossSite(request)) return refused
          form = yield* readForm(request)
          if (!sameSecret(csrf, form["csrf"] ?? "")) return refused
        }
        return yield* handle(ctx, form, token).pipe(
          Effect.catchAll((failure) => Effect.succeed(failurePage(ctx, failure)))
        )
      }).pipe(
        Effect.catchAll((failure: PageFailure) => Effect.succeed(failurePage(undefined, failure))),
        Effect.provide(services)
      )

    // An id with control characters names nothing (and never reaches the database).
    const routeParam = (name: string) =>
      Effect.map(HttpRouter.params, (params) => {
        const value = params[name] ?? ""
        return hasControlCharacters(value) ? "" : value
      })

    // Assets ------------------------------------------------------------------------------------------------
    const asset = (body: string, contentType: string) =>
      HttpServerResponse.text(body, {
        contentType,
        headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
      })
    yield* router.get(paths.stylesheet, Effect.succeed(asset(stylesheet, "text/css; charset=utf-8")))
    yield* router.get(paths.script, Effect.succeed(asset(script, "text/javascript; charset=utf-8")))

    // Sign-in and sign-out ----------------------------------------------------------------------------------
    const showSignIn = (options: Omit<Parameters<typeof signInPage>[0], "csrf">, nonce: string) =>
      HttpServerResponse.unsafeSetCookie(signInPage({ ...options, csrf: nonce }), SIGN_IN_COOKIE, nonce, {
        ...cookieOptions,
        path: paths.signIn,
        maxAge: `${SIGN_IN_FORM_SECONDS} seconds`
      })

    yield* router.get(
      paths.signIn,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const url = requestUrl(request)
        const next = url.searchParams.get("next") ?? undefined
        const token = request.cookies[SESSION_COOKIE]
        if (token !== undefined && Option.isSome(yield* sessionAccount(token))) return redirect(safeNext(next))
        return showSignIn({ next, notice: noticeFor(url) }, request.cookies[SIGN_IN_COOKIE] ?? newFormNonce())
      }).pipe(
        Effect.catchAll((failure: PageFailure) => Effect.succeed(failurePage(undefined, failure))),
        Effect.provide(services)
      )
    )

    yield* router.post(
      paths.signIn,
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const expired = showSignIn(
          { error: "This sign-in form has expired or did not come from this Portal. Sign in again.", status: 403 },
          newFormNonce()
        )
        if (isCrossSite(request)) return expired
        const form = yield* readForm(request)
        const nonce = request.cookies[SIGN_IN_COOKIE]
        if (nonce === undefined || !sameSecret(nonce, form["csrf"] ?? "")) return expired
        const email = form["email"] ?? ""
        const signedIn = yield* signIn(email, form["password"] ?? "").pipe(Effect.either)
        if (Either.isLeft(signedIn)) {
          const refused = signedIn.left
          return refused._tag === "StorageUnavailable"
            ? failurePage(undefined, refused)
            : showSignIn({ email, next: form["next"], error: refused.message, status: refused.status }, nonce)
        }
        const response = withSession(redirect(safeNext(form["next"])), signedIn.right.token)
        return withoutCookie(response, SIGN_IN_COOKIE, paths.signIn)
      }).pipe(
        Effect.catchTag("FormRefused", (failure) => Effect.succeed(failurePage(undefined, failure))),
        Effect.provide(services)
      )
    )

    yield* router.post(
      paths.signOut,
      signedIn((_ctx, _form, token) =>
        Effect.map(signOut(token), () =>
          withoutCookie(redirect(`${paths.signIn}?done=signed-out`), SESSION_COOKIE, PORTAL))
      )
    )

    // Overview ----------------------------------------------------------------------------------------------
    yield* router.get(
      paths.overview,
      signedIn((ctx) =>
        Effect.map(overview(ctx.account), (view) => overviewPage(ctx, view))
      )
    )

    // API keys ----------------------------------------------------------------------------------------------
    yield* router.get(
      paths.keys,
      signedIn((ctx) => Effect.map(listKeys(ctx.account.account_id), (keys) => keysPage(ctx, keys)))
    )

    yield* router.post(
      paths.keys,
      signedIn((ctx, form) =>
        issueKey(ctx.account.account_id, form["name"] ?? "", keysSeen(form["keys_seen"])).pipe(
          Effect.flatMap((issued) =>
            Effect.map(listKeys(ctx.account.account_id), (keys) => keysPage(ctx, keys, { issued }, 201))
          ),
          Effect.catchTags({
            InvalidKeyName: (invalid) =>
              Effect.map(
                listKeys(ctx.account.account_id),
                (keys) => keysPage(ctx, keys, { error: invalid.message, name: form["name"] ?? "" }, 400)
              ),
            KeyFormStale: (stale) =>
              Effect.map(listKeys(ctx.account.account_id), (keys) => keysPage(ctx, keys, { error: stale.message }, 409))
          })
        )
      )
    )

    yield* router.get(
      `${PORTAL}/keys/:keyId/revoke`,
      signedIn((ctx) =>
        Effect.gen(function*() {
          const keyId = yield* routeParam("keyId")
          const key = yield* findKey(ctx.account.account_id, keyId)
          if (Option.isNone(key)) return failurePage(ctx, new KeyNotFound({ keyId }))
          return key.value.revoked_at === null ? revokeKeyPage(ctx, key.value) : redirect(paths.keys)
        })
      )
    )

    yield* router.post(
      `${PORTAL}/keys/:keyId/revoke`,
      signedIn((ctx) =>
        Effect.gen(function*() {
          yield* revokeKey(ctx.account.account_id, yield* routeParam("keyId"))
          return redirect(`${paths.keys}?done=revoked`)
        })
      )
    )

    // Usage -------------------------------------------------------------------------------------------------
    yield* router.get(
      paths.usage,
      signedIn((ctx) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const accountId = ctx.account.account_id
          const chart = yield* dailySpend(accountId)
          const params = Object.fromEntries(requestUrl(request).searchParams)
          const parsed = parseUsageQuery(params)
          if (Either.isLeft(parsed)) {
            // The filter as sent stays in the form, to be mended (a Portal audit, 2026-11-30: From after To
            // emptied both fields and listed "No entries yet" beside 64 entries).
            const kind = params["kind"]
            return renderUsagePage(ctx, {
              filter: {
                fromDay: params["from"],
                toDay: params["to"],
                kind: KINDS.find((known) => known === kind)
              },
              entries: [],
              olderThan: null,
              paged: false,
              chart,
              problems: parsed.left
            }, 400)
          }
          const { beforeId, filter } = parsed.right
          const page = yield* usagePage(accountId, filter, beforeId)
          return renderUsagePage(ctx, { filter, ...page, paged: beforeId !== undefined, chart, problems: [] })
        })
      )
    )

    const csvHeader = [
      "entry_id",
      "time_utc",
      "kind",
      "credits",
      "operation",
      "units",
      "refund_of",
      "detail",
      "trace_id",
      "addresses"
    ]
    const csvRow = (entry: LedgerEntry) => [
      entry.id,
      entry.createdAt.toISOString(),
      entry.kind,
      entry.kind === "spend" ? -entry.amount : entry.amount,
      entry.operation ?? "",
      entry.units ?? "",
      entry.refundOf ?? "",
      spreadsheetText(entry.detail ?? ""),
      entry.traceId ?? "",
      // Each property's address as the call sent it, in the order sent.
      spreadsheetText(entry.subjects.join(" | "))
    ]
    const encoder = new TextEncoder()

    yield* router.get(
      paths.usageCsv,
      signedIn((ctx) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const parsed = parseUsageQuery(Object.fromEntries(requestUrl(request).searchParams))
          if (Either.isLeft(parsed)) {
            return portalErrorPage(ctx, 400, "The export's filter is not valid", parsed.left.join(" "))
          }
          const accountId = ctx.account.account_id
          const rows = usageEntries(accountId, parsed.right.filter).pipe(
            Stream.chunks,
            Stream.map((chunk) => encoder.encode(stringify(Chunk.toArray(chunk).map(csvRow)))),
            Stream.provideContext(services)
          )
          const body = Stream.concat(Stream.make(encoder.encode(stringify([csvHeader]))), rows)
          const filename = `propscore-usage-${accountId}-${utcDay(new Date(yield* Clock.currentTimeMillis))}.csv`
          return HttpServerResponse.stream(body, {
            contentType: "text/csv; charset=utf-8",
            headers: { "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" }
          })
        })
      )
    )

    // Connections -------------------------------------------------------------------------------------------
    const connectionsOf = (accountId: string) =>
      listConnections(accountId).pipe(Effect.catchTag("AccountNotFound", Effect.die))

    yield* router.get(
      paths.connections,
      signedIn((ctx) =>
        Effect.map(connectionsOf(ctx.account.account_id), (connections) => connectionsPage(ctx, connections))
      )
    )

    yield* router.get(
      `${PORTAL}/connections/:connectionId/disconnect`,
      signedIn((ctx) =>
        Effect.gen(function*() {
          const connectionId = yield* routeParam("connectionId")
          const connection = (yield* connectionsOf(ctx.account.account_id)).find((c) =>
            c.connection_id === connectionId
          )
          return connection
            ? disconnectPage(ctx, connection)
            : failurePage(ctx, new ConnectionNotFound({ connectionId }))
        })
      )
    )

    yield* router.post(
      `${PORTAL}/connections/:connectionId/disconnect`,
      signedIn((ctx) =>
        Effect.gen(function*() {
          yield* disconnect(ctx.account.account_id, yield* routeParam("connectionId"))
          return redirect(`${paths.connections}?done=disconnected`)
        })
      )
    )

    // Terms of Service --------------------------------------------------------------------------------------
    yield* router.get(
      paths.terms,
      signedIn((ctx) => Effect.map(termsStatus(ctx.account), (status) => termsPage(ctx, status)))
    )

    yield* router.post(
      paths.acceptTerms,
      signedIn((ctx, form) =>
        acceptTerms(ctx.account.account_id, form["version"] ?? "").pipe(
          Effect.as(redirect(`${paths.terms}?done=accepted`)),
          Effect.catchTags({
            TermsVersionNotCurrent: (stale) =>
              Effect.map(termsStatus(ctx.account), (status) =>
                // The current version accepted meanwhile (from another page): nothing to review again (a Portal
                // audit, 2026-11-30, was told both to accept again and that it had accepted).
                status.accepted ? redirect(paths.terms) : termsPage(ctx, status, {
                  error:
                    `The Terms changed while you were reading: version ${stale.current} is the current one now. Review it and accept again.`
                }, 409)),
            NoTermsPublished: () => Effect.succeed(redirect(paths.terms))
          })
        )
      )
    )
  })
)
