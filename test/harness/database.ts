/**
 * A fresh, migrated database for one test or one test file: a new database on the real server when
 * TEST_DATABASE_URL is set, else a PGlite loaded from the run's template. Each gets its own, so tests and
 * runs never collide. With `faults: true` the client goes through a proxy the test can cut.
 */
import type { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Effect, Layer, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { inject } from "vitest"
import {
  type ClientSettings,
  type DatabaseTarget,
  EMBEDDED_CLIENT,
  pgClientLayer,
  SERVER_CLIENT
} from "../../src/db/client.js"
import { withMigrations } from "../../src/db/database.js"
import type { DatabaseHealth } from "../../src/db/health.js"
import { DatabaseFaultsTag, faultProxy, type ProxyTarget } from "./fault-proxy.js"

interface Endpoint {
  /** How a client talks to it: one connection to PGlite (a single session), a pool to a server. */
  readonly client: ClientSettings
  readonly proxyTarget: ProxyTarget
  readonly target: Extract<DatabaseTarget, { _tag: "Host" }>
}

/** A new database on the server of TEST_DATABASE_URL, dropped at the end of the scope. */
const serverDatabase = (url: string): Effect.Effect<Endpoint, never, Scope.Scope> => {
  const parsed = new URL(url)
  const name = `propscore_test_${randomBytes(6).toString("hex")}`
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  return Effect.acquireRelease(
    Effect.promise(() => admin(`CREATE DATABASE ${name}`)),
    () => Effect.promise(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  ).pipe(Effect.as({
    client: SERVER_CLIENT,
    proxyTarget: { host: parsed.hostname, port: Number(parsed.port || 5432) },
    target: {
      _tag: "Host",
      host: parsed.hostname,
      port: Number(parsed.port || 5432),
      database: name,
      username: decodeURIComponent(parsed.username || "postgres")
    }
  }))
}

/** A PGlite from the template, served on a Unix socket in a temporary folder. */
const pgliteDatabase = (): Effect.Effect<Endpoint, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "psq-"))
      const template = fs.readFileSync(inject("pgliteTemplate"))
      const db = await PGlite.create({ loadDataDir: new Blob([template]) })
      const socketPath = path.join(dir, ".s.PGSQL.5432")
      const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 64 })
      await server.start()
      return { dir, db, server, socketPath }
    }),
    ({ db, dir, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
        fs.rmSync(dir, { recursive: true, force: true })
      })
  ).pipe(Effect.map(({ dir, socketPath }) => ({
    client: EMBEDDED_CLIENT,
    proxyTarget: { path: socketPath },
    target: { _tag: "Host", host: dir, port: 5432, database: "postgres" }
  })))

/** A fresh database (on the server of TEST_DATABASE_URL, else a PGlite), not yet migrated nor connected. */
export const endpoint = () => {
  const url = process.env.TEST_DATABASE_URL
  return url ? serverDatabase(url) : pgliteDatabase()
}

export const usingRealServer = () => process.env.TEST_DATABASE_URL !== undefined

/**
 * A fresh migrated database: `SqlClient`/`PgClient`, its client as the service's own for that database, or
 * as `settings` make it of that (e.g. one connection, to look at the session the statements ran in).
 */
export const testDatabase = (
  settings: (client: ClientSettings) => ClientSettings = (client) => client
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | DatabaseHealth> =>
  withMigrations(
    Layer.unwrapScoped(Effect.map(endpoint(), ({ client, target }) => pgClientLayer(target, settings(client))))
  )

/** A fresh migrated database: `SqlClient`/`PgClient`. */
export const TestDatabase = testDatabase()

/** A fresh migrated database reached through a proxy the test can cut (`DatabaseFaultsTag`). */
export const FaultyTestDatabase: Layer.Layer<
  SqlClient.SqlClient | PgClient.PgClient | DatabaseHealth | DatabaseFaultsTag
> = Layer
  .unwrapScoped(
    Effect.gen(function*() {
      const { client, proxyTarget, target } = yield* endpoint()
      const proxy = yield* faultProxy(proxyTarget)
      return withMigrations(
        pgClientLayer({
          _tag: "Host",
          host: "127.0.0.1",
          port: proxy.port,
          database: target.database,
          username: target.username
        }, client)
      ).pipe(Layer.merge(Layer.succeed(DatabaseFaultsTag, proxy.faults)))
    })
  )
