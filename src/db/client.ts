/**
 * The SQL client: `@effect/sql-pg` over a `pg` pool we build ourselves, against a real server or the
 * embedded PGlite's socket, with the storage deadlines (`src/services/storage.ts`) built in:
 *
 * - Every byte the database sends is noted. `DatabaseHealth.guard` fails a storage step when the database
 *   has sent nothing at all for the silence limit since the step began, so a stalled or unreachable
 *   database ends every waiting step within it, while a busy one (the embedded database serves one
 *   statement at a time, so its steps queue) keeps its steps waiting, up to the step limit.
 * - A connection is opened within `CONNECT_TIMEOUT`, or fails. At the start the client tries again, with
 *   backoff, for as long as it is told to wait (`DATABASE_WAIT_SECONDS` for a server), then fails with
 *   `DatabaseUnreachable`.
 * - A connection busy with a statement that has heard nothing from the database for `CONNECTION_SILENCE_LIMIT`
 *   is destroyed, so a connection stuck on a stalled network does not stay in the pool for good.
 * - On a real server, statements are prepared once per connection (`ClientSettings.namedStatements`).
 */
import { PgClient } from "@effect/sql-pg"
import { SqlError } from "@effect/sql/SqlError"
import { Data, Duration, Effect, Layer, Redacted, Runtime, RuntimeFlags, Schedule } from "effect"
import { createHash } from "node:crypto"
import type * as net from "node:net"
import pg from "pg"
import { STORAGE_SILENCE_LIMIT, STORAGE_STEP_LIMIT, StorageUnavailable } from "../services/storage.js"
import { DatabaseHealth } from "./health.js"

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

/**
 * How the client talks to the database. A real server: a pool, and every statement with parameters named
 * after a digest of its text, so that node-postgres prepares it once per connection and PostgreSQL parses and
 * plans it then, not at every call (a named statement is bound and executed after that; PostgreSQL may keep a
 * generic plan for it). The embedded PGlite: one connection and nothing named, since its one session is
 * shared by every connection of every process (a name one of them prepared would be taken for another's).
 */
export interface ClientSettings {
  readonly connections: number
  readonly namedStatements: boolean
}

export const SERVER_CLIENT: ClientSettings = { connections: SERVER_CONNECTIONS, namedStatements: true }
export const EMBEDDED_CLIENT: ClientSettings = { connections: EMBEDDED_CONNECTIONS, namedStatements: false }

/**
 * Statements one connection prepares at most; past that, its new statements go unnamed. Our statements are a
 * few dozen texts; this bounds what a text built per call (a list of every length) could take on the server.
 */
export const MAX_PREPARED_PER_CONNECTION = 500

/** Statement names by text, remembered for this many texts at most (then forgotten and made again). */
const NAMES_REMEMBERED = 2_000
const names = new Map<string, string>()

/** A statement's name: a digest of its text (the same text is the same statement on every connection). */
export const statementName = (text: string) => {
  let name = names.get(text)
  if (name === undefined) {
    if (names.size >= NAMES_REMEMBERED) names.clear()
    name = `propscore_${createHash("sha256").update(text).digest("base64url").slice(0, 32)}`
    names.set(text, name)
  }
  return name
}

/** How long opening a connection may take. */
export const CONNECT_TIMEOUT = Duration.seconds(5)
/**
 * A connection whose statement has heard nothing from the database for this long is destroyed. Long
 * enough for any statement of ours that produces no row for a while (a migration's index build).
 */
export const CONNECTION_SILENCE_LIMIT = Duration.seconds(60)
const IDLE_TIMEOUT = Duration.seconds(30)
/** A timer this late means the process was held (busy or starved) and could not have heard the database. */
const PROCESS_HELD_MILLIS = 1_000
const WATCH_INTERVAL_MILLIS = 1_000

/** When the database last sent anything, on any connection of the pool. */
interface Liveness {
  lastHeard: number
}

/** The parts of `pg.Client` (8.23, pinned) the connection watch reads: its socket and its query queue. */
interface ClientInternals {
  readonly connection: { readonly stream: net.Socket }
  readonly _queryQueue: ReadonlyArray<unknown>
  _getActiveQuery(): unknown
}

interface Watched {
  readonly client: pg.Client
  lastHeard: number
  /** When the watch first saw it busy; undefined while it is idle. */
  busySince: number | undefined
}

