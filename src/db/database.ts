/** The configured database: `DATABASE_URL` when set, else the embedded PGlite in `DATA_DIR`; migrated. */
import { Duration, Effect, Layer, Option } from "effect"
import {
  type DatabaseTemplate,
  demoTemplate,
  isNewEmbeddedDatabase,
  openEmbeddedDatabase,
  schemaTemplate,
  SOCKET_PORT
} from "../../layers/database/embedded.js"
import { runningCodeDigest } from "../../layers/kept-models/files.js"
import { AppConfig } from "../config.js"
import { type DatabaseTarget, EMBEDDED_CLIENT, pgClientLayer, SERVER_CLIENT } from "./client.js"
import { migrateIfPending, migrationIds } from "./migrations.js"

/**
 * The template's folder, if its migrations are this code's first ones (the ones after them are applied as
 * usual): one made by other code (an older checkout's build, a newer one's) is not copied.
 */
export const usableTemplate = (template: DatabaseTemplate | undefined) =>
  template !== undefined && template.migrations.length <= migrationIds.length &&
    template.migrations.every(([id, name], i) => migrationIds[i]?.[0] === id && migrationIds[i]?.[1] === name)
    ? template.dir
    : undefined

/** Opens (or joins) the embedded database in `dataDir`; a new one is a copy of the build's template where it fits. */
export const openEmbeddedFromBuild = (dataDir: string) =>
  openEmbeddedDatabase(dataDir, usableTemplate(schemaTemplate()))

/**
 * `serve`'s: a new database is a copy of the build's first-start template (the demo county in, its models
 * kept) where it fits and was made by the running code (its kept models would be read by no other), else
 * as `openEmbeddedFromBuild`. Only `serve` loads the demo county into an empty store; other commands on an
 * empty folder (an import of one's own data first) leave it empty.
 */
export const openEmbeddedForServe = (dataDir: string) => {
  // A folder that already holds a database takes no template: neither it nor the running code's digest (10 MB
  // read) is looked at on a restart.
  const demo = isNewEmbeddedDatabase(dataDir) ? demoTemplate() : undefined
  const usable = demo !== undefined && demo.code === runningCodeDigest() ? usableTemplate(demo) : undefined
  return usable !== undefined ? openEmbeddedDatabase(dataDir, usable, [demo!.kept]) : openEmbeddedFromBuild(dataDir)
}

export const DatabaseTargetLive = Effect.gen(function*() {
  const config = yield* AppConfig
  if (Option.isSome(config.databaseUrl)) {
    return { _tag: "Url", url: config.databaseUrl.value } satisfies DatabaseTarget
  }
  const embedded = yield* openEmbeddedFromBuild(config.dataDir).pipe(Effect.orDie)
  return { _tag: "Host", host: embedded.socketDir, port: SOCKET_PORT, database: "postgres" } satisfies DatabaseTarget
})

/** Runs pending migrations once the client is up; every process that opens the database does so. */
export const withMigrations = <ROut, E, RIn>(client: Layer.Layer<ROut, E, RIn>) =>
  Layer.provideMerge(Layer.effectDiscard(Effect.orDie(migrateIfPending)), client)

/** The configured database's client, not yet migrated (the `migrate` command runs them itself). */
export const DatabaseClientLive = Layer.unwrapScoped(
  Effect.gen(function*() {
    const target = yield* DatabaseTargetLive
    // A server may be starting with the service (`DATABASE_WAIT_SECONDS`); the embedded one is up already.
    return target._tag === "Url"
      ? pgClientLayer(target, SERVER_CLIENT, Duration.seconds((yield* AppConfig).databaseWaitSeconds))
      : pgClientLayer(target, EMBEDDED_CLIENT)
  })
)

export const DatabaseLive = withMigrations(DatabaseClientLive)
