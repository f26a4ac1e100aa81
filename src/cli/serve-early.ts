/**
 * The entry's second import (after stack-traces.ts), evaluated before the other modules load: `serve` with
 * more than one worker forks its first worker here, so that the worker loads its modules while this process
 * loads its own, instead of after them. Only node modules are loaded first.
 *
 * The command line is read here only as far as `serve [--workers N] [--json]` (the same default: one worker
 * per core); anything else (help, other commands, `--workers 1`, a value @effect/cli would refuse) forks
 * nothing, and the primary forks its first worker itself. What the worker asks before the primary answers
 * its workers is held for it (src/cluster/held-questions.ts). A worker forked here that the process does not
 * run after all is stopped (`dismissEarlyWorker`), and stops with it anyway when it exits.
 */
import cluster, { type Worker } from "node:cluster"
import * as os from "node:os"
import { holdQuestions } from "../cluster/held-questions.js"
import { workerExecArgv } from "./node-flags.js"

/** Set in the environment of the workers this primary forks (another cluster manager's workers are not ours). */
export const WORKER_MARK = "PROPSCORE_SERVE_WORKER"

/** Serving processes behind the one port at most. */
export const MAX_WORKERS = 256

/** The worker count of `serve` on this command line, if it is one this module reads and it is more than one. */
export const earlyWorkerCount = (args: ReadonlyArray<string>): number | undefined => {
  if (args[0] !== "serve") return undefined
  const options = args.slice(1)
  let count = os.availableParallelism()
  for (let i = 0; i < options.length; i++) {
    const option = options[i]!
    if (option === "--json") continue
    const value = option === "--workers" ? options[++i] : option.startsWith("--workers=") ? option.slice(10) : null
    if (value === null || value === undefined || !/^[1-9]\d*$/.test(value)) return undefined
    count = Number(value)
  }
  return count >= 2 && count <= MAX_WORKERS ? count : undefined
}

/** A worker forked here, and how it exited if it did before the primary took it on. */
export interface EarlyWorker {
  readonly worker: Worker
  readonly exit: { readonly code: number | null; readonly signal: string | null } | undefined
}

let early: { readonly worker: Worker; readonly forget: () => void; exit: EarlyWorker["exit"] } | undefined

if (cluster.isPrimary && earlyWorkerCount(process.argv.slice(2)) !== undefined) {
  cluster.setupPrimary({ serialization: "advanced", execArgv: workerExecArgv() })
  const worker = cluster.fork({ [WORKER_MARK]: "1" })
  holdQuestions(worker)
  const exited = (code: number | null, signal: string | null) => {
    if (early !== undefined) early.exit = { code, signal }
  }
  worker.on("exit", exited)
  early = {
    worker,
    exit: undefined,
    forget: () => worker.off("exit", exited)
  }
}

/**
 * The worker forked here, if any, for the primary's `runWorkers` to run as its first (its questions still
 * held: the primary releases them once it answers its workers). Taken once.
 */
export const adoptEarlyWorker = (): EarlyWorker | undefined => {
  const adopted = early
  early = undefined
  adopted?.forget()
  return adopted && { worker: adopted.worker, exit: adopted.exit }
}

/** A process that serves alone after all: the worker forked here stops. */
export const dismissEarlyWorker = () => {
  adoptEarlyWorker()?.worker.process.kill("SIGTERM")
}