/**
 * A query's arguments with its statement named by `nameFor` (undefined: left unnamed). @effect/sql-pg sends a
 * statement as `query(text, values, callback)`, its rows as arrays as `query({ text, rowMode, values },
 * callback)`, its streams as a Cursor (left alone). Only statements with parameters are named: those are
 * single statements, sent with the extended protocol already; one without may hold several statements (a
 * migration), which only the simple protocol takes.
 */
const namedQuery = (
  args: ReadonlyArray<any>,
  nameFor: (text: string) => string | undefined
): ReadonlyArray<any> => {
  const [config, values, callback] = args
  if (typeof config === "string" && Array.isArray(values) && values.length > 0) {
    const name = nameFor(config)
    return name === undefined ? args : [{ name, text: config, values }, callback]
  }
  if (
    typeof config === "object" && config !== null && typeof config.submit !== "function" &&
    config.name === undefined && typeof config.text === "string" && Array.isArray(config.values) &&
    config.values.length > 0
  ) {
    const name = nameFor(config.text)
    return name === undefined ? args : [{ ...config, name }, ...args.slice(1)]
  }
  return args
}

/**
 * A `pg.Client` that notes every byte it receives, for the pool's liveness and its own watch, and that names
 * the statements it is given with parameters when `namedStatements` (each prepared once on the connection).
 */
const watchedClientClass = (liveness: Liveness, watched: Set<Watched>, namedStatements: boolean) =>
  class WatchedClient extends pg.Client {
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: Duration.toMillis(CONNECT_TIMEOUT) })
      const entry: Watched = { client: this, lastHeard: Date.now(), busySince: undefined }
      watched.add(entry)
      const internals = this as unknown as ClientInternals
      internals.connection.stream.on("data", () => {
        entry.lastHeard = liveness.lastHeard = Date.now()
      })
      this.on("end", () => watched.delete(entry))
      if (namedStatements) {
        // The statements this connection was told to prepare.
        const prepared = new Set<string>()
        const nameFor = (text: string) => {
          const name = statementName(text)
          if (prepared.has(name)) return name
          if (prepared.size >= MAX_PREPARED_PER_CONNECTION) return undefined
          prepared.add(name)
          return name
        }
        const query = this.query.bind(this) as (...args: ReadonlyArray<any>) => any
        this.query = ((...args: ReadonlyArray<any>) => query(...namedQuery(args, nameFor))) as pg.Client["query"]
      }
    }
  }

const isBusy = (client: pg.Client) => {
  const internals = client as unknown as ClientInternals
  return internals._getActiveQuery() != null || internals._queryQueue.length > 0
}

/**
 * Destroys connections busy and silent past the limit. A process whose event loop was blocked (the
 * embedded database runs in it) reads its sockets only after its timers: so a connection found silent is
 * looked at again once pending input has been read, and destroyed only if it is still silent then.
 */
const watchConnections = (watched: Set<Watched>) => {
  const limit = Duration.toMillis(CONNECTION_SILENCE_LIMIT)
  const silent = (entry: Watched, now: number) =>
    entry.busySince !== undefined && now - Math.max(entry.lastHeard, entry.busySince) >= limit
  let due = Date.now() + WATCH_INTERVAL_MILLIS
  return setInterval(() => {
    const now = Date.now()
    const held = now - due > PROCESS_HELD_MILLIS
    due = now + WATCH_INTERVAL_MILLIS
    const suspects: Array<Watched> = []
    for (const entry of watched) {
      // The process was held: nobody could have heard the database meanwhile, so silence starts again.
      if (held && entry.busySince !== undefined) entry.busySince = now
      if (!isBusy(entry.client)) entry.busySince = undefined
      else if (entry.busySince === undefined) entry.busySince = now
      else if (silent(entry, now)) suspects.push(entry)
    }
    if (suspects.length === 0) return
    setImmediate(() => {
      for (const entry of suspects) {
        if (!silent(entry, Date.now())) continue
        const internals = entry.client as unknown as ClientInternals
        internals.connection.stream.destroy(
          new Error(`no answer from the database for ${Duration.format(CONNECTION_SILENCE_LIMIT)}`)
        )
      }
    })
  }, WATCH_INTERVAL_MILLIS).unref()
}

