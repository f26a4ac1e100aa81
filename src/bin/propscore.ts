import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Console, Effect, Logger } from "effect"
import { cli, CliFailure } from "../cli/main.js"

// stdout is reserved for each command's result; logs and failures go to stderr.
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

cli(process.argv).pipe(
  Effect.tapErrorCause((cause) =>
    // An operator error (CliFailure) has already been reported on stdout in the command's own format.
    Cause.failureOption(cause).pipe((failure) => failure._tag === "Some" && failure.value instanceof CliFailure)
      ? Effect.void
      : Console.error(Cause.pretty(cause))
  ),
  Effect.provide(NodeContext.layer),
  Effect.provide(StderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
