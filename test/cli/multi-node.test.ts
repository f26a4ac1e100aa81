import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { propscore, type RunningServer, startServer } from "../harness/process.js"

const databaseServer = process.env.TEST_DATABASE_URL
const redisUrl = process.env.TEST_REDIS_URL

/**
 * Two `propscore serve` processes on different ports sharing one PostgreSQL and one Redis (issue 5): one
 * rate count per Account, one Ledger, one idempotency key space. Needs the real servers (CI has them).
 */
describe.runIf(databaseServer !== undefined && redisUrl !== undefined)(
  "two nodes on one PostgreSQL and one Redis",
  () => {
    const name = `propscore_nodes_${randomBytes(6).toString("hex")}`
    const admin = () => new pg.Client({ connectionString: databaseServer })
    let env: Record<string, string>
    let nodes: Array<RunningServer> = []

    const json = async (args: ReadonlyArray<string>) => {
      const result = await propscore([...args, "--json"], env)
      expect(result.code, result.stderr).toBe(0)
      return JSON.parse(result.stdout.trim().split("\n").at(-1)!)
    }
    const newAccount = async (credits: number) => {
      const account = await json([
        "accounts",
        "create",
        "--name",
        "multi-node",
        "--tier",
        "public",
        "--credits",
        String(credits)
      ])
      const key = await json(["keys", "issue", "--account", account.account_id])
      return { accountId: account.account_id as string, apiKey: key.api_key as string }
    }
    const predict = (node: RunningServer, apiKey: string, headers: Record<string, string> = {}) =>
      fetch(`${node.baseUrl}/v1/predict`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", ...headers },
        body: JSON.stringify({ address: "3 Pine Ct, Riverton" })
      })
    const balance = async (accountId: string) => (await json(["accounts", "show", accountId])).balance as number

    beforeAll(async () => {
      const client = admin()
      await client.connect()
      await client.query(`CREATE DATABASE ${name}`)
      await client.end()
      const url = new URL(databaseServer!)
      url.pathname = `/${name}`
      env = { DATABASE_URL: url.toString(), REDIS_URL: redisUrl! }
      // The first node loads the demo county; the second starts on the loaded database.
      nodes.push(await startServer(env))
      nodes.push(await startServer(env))
    }, 400_000)

    afterAll(async () => {
      await Promise.all(nodes.map((node) => node.stop()))
      nodes = []
      const client = admin()
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    }, 60_000)

    it(
      "LIM-1 LIM-3 LIM-4: 61 rapid predicts from one Public Account across both nodes: 60 answers, one 429, no charge for it",
      async () => {
        const { accountId, apiKey } = await newAccount(100)
        const statuses: Array<number> = []
        let refused: Response | undefined
        for (let i = 0; i < 61; i++) {
          const response = await predict(nodes[i % 2]!, apiKey)
          statuses.push(response.status)
          if (response.status === 429) refused = response
          else await response.arrayBuffer()
        }
        expect(statuses.filter((s) => s === 200)).toHaveLength(60)
        expect(statuses[60]).toBe(429)
        const body = await refused!.json() as { retry_after: number; type: string }
        expect(body.type).toMatch(/\/errors\/rate-limited$/)
        expect(refused!.headers.get("retry-after")).toBe(String(body.retry_after))
        expect(refused!.headers.get("ratelimit-policy")).toBe(`"account";q=60;w=60`)
        expect(await balance(accountId)).toBe(40)
      },
      120_000
    )

    it(
      "IDEM-3: one idempotency key space and one Ledger: a request answered by one node is replayed by the other, charged once",
      async () => {
        const { accountId, apiKey } = await newAccount(10)
        const first = await predict(nodes[0]!, apiKey, { "idempotency-key": "across-nodes" })
        expect(first.status).toBe(200)
        const replay = await predict(nodes[1]!, apiKey, { "idempotency-key": "across-nodes" })
        expect(replay.status).toBe(200)
        expect(replay.headers.get("idempotent-replayed")).toBe("true")
        expect(await replay.text()).toBe(await first.text())
        expect(await balance(accountId)).toBe(9)
      },
      120_000
    )
  }
)
