/**
 * `npm run bench:http`: drives a running `propscore serve` with autocannon and prints requests/s and
 * latency for each Metered Call, validate, and a canned-answer route on the same server (the ceiling: the
 * same HTTP stack, front door and trace ids, with no work behind it). Every scenario runs twice, against
 * `serve --workers 1` (one process) and then `serve --workers N` (BENCH_WORKERS, default the number of
 * cores), both servers running side by side; the script prints both tables and the keyed predict's
 * throughput at N workers over one's.
 *
 * Against the real PostgreSQL by default (`BENCH_DATABASE_URL`, default
 * postgres://postgres@127.0.0.1:5432/propscore_bench, created on first use and loaded with the demo county
 * by `serve` itself). `BENCH_EMBEDDED=1` runs it on the embedded database instead. Other knobs:
 * BENCH_CONNECTIONS (64), BENCH_SECONDS (10 per scenario), BENCH_WORKERS (the number of cores).
 *
 * Targets: metered predict ≥ 40% of the canned route's requests/s, p99 ≤ 25 ms at 64 connections (issue
 * 4); issue 17's, on 2 cores: keyed predict ≥ 18% of canned, replay ≥ 40%, validate ≥ 60%, server CPU per
 * call ≤ 1.2 ms keyed, ≤ 1.0 ms unkeyed, ≤ 0.4 ms replay, a batch of 100 with no errors, and keyed predict at
 * N workers ≥ 1.5× one worker's. The script prints the figures
 * and the verdicts; it never fails the build.
 *
 * Beside each rate it prints the CPU time one request cost, measured from the kernel's accounting (Linux
 * `/proc`): in the server (the serving process and every process under it: the primary and its workers),
 * in PostgreSQL (every `postgres` process on the machine; with the embedded database it runs inside the
 * server), and in autocannon (this process); and the share of the time the busiest serving process's main
 * thread (its one JavaScript thread) was on a core, and with workers the primary's. Near 1.0 there, that
 * thread sets the rate; with every core busy, the sum of the three does. Either way the columns say where
 * a route's cost lies.
 */
import autocannon from "autocannon"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { propscore, type RunningServer, startServer } from "../test/harness/process.js"

const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const embedded = process.env.BENCH_EMBEDDED === "1"
const databaseUrl = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/propscore_bench"
const workers = Number(process.env.BENCH_WORKERS ?? os.availableParallelism())

const log = (line: string) => process.stderr.write(`${line}\n`)

/** Creates the bench database on the server when it is missing. */
const ensureDatabase = async (url: string) => {
  const target = new URL(url)
  const name = target.pathname.slice(1)
  const admin = new URL(url)
  admin.pathname = "/postgres"
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])
    if (found.rowCount === 0) {
      log(`creating database ${name}`)
      await client.query(`CREATE DATABASE "${name.replaceAll("\"", "\"\"")}"`)
    }
  } finally {
    await client.end()
  }
}

const json = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const result = await propscore([...args, "--json"], env)
  if (result.code !== 0) throw new Error(`propscore ${args.join(" ")} failed: ${result.stderr}`)
  return JSON.parse(result.stdout.trim().split("\n").at(-1)!)
}

interface Scenario {
  readonly name: string
  readonly options: autocannon.Options
}

interface Row {
  readonly name: string
  readonly requestsPerSecond: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly errors: number
  /**
   * CPU milliseconds per request in the server (all its processes and threads), in PostgreSQL and in the
   * load generator, and the share of the run the busiest serving process's main thread was on a core (with
   * workers, the primary's apart); undefined off Linux.
   */
  readonly cpu: {
    readonly server: number
    readonly database: number
    readonly load: number
    readonly mainThreadBusy: number
    readonly primaryBusy: number | undefined
  } | undefined
}

/** Linux reports process CPU time in clock ticks of USER_HZ, 100 per second on every mainstream kernel. */
const TICK_MS = 10

/** User plus system CPU milliseconds so far (fields 14 and 15) of a process, or of one of its threads. */
const processCpuMs = (pid: number | string, thread?: number): number => {
  const stat = fs.readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, "utf8")
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS
}

