/**
 * The embedded PostgreSQL: PGlite in `DATA_DIR`, served on a Unix socket in the same folder so that the
 * service and the operator's commands share it. The first process to open the folder serves it; any other
 * process (`propscore keys issue` while the server runs) connects to that socket instead of opening the
 * files a second time, which PGlite does not allow. Several processes share it safely (`socket-queue.ts`).
 * A new database is a copy of the one `npm run build`
 * made (`schemaTemplate`), where there is one, instead of running initdb and the migrations; `serve`'s first
 * start copies the one with the demo county in it and its kept models (`demoTemplate`).
 */
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { Data, Effect, type Scope } from "effect"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as net from "node:net"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
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

/**
 * Whether another process serves the embedded database in `dataDir` now (its socket answers): a server, or a
 * command run while none was. What `serve` checks before it starts (a second server joined the first's socket
 * and served on, unhealthy, after the first stopped: an operator's audit).
 */
export const embeddedDatabaseServed = (dataDir: string): Effect.Effect<boolean> =>
  socketAnswers(socketPathOf(path.resolve(dataDir)))

/** The socket the embedded database in `dataDir` (resolved) is served on, named as PostgreSQL names its own. */
const socketPathOf = (dataDir: string) => path.join(dataDir, `.s.PGSQL.${SOCKET_PORT}`)

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

/** A database to copy for a new one, and the migrations (id, name) it holds. */
export interface DatabaseTemplate {
  readonly dir: string
  readonly migrations: ReadonlyArray<readonly [number, string]>
}

/** Where a folder holds a database (what PGlite writes first): the check for a new one and for a template. */
const holdsDatabase = (pgdata: string) => fs.existsSync(path.join(pgdata, "PG_VERSION"))

/** The database folder in a `DATA_DIR`. */
const pgdataIn = (dataDir: string) => path.join(dataDir, "pgdata")

/** True when `dataDir` holds no embedded database yet: opening it will make one (a first start). */
export const isNewEmbeddedDatabase = (dataDir: string) => !holdsDatabase(pgdataIn(dataDir))

/** What scripts/build.mjs writes beside a template: its migrations, and for the demo one the bundle's digest. */
interface TemplateMade {
  readonly migrations: DatabaseTemplate["migrations"]
  readonly code?: string
}

/**
 * `npm run build`'s template `dist/pglite-<version>-<name>` for the installed PGlite, and what its
 * `<folder>.json` says of it; undefined where there is none (the sources run before any build).
 */
const builtTemplate = (name: string): { readonly dir: string; readonly made: TemplateMade } | undefined => {
  try {
    const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
    const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(pglite), "..", "package.json"), "utf8"))
    const dist = import.meta.url.endsWith(".ts") ? "../../dist/" : "./"
    const dir = fileURLToPath(new URL(`${dist}pglite-${version}-${name}`, import.meta.url))
    return { dir, made: JSON.parse(fs.readFileSync(`${dir}.json`, "utf8")) }
  } catch {
    return undefined
  }
}

/**
 * A database as a first start would make it before it loads anything (initdb, then the migrations), for the
 * installed PGlite: `npm run build` makes it beside the bundle (scripts/build.mjs). Copying it takes a
 * fraction of a second; initdb takes seconds in WebAssembly. Undefined where there is none (the sources run
 * before any build).
 */
export const schemaTemplate = (): DatabaseTemplate | undefined => {
  const built = builtTemplate("schema")
  return built !== undefined && holdsDatabase(built.dir)
    ? { dir: built.dir, migrations: built.made.migrations }
    : undefined
}

/**
 * The first start's template: `serve`'s first start on an empty folder as `npm run build` made it (the
 * schema template with the synthetic demo county loaded by `data demo`), its database in `pgdata/` and the
 * scoring models kept for it in `kept/`, for the code `code` names (the kept models' digest of the bundle).
 * Undefined where there is none.
 */
export const demoTemplate = ():
  | (DatabaseTemplate & { readonly kept: string; readonly code: string })
  | undefined =>
{
  const built = builtTemplate("demo")
  return built !== undefined && holdsDatabase(pgdataIn(built.dir))
    ? {
      dir: pgdataIn(built.dir),
      kept: path.join(built.dir, "kept"),
      code: built.made.code ?? "",
      migrations: built.made.migrations
    }
    : undefined
}

