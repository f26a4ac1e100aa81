/** Running the `propscore` command line as a separate process, as an operator would. */
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { SERVE_NODE_FLAGS } from "../../src/cli/node-flags.js"

// node itself, with tsx as its loader: no wrapper process, so killing the child kills the service.
const node = process.execPath
const loader = ["--import", "tsx"]
const entry = path.resolve("src/bin/propscore.ts")

export interface CommandResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The environment of a spawned command or server. Servers run with `LEARNERS=off` unless a test asks: these
 * tests are about the Portal, the CLI, nodes and faults, and the learner's worker thread would take the
 * second of CI's two cores for a minute after every start (test/scoring/learner-thread.test.ts covers it).
 */
const baseEnv = (env: Record<string, string>) => {
  const { DATABASE_URL: _db, REDIS_URL: _redis, ...rest } = process.env
  return { ...rest, LEARNERS: "off", ...env }
}

/** Runs one subcommand to completion; `input` is piped to its standard input. */
export const propscore = (
  args: ReadonlyArray<string>,
  env: Record<string, string>,
  input?: string
): Promise<CommandResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(node, [...loader, entry, ...args], {
      env: baseEnv(env),
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"]
    })
    if (input !== undefined) child.stdin!.end(input)
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (chunk) => (stdout += chunk))
    child.stderr!.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Whether `port` can be listened on now, on every address (as the server listens). */
const canListen = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen(port, () => server.close(() => resolve(true)))
  })

/**
 * A port for a server a test starts, picked below Linux's ephemeral range (32768–60999), where the kernel
 * draws `listen(0)` ports and the local ports of outgoing connections: a port probed free there could be
 * handed to a database connection before the server took it (EADDRINUSE, seen with two suites on one
 * machine). Here only a test that picks the same number at random can take it first.
 */
export const freePort = async (): Promise<number> => {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000)
    if (await canListen(port)) return port
  }
  throw new Error("no free port between 20000 and 32000")
}

export interface RunningServer {
  readonly process: ChildProcess
  readonly baseUrl: string
  /** Everything the server printed on stdout up to now. */
  stdout: () => string
  /** Everything the server logged (stderr) up to now. */
  stderr: () => string
  stop: () => Promise<void>
  /** Kills the process at once, as a crash would (SIGKILL: nothing is cleaned up). */
  crash: () => Promise<void>
}

/**
 * Starts `propscore serve` and waits until it says it listens and answers HTTP, and with workers until every
 * one of them answers (the port answers from the first one's answer on). It serves in one process
 * (`--workers 1`) unless `args` ask for workers.
 */
export const startServer = async (
  env: Record<string, string>,
  args: ReadonlyArray<string> = [],
  /** Called with the port once the process is spawned (a test that watches the port from the start). */
  onSpawn?: (port: number) => void
): Promise<RunningServer> => {
  const port = await freePort()
  const workers = args.some((arg) => arg === "--workers" || arg.startsWith("--workers=")) ? [] : ["--workers", "1"]
  const asked = args.indexOf("--workers")
  const workerCount = asked === -1 ? 1 : Number(args[asked + 1])
  // With the node flags `npm start` serves with (src/cli/serve-early.ts).
  const child = spawn(node, [...SERVE_NODE_FLAGS, ...loader, entry, "serve", ...workers, ...args], {
    env: baseEnv({ ...env, PORT: String(port) }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  onSpawn?.(port)
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 240_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}: ${stderr}`)
    try {
      // "listening" (or {"listening": …}) is printed once the first worker answers; each logs its answer.
      if (!stdout.includes("listening")) throw new Error("not listening yet")
      if (workerCount > 1 && (stderr.match(/worker \d+ answers/g)?.length ?? 0) < workerCount) {
        throw new Error("not every worker answers yet")
      }
      await fetch(`${baseUrl}/openapi.json`)
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`serve did not answer in time: ${stderr}`)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  return {
    process: child,
    baseUrl,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      }),
    crash: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      })
  }
}

/**
 * Watches a port from before its server listens: connects every 10 ms until a connection is taken, and says
 * when the last refused attempt began (a time before the port answered) and when the first was taken.
 */
export const watchPort = (port: number) => {
  const seen: { lastRefused: number | undefined; firstTaken: number | undefined } = {
    lastRefused: undefined,
    firstTaken: undefined
  }
  const attempt = () => {
    // (When the attempt began: a refusal handled late, on a busy machine, is still of a time before the port answered.)
    const began = Date.now()
    const socket = net.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      seen.firstTaken = Date.now()
      socket.destroy()
    })
    socket.once("error", () => {
      seen.lastRefused = began
      socket.destroy()
      setTimeout(attempt, 10)
    })
  }
  attempt()
  return seen
}