/** CPU milliseconds so far of every PostgreSQL process on the machine (server, backends, writers), by pid. */
const postgresCpuMs = (): Map<string, number> => {
  const byPid = new Map<string, number>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") byPid.set(entry, processCpuMs(entry))
    } catch {
      // The process ended while the list was read.
    }
  }
  return byPid
}

/**
 * PostgreSQL's CPU between two readings. Per process, because backends come and go (the pool closes idle
 * connections): a new one counts in full; one that ended in between is missed for its last stretch.
 */
const postgresCpuSince = (before: Map<string, number>): number => {
  let total = 0
  for (const [pid, ms] of postgresCpuMs()) total += ms - (before.get(pid) ?? 0)
  return total
}

const cpuAccounting = fs.existsSync("/proc/self/stat")

/** A process and every process under it (a primary, its workers, tsx's esbuild), by reading `/proc`. */
const processTree = (root: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {
      // The process ended while the list was read.
    }
  }
  const tree = [root]
  for (let i = 0; i < tree.length; i++) {
    for (const child of children.get(tree[i]!) ?? []) tree.push(child)
  }
  return tree
}

/** CPU milliseconds so far of each process of the tree, and of each one's main thread. */
const treeCpuMs = (root: number) => {
  const total = new Map<number, number>()
  const main = new Map<number, number>()
  for (const pid of processTree(root)) {
    try {
      total.set(pid, processCpuMs(pid))
      // A process's main thread has the process's own id as its thread id.
      main.set(pid, processCpuMs(pid, pid))
    } catch {
      // Gone meanwhile.
    }
  }
  return { total, main }
}

/** One scenario against the server (`serverPid`, serving with `workerCount` workers; undefined: not measured). */
const run = (scenario: Scenario, serverPid: number | undefined, workerCount = 1): Promise<Row> =>
  new Promise((resolve, reject) => {
    const measured = cpuAccounting && serverPid !== undefined
    const server0 = measured ? treeCpuMs(serverPid) : undefined
    const database0 = measured && !embedded ? postgresCpuMs() : new Map<string, number>()
    const load0 = process.cpuUsage()
    const started = performance.now()
    autocannon({ connections, duration: seconds, ...scenario.options }, (error, result) => {
      if (error) return reject(error)
      const load = process.cpuUsage(load0)
      const elapsed = performance.now() - started
      const requests = Math.max(1, result.requests.total)
      const cpu = () => {
        if (!measured || server0 === undefined) return undefined
        const server1 = treeCpuMs(serverPid)
        // Per process: a process started meanwhile (a replaced worker) counts in full.
        let server = 0
        for (const [pid, ms] of server1.total) server += ms - (server0.total.get(pid) ?? 0)
        const busy = (pid: number) => ((server1.main.get(pid) ?? 0) - (server0.main.get(pid) ?? 0)) / elapsed
        // One process serves alone; with workers, the busiest worker (the primary apart).
        const serving = workerCount === 1 ? [serverPid] : [...server1.main.keys()].filter((pid) => pid !== serverPid)
        return {
          server: server / requests,
          database: embedded ? 0 : postgresCpuSince(database0) / requests,
          load: (load.user + load.system) / 1000 / requests,
          mainThreadBusy: Math.max(...serving.map(busy)),
          primaryBusy: workerCount === 1 ? undefined : busy(serverPid)
        }
      }
      resolve({
        name: scenario.name,
        requestsPerSecond: result.requests.average,
        p50: result.latency.p50,
        p99: result.latency.p99,
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
        cpu: cpu()
      })
    })
  })