/** `DatabaseHealth.guard` over the pool's liveness. */
const makeGuard = (liveness: Liveness): DatabaseHealth["Type"]["guard"] => {
  const silenceLimit = Duration.toMillis(STORAGE_SILENCE_LIMIT)
  const stepLimit = Duration.toMillis(STORAGE_STEP_LIMIT)
  /** Calls `expire` once the step is past a deadline; returns what stops the clock. */
  const deadline = (step: string, started: number, expire: (error: StorageUnavailable) => void) => {
    let timer: ReturnType<typeof setTimeout> | undefined
    let recheck: ReturnType<typeof setImmediate> | undefined
    let due = started + silenceLimit
    // Silence is counted only while this process could have heard an answer: a timer that fires late
    // means the process itself was held (a long synchronous task, a starved CPU), not the database.
    let listeningSince = started
    const fail = (reason: string) => expire(new StorageUnavailable({ step, cause: new Error(reason), timedOut: true }))
    const wait = (delay: number) => {
      due = Date.now() + delay
      timer = setTimeout(() => check(false), delay)
    }
    const check = (readInput: boolean) => {
      const now = Date.now()
      if (!readInput && now - due > PROCESS_HELD_MILLIS) listeningSince = now
      if (now - started >= stepLimit) return fail(`no result within ${Duration.format(STORAGE_STEP_LIMIT)}`)
      const silentFor = now - Math.max(listeningSince, liveness.lastHeard)
      if (silentFor >= silenceLimit) {
        if (readInput) return fail(`no answer from the database for ${Duration.format(STORAGE_SILENCE_LIMIT)}`)
        // Timers run before pending socket reads: look again once input has been read.
        recheck = setImmediate(() => check(true))
        return
      }
      wait(Math.min(silenceLimit - silentFor, stepLimit - (now - started)))
    }
    wait(silenceLimit)
    return () => {
      clearTimeout(timer)
      if (recheck !== undefined) clearImmediate(recheck)
    }
  }
  // The step runs on a fiber of its own, raced against the deadline's timers here: the first to finish
  // answers. (As `Effect.raceFirst(Effect.disconnect(step), deadline)` would, without its three forked
  // fibers and the merge of their FiberRefs back, which cost a statement more than the rest of its
  // handling.) Interruptible even inside an uninterruptible step (storing an answer): a missed deadline
  // must end the wait. The step's statement is abandoned, not waited for: its fiber is interrupted in the
  // background, since cancelling it on a stalled database would stall.
  return (step) => (effect) =>
    Effect.withFiberRuntime<unknown, unknown, unknown>((parent, status) => {
      const started = Date.now()
      const runtime = Runtime.make({
        context: parent.currentContext,
        fiberRefs: parent.getFiberRefs(),
        runtimeFlags: RuntimeFlags.enable(status.runtimeFlags, RuntimeFlags.Interruption)
      })
      return Effect.async<unknown, unknown>((resume) => {
        let decided = false
        const fiber = Runtime.runFork(runtime)(effect as Effect.Effect<unknown, unknown>)
        const stop = deadline(step, started, (error) => {
          if (decided) return
          decided = true
          fiber.unsafeInterruptAsFork(parent.id())
          resume(Effect.fail(error))
        })
        fiber.addObserver((exit) => {
          if (decided) return
          decided = true
          stop()
          resume(exit)
        })
        return Effect.sync(() => {
          if (decided) return
          decided = true
          stop()
          fiber.unsafeInterruptAsFork(parent.id())
        })
      })
    }).pipe(
      Effect.interruptible,
      Effect.mapError((error: unknown) =>
        error instanceof SqlError ? new StorageUnavailable({ step, cause: error }) : error
      )
    ) as any
}

const poolConfig = (target: DatabaseTarget): pg.PoolConfig =>
  target._tag === "Url"
    ? { connectionString: Redacted.value(target.url) }
    : { host: target.host, port: target.port, database: target.database, user: target.username ?? "postgres" }

/** Where the client connects, for an operator's eyes: the URL without its password, or the host and port. */
export const describeTarget = (target: DatabaseTarget): string => {
  if (target._tag === "Host") return `${target.host}:${target.port}/${target.database}`
  try {
    const url = new URL(Redacted.value(target.url))
    if (url.password !== "") url.password = "***"
    return url.toString()
  } catch {
    return "the DATABASE_URL given"
  }
}

/**
 * The database could not be reached at the start (after `startWait`): where and why, for an operator. A
 * defect of the client's layer; the command line prints its message alone (no stack: nothing in the code to
 * look at).
 */
export class DatabaseUnreachable extends Data.TaggedError("DatabaseUnreachable")<{ readonly message: string }> {}

