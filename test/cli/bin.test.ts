import { beforeAll, describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PortalBrowser } from "../harness/portal.js"
import { freePort } from "../harness/process.js"

/**
 * The `propscore` bin of package.json, run as npm's link (npx propscore) runs it: node on the shim, which
 * runs the built JavaScript (`npm run build`, done here first so the build is of this checkout). One process
 * per case; only the first start's case opens a database.
 */
const bin = JSON.parse(fs.readFileSync("package.json", "utf8")).bin.propscore as string

const run = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "psc-bin-")), ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("the propscore bin", () => {
  beforeAll(() => {
    execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
  }, 120_000)

  it("is bin/propscore.js, executable, a shim onto the built dist/propscore.mjs", () => {
    expect(bin).toBe("bin/propscore.js")
    expect(fs.statSync(bin).mode & 0o111).not.toBe(0)
    expect(fs.readFileSync(bin, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/)
    expect(fs.existsSync("dist/propscore.mjs")).toBe(true)
  })

  it("a usage error exits 2: plain words on stderr, or exactly one JSON document on stdout with --json", async () => {
    const plain = await run(["scor"])
    expect(plain.code).toBe(2)
    expect(plain.stdout).toBe("")
    expect(plain.stderr.trim()).toBe(
      "propscore: unknown command \"scor\". Did you mean \"score\"? Run propscore --help."
    )
    const asJson = await run(["accounts", "create", "--name", "Acme", "--json"])
    expect(asJson.code).toBe(2)
    expect(asJson.stdout.endsWith("\n")).toBe(true)
    expect(asJson.stdout.trim().split("\n")).toHaveLength(1)
    expect(JSON.parse(asJson.stdout)).toEqual({
      error: {
        code: "usage",
        message: "propscore accounts create: missing option --tier. Run propscore accounts create --help."
      }
    })
  }, 60_000)

  it(
    "an empty name, version or email, two options that contradict each other, and --wizard without a terminal are usage errors, exit 2",
    async () => {
      const nameless = await run(["accounts", "create", "--name", "  ", "--tier", "public", "--json"])
      expect(nameless.code).toBe(2)
      expect(JSON.parse(nameless.stdout).error).toEqual({
        code: "usage",
        message: "propscore accounts create: --name must not be empty. Run propscore accounts create --help."
      })
      const versionless = await run(["terms", "publish", "--version", ""])
      expect(versionless.code).toBe(2)
      expect(versionless.stderr.trim()).toBe(
        "propscore terms publish: --terms-version must not be empty. Run propscore terms publish --help."
      )
      // --wizard without a terminal (the test's standard input is none): said, where it waited forever.
      const wizard = await run(["accounts", "create", "--wizard"])
      expect(wizard.code).toBe(2)
      expect(wizard.stderr).toContain("--wizard asks its questions on a terminal")
      const both = await run(["accounts", "update", "acct_x", "--rate-limit", "5", "--tier-rate-limit", "--json"])
      expect(both.code).toBe(2)
      expect(JSON.parse(both.stdout).error.message).toBe(
        "propscore accounts update: --rate-limit and --tier-rate-limit contradict each other: give one. Run " +
          "propscore accounts update --help."
      )
    },
    120_000
  )

  it("data import's report says how many accepted rows were already stored, and how many were rejected", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "psc-import-"))
    const parcels = path.join(folder, "parcels.csv")
    const sales = path.join(folder, "sales.csv")
    fs.writeFileSync(parcels, "property_id,market,address,property_type\na-1,Audit,1 Audit Rd,single_family\n")
    fs.writeFileSync(
      sales,
      "property_id,sale_date,price\na-1,2019-01-02,500000\na-1,2019-01-02,500000\nzz,2019-01-02,1\n"
    )
    const env = { DATA_DIR: path.join(folder, "data") }
    const first = await run(["data", "import", "--format", "propscore-csv", parcels, sales], env)
    expect(first.code).toBe(0)
    expect(first.stdout).toContain(`${parcels} (propscore-csv): 1 row read; 1 accepted, 0 of them already stored`)
    expect(first.stdout).toContain(
      `${sales} (propscore-csv): 3 rows read; 2 accepted, 1 of them already stored or repeated in the file; 1 rejected`
    )
    const again = await run(["data", "import", "--format", "propscore-csv", sales], env)
    expect(again.stdout).toContain(
      "3 rows read; 2 accepted, 2 of them already stored or repeated in the file; 1 rejected"
    )
  }, 120_000)

  it("help on a pipe, or with NO_COLOR, has no ANSI escape sequences", async () => {
    for (const env of [{}, { NO_COLOR: "1" }]) {
      const help = await run(["terms", "publish", "--help"], env)
      expect(help.code).toBe(0)
      expect(help.stdout).toContain("DESCRIPTION")
      expect(help.stdout).not.toContain("\u001b")
    }
  }, 60_000)

  it(
    "serve's first start on an empty folder copies the build's first-start template: the demo county and its kept comps model and data are in, nothing is loaded or fitted, and it answers with them; the demo login printed with listening signs in",
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "psc-first-"))
      const { DATABASE_URL: _server, ...env } = process.env
      const child = spawn(process.execPath, [bin, "serve", "--workers", "1"], {
        env: { ...env, DATA_DIR: dataDir, PORT: String(await freePort()), LEARNERS: "off" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk) => (stdout += chunk))
      child.stderr.on("data", (chunk) => (stderr += chunk))
      try {
        const port = await new Promise<number>((resolve, reject) => {
          child.on("close", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)))
          const check = () => {
            const listening = /listening on port (\d+)/.exec(stdout)
            const key = /\n\s+(ps_\S+)/.exec(stdout)
            if (listening && key) resolve(Number(listening[1]))
          }
          child.stdout.on("data", check)
        })
        expect(stderr).toContain("a new one (a copy of the template npm run build made)")
        expect(stderr).not.toContain("Loaded the synthetic demo county")
        expect(stderr).toMatch(
          /scoring engine built over 20002 parcels .*read from the kept data with its address index, the comps model restored/
        )
        const apiKey = /\n\s+(ps_\S+)/.exec(stdout)![1]!
        const response = await fetch(`http://127.0.0.1:${port}/v1/predict`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
          body: JSON.stringify({ address: "2 Maple St, Maple Falls" })
        })
        expect(response.status).toBe(200)
        const answer = (await response.json()) as { subject_property: { property_id: string } }
        expect(answer.subject_property.property_id).toBe("demo-000001")
        // The demo login printed with "listening" (its password hashed from the start of serve) signs in.
        const password = /password \(shown once\):\n\n\s+(\S+)/.exec(stdout)![1]!
        const browser = new PortalBrowser(`http://127.0.0.1:${port}`)
        const signedIn = await browser.signIn("demo@propscore.local", password)
        expect(signedIn.status).toBe(303)
        expect(signedIn.location).toBe("/portal")
      } finally {
        child.kill("SIGTERM")
        await new Promise((resolve) => child.exitCode !== null ? resolve(undefined) : child.on("close", resolve))
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    },
    120_000
  )
})
