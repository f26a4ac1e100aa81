#!/usr/bin/env node
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Logger } from "effect"
import { cli } from "../cli/main.js"

// stdout is reserved for each command's result; logs go to stderr.
const StderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))

cli(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  Effect.provide(StderrLogger),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