/**
 * The server answered and refused: a login or a database that waiting will not change (SQLSTATE classes 28,
 * invalid authorization, and 3D, invalid catalog name). A refused or silent connection, or a server still
 * starting (57P03), is worth waiting for.
 */
const refusedForGood = (cause: unknown) => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : ""
  return code.startsWith("28") || code.startsWith("3D")
}

/** How often a start tries the database again while it waits: after 0.5 s, doubling, at most every 5 s. */
const START_RETRIES = Schedule.exponential("500 millis").pipe(Schedule.union(Schedule.spaced("5 seconds")))

/**
 * The SQL client (`SqlClient`, `PgClient`) and its `DatabaseHealth`, with `settings`' pool and statements.
 * `startWait`: how long the start tries again (with backoff) while the database refuses or does not answer,
 * as when the service and its database start together; zero fails at once.
 */
export const pgClientLayer = (
  target: DatabaseTarget,
  settings: ClientSettings = SERVER_CLIENT,
  startWait: Duration.DurationInput = Duration.zero
) => Layer.unwrapEffect(Effect.sync(() => clientLayer(target, settings, Duration.decode(startWait))))

const clientLayer = (target: DatabaseTarget, settings: ClientSettings, startWait: Duration.Duration) => {
  const liveness: Liveness = { lastHeard: Date.now() }
  const watched = new Set<Watched>()
  const pool = Effect.acquireRelease(
    Effect.gen(function*() {
      const pool = new pg.Pool({
        ...poolConfig(target),
        Client: watchedClientClass(liveness, watched, settings.namedStatements),
        max: settings.connections,
        // How long a statement may wait for a free connection: the step limit (the guard fails a request's
        // step sooner when the database is silent).
        connectionTimeoutMillis: Duration.toMillis(STORAGE_STEP_LIMIT),
        idleTimeoutMillis: Duration.toMillis(IDLE_TIMEOUT),
        keepAlive: true,
        application_name: "propscore",
        types
      })
      // A connection that fails while idle is dropped by the pool; the next statement opens a new one.
      pool.on("error", () => {})
      const watch = watchConnections(watched)
      const connect = Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        // What an operator needs to act: where, and why (`connect ECONNREFUSED`, a timeout, a refused login).
        catch: (cause) => ({
          reason: `${describeTarget(target)}: ${cause instanceof Error ? cause.message : String(cause)}`,
          settled: refusedForGood(cause)
        })
      })
      const waitSeconds = Duration.toSeconds(startWait)
      // Tries again until `startWait` from the first attempt (each wait cut to what is left of it); the last
      // attempt may take up to CONNECT_TIMEOUT more against a silent server. (Measured from the first retry,
      // `Schedule.upTo` let a 5 s wait run 8 s.)
      const deadline = Date.now() + Duration.toMillis(startWait)
      const retries = START_RETRIES.pipe(
        Schedule.modifyDelay((_, delay) =>
          Duration.millis(Math.max(0, Math.min(Duration.toMillis(delay), deadline - Date.now())))
        ),
        Schedule.whileOutput(() => Date.now() < deadline)
      )
      yield* (waitSeconds <= 0 ? connect : connect.pipe(
        Effect.tapError(({ reason, settled }) =>
          settled ? Effect.void : Effect.logWarning(
            `The database does not answer yet (${reason}); waiting for it up to ${waitSeconds} s from the start`
          )
        ),
        Effect.retry({ schedule: retries, while: ({ settled }) => !settled })
      )).pipe(
        Effect.tapError(() =>
          Effect.promise(() => pool.end()).pipe(Effect.ensuring(Effect.sync(() => clearInterval(watch))))
        ),
        Effect.orDieWith(({ reason, settled }) =>
          new DatabaseUnreachable({
            message: `Failed to connect to ${reason}${waitSeconds > 0 && !settled ? ` (waited ${waitSeconds} s)` : ""}`
          })
        )
      )
      return { pool, watch }
    }),
    ({ pool, watch }) =>
      Effect.sync(() => clearInterval(watch)).pipe(
        Effect.zipRight(Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000)))
      )
  )
  return PgClient.layerFromPool({
    acquire: Effect.map(pool, ({ pool }) => pool),
    applicationName: "propscore",
    types
  }).pipe(
    Layer.merge(Layer.succeed(DatabaseHealth, DatabaseHealth.of({ guard: makeGuard(liveness) }))),
    Layer.orDie
  )
}
