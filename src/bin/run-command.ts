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

cli(process.argv).pipe(
  Effect.tapErrorCause((cause) => {
    if (reported(cause)) return Effect.void
    const database = unreachable(cause)
    return Console.error(database !== undefined ? `propscore: ${database}` : Cause.pretty(cause))
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