/** The scenarios against one running server. */
const scenariosFor = (
  baseUrl: string,
  headers: Record<string, string>,
  bodies: ReadonlyArray<string>,
  batchBody: string,
  replayKey: string
): ReadonlyArray<Scenario> => {
  let sequence = 0
  return [
    {
      name: "canned (GET /docs/errors/outside-coverage)",
      options: { url: `${baseUrl}/docs/errors/outside-coverage` }
    },
    {
      name: "validate",
      options: { url: `${baseUrl}/v1/validate`, method: "POST", headers, body: bodies[0]! }
    },
    {
      name: "predict, fresh Idempotency-Key",
      options: {
        url: `${baseUrl}/v1/predict`,
        method: "POST",
        headers,
        requests: [{
          setupRequest: (request) => {
            const n = sequence++
            return {
              ...request,
              headers: { ...headers, "idempotency-key": `bench-${process.pid}-${Date.now()}-${n}` },
              body: bodies[n % bodies.length]!
            }
          }
        }]
      }
    },
    {
      name: "predict, no key",
      options: {
        url: `${baseUrl}/v1/predict`,
        method: "POST",
        headers,
        requests: [{ setupRequest: (request) => ({ ...request, body: bodies[sequence++ % bodies.length]! }) }]
      }
    },
    {
      name: "predict, replay",
      options: {
        url: `${baseUrl}/v1/predict`,
        method: "POST",
        headers: { ...headers, "idempotency-key": replayKey },
        body: bodies[0]!
      }
    },
    {
      name: "batch of 100",
      options: { url: `${baseUrl}/v1/predict/batch`, method: "POST", headers, body: batchBody }
    }
  ]
}

interface Table {
  readonly workers: number
  readonly rows: ReadonlyArray<Row>
}

/** A running server under test, with what its scenarios need. */
interface Target {
  readonly workers: number
  readonly server: RunningServer
  readonly env: Record<string, string>
  readonly scenarios: ReadonlyArray<Scenario>
}

/**
 * Starts `serve --workers N` (its own DATA_DIR on the embedded database, so that each server's database
 * work is its own) and readies its scenarios: an Account of its own with Credits for every scenario and a
 * rate limit the load cannot reach (the bench measures the service, not the limiter), the scorable demo
 * addresses, and the stored answer the replay scenario answers again.
 */
const startTarget = async (workerCount: number, dataDirs: Array<string>): Promise<Target> => {
  let env: Record<string, string>
  if (embedded) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "psb-"))
    dataDirs.push(dataDir)
    env = { DATA_DIR: dataDir }
  } else {
    env = { DATABASE_URL: databaseUrl }
  }
  // Served as `npm start` serves: with the learners (the test harness starts servers without them). Until
  // 2026-11-30 this bench measured the comps model alone.
  env = { ...env, LEARNERS: "background" }
  log(
    `starting propscore serve --workers ${workerCount} on ${
      embedded ? "the embedded database" : databaseUrl
    } (first start loads the demo county)`
  )
  const server = await startServer(env, ["--workers", String(workerCount)])
  try {
    // On the embedded database the CLI reaches the running server's database through its socket.
    const account = await json([
      "accounts",
      "create",
      "--name",
      "bench",
      "--tier",
      "reseller",
      "--credits",
      "50000000",
      "--rate-limit",
      "100000000"
    ], env)
    const headers = headersOf((await json(["keys", "issue", "--account", account.account_id], env)).api_key as string)
    // Addresses the demo county answers with 200 (ambiguous, missing-fact and fault-drill ones left out).
    const candidates = await demoAddresses(embedded ? undefined : databaseUrl, server.baseUrl, headers)
    log(`${candidates.length} scorable demo addresses`)
    // Distinct addresses in turn, so the figures are those of real scoring work, not of one hot parcel.
    const bodies = candidates.map((address) => JSON.stringify({ address }))
    const batchBody = JSON.stringify({ properties: candidates.slice(0, 100).map((address) => ({ address })) })
    await learnersJoined(server.baseUrl, headers, bodies)
    const replayKey = `bench-replay-${process.pid}-${Date.now()}`
    const primed = await fetch(`${server.baseUrl}/v1/predict`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": replayKey },
      body: bodies[0]!
    })
    if (primed.status !== 200) throw new Error(`priming the replay failed: ${primed.status}`)
    return {
      workers: workerCount,
      server,
      env,
      scenarios: scenariosFor(server.baseUrl, headers, bodies, batchBody, replayKey)
    }
  } catch (error) {
    await server.stop()
    throw error
  }
}

/**
 * Both servers run side by side, and each scenario runs against one and then the other, so that a load
 * that comes and goes on a shared machine weighs on both figures of a pair alike (the idle server's
 * background work, a heartbeat and a credentials read a second, is small).
 */
