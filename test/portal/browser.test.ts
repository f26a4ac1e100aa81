/**
 * The Portal in a real browser: Debian's Chromium driven by playwright-core, against `propscore serve` on a
 * fresh embedded database with the demo county, set up with the operator's command line as the README
 * says. A new account holder, given only the Portal's address and a login, signs in, issues a key, calls
 * predict with it, finds the Credit and its trace id in Usage, revokes the key, accepts new Terms after
 * `propscore terms publish`, and disconnects an assistant it connected. Screenshots of every page, wide and
 * phone-sized, are saved under test-artifacts/portal/, and each is checked with axe-core (WCAG 2.1 A and AA).
 *
 * Chromium is never downloaded here: `.ci/run` installs Debian's package. On a machine without it these
 * tests are skipped with a notice, unless PROPSCORE_BROWSER_TESTS=required (as CI sets), where its absence fails.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import axe from "axe-core"
import { createHash, randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { createServer } from "node:http"
import { type AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { propscore, type RunningServer, startServer } from "../harness/process.js"

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
const available = fs.existsSync(CHROMIUM)
if (!available && process.env.PROPSCORE_BROWSER_TESTS === "required") {
  throw new Error(
    `PROPSCORE_BROWSER_TESTS=required but there is no Chromium at ${CHROMIUM} (apt-get install -y chromium)`
  )
}
if (!available) console.warn(`Portal browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium).`)

const shots = path.resolve("test-artifacts/portal")
const ADDRESS = "3 Pine Ct, Riverton"
const EMAIL = "flipper@example.com"
const PASSWORD = "pine street flips 2026"
/** Polls that wait on the server: signing in hashes a password, which takes a while on a busy machine. */
const patiently = { timeout: 20_000, interval: 100 }

