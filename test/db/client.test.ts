import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Layer, Logger, Redacted } from "effect"
import * as net from "node:net"
import { describeTarget, pgClientLayer } from "../../src/db/client.js"
import { endpoint, usingRealServer } from "../harness/database.js"
import { faultProxy } from "../harness/fault-proxy.js"

/** A port nothing listens on (bound, then closed). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const unreachable = (port: number) => ({
  _tag: "Url" as const,
  url: Redacted.make(`postgres://u:secret@127.0.0.1:${port}/x`)
})

describe("the SQL client's start", () => {
  it("names the database it could not reach, without its password, and why", async () => {
    expect(describeTarget({ _tag: "Url", url: Redacted.make("postgres://u:secret@db.example:5433/prod") }))
      .toBe("postgres://u:***@db.example:5433/prod")
    expect(describeTarget({ _tag: "Host", host: "/tmp/socket", port: 5432, database: "postgres" }))
      .toBe("/tmp/socket:5432/postgres")
    const port = await closedPort()
    const exit = await Effect.runPromiseExit(Layer.build(pgClientLayer(unreachable(port))).pipe(Effect.scoped))
    expect(Exit.isFailure(exit)).toBe(true)
    const text = JSON.stringify(exit)
    expect(text).toContain("DatabaseUnreachable")
    expect(text).toContain(`Failed to connect to postgres://u:***@127.0.0.1:${port}/x: connect ECONNREFUSED`)
    expect(text).not.toContain("secret")
  })

  it.live("waits for a database that refuses at first, trying again, and starts once it answers", () =>
    Effect.gen(function*() {
      const { client, proxyTarget, target } = yield* endpoint()
      const proxy = yield* faultProxy(proxyTarget)
      yield* proxy.faults.cut
      const warned = yield* Deferred.make<string>()
      const logger = Logger.make(({ message }) => {
        Deferred.unsafeDone(warned, Exit.succeed(String(message)))
      })
      const via = { ...target, host: "127.0.0.1", port: proxy.port }
      const started = yield* Layer.build(pgClientLayer(via, client, "60 seconds")).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
        Effect.fork
      )
      // The start has been refused once and said so; the database comes back.
      expect(yield* Deferred.await(warned)).toContain("The database does not answer yet")
      yield* proxy.faults.restore
      const context = yield* Effect.flatMap(started.await, (exit) => exit)
      const sql = SqlClient.SqlClient.pipe(Effect.provide(context))
      expect(yield* Effect.flatMap(sql, (sql) => sql`SELECT 1 AS one`)).toEqual([{ one: 1 }])
    }).pipe(Effect.scoped))

  it("gives up after the wait, saying how long it waited", async () => {
    const port = await closedPort()
    const exit = await Effect.runPromiseExit(
      Layer.build(pgClientLayer(unreachable(port), undefined, "1 second")).pipe(
        Effect.provide(Logger.remove(Logger.defaultLogger)),
        Effect.scoped
      )
    )
    expect(JSON.stringify(exit)).toContain("connect ECONNREFUSED 127.0.0.1:" + port + " (waited 1 s)")
  })

  it.runIf(usingRealServer())("does not wait for a database the server says does not exist", async () => {
    const url = new URL(process.env.TEST_DATABASE_URL!)
    url.pathname = "/propscore_no_such_database"
    const exit = await Effect.runPromiseExit(
      Layer.build(pgClientLayer({ _tag: "Url", url: Redacted.make(url.toString()) }, undefined, "1 hour")).pipe(
        Effect.scoped
      )
    )
    expect(JSON.stringify(exit)).toContain(`database \\"propscore_no_such_database\\" does not exist`)
  })
})
