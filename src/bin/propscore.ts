// First, on its own: no stack frames while the other modules load (stack-traces.ts).
import { stackTraceLimit } from "./stack-traces.js"
// Second, as early: serve's first worker starts loading its modules while this process loads its own.
import "../cli/serve-early.js"

import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Logger } from "effect"
import { cli, CliFailure, exitCode } from "../cli/main.js"
import { UsageError } from "../cli/usage.js"

Error.stackTraceLimit = stackTraceLimit

// stdout is reserved for each command's result; logs and failures go to stderr.
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

/** An operator error (CliFailure) or a usage error has already been reported, in the command's own format. */
const reported = (cause: Cause.Cause<unknown>) =>
  Cause.failureOption(cause).pipe((failure) =>
    failure._tag === "Some" && (failure.value instanceof CliFailure || failure.value instanceof UsageError)
  )

cli(process.argv).pipe(
  Effect.tapErrorCause((cause) => reported(cause) ? Effect.void : Console.error(Cause.pretty(cause))),
  Effect.provide(NodeContext.layer),
  Effect.provide(StderrLogger),
  // Exit codes: 0 done, 1 the command failed, 2 the command line was wrong (a usage error).
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCode(exit))
  })
)
