// npm run bench:start [-- --rounds N] [-- --npm] [-- --log] [-- --quick] [-- --workers N] — how long `propscore serve` takes to
// answer: a first start on an empty DATA_DIR (the embedded database created, the demo county loaded, the
// scoring engine built) and a restart on the same folder, each from the moment the process is spawned to the
// first HTTP answer on /health, and to the "listening" line. It runs the built bundle as `npm start` does
// (`npm run build` first); with --npm it runs `npm start` itself (npm, the build's freshness check, then the
// server). The first start runs until its learners are fitted and kept, as a server that ran for a minute
// has them (--quick stops it at once: the restart then fits the learners again, on a worker thread). --log
// prints what the server logged, with the time each line arrived. Prints every round and the medians.
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"

const args = process.argv.slice(2)
const rounds = Number(args[args.indexOf("--rounds") + 1] ?? 3) || 3
const viaNpm = args.includes("--npm")
const showLog = args.includes("--log")
const quick = args.includes("--quick")
// `--workers N` is passed on to serve (its default: one worker per core).
const workers = args.includes("--workers") ? ["--workers", args[args.indexOf("--workers") + 1]!] : []
const root = path.resolve(import.meta.dirname, "..")

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/health", timeout: 1_000 }, (response) => {
      response.resume()
      resolve(true)
    })
    request.once("error", () => resolve(false))
    request.once("timeout", () => {
      request.destroy()
      resolve(false)
    })
  })

interface Start {
  readonly answeredMs: number
  readonly listeningMs: number | undefined
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    // npm runs the server in a child of its own: the whole group this bench started goes.
    process.kill(-child.pid!, "SIGTERM")
  })

const start = async (dataDir: string, untilLearnersKept = false): Promise<Start> => {
  const port = await freePort()
  const started = performance.now()
  const since = () => performance.now() - started
  const command = viaNpm
    ? { file: "npm", args: ["start", "--silent", ...(workers.length > 0 ? ["--", ...workers] : [])] }
    : { file: process.execPath, args: ["--enable-source-maps", "dist/propscore.mjs", "serve", ...workers] }
  const child = spawn(command.file, command.args, {
    cwd: root,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true
  })
  let listeningMs: number | undefined
  const log: Array<string> = []
  const note = (stream: string) => (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) {
      if (line.trim() === "") continue
      if (listeningMs === undefined && stream === "out" && /listening/.test(line)) listeningMs = since()
      log.push(`${since().toFixed(0).padStart(7)} ms ${stream} ${line.slice(0, 200)}`)
    }
  }
  child.stdout!.on("data", note("out"))
  child.stderr!.on("data", note("err"))
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`serve exited with ${child.exitCode}:\n${log.join("\n")}`)
      if (await answers(port)) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const answeredMs = since()
    // The "listening" line is written as the port answers: give the pipe a moment to deliver it.
    for (let i = 0; i < 50 && listeningMs === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    const kept = () => log.some((line) => line.includes("joined in after") && line.includes("(and kept)"))
    for (let i = 0; untilLearnersKept && i < 3_000 && !kept(); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    if (showLog) console.log(log.join("\n"))
    return { answeredMs, listeningMs }
  } finally {
    await stop(child)
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const seconds = (ms: number | undefined) => (ms === undefined ? "  -  " : `${(ms / 1000).toFixed(2)} s`)

console.log(
  `${viaNpm ? "npm start" : "node dist/propscore.mjs serve"}, ${rounds} rounds; ${os.cpus().length} cores, ` +
    `load average ${os.loadavg().map((load) => load.toFixed(2)).join(" ")}`
)
const firsts: Array<Start> = []
const restarts: Array<Start> = []
for (let round = 1; round <= rounds; round++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "psb-"))
  try {
    const first = await start(dataDir, !quick && process.env.LEARNERS !== "off")
    const restart = await start(dataDir)
    firsts.push(first)
    restarts.push(restart)
    console.log(
      `round ${round}: first start answers after ${seconds(first.answeredMs)} (listening ${
        seconds(first.listeningMs)
      }), restart after ${seconds(restart.answeredMs)} (listening ${seconds(restart.listeningMs)})`
    )
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}
console.log(
  `median: first start ${seconds(median(firsts.map((s) => s.answeredMs)))}, ` +
    `restart ${seconds(median(restarts.map((s) => s.answeredMs)))}`
)