const serve = (
  dataDir: string,
  socketPath: string,
  lockPath: string,
  template: string | undefined,
  beside: ReadonlyArray<string>
) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const started = Date.now()
        fs.rmSync(socketPath, { force: true })
        const pgdata = pgdataIn(dataDir)
        const created = !holdsDatabase(pgdata)
        if (created && template !== undefined) {
          // What goes with this database, first: the new database is what makes it count.
          for (const folder of beside) {
            const target = path.join(dataDir, path.basename(folder))
            fs.rmSync(target, { recursive: true, force: true })
            fs.cpSync(folder, target, { recursive: true })
          }
          // Copied whole, then renamed: a copy cut short is never taken for a database.
          const partial = `${pgdata}.partial`
          fs.rmSync(partial, { recursive: true, force: true })
          fs.cpSync(template, partial, { recursive: true })
          fs.rmSync(pgdata, { recursive: true, force: true })
          fs.renameSync(partial, pgdata)
        }
        const db = await PGlite.create(pgdata)
        const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 64 })
        holdQueryCycles(server)
        await server.start()
        const how = !created
          ? ""
          : template === undefined
          ? ", a new one (initdb)"
          : ", a new one (a copy of the template npm run build made)"
        return { db, server, opened: `embedded database opened in ${Date.now() - started} ms${how}` }
      },
      catch: (cause) =>
        new EmbeddedDatabaseError({ message: `Could not open the embedded database in ${dataDir}`, cause })
    }).pipe(
      Effect.tapError(() => Effect.sync(() => fs.rmSync(lockPath, { force: true }))),
      Effect.tap(({ opened }) => Effect.logInfo(opened))
    ),
    ({ db, server }) =>
      Effect.promise(async () => {
        await server.stop()
        await db.close()
        fs.rmSync(socketPath, { force: true })
        fs.rmSync(lockPath, { force: true })
      })
  )

/**
 * Opens (or joins) the embedded database in `dataDir` for the life of the scope; a new one is a copy of
 * `template` (the folder of a closed database) where there is one, else initdb makes it. With a template,
 * the folders `beside` are copied into `dataDir` too (by their names, replacing any there) before it.
 */
export const openEmbeddedDatabase = (
  dataDirInput: string,
  template?: string,
  beside: ReadonlyArray<string> = []
): Effect.Effect<EmbeddedDatabase, EmbeddedDatabaseError, Scope.Scope> =>
  Effect.gen(function*() {
    const dataDir = path.resolve(dataDirInput)
    const socketPath = socketPathOf(dataDir)
    const lockPath = path.join(dataDir, "propscore.lock")
    if (socketPath.length > MAX_SOCKET_PATH) {
      return yield* new EmbeddedDatabaseError({
        message: `DATA_DIR ${dataDir} is too long for a Unix socket path; use a shorter folder`
      })
    }
    yield* Effect.try({
      try: () => fs.mkdirSync(dataDir, { recursive: true }),
      // (Why, and what to do: "Could not create" alone left an operator guessing.)
      catch: (cause) =>
        new EmbeddedDatabaseError({
          message: `Could not create DATA_DIR ${dataDir} (${(cause as NodeJS.ErrnoException).code ?? cause}): ` +
            "set DATA_DIR to a folder this process can write in",
          cause
        })
    })
    // Another process may be starting the database right now: give it a moment to start answering.
    for (let attempt = 0; attempt < 300; attempt++) {
      if (yield* socketAnswers(socketPath)) return { socketDir: dataDir, shared: true }
      const lock = yield* Effect.try({
        try: () => tryLock(lockPath),
        catch: (cause) => new EmbeddedDatabaseError({ message: `Could not lock ${lockPath}`, cause })
      })
      if (lock.acquired) {
        yield* serve(dataDir, socketPath, lockPath, template, beside)
        return { socketDir: dataDir, shared: false }
      }
      yield* Effect.sleep("100 millis")
    }
    return yield* new EmbeddedDatabaseError({
      message: `Another process holds ${lockPath} but its database socket does not answer`
    })
  })
