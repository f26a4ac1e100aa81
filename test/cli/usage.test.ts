import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { cli, colorWanted, commandTree, exitCode } from "../../src/cli/main.js"
import type { CommandNode } from "../../src/cli/usage.js"

/**
 * The command line in this process: usage errors, help and descriptions, which all end before any command
 * opens the database. (test/cli/cli.test.ts runs the commands themselves as separate processes.)
 */
const runCli = (args: ReadonlyArray<string>, options: { readonly color?: boolean } = { color: false }) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const base = yield* Effect.console
    const captured = Object.assign(Object.create(base), {
      log: (...values: ReadonlyArray<unknown>) => Effect.sync(() => void stdout.push(values.join(" "))),
      error: (...values: ReadonlyArray<unknown>) => Effect.sync(() => void stderr.push(values.join(" ")))
    })
    const exit = yield* cli(["node", "propscore", ...args], options).pipe(Effect.withConsole(captured), Effect.exit)
    return { code: exitCode(exit), stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  }).pipe(Effect.provide(NodeContext.layer))

const ESC = "\u001b"

const leaves = (node: CommandNode, path: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> =>
  node.children.length === 0 ? [path] : node.children.flatMap((child) => leaves(child, [...path, child.name]))

const groups = (node: CommandNode, path: ReadonlyArray<string> = []): Array<ReadonlyArray<string>> =>
  node.children.length === 0 ? [] : [path, ...node.children.flatMap((child) => groups(child, [...path, child.name]))]

describe("propscore usage errors", () => {
  it.effect("an unknown command is said in plain words with the closest name, on stderr, and exits 2", () =>
    Effect.gen(function*() {
      const result = yield* runCli(["scor", "12 Elm St"])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe("propscore: unknown command \"scor\". Did you mean \"score\"? Run propscore --help.")
      const nested = yield* runCli(["accounts", "crate", "--name", "x"])
      expect(nested.code).toBe(2)
      expect(nested.stderr).toBe(
        "propscore accounts: unknown command \"crate\". Did you mean \"create\"? Run propscore accounts --help."
      )
    }))

  it.effect("with --json a usage error is exactly one JSON document on stdout, code usage, and still exits 2", () =>
    Effect.gen(function*() {
      for (
        const args of [
          ["scor", "--json"],
          ["accounts", "create", "--name", "Acme", "--json"],
          ["accounts", "--json"],
          ["credits", "grant", "--account", "acct_x", "--amount", "0", "--json"]
        ]
      ) {
        const result = yield* runCli(args)
        expect(result.code, args.join(" ")).toBe(2)
        expect(result.stdout.split("\n"), args.join(" ")).toHaveLength(1)
        const document = JSON.parse(result.stdout)
        expect(document).toEqual({ error: { code: "usage", message: expect.any(String) } })
        expect(document.error.message).not.toContain("_tag")
        expect(result.stderr).toBe("")
      }
    }))

  it.effect("a missing, unknown or bad option names the command and the option; never an internal error", () =>
    Effect.gen(function*() {
      const cases: Array<[ReadonlyArray<string>, string]> = [
        [["accounts", "create", "--name", "Acme"], "propscore accounts create: missing option --tier."],
        [
          ["accounts", "create", "--name", "Acme", "--tire", "public"],
          "propscore accounts create: unknown option \"--tire\". Did you mean \"--tier\"?"
        ],
        [
          ["accounts", "create", "--name", "Acme", "--tier", "public", "--credit", "5"],
          "propscore accounts create: unknown option \"--credit\". Did you mean \"--credits\"?"
        ],
        [["accounts", "create", "--name", "Acme", "--tier", "gold"], "expected one of public, reseller."],
        [["credits", "grant", "--account", "acct_x", "--amount", "lots"], "\"lots\" is not a whole number."],
        [["credits", "grant", "--account", "acct_x", "--amount", "0"], "--amount must be a whole number from 1"],
        [["keys", "issue", "--account"], "propscore keys issue: option --account needs a value."],
        [["accounts", "show"], "propscore accounts show: missing argument ACCOUNT_ID."],
        [["accounts", "show", "acct_a", "acct_b"], "propscore accounts show: unexpected argument \"acct_b\"."],
        [["terms"], "propscore terms: a command is missing: one of \"publish\", \"accept\"."],
        [[], "propscore: a command is missing: one of"]
      ]
      for (const [args, message] of cases) {
        const result = yield* runCli(args)
        expect(result.code, args.join(" ")).toBe(2)
        expect(result.stderr, args.join(" ")).toContain(message)
        expect(result.stderr, args.join(" ")).toMatch(/Run propscore[a-z -]* --help\.$/)
        expect(result.stderr).not.toMatch(/_tag|CommandMismatch|MissingValue|InvalidValue/)
        expect(result.stdout).toBe("")
      }
    }))

  it.effect("terms publish takes --version V, as the README and CONTRACT.md spell it; the program's --version stays", () =>
    Effect.gen(function*() {
      // Parsed up to the command (the command itself would open the database): a missing value is still a usage error.
      const missing = yield* runCli(["terms", "publish", "--version"])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain("propscore terms publish: option --terms-version needs a value.")
      const version = yield* runCli(["--version"])
      expect(version.code).toBe(0)
      expect(version.stdout.trim()).toBe("0.1.0")
    }))
})

describe("propscore help", () => {
  it.effect("help is plain text without color (stdout not a terminal, or NO_COLOR), styled only with it", () =>
    Effect.gen(function*() {
      const plain = yield* runCli(["accounts", "create", "--help"], { color: false })
      expect(plain.code).toBe(0)
      expect(plain.stdout).toContain("USAGE")
      expect(plain.stdout).not.toContain(ESC)
      const styled = yield* runCli(["accounts", "create", "--help"], { color: true })
      expect(styled.stdout).toContain(ESC)
    }))

  it("help is styled only on a terminal and only while NO_COLOR is unset or empty", () => {
    const tty = process.stdout.isTTY
    const noColor = process.env["NO_COLOR"]
    try {
      process.stdout.isTTY = true
      delete process.env["NO_COLOR"]
      expect(colorWanted()).toBe(true)
      process.env["NO_COLOR"] = ""
      expect(colorWanted()).toBe(true)
      process.env["NO_COLOR"] = "1"
      expect(colorWanted()).toBe(false)
      process.stdout.isTTY = false
      delete process.env["NO_COLOR"]
      expect(colorWanted()).toBe(false)
    } finally {
      process.stdout.isTTY = tty
      if (noColor === undefined) delete process.env["NO_COLOR"]
      else process.env["NO_COLOR"] = noColor
    }
  })

  it.effect("every command, subcommand, argument and option has a description", () =>
    Effect.gen(function*() {
      // What @effect/cli writes for an option by itself: its type and whether it is optional.
      const boilerplate = [
        /^A true or false value\.$/,
        /^A user-defined piece of text\.$/,
        /^An integer\.$/,
        /^A floating point number\.$/,
        /^A file\.$/,
        /^One of the following: /,
        /^This setting is optional\.$/,
        /^This argument must be repeated at least \d+ times?\.$/
      ]
      const builtIns = ["--completions", "--log-level", "(-h, --help)", "--wizard", "--version"]
      for (const path of [...groups(commandTree), ...leaves(commandTree)]) {
        const help = (yield* runCli([...path, "--help"])).stdout
        const name = `propscore ${path.join(" ")}`
        expect(help, name).toMatch(/\nDESCRIPTION\n\n\S/)
        const entries = help.split("\n\n").map((block) => block.trim())
        for (const [index, entry] of entries.entries()) {
          const isItem = /^(--[a-z]|<[A-Z_]+>)/.test(entry) && !builtIns.some((b) => entry.startsWith(b))
          if (!isItem) continue
          // The item's paragraphs follow it, up to the next item or heading.
          const paragraphs: Array<string> = []
          for (const next of entries.slice(index + 1)) {
            if (/^(--|<|\(-h|[A-Z]+$)/.test(next)) break
            paragraphs.push(next)
          }
          const described = paragraphs.filter((text) => !boilerplate.some((pattern) => pattern.test(text)))
          expect(described, `${name}: ${entry}`).not.toEqual([])
        }
      }
    }))

  it("every flag the README's operator table names is one its command takes", () => {
    const readme = fs.readFileSync("README.md", "utf8")
    const rows = [...readme.matchAll(/^\| `([a-z][^`]*)` \|/gm)].map((match) => match[1]!.replace(/\\\|/g, "|"))
    expect(rows.length).toBeGreaterThan(10)
    for (const row of rows) {
      const words = row.split(/\s+/)
      let node = commandTree
      for (const word of words) {
        const child = node.children.find((candidate) => candidate.name === word)
        if (child === undefined) break
        node = child
      }
      expect(node.children, row).toEqual([])
      for (const flag of row.match(/--[a-z][a-z0-9-]*/g) ?? []) {
        // `terms publish --version V` is read as --terms-version (src/cli/main.ts normalizeArgs).
        const taken = row.startsWith("terms publish") && flag === "--version" ? "--terms-version" : flag
        expect(node.flags, `${row}: ${flag}`).toContain(taken)
      }
    }
  })
})
