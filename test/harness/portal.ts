/**
 * An account holder's web browser reduced to what the Portal's HTTP tests need: a cookie jar (by name;
 * the Portal's cookies are all its own), form posts, and no automatic redirects, so every 303 is seen.
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { setLogin } from "../../src/operations/sign-in.js"
import { Accounts } from "../../src/services/accounts.js"
import { baseUrl, newAccount } from "./server.js"

export interface PageResponse {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly setCookies: ReadonlyArray<string>
  /** Where a redirect points (path and query), if it is one. */
  readonly location: string | undefined
}

export class PortalBrowser {
  readonly cookies = new Map<string, string>()
  constructor(readonly base: string) {}

  private remember(response: Response) {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair, ...attributes] = cookie.split(";").map((part) => part.trim())
      const [name, ...value] = pair!.split("=")
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || /^expires=thu, 01 jan 1970/i.test(a))
      if (expired) this.cookies.delete(name!)
      else this.cookies.set(name!, value.join("="))
    }
  }

  async send(
    path: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}
  ): Promise<PageResponse> {
    const headers: Record<string, string> = { ...init.headers }
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ")
    if (init.form) headers["content-type"] = "application/x-www-form-urlencoded"
    const response = await fetch(`${this.base}${path}`, {
      method: init.method ?? (init.form ? "POST" : "GET"),
      headers,
      body: init.form ? new URLSearchParams(init.form).toString() : null,
      redirect: "manual"
    })
    this.remember(response)
    const location = response.headers.get("location") ?? undefined
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      setCookies: response.headers.getSetCookie(),
      location
    }
  }

  get = (path: string, headers?: Record<string, string>) => this.send(path, headers ? { headers } : {})
  post = (path: string, form: Record<string, string>, headers?: Record<string, string>) =>
    this.send(path, headers ? { form, headers } : { form })

  /** Signs in through the sign-in page, as a person would: load the form, then post it with its token. */
  async signIn(email: string, password: string, next?: string) {
    const page = await this.get(`/portal/sign-in${next ? `?next=${encodeURIComponent(next)}` : ""}`)
    return this.post("/portal/sign-in", { csrf: csrfOf(page.text), email, password, ...(next ? { next } : {}) })
  }

  /** Loads a page and posts one of its forms (the first whose action is `action`) with `fields`. */
  async submit(pagePath: string, action: string, fields: Record<string, string> = {}) {
    const page = await this.get(pagePath)
    if (!page.text.includes(`action="${action}"`)) {
      throw new Error(`${pagePath} has no form posting to ${action}: ${page.status} ${page.text}`)
    }
    return this.post(action, { csrf: csrfOf(page.text), ...fields })
  }
}

/** The CSRF token a page's forms carry. */
export const csrfOf = (html: string) => {
  const match = /name="csrf" value="([^"]+)"/.exec(html)
  if (!match) throw new Error(`no CSRF token on the page: ${html.slice(0, 500)}`)
  return match[1]!
}

export const PASSWORD = "correct horse battery staple"

/** An account holder with a login, a key and Credits, and a browser of their own (not signed in yet). */
export const portalHolder = (credits = 20) =>
  Effect.gen(function*() {
    const account = yield* newAccount({ credits })
    // A holder starts with the current Terms accepted (a test that publishes a version stays its own).
    yield* Effect.flatMap(Accounts, (accounts) => accounts.acceptTerms(account.accountId)).pipe(Effect.ignore)
    const email = `holder-${randomBytes(4).toString("hex")}@example.com`
    yield* setLogin(account.accountId, email, PASSWORD)
    const browser = new PortalBrowser(yield* baseUrl)
    return { ...account, email, password: PASSWORD, browser }
  })
