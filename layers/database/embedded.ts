/**
 * The embedded PostgreSQL: PGlite in `DATA_DIR`, served on a Unix socket in the same folder so that the
 * service and the operator's commands share it. The first process to open the folder serves it; any other
 * process (`propscore keys issue` while the server runs) connects to that socket instead of opening the
 * files a second time, which PGlite does not allow. Several processes share it safely (`socket-queue.ts`).
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { holdQueryCycles } from "./socket-queue.js"

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export const SOCKET_PORT = 5432
const MAX_SOCKET_PATH = 100

export interface EmbeddedDatabase {
  /** The folder holding the socket: the `host` a PostgreSQL client connects to. */
  readonly socketDir: string
  /** True when another process already served the folder and this one only connected. */
  readonly shared: boolean
}

const socketAnswers = (socketPath: string) =>
  Effect.async<boolean>((resume) => {
    const socket = net.connect(socketPath)
    const done = (answers: boolean) => {
      socket.destroy()
      resume(Effect.succeed(answers))
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

const pidAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Takes the folder's lock file, or reports the live process that holds it. */
const tryLock = (
  lockPath: string
): { readonly acquired: true } | { readonly acquired: false; readonly pid: number } => {
  try {
    fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" })
    return { acquired: true }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    const pid = Number(fs.readFileSync(lockPath, "utf8").trim())
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) return { acquired: false, pid }
    fs.rmSync(lockPath, { force: true })
    return tryLock(lockPath)
  }
}

const serve = (dataDir: string, socketPath: string, lockPath: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        fs.rmSync(socketPath, { force: true })
        const db = await PGlite.create(path.join(dataDir, "pgdata"))
        const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 64 })
        holdQueryCycles(server)
        await server.start()
        return { db, server }
      },
      catch: (cause) =>
        new EmbeddedDatabaseError({ message: `Could not open the embedded database in ${dataDir}`, cause })
    }).pipe(Effect.tapError(() => Effect.sync(() => fs.rmSync(lockPath, { force: true })))),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
        fs.rmSync(socketPath, { force: true })
        fs.rmSync(lockPath, { force: true })
      })
  )

/** Opens (or joins) the embedded database in `dataDir` for the life of the scope. */
export const openEmbeddedDatabase = (
  dataDirInput: string
): Effect.Effect<EmbeddedDatabase, EmbeddedDatabaseError, Scope.Scope> =>
  Effect.gen(function*() {
    const dataDir = path.resolve(dataDirInput)
    const socketPath = path.join(dataDir, `.s.PGSQL.${SOCKET_PORT}`)
    const lockPath = path.join(dataDir, "propscore.lock")
    if (socketPath.length > MAX_SOCKET_PATH) {
      return yield* new EmbeddedDatabaseError({
        message: `DATA_DIR ${dataDir} is too long for a Unix socket path; use a shorter folder`
      })
    }
    yield* Effect.try({
      try: () => fs.mkdirSync(dataDir, { recursive: true }),
      catch: (cause) => new EmbeddedDatabaseError({ message: `Could not create ${dataDir}`, cause })
    })
    // Another process may be starting the database right now: give it a moment to start answering.
    for (let attempt = 0; attempt < 300; attempt++) {
      if (yield* socketAnswers(socketPath)) return { socketDir: dataDir, shared: true }
      const lock = yield* Effect.try({
        try: () => tryLock(lockPath),
        catch: (cause) => new EmbeddedDatabaseError({ message: `Could not lock ${lockPath}`, cause })
      })
      if (lock.acquired) {
        yield* serve(dataDir, socketPath, lockPath)
        return { socketDir: dataDir, shared: false }
      }
      yield* Effect.sleep("100 millis")
    }
    return yield* new EmbeddedDatabaseError({
      message: `Another process holds ${lockPath} but its database socket does not answer`
    })
  })
