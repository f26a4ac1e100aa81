/**
 * Usage errors in plain words: an unknown command, a missing or bad option. @effect/cli reports them as a
 * `ValidationError` holding a HelpDoc (and, for an unknown subcommand, only the top level's names); this
 * turns one into a sentence that names the command it was for, suggests a close name and points at `--help`.
 */
import { Command, HelpDoc, Usage, type ValidationError } from "@effect/cli"
import { distance } from "fastest-levenshtein"
import { stripVTControlCharacters } from "node:util"

/** A usage error: the command line itself was wrong, nothing ran. The process exits 2. */
export class UsageError extends Error {
  readonly code = "usage"
}

/** The command tree the hints are drawn from: a command's name, and its subcommands when it has some. */
export interface CommandNode {
  readonly name: string
  readonly children: ReadonlyArray<CommandNode>
  /** The flags a leaf takes (`--tier`), read from its usage line. */
  readonly flags: ReadonlyArray<string>
}

type AnyCommand = Command.Command<any, any, any, any>

const nameOf = (command: AnyCommand) => [...Command.getNames(command)][0]!

/** A command with subcommands. */
export const group = (command: AnyCommand, children: ReadonlyArray<CommandNode>): CommandNode => ({
  name: nameOf(command),
  children,
  flags: []
})

/** HelpDoc as plain text: @effect/cli only renders ANSI, so its escape sequences are taken out again. */
export const plainText = (doc: HelpDoc.HelpDoc) => stripVTControlCharacters(HelpDoc.toAnsiText(doc)).trim()

/** A leaf command of the tree: its name and the flags its usage (`--name text --tier public | reseller`) shows. */
export const leaf = (command: AnyCommand): CommandNode => ({
  name: nameOf(command),
  children: [],
  flags: [...new Set(plainText(Usage.getHelp(Command.getUsage(command))).match(/--[a-z][a-z0-9-]*/g) ?? [])]
})

/** The closest name within two edits (or one the typed word begins), if there is one. */
export const closest = (typed: string, names: ReadonlyArray<string>): string | undefined => {
  const ranked = names
    .map((name) => ({ name, distance: name.startsWith(typed) && typed.length >= 2 ? 0.5 : distance(typed, name) }))
    .filter((candidate) => candidate.distance <= 2)
    .sort((a, b) => a.distance - b.distance)
  return ranked[0]?.name
}

const quoteList = (names: ReadonlyArray<string>) => names.map((name) => `"${name}"`).join(", ")

/** Where the words lead in the tree: the commands they named, and the first word naming no command. */
const walk = (root: CommandNode, args: ReadonlyArray<string>) => {
  const path = [root.name]
  let node = root
  for (const arg of args) {
    if (node.children.length === 0) break
    if (arg.startsWith("-")) continue
    const child = node.children.find((candidate) => candidate.name === arg)
    if (child === undefined) return { path, node, unknown: arg }
    path.push(child.name)
    node = child
  }
  return { path, node, unknown: undefined }
}

/** Whether the words stop at a command that only groups others (`propscore accounts`): a usage error. */
export const stopsAtGroup = (root: CommandNode, args: ReadonlyArray<string>) =>
  walk(root, args).node.children.length > 0

/**
 * The sentence for a usage error. `args` are the words after the program's name; the tree walk finds which
 * command they reached, so the message names it (`propscore accounts create: missing option --tier.`).
 * Without `error`, the words stopped at a command that needs one of its subcommands.
 */
export const usageMessage = (
  root: CommandNode,
  args: ReadonlyArray<string>,
  error?: ValidationError.ValidationError
): string => {
  const { node, path, unknown } = walk(root, args)
  const names = node.children.map((child) => child.name)
  if (unknown !== undefined) {
    const suggestion = closest(unknown, names)
    return sentence(
      path,
      `unknown command "${unknown}".${suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`}`
    )
  }
  if (names.length > 0 || error === undefined) {
    return sentence(path, `a command is missing: one of ${quoteList(names)}.`)
  }
  return sentence(path, leafProblem(node, plainText(error.error)))
}

const sentence = (path: ReadonlyArray<string>, problem: string) =>
  `${path.join(" ")}: ${problem} Run ${path.join(" ")} --help.`

/** @effect/cli's own wording, reworded where it is known; anything else is kept, as a sentence. */
const leafProblem = (node: CommandNode, text: string): string => {
  const unknown = /^Received unknown argument: '(.*)'$/.exec(text)
  if (unknown) {
    const word = unknown[1]!
    if (!word.startsWith("-")) return `unexpected argument "${word}".`
    const flag = word.split("=")[0]!
    const suggestion = closest(flag, node.flags)
    return `unknown option "${flag}".${suggestion === undefined ? "" : ` Did you mean "${suggestion}"?`}`
  }
  const corrected = /^The flag '(.*)' is not recognized\. Did you mean '(.*)'\?$/.exec(text)
  if (corrected) return `unknown option "${corrected[1]}". Did you mean "${corrected[2]}"?`
  const missingOption = /^Expected to find option: '(.*)'$/.exec(text)
  if (missingOption) return `missing option ${missingOption[1]}.`
  const missingValue = /^Expected a value following option: '(.*)'$/.exec(text)
  if (missingValue) return `option ${missingValue[1]} needs a value.`
  const missingArgument = /^Missing argument <(.*)>$/.exec(text)
  if (missingArgument) return `missing argument ${missingArgument[1]}.`
  const notOneOf = /^Expected one of the following cases: (.*)$/.exec(text)
  if (notOneOf) return `expected one of ${notOneOf[1]}.`
  const notA = /^'(.*)' is not an? (.*)$/.exec(text)
  if (notA) return `"${notA[1]}" is not ${notA[2] === "integer" ? "a whole number" : `a ${notA[2]}`}.`
  const oneLine = text.replace(/\s+/g, " ")
  return /[.?!]$/.test(oneLine) ? oneLine : `${oneLine}.`
}