describe.skipIf(!available)("the Portal in Chromium", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "psc-portal-"))
  const env = { DATA_DIR: dataDir }
  let server: RunningServer
  let browser: Browser
  let context: BrowserContext
  let page: Page
  /** The Portal's address as its holder is given it: the service's public base URL. */
  let portal: string
  let accountId: string
  let apiKey: string
  let keyId: string

  const cli = async (args: ReadonlyArray<string>, input?: string) => {
    const result = await propscore([...args, "--json"], env, input)
    expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0)
    return JSON.parse(result.stdout.trim())
  }

  const call = (key: string, address = ADDRESS) =>
    fetch(`${portal}/v1/predict`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ address })
    })

  /** Saves the page's screenshot and checks it with axe-core against WCAG 2 A and AA (contrast included). */
  const shoot = async (name: string) => {
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true })
    await page.evaluate(axe.source)
    const audit = await page.evaluate(async () => {
      const result = await (window as any).axe.run(document, {
        runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }
      })
      return {
        passed: result.passes.map((p: any) => p.id),
        violations: result.violations.map((v: any) =>
          `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(" ")).join(", ")})`
        )
      }
    })
    expect(audit.violations, `accessibility of ${name}`).toEqual([])
    // The audit ran, and checked what the Portal promises.
    expect(audit.passed).toEqual(expect.arrayContaining(["document-title", "html-has-lang", "color-contrast"]))
    if (await page.locator("input:not([type=hidden])").count() > 0) expect(audit.passed).toContain("label")
  }

  beforeAll(async () => {
    fs.mkdirSync(shots, { recursive: true })
    server = await startServer(env)
    portal = server.baseUrl.replace("127.0.0.1", "localhost")
    // The operator sets the new holder up: an account with Credits and a login, nothing else.
    const account = await cli([
      "accounts",
      "create",
      "--name",
      "Pine Street Flips",
      "--tier",
      "public",
      "--credits",
      "25"
    ])
    accountId = account.account_id
    await cli(["accounts", "set-login", accountId, "--email", EMAIL, "--password-stdin"], `${PASSWORD}\n`)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync"
      ]
    })
    context = await browser.newContext({ viewport: { width: 1100, height: 850 } })
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: portal })
    page = await context.newPage()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it("a new holder, given only the Portal's address and a login, signs in (a wrong password first)", async () => {
    await page.goto(`${portal}/portal`)
    expect(new URL(page.url()).pathname).toBe("/portal/sign-in")
    await shoot("01-sign-in")
    await page.getByLabel("Email").fill(EMAIL)
    await page.getByLabel("Password").fill("not my password")
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect.poll(() => page.getByRole("alert").textContent(), patiently).toContain(
      "The email or password is not right."
    )
    await shoot("02-sign-in-refused")
    await page.getByLabel("Password").fill(PASSWORD)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(`${portal}/portal`)
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Overview")
    expect(await page.locator("main").textContent()).toContain("25 Credits")
    const cookies = await context.cookies()
    // Development (a loopback base URL, plain http): not Secure; outside it the HTTP tests see Secure.
    expect(cookies.find((c) => c.name === "propscore_portal")).toMatchObject({
      httpOnly: true,
      secure: false,
      sameSite: "Lax",
      path: "/portal"
    })
    await shoot("03-overview")
    // The keyboard's first stop is the skip link, which moves focus to the page's content.
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main")
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Manage API keys")
  }, 60_000)

  it(
    "AUTH-1: issues a key (shown once, with a copy button), calls predict with it, and finds the Credit and its trace id in Usage",
    async () => {
      await page.getByRole("link", { name: "API keys", exact: true }).click()
      await page.getByLabel(/^Name/).fill("laptop")
      await page.getByRole("button", { name: "Issue key" }).click()
      apiKey = await page.locator("#new-key").inputValue()
      expect(apiKey).toMatch(/^ps_[a-z2-7]{12}_[a-z2-7]{40}$/)
      keyId = apiKey.split("_")[1]!
      await page.getByRole("button", { name: "Copy" }).click()
      await expect.poll(() => page.locator("[data-copied]").textContent(), patiently).toBe("Copied to the clipboard.")
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey)
      await shoot("04-key-issued")

      const answer = await call(apiKey)
      expect(answer.status, await answer.clone().text()).toBe(200)
      const traceId = answer.headers.get("trace-id")!
      expect(traceId).toMatch(/^[0-9a-f]{32}$/)

      await page.getByRole("link", { name: "Usage", exact: true }).click()
      const row = page.locator("tr", { hasText: traceId })
      expect(await row.textContent()).toContain("Spend")
      expect(await row.locator("td.num").textContent()).toBe("−1")
      await shoot("05-usage")
      // The export holds the same call.
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Export CSV" }).click()
      ])
      const csv = fs.readFileSync((await download.path())!, "utf8")
      expect(csv).toMatch(new RegExp(`,spend,-1,predict,1,,,${traceId},"3 Pine Ct, Riverton"\\n`))

      await page.getByRole("link", { name: "Overview", exact: true }).click()
      expect(await page.locator("main").textContent()).toContain("24 Credits")
      // Its last use shows on the keys page within seconds.
      await expect.poll(async () => {
        await page.goto(`${portal}/portal/keys`)
        return page.locator("tr", { hasText: keyId }).locator("td").nth(3).textContent()
      }, patiently).toMatch(/UTC$/)
    },
    60_000
  )

  it("AUTH-1: revokes the key after a confirmation, and the next call with it fails 401", async () => {
    await page.goto(`${portal}/portal/keys`)
    await page.locator("tr", { hasText: keyId }).getByRole("link", { name: /Revoke/ }).click()
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Revoke this key?")
    await shoot("06-revoke-confirm")
    expect((await call(apiKey)).status).toBe(200)
    await page.getByRole("button", { name: "Revoke key" }).click()
    await page.waitForURL(`${portal}/portal/keys?done=revoked`)
    expect(await page.getByRole("status").first().textContent()).toContain("The key was revoked")
    await shoot("07-key-revoked")
    const refused = await call(apiKey)
    expect(refused.status).toBe(401)
    expect((await refused.json()).type).toMatch(/\/invalid-key$/)
  }, 60_000)

  it(
    "AUTH-5: after `propscore terms publish` the Portal asks for the new Terms; accepting them lifts the 403",
    async () => {
      await page.getByLabel(/^Name/).fill("phone")
      await page.getByRole("button", { name: "Issue key" }).click()
      const phoneKey = await page.locator("#new-key").inputValue()
      await cli(["terms", "publish", "--terms-version", "2026-12"])
      // The server sees the publication within its credential refresh (about a second).
      // Each try before then is an answered, paid call.
      await expect.poll(async () => (await call(phoneKey)).status, { timeout: 10_000, interval: 400 }).toBe(403)
      await page.goto(`${portal}/portal`)
      expect(await page.getByRole("status").first().textContent()).toContain("New Terms of Service (version 2026-12)")
      await shoot("08-terms-pending")
      await page.getByRole("link", { name: "Review and accept" }).click()
      await shoot("09-terms")
      await page.getByRole("button", { name: "Accept version 2026-12" }).click()
      await page.waitForURL(`${portal}/portal/terms?done=accepted`)
      expect(await page.locator("main").textContent()).toContain("You have accepted the current version.")
      await shoot("10-terms-accepted")
      expect((await call(phoneKey)).status).toBe(200)
    },
    60_000
  )

  it(
    "AUTH-3: an assistant connected through the consent page is listed with its date; disconnecting it (after a confirmation) makes its token fail 401",
    async () => {
      // The assistant's loopback redirect (RFC 8252): a small server of the test's own receives the code.
      let callback: URL | undefined
      const receiver = createServer((request, response) => {
        // Only the redirect itself: the browser asks for /favicon.ico afterwards.
        const url = new URL(request.url ?? "/", "http://127.0.0.1")
        if (url.pathname === "/callback") callback = url
        response.writeHead(200, { "content-type": "text/plain" }).end("Connected; you can close this tab.")
      })
      await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
      const redirectUri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`
      const registered = await fetch(`${portal}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          client_name: "Browser test assistant",
          redirect_uris: [redirectUri],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none"
        })
      }).then((r) => r.json())
      const verifier = randomBytes(32).toString("base64url")
      const authorize = new URL(`${portal}/oauth/authorize`)
      for (
        const [name, value] of Object.entries({
          response_type: "code",
          client_id: registered.client_id,
          redirect_uri: redirectUri,
          code_challenge: createHash("sha256").update(verifier).digest("base64url"),
          code_challenge_method: "S256",
          state: "browser-test",
          scope: "mcp",
          resource: `${portal}/mcp`
        })
      ) authorize.searchParams.set(name, value)
      await page.goto(authorize.toString())
      await page.getByLabel("Email").fill(EMAIL)
      await page.getByLabel("Password").fill(PASSWORD)
      await page.getByRole("button", { name: "Sign in and approve" }).click()
      await expect.poll(() => callback?.searchParams.get("code"), patiently).toBeTruthy()
      receiver.close()
      const tokens = await fetch(`${portal}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: callback!.searchParams.get("code")!,
          redirect_uri: redirectUri,
          client_id: registered.client_id,
          code_verifier: verifier,
          resource: `${portal}/mcp`
        })
      }).then((r) => r.json())
      const mcp = () =>
        fetch(`${portal}/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${tokens.access_token}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "validate_request"
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: {
              name: "validate_request",
              arguments: { address: ADDRESS },
              _meta: {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": { name: "browser-test", version: "1" },
                "io.modelcontextprotocol/clientCapabilities": {}
              }
            }
          })
        })
      expect((await mcp()).status).toBe(200)

      await page.goto(`${portal}/portal/connections`)
      const row = page.locator("tr", { hasText: "Browser test assistant" })
      expect(await row.locator("time").textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/)
      await shoot("11-connections")
      await row.getByRole("link", { name: /Disconnect/ }).click()
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Disconnect Browser test assistant?")
      await shoot("12-disconnect-confirm")
      await page.getByRole("button", { name: "Disconnect" }).click()
      await page.waitForURL(`${portal}/portal/connections?done=disconnected`)
      expect(await page.locator("main").textContent()).toContain("No apps are connected.")
      await shoot("13-disconnected")
      expect((await mcp()).status).toBe(401)
    },
    60_000
  )

  it("every page reads on a phone, and signing out ends the session", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    for (
      const [name, where] of [["overview", "/portal"], ["keys", "/portal/keys"], ["usage", "/portal/usage"], [
        "connections",
        "/portal/connections"
      ], [
        "terms",
        "/portal/terms"
      ]] as const
    ) {
      await page.goto(`${portal}${where}`)
      // Nothing wider than the screen but the tables' own scrolling boxes.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
      await shoot(`phone-${name}`)
    }
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(`${portal}/portal/sign-in?done=signed-out`)
    await shoot("phone-signed-out")
    await page.goto(`${portal}/portal/keys`)
    expect(new URL(page.url()).pathname).toBe("/portal/sign-in")
  }, 60_000)
})
