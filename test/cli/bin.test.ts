import { beforeAll, describe, expect, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/**
 * The `propscore` bin of package.json, run as npm's link (npx propscore) runs it: node on the shim, which
 * runs the built JavaScript (`npm run build`, done here first so the build is of this checkout). One process
 * per case; nothing here opens a database.
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

  it("help on a pipe, or with NO_COLOR, has no ANSI escape sequences", async () => {
    for (const env of [{}, { NO_COLOR: "1" }]) {
      const help = await run(["terms", "publish", "--help"], env)
      expect(help.code).toBe(0)
      expect(help.stdout).toContain("DESCRIPTION")
      expect(help.stdout).not.toContain("\u001b")
    }
  }, 60_000)
})
