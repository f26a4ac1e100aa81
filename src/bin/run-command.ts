/**
 * The command itself, loaded by the entry (./propscore.ts) once serve's first worker, if any, is forked.
 * Every other module of the command line loads from here.
 */
import { stackTraceLimit } from "./stack-traces.js"

import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Logger } from "effect"
import { cli, CliFailure, exitCode } from "../cli/main.js"
import { UsageError } from "../cli/usage.js"
import { DatabaseUnreachable } from "../db/client.js"

Error.stackTraceLimit = stackTraceLimit

// stdout is reserved for each command's result; logs and failures go to stderr.
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/** An operator error (CliFailure) or a usage error has already been reported, in the command's own format. */
const reported = (cause: Cause.Cause<unknown>) =>
  Cause.failureOption(cause).pipe((failure) =>
    failure._tag === "Some" && (failure.value instanceof CliFailure || failure.value instanceof UsageError)
  )

/** A database the start could not reach: its message (where, why, how long it waited) says all. */
const unreachable = (cause: Cause.Cause<unknown>) =>
  Cause.dieOption(cause).pipe((defect) =>
    defect._tag === "Some" && defect.value instanceof DatabaseUnreachable ? defect.value.message : undefined
  )

/** What failed, in one line: a failure's own message (a configuration error names its variable). */
const oneLine = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  const text = squashed instanceof Error ? squashed.message : String(squashed)
  return text.replace(/^\((.*)\)$/s, "$1")
    // A setting refused by its own rule (`urlSetting` in src/config.ts) names itself: the path Config adds is empty.
    .replace(/^Invalid data at : "(.*)"$/s, "$1")
    .replace(/\s+/g, " ").trim()
}

const asJson = process.argv.includes("--json")

/** A defect that is the operator's to fix and says so (an embedded database that cannot be made): no stack. */
const operatorDefect = (cause: Cause.Cause<unknown>) =>
  Cause.dieOption(cause).pipe((defect) =>
    defect._tag === "Some" && (defect.value as { _tag?: unknown } | null)?._tag === "EmbeddedDatabaseError"
  )

cli(process.argv).pipe(
  Effect.tapErrorCause((cause) => {
    if (reported(cause)) return Effect.void
    const database = unreachable(cause)
    // A failure before or outside the command's own reporting (a configuration value, a database that cannot
    // be opened, a DATA_DIR that cannot be made): one line on stderr, and with --json the one JSON object on
    // stdout too (it printed a stack on stderr and nothing on stdout: an operator's audit, 2026-11-28). A
    // defect (a bug) keeps its whole cause on stderr after that line.
    const line = database ?? oneLine(cause)
    return Effect.all([
      Console.error(`propscore: ${line}`),
      asJson ? Console.log(JSON.stringify({ error: { code: "failed", message: line } })) : Effect.void,
      database === undefined && Cause.isDie(cause) && !operatorDefect(cause)
        ? Console.error(Cause.pretty(cause))
        : Effect.void
    ], { discard: true })
  }),
  Effect.provide(NodeContext.layer),
  Effect.provide(StderrLogger),
  // Exit codes: 0 done, 1 the command failed, 2 the command line was wrong (a usage error).
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCode(exit))
  })
)
