/**
 * The Portal over plain HTTP against the real application and a test database: sessions and their cookie,
 * CSRF on every form, the sign-in back-off, each page's figures, and for every route that one Account can
 * never see or touch another's data. The browser tests (browser.test.ts) drive the same pages in Chromium.
 */
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { ConnectionsPg } from "../../layers/connections/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { PortalSessionsPg } from "../../layers/portal-sessions/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { portalRoutes, spreadsheetText } from "../../src/http/portal-routes.js"
import { USAGE_PAGE_SIZE } from "../../src/operations/portal.js"
import { setLogin } from "../../src/operations/sign-in.js"
import { Accounts } from "../../src/services/accounts.js"
import { Connections } from "../../src/services/connections.js"
import { Ledger, utcDay } from "../../src/services/ledger.js"
import { SIGN_IN_ATTEMPTS_PER_MINUTE } from "../../src/services/rate-limits.js"
import { TestDatabase } from "../harness/database.js"
import { fakeScoringLayer } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { csrfOf, PortalBrowser, portalHolder } from "../harness/portal.js"
import { baseUrl, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

/**
 * The real application over a test database, but for scoring: the scripted fake knows one address, so a
 * test can make a paid call without a county loaded.
 */
const PortalServer = serverWith(
  Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, ConnectionsPg, PortalSessionsPg, RateLimitsMemory)
    .pipe(
      Layer.provideMerge(TestDatabase),
      Layer.merge(fakeScoringLayer({ "42 Elm St": { answer: { _tag: "Outcome", outcome } } }, {}))
    )
)
const predict = (key: string) => request("/v1/predict", { key, body: { address: "42 Elm St" } })

const promise = <A>(run: () => Promise<A>) => Effect.promise(run)

const validate = (key: string) => request("/v1/validate", { key, body: { address: "1 Main St" } })

/** A holder signed in to the Portal. */
const signedIn = (credits?: number) =>
  Effect.gen(function*() {
    const holder = yield* portalHolder(credits)
    const answer = yield* promise(() => holder.browser.signIn(holder.email, holder.password))
    expect(answer.status, answer.text).toBe(303)
    return holder
  })

/** Records `count` paid calls for an Account straight in the Ledger, each with its own trace id. */
const spends = (accountId: string, count: number, tracePrefix: string) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const ids: Array<number> = []
    for (let i = 0; i < count; i++) {
      const traceId = `${tracePrefix}${i.toString(16).padStart(32 - tracePrefix.length, "0")}`
      const spend = yield* ledger.spend({
        accountId,
        operation: "predict",
        units: 1,
        traceId,
        settleBy: Date.now() + 60_000,
        nodeId: "node_portal_test",
        subjects: [`${i + 1} Pine Ct, Riverton`],
        attemptId: `${tracePrefix}-${i}`
      })
      yield* ledger.settle(spend.spendId)
      ids.push(spend.spendId)
    }
    return ids
  })

const rowsOf = (html: string) =>
  [...html.matchAll(/<td>(Spend|Refund|Grant) <span class="muted">#(\d+)<\/span>/g)].map((m) => ({
    kind: m[1]!,
    id: Number(m[2])
  }))

const DAY_MS = 86_400_000

