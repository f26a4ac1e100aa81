/** The SQL client: `@effect/sql-pg` against a real server or against the embedded PGlite's socket. */
import { PgClient } from "@effect/sql-pg"
import { Duration, Layer, type Redacted } from "effect"
import pg from "pg"

/** Where the database answers: a connection URL, or a host (a directory for a Unix socket) and port. */
export type DatabaseTarget =
  | { readonly _tag: "Url"; readonly url: Redacted.Redacted }
  | {
    readonly _tag: "Host"
    readonly host: string
    readonly port: number
    readonly database: string
    readonly username?: string | undefined
  }

const INT8_OID = 20
const NUMERIC_OID = 1700

// Counts and Credits are bigint in the database and plain numbers in the service.
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID || oid === NUMERIC_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser
}

/**
 * The embedded PGlite is one PostgreSQL session behind its socket: concurrent connections interleave their
 * extended-protocol messages there (a prepared statement of one is lost to another), so a process talks to
 * it over a single connection and its queries queue in the pool. A real server gets a pool of 10.
 */
export const EMBEDDED_CONNECTIONS = 1
export const SERVER_CONNECTIONS = 10

export const pgClientLayer = (target: DatabaseTarget, maxConnections = SERVER_CONNECTIONS) =>
  PgClient.layer({
    ...(target._tag === "Url"
      ? { url: target.url }
      : { host: target.host, port: target.port, database: target.database, username: target.username ?? "postgres" }),
    maxConnections,
    connectTimeout: Duration.seconds(5),
    idleTimeout: Duration.seconds(30),
    applicationName: "propscore",
    types
  }).pipe(Layer.orDie)
