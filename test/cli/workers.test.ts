import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { propscore, type RunningServer, startServer } from "../harness/process.js"

/**
 * `serve --workers 2` on the embedded database (issue 17): two worker processes behind one port, sharing
 * the primary's PGlite through its socket, the rate counts held by the primary. Linux only where it reads
 * `/proc` for the workers' process ids (CI is Linux).
 */
describe("serve --workers 2 on the embedded database", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "psw-"))
  // A short claim deadline: the calls stalled in the fault drill below stop (and are refunded) at 80% of it.
  const env = { DATA_DIR: dataDir, CLAIM_DEADLINE_SECONDS: "5" }
  let server: RunningServer

  const json = async (args: ReadonlyArray<string>) => {
    const result = await propscore([...args, "--json"], env)
    expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0)
    return JSON.parse(result.stdout.trim()) as Record<string, unknown>
  }
  const newAccount = async (options: ReadonlyArray<string>) => {
    const account = await json(["accounts", "create", "--name", "workers", ...options])
    const key = await json(["keys", "issue", "--account", account.account_id as string])
    return { accountId: account.account_id as string, apiKey: key.api_key as string }
  }
  const balance = async (accountId: string) => (await json(["accounts", "show", accountId])).balance as number

  /**
   * A POST on a connection of its own (no keep-alive pool): the primary hands each new connection to the
   * next worker, so consecutive calls alternate between the workers.
   */
  const post = (apiKey: string, route: string, body: unknown, headers: Record<string, string> = {}) =>
    new Promise<{ readonly status: number; readonly body: string }>((resolve, reject) => {
      const request = http.request(`${server.baseUrl}${route}`, {
        method: "POST",
        agent: false,
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...headers }
      }, (response) => {
        let text = ""
        response.on("data", (chunk) => (text += chunk))
        response.on("end", () => resolve({ status: response.statusCode!, body: text }))
      })
      request.on("error", reject)
      request.end(JSON.stringify(body))
    })

  /** Waits for `check` to give a value, looking every 100 ms up to `seconds`. */
  const until = async <A>(what: string, seconds: number, check: () => Promise<A | undefined>): Promise<A> => {
    const deadline = Date.now() + seconds * 1000
    for (;;) {
      const value = await check()
      if (value !== undefined) return value
      if (Date.now() > deadline) {
        throw new Error(`waited ${seconds} s for ${what}; the server logged: ${server.stderr()}`)
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }

  /** The worker processes of the running server: its children running `serve` (tsx's esbuild is one too). */
  const workerPids = (primary: number) =>
    fs.readFileSync(`/proc/${primary}/task/${primary}/children`, "utf8").trim().split(/\s+/).filter(Boolean)
      .map(Number)
      .filter((pid) => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("serve")
        } catch {
          return false
        }
      })

  /** A statement on the embedded database, through its socket, as any other process would. */
  const query = async <Row extends object>(sql: string) => {
    const client = new pg.Client({ host: dataDir, port: 5432, database: "postgres", user: "postgres" })
    await client.connect()
    try {
      return (await client.query<Row>(sql)).rows
    } finally {
      await client.end()
    }
  }

  beforeAll(async () => {
    server = await startServer(env, ["--workers", "2"])
  }, 300_000)

  afterAll(async () => {
    await server?.crash()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it(
    "ERR-3: both workers take paid calls on the one port and the one database, the command line works meanwhile, every Credit counted once",
    async () => {
      // The first start was prepared once: one demo key printed, once "listening".
      expect(server.stdout().match(/ps_[a-z2-7]{12}_[a-z2-7]{40}/g), server.stdout()).toHaveLength(1)
      expect(server.stdout().match(/listening/g)).toHaveLength(1)
      expect(workerPids(server.process.pid!)).toHaveLength(2)
      // The first worker was forked before the primary loaded its modules, yet neither built its engine (and
      // so answered) before the demo county was in: each built it over the whole county.
      const log = server.stderr()
      const loaded = log.indexOf("Loaded the synthetic demo county")
      expect(loaded).toBeGreaterThan(-1)
      expect(log.indexOf("scoring engine built")).toBeGreaterThan(loaded)
      const builds = [...log.matchAll(/scoring engine built over (\d+) parcels/g)].map((match) => Number(match[1]))
      expect(builds).toHaveLength(2)
      expect(builds.every((parcels) => parcels > 10_000), JSON.stringify(builds)).toBe(true)
      const { accountId, apiKey } = await newAccount([
        "--tier",
        "reseller",
        "--credits",
        "500",
        "--rate-limit",
        "100000"
      ])

      // Four calls held by the fault drill, on four connections: each worker records its Spends as its own node.
      const stalled = Array.from(
        { length: 4 },
        () => post(apiKey, "/v1/predict", { address: "2 Fault Drill Way, Cedar Grove" })
      )
      const nodes = await until("four open Spends", 30, async () => {
        const rows = await query<{ node_id: string }>("SELECT node_id FROM open_spends")
        return rows.length === 4 ? rows.map((row) => row.node_id) : undefined
      })
      expect(new Set(nodes).size).toBe(2)

      // Many paid calls on both workers, and the command line on the same database at the same time.
      const statuses: Array<number> = []
      const caller = async (lane: number) => {
        for (let i = 0; i < 15; i++) {
          const answer = await post(apiKey, "/v1/predict", { address: "3 Pine Ct, Riverton" }, {
            "idempotency-key": `workers-${lane}-${i}`
          })
          statuses.push(answer.status)
        }
      }
      const [, shown] = await Promise.all([
        Promise.all(Array.from({ length: 6 }, (_, lane) => caller(lane))),
        json(["accounts", "show", accountId])
      ])
      expect(shown.account_id).toBe(accountId)
      expect(statuses.filter((status) => status === 200)).toHaveLength(90)

      // The stalled calls stop at their deadline, refunded (a covered timeout).
      expect((await Promise.all(stalled)).map((answer) => answer.status)).toEqual([504, 504, 504, 504])
      expect(await balance(accountId)).toBe(500 - 90)
    },
    180_000
  )

  it(
    "LIM-1 LIM-3 LIM-4: one Public Account's 61 calls spread over both workers: 60 answers, then 429, no charge for it",
    async () => {
      const { accountId, apiKey } = await newAccount(["--tier", "public", "--credits", "100"])
      const statuses: Array<number> = []
      let refused: { readonly status: number; readonly body: string } | undefined
      for (let i = 0; i < 61; i++) {
        // Validate and predict share the count (LIM-1); each call on a new connection, so the workers alternate.
        const answer = await post(apiKey, i % 2 === 0 ? "/v1/predict" : "/v1/validate", {
          address: "3 Pine Ct, Riverton"
        })
        statuses.push(answer.status)
        if (answer.status === 429) refused = answer
      }
      expect(statuses.slice(0, 60).every((status) => status === 200), JSON.stringify(statuses)).toBe(true)
      expect(statuses[60]).toBe(429)
      expect(JSON.parse(refused!.body).type).toMatch(/\/errors\/rate-limited$/)
      // 30 predicts answered (the even calls before the 61st); the refused one charged nothing.
      expect(await balance(accountId)).toBe(100 - 30)
    },
    120_000
  )

  it("a worker killed outright is replaced (logged) and the port keeps answering", async () => {
    const primary = server.process.pid!
    const [victim, survivor] = workerPids(primary)
    process.kill(victim!, "SIGKILL")
    const replacement = await until("the replacement worker to answer", 120, async () => {
      const started = workerPids(primary).find((pid) => pid !== victim && pid !== survivor)
      return started !== undefined && server.stderr().includes(`worker ${started} answers`) ? started : undefined
    })
    expect(server.stderr()).toContain(`worker ${victim} was killed by SIGKILL; starting another`)
    expect(workerPids(primary).sort()).toEqual([survivor, replacement].sort())
    const { apiKey } = await newAccount(["--tier", "reseller", "--credits", "10"])
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => post(apiKey, "/v1/validate", { address: "3 Pine Ct, Riverton" }))
    )
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200])
  }, 180_000)

  it(
    "ERR-4 SIGTERM stops the workers, each refunding its stopped calls, and then the primary, which closes the database; a primary killed outright takes its workers with it",
    async () => {
      const workers = workerPids(server.process.pid!)
      // Two calls held by the fault drill when the stop comes: their workers refund them before they exit, on
      // the database the primary still holds (it closed the database first: the refunds failed, the Credits
      // stood until a later start's sweeper, and answered calls not yet settled were refunded then).
      const { accountId, apiKey } = await newAccount(["--tier", "reseller", "--credits", "10"])
      const stalled = Array.from(
        { length: 2 },
        () => post(apiKey, "/v1/predict", { address: "2 Fault Drill Way, Cedar Grove" }).catch(() => undefined)
      )
      await until("two open Spends", 30, async () => {
        const rows = await query<{ n: number }>("SELECT count(*)::int AS n FROM open_spends")
        return rows[0]!.n === 2 ? true : undefined
      })
      await server.stop()
      await Promise.all(stalled)
      expect(server.stderr()).not.toMatch(/not settled/)
      expect(server.process.exitCode).toBe(0)
      expect(await balance(accountId)).toBe(10)
      expect(workers.filter(alive)).toEqual([])
      expect(fs.existsSync(path.join(dataDir, "propscore.lock"))).toBe(false)

      server = await startServer(env, ["--workers", "2"])
      const next = workerPids(server.process.pid!)
      expect(next).toHaveLength(2)
      // A restart: the first worker built its engine from the kept models and data while the primary prepared
      // the start, and served it since the store had not changed.
      expect(server.stderr()).toMatch(
        /scoring engine built over \d+ parcels and \d+ sales in \d+ ms while the start was prepared/
      )
      await server.crash()
      await until("the workers to stop with their primary", 60, async () => next.some(alive) ? undefined : true)
      // The next process takes the database over (the dead primary's lock is stale).
      const after = await json(["accounts", "create", "--name", "after", "--tier", "public"])
      expect((await json(["accounts", "show", after.account_id as string])).tier).toBe("public")
    },
    300_000
  )
})