// The live clock: the Ledger dates entries by the database's clock, and the Portal's days and months must agree.
layer(PortalServer, { timeout: "240 seconds", excludeTestServices: true })("the Portal", (it) => {
  it.effect("sign-in sets an HttpOnly, Secure, SameSite=Lax session cookie; a wrong password sets none; sign-out ends the session", () =>
    Effect.gen(function*() {
      const holder = yield* portalHolder()
      const { browser } = holder
      const form = yield* promise(() => browser.get("/portal/sign-in"))
      expect(form.status).toBe(200)
      expect(form.headers.get("cache-control")).toBe("no-store")
      expect(form.headers.get("x-frame-options")).toBe("DENY")
      expect(form.text).toContain(`<label for="email">Email</label>`)
      const nonce = form.setCookies.find((c) => c.startsWith("propscore_portal_sign_in="))!
      expect(nonce).toMatch(/; HttpOnly/i)
      expect(nonce).toMatch(/; Secure/i)
      expect(nonce).toMatch(/; SameSite=Lax/i)

      const wrong = yield* promise(() =>
        browser.post("/portal/sign-in", { csrf: csrfOf(form.text), email: holder.email, password: "not the password" })
      )
      expect(wrong.status).toBe(400)
      expect(wrong.text).toContain("The email or password is not right.")
      expect(browser.cookies.has("propscore_portal")).toBe(false)

      const right = yield* promise(() =>
        browser.post("/portal/sign-in", { csrf: csrfOf(wrong.text), email: holder.email, password: holder.password })
      )
      expect(right.status).toBe(303)
      expect(right.location).toBe("/portal")
      const session = right.setCookies.find((c) => c.startsWith("propscore_portal="))!
      expect(session).toMatch(/; HttpOnly/i)
      expect(session).toMatch(/; Secure/i)
      expect(session).toMatch(/; SameSite=Lax/i)
      expect(session).toMatch(/; Path=\/portal/i)
      expect(session).toMatch(/; Max-Age=43200/i)
      const token = browser.cookies.get("propscore_portal")!

      const home = yield* promise(() => browser.get("/portal"))
      expect(home.status).toBe(200)
      expect(home.text).toContain(holder.accountId)
      // Signed in, the sign-in page sends the holder on.
      expect((yield* promise(() => browser.get("/portal/sign-in"))).location).toBe("/portal")

      // A form of the live session, sent once it has ended (below).
      const keysPage = (yield* promise(() => browser.get("/portal/keys"))).text
      const lateForm = {
        csrf: csrfOf(keysPage),
        name: "late",
        keys_seen: /name="keys_seen" value="(\d+)"/.exec(keysPage)![1]!
      }
      const out = yield* promise(() => browser.submit("/portal", "/portal/sign-out"))
      expect(out.status).toBe(303)
      expect(out.location).toBe("/portal/sign-in?done=signed-out")
      expect(browser.cookies.has("propscore_portal")).toBe(false)
      // The old token, replayed, is worth nothing: the session itself ended.
      const replay = new PortalBrowser(browser.base)
      replay.cookies.set("propscore_portal", token)
      const after = yield* promise(() => replay.get("/portal"))
      expect(after.status).toBe(303)
      expect(after.location).toBe("/portal/sign-in?done=session-ended")
      // A form sent after the session ended does nothing, and the sign-in page says so, then goes back to the
      // form's page (a Portal audit, 2026-11-30: a bare sign-in page, and nothing said whether a key was issued).
      const keysBefore = (yield* Effect.flatMap(Accounts, (a) => a.listKeys(holder.accountId))).length
      const stale = yield* promise(() => replay.post("/portal/keys", lateForm))
      expect(stale.status).toBe(303)
      expect(stale.location).toBe(`/portal/sign-in?next=${encodeURIComponent("/portal/keys")}&done=session-ended`)
      expect((yield* Effect.flatMap(Accounts, (a) => a.listKeys(holder.accountId))).length).toBe(keysBefore)
      const signInAgain = yield* promise(() => replay.get(stale.location!))
      expect(signInAgain.text).toContain("Your session ended (you signed out, or it expired): sign in again.")
      const cookieless = yield* promise(() => new PortalBrowser(browser.base).post("/portal/keys", { name: "late" }))
      expect(cookieless.location).toBe(`/portal/sign-in?next=${encodeURIComponent("/portal/keys")}&done=session-ended`)
    }))

  it.effect("a new password (the operator's set-login) ends the holder's Portal sessions", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn()
      expect((yield* promise(() => holder.browser.get("/portal"))).status).toBe(200)
      yield* setLogin(holder.accountId, holder.email, "a brand new passphrase")
      expect((yield* promise(() => holder.browser.get("/portal"))).location).toBe("/portal/sign-in?done=session-ended")
      expect((yield* promise(() => holder.browser.signIn(holder.email, holder.password))).status).toBe(400)
      expect((yield* promise(() => holder.browser.signIn(holder.email, "a brand new passphrase"))).status).toBe(303)
    }))

  it.effect("a page asked for without a session goes to sign-in and comes back after it; only to a Portal page", () =>
    Effect.gen(function*() {
      const holder = yield* portalHolder()
      const asked = yield* promise(() => holder.browser.get("/portal/usage?kind=spend"))
      expect(asked.status).toBe(303)
      expect(asked.location).toBe(`/portal/sign-in?next=${encodeURIComponent("/portal/usage?kind=spend")}`)
      const back = yield* promise(() =>
        holder.browser.signIn(holder.email, holder.password, "/portal/usage?kind=spend")
      )
      expect(back.location).toBe("/portal/usage?kind=spend")

      const elsewhere = new PortalBrowser(holder.browser.base)
      const offsite = yield* promise(() =>
        elsewhere.signIn(holder.email, holder.password, "https://evil.example/portal")
      )
      expect(offsite.location).toBe("/portal")
      const sneaky = new PortalBrowser(holder.browser.base)
      expect((yield* promise(() => sneaky.signIn(holder.email, holder.password, "/portal\\@evil.example"))).location)
        .toBe("/portal")
    }))

  it.effect("CSRF: every form post without the page's token, or from another site, is refused 403 and changes nothing", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn()
      const { browser } = holder
      const connections = yield* Connections
      const connectionId = yield* connections.connect(holder.accountId, "client_csrf", "CSRF test app")
      const accounts = yield* Accounts
      const keysBefore = yield* accounts.listKeys(holder.accountId)
      const csrf = csrfOf((yield* promise(() => browser.get("/portal"))).text)

      const posts: ReadonlyArray<readonly [string, Record<string, string>]> = [
        ["/portal/sign-out", {}],
        ["/portal/keys", { name: "forged" }],
        [`/portal/keys/${holder.keyId}/revoke`, {}],
        [`/portal/connections/${connectionId}/disconnect`, {}],
        ["/portal/terms/accept", { version: "any" }]
      ]
      for (const [path, fields] of posts) {
        for (const forged of [fields, { ...fields, csrf: "forged-token" }]) {
          const refused = yield* promise(() => browser.post(path, forged))
          expect(refused.status, `${path} ${JSON.stringify(forged)}`).toBe(403)
        }
        const crossSite = yield* promise(() =>
          browser.post(path, { ...fields, csrf }, { "sec-fetch-site": "cross-site" })
        )
        expect(crossSite.status, path).toBe(403)
      }
      expect(yield* accounts.listKeys(holder.accountId)).toEqual(keysBefore)
      expect((yield* validate(holder.apiKey)).status).toBe(200)
      expect((yield* connections.list(holder.accountId)).map((c) => c.connection_id)).toEqual([connectionId])
      expect((yield* promise(() => browser.get("/portal"))).status).toBe(200)

      // The sign-in form has its own token, bound to a cookie of the same page.
      const stranger = new PortalBrowser(browser.base)
      const noCookie = yield* promise(() =>
        stranger.post("/portal/sign-in", { csrf: "guess", email: holder.email, password: holder.password })
      )
      expect(noCookie.status).toBe(403)
      expect(stranger.cookies.has("propscore_portal")).toBe(false)
    }))

  it.effect(`sign-in backs off: after ${SIGN_IN_ATTEMPTS_PER_MINUTE} attempts in a minute for one email even the right password is refused 429`, () =>
    Effect.gen(function*() {
      const holder = yield* portalHolder()
      for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) {
        const wrong = yield* promise(() => holder.browser.signIn(holder.email, `wrong password ${i}`))
        expect(wrong.status).toBe(400)
      }
      const locked = yield* promise(() => holder.browser.signIn(holder.email.toUpperCase(), holder.password))
      expect(locked.status).toBe(429)
      expect(locked.text).toContain(`More than ${SIGN_IN_ATTEMPTS_PER_MINUTE} sign-in attempts`)
      // (A sign-in is never charged: the words do not say it was not.)
      expect(locked.text).not.toContain("charged")
      expect(holder.browser.cookies.has("propscore_portal")).toBe(false)
      // Another holder's email has its own count.
      const other = yield* portalHolder()
      expect((yield* promise(() => other.browser.signIn(other.email, other.password))).status).toBe(303)
    }))

  it.effect("the back-off is one count with the assistants' consent page: failures in the Portal refuse the right password there too", () =>
    Effect.gen(function*() {
      const holder = yield* portalHolder()
      const base = holder.browser.base
      const redirectUri = "http://127.0.0.1:45999/callback"
      const client = yield* promise(() =>
        fetch(`${base}/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            client_name: "Back-off test",
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: "none"
          })
        }).then((r) => r.json() as Promise<{ client_id: string }>)
      )
      const authorize = new URL(`${base}/oauth/authorize`)
      for (
        const [name, value] of Object.entries({
          response_type: "code",
          client_id: client.client_id,
          redirect_uri: redirectUri,
          code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
          code_challenge_method: "S256",
          resource: `${TEST_BASE_URL}/mcp`
        })
      ) authorize.searchParams.set(name, value)
      const consent = yield* promise(() => fetch(authorize).then((r) => r.text()))
      const requestId = /name="request_id" value="([^"]+)"/.exec(consent)![1]!

      for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_MINUTE; i++) {
        expect((yield* promise(() => holder.browser.signIn(holder.email, `wrong password ${i}`))).status).toBe(400)
      }
      const approve = yield* promise(() =>
        fetch(`${base}/oauth/authorize`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            request_id: requestId,
            email: holder.email,
            password: holder.password,
            decision: "approve"
          })
        })
      )
      expect(approve.status).toBe(429)
      expect(yield* Effect.flatMap(Connections, (c) => c.list(holder.accountId))).toEqual([])
    }))

  it.effect("AUTH-1: a key issued in the Portal is shown once and works, its last use is shown, and revoking it (after a confirmation) makes the next call 401", () =>
    Effect.gen(function*() {
      const { accountId, browser } = yield* signedIn()
      const issued = yield* promise(() => browser.submit("/portal/keys", "/portal/keys", { name: "laptop" }))
      expect(issued.status).toBe(201)
      expect(issued.text).toContain("it is shown only this once")
      const apiKey = /id="new-key"[^>]* value="(ps_[a-z2-7_]+)"/.exec(issued.text)![1]!
      const keyId = apiKey.split("_")[1]!
      const listed = yield* promise(() => browser.get("/portal/keys"))
      expect(listed.text).not.toContain(apiKey)
      expect(listed.text).toContain(`<code>${keyId}</code>`)
      expect(listed.text).toContain("laptop")
      expect((yield* Effect.flatMap(Accounts, (a) => a.listKeys(accountId))).find((k) => k.key_id === keyId)?.name)
        .toBe("laptop")

      expect((yield* validate(apiKey)).status).toBe(200)
      const lastUsed = new RegExp(
        `<code>${keyId}</code></td><td><time[^>]*>[^<]*</time></td><td><time datetime="([^"]+)"`
      )
      let seen: RegExpExecArray | null = null
      for (let i = 0; i < 40 && seen === null; i++) {
        seen = lastUsed.exec((yield* promise(() => browser.get("/portal/keys"))).text)
        if (seen === null) yield* promise(() => new Promise((resolve) => setTimeout(resolve, 250)))
      }
      expect(seen, "the key's last use appears within seconds").not.toBeNull()
      expect(Math.abs(Date.parse(seen![1]!) - Date.now())).toBeLessThan(60_000)

      const confirm = yield* promise(() => browser.get(`/portal/keys/${keyId}/revoke`))
      expect(confirm.status).toBe(200)
      expect(confirm.text).toContain("Revoke this key?")
      expect((yield* validate(apiKey)).status).toBe(200)
      const revoked = yield* promise(() => browser.post(`/portal/keys/${keyId}/revoke`, { csrf: csrfOf(confirm.text) }))
      expect(revoked.status).toBe(303)
      expect(revoked.location).toBe("/portal/keys?done=revoked")
      const refused = yield* validate(apiKey)
      expect(refused.status).toBe(401)
      expect(refused.body.type).toMatch(/invalid-key$/)
      const after = yield* promise(() => browser.get("/portal/keys?done=revoked"))
      expect(after.text).toContain("The key was revoked")
      expect(after.text.slice(after.text.indexOf("Revoked keys"))).toContain(`<code>${keyId}</code>`)
      // A revoked key has no confirmation page any more.
      expect((yield* promise(() => browser.get(`/portal/keys/${keyId}/revoke`))).location).toBe("/portal/keys")

      const tooLong = yield* promise(() => browser.submit("/portal/keys", "/portal/keys", { name: "x".repeat(61) }))
      expect(tooLong.status).toBe(400)
      expect(tooLong.text).toContain("at most 60 characters")
      expect((yield* Effect.flatMap(Accounts, (a) => a.listKeys(accountId))).length).toBe(2)
    }))

  it.effect("AUTH-1: the issue form sent again (a reload or Back re-sends it) issues no second key; the form shown afresh does (a Portal audit, 2026-11-30)", () =>
    Effect.gen(function*() {
      const { accountId, browser } = yield* signedIn()
      const keyCount = Effect.map(Effect.flatMap(Accounts, (a) => a.listKeys(accountId)), (keys) => keys.length)
      const before = yield* keyCount
      const formOf = (html: string) => ({
        csrf: csrfOf(html),
        name: "laptop",
        keys_seen: /name="keys_seen" value="(\d+)"/.exec(html)![1]!
      })
      const form = formOf((yield* promise(() => browser.get("/portal/keys"))).text)
      expect(form.keys_seen).toBe(String(before))
      const issued = yield* promise(() => browser.post("/portal/keys", form))
      expect(issued.status).toBe(201)
      const again = yield* promise(() => browser.post("/portal/keys", form))
      expect(again.status).toBe(409)
      expect(again.text).toContain("No key was issued: this form was sent before")
      expect(again.text).not.toContain("id=\"new-key\"")
      expect(yield* keyCount).toBe(before + 1)
      // The page the refusal shows is a form of the keys as they are now: it issues the next one.
      const next = yield* promise(() => browser.post("/portal/keys", formOf(again.text)))
      expect(next.status).toBe(201)
      expect(yield* keyCount).toBe(before + 2)
      // A double click: the same form twice at once issues one key (checked with the Account locked).
      const doubled = formOf(next.text)
      const both = yield* Effect.all(
        [promise(() => browser.post("/portal/keys", doubled)), promise(() => browser.post("/portal/keys", doubled))],
        { concurrency: 2 }
      )
      expect(both.map((r) => r.status).sort()).toEqual([201, 409])
      expect(yield* keyCount).toBe(before + 3)
    }))

  it.effect("the overview shows Balance, tier, rate limit, spend cap with today's spend, and this month's Credits spent and refunded", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn(40)
      const accounts = yield* Accounts
      yield* accounts.update(holder.accountId, { rateLimitPerMinute: null, dailySpendCap: 25 })
      const [first] = yield* spends(holder.accountId, 3, "c0ffee")
      const ledger = yield* Ledger
      yield* ledger.refund({
        spendId: first!,
        amount: 1,
        reason: "unknown-property",
        traceId: "c0ffee".padEnd(32, "1")
      })
      const page = yield* promise(() => holder.browser.get("/portal"))
      expect(page.status).toBe(200)
      const text = page.text.replace(/\s+/g, " ")
      expect(text).toContain("<dt>Balance</dt><dd>38 Credits</dd>")
      expect(text).toContain("<dt>Tier</dt><dd>public</dd>")
      expect(text).toContain("60 requests per minute <span class=\"muted\">(the public tier's)</span>")
      expect(text).toContain(
        "25 Credits <span class=\"muted\">(2 Credits spent today, UTC, less today's refunds)</span>"
      )
      const month = new Date().toLocaleDateString("en-US", { month: "long", year: "numeric", timeZone: "UTC" })
      expect(text).toContain(`<dt>Spent in ${month}, before refunds</dt><dd>3 Credits</dd>`)
      expect(text).toContain(`<dt>Refunded in ${month}</dt><dd>1 Credit</dd>`)
      yield* reconciles(holder.accountId)
    }))

  it.effect("usage lists the Ledger entries with trace ids and addresses, newest first, paged, filtered by kind and date, with a 30-day chart", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn(100)
      const ids = yield* spends(holder.accountId, 60, "ab")
      const ledger = yield* Ledger
      for (const spendId of ids.filter((_, i) => i % 3 === 0)) {
        yield* ledger.refund({ spendId, amount: 1, reason: "unknown-property", traceId: "ab".padEnd(32, "f") })
      }
      // The first ten calls were three days ago.
      const sql = yield* SqlClient.SqlClient
      const threeDaysAgo = new Date(Date.now() - 3 * DAY_MS)
      yield* sql`UPDATE ledger_entries SET created_at = ${threeDaysAgo} WHERE id IN ${sql.in(ids.slice(0, 10))}`
      const today = utcDay(new Date())
      const { browser } = holder

      const first = yield* promise(() => browser.get("/portal/usage"))
      expect(first.status).toBe(200)
      const firstRows = rowsOf(first.text)
      expect(firstRows).toHaveLength(USAGE_PAGE_SIZE)
      expect(firstRows.map((r) => r.id)).toEqual([...firstRows.map((r) => r.id)].sort((a, b) => b - a))
      // The newest spend, with its trace id and the address it was spent on.
      expect(first.text).toContain(`ab${(59).toString(16).padStart(30, "0")}`)
      expect(first.text).toContain("predict — 60 Pine Ct, Riverton")
      const older = /href="(\/portal\/usage\?before=\d+)" rel="next"/.exec(first.text)![1]!
      const second = yield* promise(() => browser.get(older.replace(/&amp;/g, "&")))
      const secondRows = rowsOf(second.text)
      expect(secondRows).toHaveLength(60 + 20 + 1 - USAGE_PAGE_SIZE)
      expect(second.text).toContain("Newest entries")
      expect(second.text).not.toContain("rel=\"next\"")
      expect(new Set([...firstRows, ...secondRows].map((r) => r.id)).size).toBe(81)

      const refunds = rowsOf((yield* promise(() => browser.get("/portal/usage?kind=refund"))).text)
      expect(refunds).toHaveLength(20)
      expect(refunds.every((r) => r.kind === "Refund")).toBe(true)
      // Exactly one page of today's spends: no link to an empty next page.
      const todays = yield* promise(() => browser.get(`/portal/usage?kind=spend&from=${today}&to=${today}`))
      expect(rowsOf(todays.text)).toHaveLength(50)
      expect(todays.text).not.toContain("rel=\"next\"")
      const earlier = rowsOf(
        (yield* promise(() => browser.get(`/portal/usage?kind=spend&to=${utcDay(threeDaysAgo)}`))).text
      )
      expect(earlier.map((r) => r.id).sort((a, b) => a - b)).toEqual(ids.slice(0, 10))

      const invalid = yield* promise(() => browser.get("/portal/usage?from=2026-13-01&kind=everything"))
      expect(invalid.status).toBe(400)
      expect(invalid.text).toContain("From must be a date (YYYY-MM-DD).")
      expect(invalid.text).toContain("Kind must be spend, refund or grant.")
      // The filter as sent stays in the form, no entries are listed as if there were none, and nothing is
      // exported unfiltered (a Portal audit, 2026-11-30).
      const reversed = yield* promise(() => browser.get(`/portal/usage?from=${today}&to=2026-01-01&kind=refund`))
      expect(reversed.status).toBe(400)
      expect(reversed.text).toContain("To is before From.")
      expect(reversed.text).toContain(`id="from" name="from" type="date" value="${today}"`)
      expect(reversed.text).toContain(`id="to" name="to" type="date" value="2026-01-01"`)
      expect(reversed.text).toContain(`<option value="refund" selected>`)
      expect(reversed.text).toContain("No entries are listed until the filter is mended.")
      expect(reversed.text).not.toContain("No entries yet")
      expect(reversed.text).not.toContain("/portal/usage.csv")

      expect(first.text).toContain(`<title>${today}: 50 Credits spent, 20 refunded</title>`)
      expect(first.text).toContain(`<title>${utcDay(threeDaysAgo)}: 10 Credits spent, 0 refunded</title>`)
      expect(first.text.match(/<rect /g)).toHaveLength(30)
      yield* reconciles(holder.accountId)
    }))

  it.effect("the CSV export holds every matching entry (read in batches), newest first, with trace ids and the address each Credit was spent on", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn(10)
      yield* spends(holder.accountId, 2, "cd")
      const sql = yield* SqlClient.SqlClient
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          INSERT INTO ledger_entries (account_id, kind, amount, note)
          SELECT ${holder.accountId}, 'grant', 1, 'bulk' FROM generate_series(1, 2100)`
        yield* sql`UPDATE accounts SET balance = balance + 2100 WHERE id = ${holder.accountId}`
      }))
      const all = yield* promise(() => holder.browser.get("/portal/usage.csv"))
      expect(all.status).toBe(200)
      expect(all.headers.get("content-type")).toBe("text/csv; charset=utf-8")
      expect(all.headers.get("content-disposition")).toMatch(
        new RegExp(`^attachment; filename="propscore-usage-${holder.accountId}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`)
      )
      const lines = all.text.trimEnd().split("\n")
      expect(lines[0]).toBe("entry_id,time_utc,kind,credits,operation,units,refund_of,detail,trace_id,addresses")
      expect(lines).toHaveLength(1 + 2100 + 2 + 1)
      const entryIds = lines.slice(1).map((line) => Number(line.split(",")[0]))
      expect(new Set(entryIds).size).toBe(entryIds.length)
      expect(entryIds).toEqual([...entryIds].sort((a, b) => b - a))

      const spent = (yield* promise(() => holder.browser.get("/portal/usage.csv?kind=spend"))).text.trimEnd().split(
        "\n"
      ).slice(1)
      expect(spent).toHaveLength(2)
      expect(spent[0]).toMatch(
        new RegExp(`^\\d+,\\d{4}-\\d{2}-\\d{2}T[^,]+Z,spend,-1,predict,1,,,cd0{29}1,"2 Pine Ct, Riverton"$`)
      )
      expect((yield* promise(() => holder.browser.get("/portal/usage.csv?to=yesterday"))).status).toBe(400)

      // An address a spreadsheet would read as a formula is written as text, in its spend and in its refund, which
      // names it (a Portal audit, 2026-11-30: a live =HYPERLINK in the holder's export; refunds without addresses).
      const ledger = yield* Ledger
      const planted = yield* ledger.spend({
        accountId: holder.accountId,
        operation: "predict",
        units: 1,
        traceId: "ef".padEnd(32, "0"),
        settleBy: Date.now() + 60_000,
        nodeId: "node_portal_test",
        subjects: ["=HYPERLINK(\"http://evil.example/\",\"Click\"), Riverton"],
        attemptId: "ef-0"
      })
      yield* ledger.refund({
        spendId: planted.spendId,
        amount: 1,
        reason: "unknown-property",
        traceId: "ef".padEnd(32, "1")
      })
      // (Newest first: the refund, then its spend.)
      const [refundLine, spendLine] = (yield* promise(() => holder.browser.get("/portal/usage.csv"))).text
        .trimEnd().split("\n").filter((line) => line.includes("HYPERLINK"))
      const text = `"'=HYPERLINK(""http://evil.example/"",""Click""), Riverton"`
      expect(spendLine!.endsWith(`,${text}`)).toBe(true)
      expect(refundLine).toMatch(new RegExp(`^\\d+,[^,]+,refund,1,,,${planted.spendId},unknown-property,ef1{30},`))
      expect(refundLine!.endsWith(`,${text}`)).toBe(true)
      expect(spreadsheetText("+1 555")).toBe("'+1 555")
      expect(spreadsheetText("12 Pine Ct")).toBe("12 Pine Ct")
      yield* reconciles(holder.accountId)
    }))

  it.effect("AUTH-3: connected apps are listed with their connection date; disconnecting one (after a confirmation) removes it", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn()
      const connections = yield* Connections
      const connectionId = yield* connections.connect(
        holder.accountId,
        "https://assistant.example/client.json",
        "Research assistant"
      )
      const { browser } = holder
      const list = yield* promise(() => browser.get("/portal/connections"))
      expect(list.text).toContain("Research assistant")
      const [connection] = yield* connections.list(holder.accountId)
      expect(list.text).toContain(`<time datetime="${connection!.connected_at}">`)
      const confirm = yield* promise(() => browser.get(`/portal/connections/${connectionId}/disconnect`))
      expect(confirm.status).toBe(200)
      expect(confirm.text).toContain("Disconnect Research assistant?")
      expect(yield* connections.list(holder.accountId)).toHaveLength(1)
      const done = yield* promise(() =>
        browser.post(`/portal/connections/${connectionId}/disconnect`, { csrf: csrfOf(confirm.text) })
      )
      expect(done.location).toBe("/portal/connections?done=disconnected")
      expect(yield* connections.list(holder.accountId)).toHaveLength(0)
      const after = yield* promise(() => browser.get("/portal/connections?done=disconnected"))
      expect(after.text).toContain("The app was disconnected")
      expect(after.text).toContain("No apps are connected.")
      expect(
        (yield* promise(() =>
          browser.post(`/portal/connections/${connectionId}/disconnect`, { csrf: csrfOf(after.text) })
        )).status
      ).toBe(404)
    }))

  it.effect("AUTH-5: new Terms show on every page until accepted; accepting the version shown lifts the 403 at once; a stale version is refused 409", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn()
      const accounts = yield* Accounts
      const version = `portal-${randomBytes(3).toString("hex")}`
      yield* accounts.publishTerms(version)
      const { browser } = holder
      for (const path of ["/portal", "/portal/keys", "/portal/usage", "/portal/connections"]) {
        expect((yield* promise(() => browser.get(path))).text, path).toContain(
          `New Terms of Service (version ${version})`
        )
      }
      // This node sees the publication within its credential refresh (about a second).
      let refused = yield* predict(holder.apiKey)
      for (let i = 0; i < 20 && refused.status !== 403; i++) {
        yield* promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
        refused = yield* predict(holder.apiKey)
      }
      expect(refused.status, refused.text).toBe(403)
      expect(refused.body.terms_version).toBe(version)

      const terms = yield* promise(() => browser.get("/portal/terms"))
      expect(terms.text).toContain(`Accept version ${version}`)
      const stale = yield* promise(() =>
        browser.post("/portal/terms/accept", { csrf: csrfOf(terms.text), version: "an-older-version" })
      )
      expect(stale.status).toBe(409)
      expect(stale.text).toContain(`version ${version} is the current one now`)
      expect((yield* accounts.show(holder.accountId)).terms.accepted).toBe(false)

      const accepted = yield* promise(() => browser.post("/portal/terms/accept", { csrf: csrfOf(terms.text), version }))
      expect(accepted.location).toBe("/portal/terms?done=accepted")
      expect((yield* accounts.show(holder.accountId)).terms).toMatchObject({
        accepted_version: version,
        accepted: true
      })
      const after = yield* predict(holder.apiKey)
      expect(after.status).toBe(200)
      const page = yield* promise(() => browser.get("/portal/terms?done=accepted"))
      expect(page.text).toContain("You have accepted the current version.")
      expect(page.text).not.toContain("New Terms of Service")
      // A page opened before, sent once the current version is accepted from another: nothing to accept again,
      // and not told both (a Portal audit, 2026-11-30).
      const late = yield* promise(() =>
        browser.post("/portal/terms/accept", { csrf: csrfOf(terms.text), version: "an-older-version" })
      )
      expect(late.status).toBe(303)
      expect(late.location).toBe("/portal/terms")
    }))

  it.effect("isolation, every route: signed in as one Account, no page shows another's data and no action reaches it", () =>
    Effect.gen(function*() {
      const a = yield* signedIn()
      const b = yield* signedIn()
      const connections = yield* Connections
      const bConnection = yield* connections.connect(b.accountId, "client_b_only", "Beta private app")
      yield* connections.connect(a.accountId, "client_a_only", "Alpha app")
      yield* spends(a.accountId, 1, "aaaa")
      yield* spends(b.accountId, 1, "bbbb")
      const bIssued = yield* promise(() =>
        b.browser.submit("/portal/keys", "/portal/keys", { name: "b-secret-laptop" })
      )
      const bKeyId = /id="new-key"[^>]* value="ps_([a-z2-7]+)_/.exec(bIssued.text)![1]!
      const bSecrets = [b.accountId, b.keyId, bKeyId, bConnection, "Beta private app", "b-secret-laptop", "bbbb"]
      const accounts = yield* Accounts
      const bKeysBefore = yield* accounts.listKeys(b.accountId)

      const checked = new Set<string>()
      const pageOfA = (method: string, route: string, path: string) =>
        Effect.gen(function*() {
          checked.add(`${method} ${route}`)
          const page = yield* promise(() => a.browser.get(path))
          for (const secret of bSecrets) expect(page.text, `${path} shows ${secret}`).not.toContain(secret)
          return page
        })

      // Pages about the signed-in Account: A's data, none of B's.
      for (const path of ["/portal", "/portal/keys", "/portal/usage", "/portal/connections", "/portal/terms"]) {
        const page = yield* pageOfA("GET", path, path)
        expect(page.status, path).toBe(200)
        expect(page.text, path).toContain(a.accountId)
      }
      expect((yield* pageOfA("GET", "/portal/usage.csv", "/portal/usage.csv")).text).toContain("aaaa")
      expect((yield* pageOfA("GET", "/portal/connections", "/portal/connections")).text).toContain("Alpha app")

      // B's key and connection, named by id in A's session: not found, untouched.
      for (
        const [route, path] of [
          ["/portal/keys/:keyId/revoke", `/portal/keys/${bKeyId}/revoke`],
          ["/portal/connections/:connectionId/disconnect", `/portal/connections/${bConnection}/disconnect`]
        ] as const
      ) {
        expect((yield* pageOfA("GET", route, path)).status, path).toBe(404)
        checked.add(`POST ${route}`)
        const csrf = csrfOf((yield* promise(() => a.browser.get("/portal"))).text)
        const tried = yield* promise(() => a.browser.post(path, { csrf }))
        expect(tried.status, path).toBe(404)
        for (const secret of bSecrets) expect(tried.text).not.toContain(secret)
      }
      expect((yield* connections.list(b.accountId)).map((c) => c.connection_id)).toEqual([bConnection])
      expect((yield* accounts.listKeys(b.accountId)).every((k) => k.revoked_at === null)).toBe(true)

      // Actions on "the signed-in Account" change A only.
      checked.add("POST /portal/keys")
      checked.add("POST /portal/terms/accept")
      const bBefore = yield* accounts.show(b.accountId)
      const aIssue = yield* promise(() => a.browser.submit("/portal/keys", "/portal/keys", { name: "a-key" }))
      expect(aIssue.status).toBe(201)
      const current = (yield* accounts.currentTerms).pipe((
        terms
      ) => (terms._tag === "Some" ? terms.value.version : "none"))
      const csrf = csrfOf((yield* promise(() => a.browser.get("/portal"))).text)
      yield* promise(() => a.browser.post("/portal/terms/accept", { csrf, version: current }))
      expect((yield* accounts.listKeys(a.accountId)).map((k) => k.name)).toContain("a-key")
      expect(yield* accounts.listKeys(b.accountId)).toEqual(bKeysBefore)
      expect(yield* accounts.show(b.accountId)).toEqual(bBefore)

      // B's session is B's: signing A out leaves it.
      checked.add("POST /portal/sign-out")
      yield* promise(() => a.browser.submit("/portal", "/portal/sign-out"))
      expect((yield* promise(() => b.browser.get("/portal"))).text).toContain(b.accountId)

      // Routes that show no Account's data at all.
      for (
        const route of [
          "GET /portal/sign-in",
          "POST /portal/sign-in",
          "GET /portal/assets/portal.css",
          "GET /portal/assets/portal.js"
        ]
      ) {
        checked.add(route)
      }
      expect([...checked].sort()).toEqual(portalRoutes.map((r) => `${r.method} ${r.path}`).sort())
    }))

  it.effect("what an app or a holder named is shown as text, never as markup", () =>
    Effect.gen(function*() {
      const holder = yield* signedIn()
      const connections = yield* Connections
      yield* connections.connect(holder.accountId, "client_xss", `<img src=x onerror="alert(1)">`)
      const issued = yield* promise(() =>
        holder.browser.submit("/portal/keys", "/portal/keys", { name: "<script>alert(2)</script>" })
      )
      expect(issued.text).not.toContain("<script>alert(2)")
      expect(issued.text).toContain("&lt;script&gt;alert(2)&lt;/script&gt;")
      const list = yield* promise(() => holder.browser.get("/portal/connections"))
      expect(list.text).not.toContain("<img src=x")
      expect(list.text).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;")
    }))

  it.effect("the Portal's routes answer 404 and 405 like every other path; assets are served with their types", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const browser = new PortalBrowser(base)
      expect((yield* promise(() => browser.get("/portal/nothing-here"))).status).toBe(404)
      const wrongMethod = yield* promise(() => browser.send("/portal/keys", { method: "DELETE" }))
      expect(wrongMethod.status).toBe(405)
      const css = yield* promise(() => browser.get("/portal/assets/portal.css"))
      expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
      const js = yield* promise(() => browser.get("/portal/assets/portal.js"))
      expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    }))
})
