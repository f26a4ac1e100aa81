import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { openEmbeddedDatabase, SOCKET_PORT } from "../../layers/database/embedded.js"

/**
 * The embedded database's socket is shared by several processes (`serve --workers N`, the operator's
 * commands), each over a connection of its own, into PGlite's one session. Three connections here stand
 * for three processes: transactions and parameterized statements (the unnamed prepared statement each uses)
 * of one must never be mixed with another's.
 */
describe("the embedded database shared over its socket", () => {
  it.scoped(
    "several connections at once: every statement runs as its own sender's, none waits for good",
    () =>
      Effect.gen(function*() {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "pse-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dataDir, { recursive: true, force: true })))
        const embedded = yield* openEmbeddedDatabase(dataDir)
        const pool = () =>
          new pg.Pool({ host: embedded.socketDir, port: SOCKET_PORT, database: "postgres", user: "postgres", max: 1 })
        const setup = pool()
        yield* Effect.promise(() => setup.query("CREATE TABLE shared_socket (sender int, n int)"))
        yield* Effect.promise(() => setup.end())

        const sender = (id: number) =>
          Effect.promise(async () => {
            const connection = pool()
            const wrong: Array<string> = []
            await Promise.all(Array.from({ length: 150 }, async (_, n) => {
              const client = await connection.connect()
              try {
                await client.query("BEGIN")
                await client.query("INSERT INTO shared_socket (sender, n) VALUES ($1, $2)", [id, n])
                await client.query("COMMIT")
              } catch (error) {
                wrong.push(String(error))
                await client.query("ROLLBACK").catch(() => {})
              } finally {
                client.release()
              }
              // A statement of this sender's own shape: its column is named after the sender.
              const rows = await connection.query(`SELECT $1::text AS from_${id}`, [`${id}:${n}`]).then(
                (result) => result.rows as Array<Record<string, string>>,
                (error): Array<Record<string, string>> => [{ error: String(error) }]
              )
              if (rows[0]?.[`from_${id}`] !== `${id}:${n}`) wrong.push(JSON.stringify(rows[0]))
            }))
            const { rows } = await connection.query(
              "SELECT count(*)::int AS count FROM shared_socket WHERE sender = $1",
              [id]
            )
            await connection.end()
            return { wrong, stored: rows[0].count as number }
          })

        const results = yield* Effect.all([sender(1), sender(2), sender(3)], { concurrency: "unbounded" }).pipe(
          Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error("the shared socket stalled") })
        )
        for (const result of results) expect(result).toEqual({ wrong: [], stored: 150 })
      }),
    120_000
  )
})