const main = async () => {
  if (!embedded) await ensureDatabase(databaseUrl)
  const dataDirs: Array<string> = []
  const targets: Array<Target> = []
  try {
    // One after the other: the first start loads the demo county into an empty database.
    for (const workerCount of workers === 1 ? [1] : [1, workers]) targets.push(await startTarget(workerCount, dataDirs))
    // Warm-up: the engine, the connection pools and V8's JIT (of every worker).
    for (const target of targets) {
      await run({ name: "warm-up", options: { ...target.scenarios[2]!.options, duration: 3 } }, undefined)
    }
    const rows = targets.map((): Array<Row> => [])
    for (let s = 0; s < targets[0]!.scenarios.length; s++) {
      for (const [t, target] of targets.entries()) {
        const scenario = target.scenarios[s]!
        log(`running ${scenario.name} for ${seconds} s at ${connections} connections, --workers ${target.workers}`)
        rows[t]!.push(await run(scenario, target.server.process.pid, target.workers))
      }
    }
    print(targets.map((target, t) => ({ workers: target.workers, rows: rows[t]! })))
  } finally {
    await Promise.all(targets.map((target) => target.server.stop()))
    for (const dataDir of dataDirs) fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * Waits until the learners serve (fitted on a worker thread, or restored from the kept ones): an answer says
 * `pricing-model-incomplete` until they do. Twenty answers in a row without it, each on a connection of its own
 * so that the workers share them. (A fit that fails never says so here: the server's log does.)
 */
const learnersJoined = async (baseUrl: string, headers: Record<string, string>, bodies: ReadonlyArray<string>) => {
  const deadline = Date.now() + 15 * 60_000
  let inRow = 0
  let said = false
  for (let n = 0; inRow < 20; n++) {
    if (Date.now() > deadline) throw new Error("the learners did not join within 15 minutes")
    // A connection of its own each (`connection: close`): with workers, each probe may reach another of them.
    const response = await fetch(`${baseUrl}/v1/predict`, {
      method: "POST",
      headers: { ...headers, connection: "close" },
      body: bodies[n % bodies.length]!,
      signal: AbortSignal.timeout(30_000)
    })
    const text = await response.text()
    if (response.status !== 200) throw new Error(`a probe for the learners answered ${response.status}: ${text}`)
    const pending = text.includes("pricing-model-incomplete")
    inRow = pending ? 0 : inRow + 1
    if (pending) {
      if (!said) log("waiting for the learners to join (fitted on a worker thread, or restored from the kept ones)")
      said = true
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    }
  }
}

const headersOf = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

const demoAddresses = async (url: string | undefined, baseUrl: string, headers: Record<string, string>) => {
  let addresses: Array<string>
  if (url) {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const rows = await client.query<{ street: string; city: string }>(
      `SELECT street, city FROM parcels WHERE synthetic AND living_area_square_feet IS NOT NULL ORDER BY id LIMIT 3000`
    )
    await client.end()
    addresses = rows.rows.map((row) => `${row.street}, ${row.city}`)
  } else {
    addresses = Array.from({ length: 3000 }, (_, i) => `${i + 1} Main St, Riverton`)
  }
  // Sorted out with batches of 100: an entry that failed carries a problem `type`.
  const scorable: Array<string> = []
  for (let start = 0; start < addresses.length; start += 100) {
    const chunk = addresses.slice(start, start + 100)
    const response = await fetch(`${baseUrl}/v1/predict/batch`, {
      method: "POST",
      headers,
      body: JSON.stringify({ properties: chunk.map((address) => ({ address })) })
    })
    const { results } = await response.json() as { results: ReadonlyArray<Record<string, unknown>> }
    results.forEach((entry, i) => {
      if (!("type" in entry)) scorable.push(chunk[i]!)
    })
  }
  if (scorable.length < 100) {
    throw new Error(`only ${scorable.length} demo addresses scored; is the demo county loaded?`)
  }
  return scorable
}

const KEYED_PREDICT = "predict, fresh Idempotency-Key"

const ms = (value: number | undefined) => (value === undefined ? "—" : Math.max(0, value).toFixed(2))

/** One table: a run of every scenario at one worker count, with the issue-4 verdict under it. */
const tableLines = ({ rows, workers: workerCount }: Table) => {
  const canned = rows[0]!.requestsPerSecond
  // Near 1.0, a process's one JavaScript thread is what sets the pace.
  const busy = (value: number | undefined) => (value === undefined ? "—" : value.toFixed(2))
  const lines = [
    `### --workers ${workerCount}`,
    "",
    "| route | req/s | % of canned | p50 ms | p99 ms | non-2xx | errors | CPU ms/req: server | PostgreSQL | autocannon | server main thread busy | primary main thread busy |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows.map((row) =>
      `| ${row.name} | ${row.requestsPerSecond.toFixed(0)} | ${
        (100 * row.requestsPerSecond / canned).toFixed(0)
      }% | ${row.p50} | ${row.p99} | ` +
      `${row.non2xx} | ${row.errors} | ${ms(row.cpu?.server)} | ${embedded ? "(in server)" : ms(row.cpu?.database)} | ${
        ms(row.cpu?.load)
      } | ${busy(row.cpu?.mainThreadBusy)} | ${busy(row.cpu?.primaryBusy)} |`
    )
  ]
  const predict = rows.find((row) => row.name === KEYED_PREDICT)!
  const share = predict.requestsPerSecond / canned
  lines.push(
    "",
    `target: metered predict ≥ 40% of canned (${(100 * share).toFixed(0)}%: ${share >= 0.4 ? "met" : "MISSED"}), ` +
      `p99 ≤ 25 ms (${predict.p99} ms: ${predict.p99 <= 25 ? "met" : "MISSED"})`
  )
  // Issue 17's targets: shares of canned, server CPU per call, a batch of 100 without errors.
  const verdict = (met: boolean) => (met ? "met" : "MISSED")
  const shareTargets = [[KEYED_PREDICT, 0.18], ["predict, replay", 0.4], ["validate", 0.6]] as const
  const cpuTargets = [[KEYED_PREDICT, 1.2], ["predict, no key", 1.0], ["predict, replay", 0.4]] as const
  const rowNamed = (name: string) => rows.find((row) => row.name === name)
  const batch = rowNamed("batch of 100")
  lines.push(
    "targets of issue 17: " + [
      ...shareTargets.map(([name, target]) => {
        const rowShare = (rowNamed(name)?.requestsPerSecond ?? 0) / canned
        return `${name} ≥ ${100 * target}% of canned (${(100 * rowShare).toFixed(0)}%: ${verdict(rowShare >= target)})`
      }),
      ...cpuTargets.flatMap(([name, target]) => {
        const cpu = rowNamed(name)?.cpu?.server
        return cpu === undefined
          ? []
          : [`${name} ≤ ${target} ms of server CPU (${ms(cpu)} ms: ${verdict(cpu <= target)})`]
      }),
      ...(batch === undefined ? [] : [
        `batch of 100 with no errors or timeouts (${batch.errors + batch.non2xx}: ${
          verdict(batch.errors + batch.non2xx === 0)
        })`
      ])
    ].join("; ")
  )
  const cannedCpu = rows[0]!.cpu?.server
  const predictCpu = predict.cpu?.server
  if (cannedCpu !== undefined && predictCpu !== undefined) {
    lines.push(
      `server CPU per request: canned ${ms(cannedCpu)} ms, predict ${ms(predictCpu)} ms; while a serving main ` +
        `thread is the limit for both, predict at 40% of canned may cost it at most ${ms(cannedCpu / 0.4)} ms`
    )
  }
  return lines
}

const print = (tables: ReadonlyArray<Table>) => {
  const lines = [
    `propscore bench:http — ${connections} connections, ${seconds} s each, ${
      embedded ? "embedded database" : "PostgreSQL"
    }, node ${process.version}, ${os.cpus().length} cores`,
    "",
    ...tables.flatMap((table) => [...tableLines(table), ""])
  ]
  const [one, many] = tables
  if (one !== undefined && many !== undefined) {
    const rate = (table: Table) => table.rows.find((row) => row.name === KEYED_PREDICT)!.requestsPerSecond
    const ratio = rate(many) / rate(one)
    lines.push(
      `keyed predict at --workers ${many.workers} over --workers 1: ${rate(many).toFixed(0)} / ${
        rate(one).toFixed(0)
      } req/s = ${ratio.toFixed(2)}× (target ≥ 1.5×: ${ratio >= 1.5 ? "met" : "MISSED"})`
    )
  }
  process.stdout.write(`${lines.join("\n")}\n`)
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
  process.exit(1)
})
