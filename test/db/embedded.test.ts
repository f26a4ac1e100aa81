import { SqlClient } from "@effect/sql"
import { describe, expect, it } from "@effect/vitest"
import { PGlite } from "@electric-sql/pglite"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { inject } from "vitest"
import { openEmbeddedDatabase, SOCKET_PORT } from "../../layers/database/embedded.js"
import { EMBEDDED_CLIENT, pgClientLayer } from "../../src/db/client.js"
import { usableTemplate, withMigrations } from "../../src/db/database.js"
import { migrationIds } from "../../src/db/migrations.js"

/** The embedded database in `dataDir` (a new one copied from `template`), migrated, for `use`. */
const embedded = <A, E>(
  dataDir: string,
  template: string,
  use: Effect.Effect<A, E, SqlClient.SqlClient>,
  beside: ReadonlyArray<string> = []
) =>
  Effect.scoped(Effect.gen(function*() {
    const opened = yield* openEmbeddedDatabase(dataDir, template, beside)
    const client = withMigrations(
      pgClientLayer(
        { _tag: "Host", host: opened.socketDir, port: SOCKET_PORT, database: "postgres" },
        EMBEDDED_CLIENT
      )
    )
    return yield* use.pipe(Effect.provide(Layer.orDie(client)))
  }))

describe("the embedded database", () => {
  it.live(
    "a new one is a copy of the template, migrated, with the folders that go with it, and opened again as it was left",
    () =>
      Effect.acquireUseRelease(
        Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "emb-"))),
        (folder) =>
          Effect.gen(function*() {
            // A closed database, as `npm run build` makes one for first starts, with a mark to tell it by.
            const template = path.join(folder, "template")
            yield* Effect.promise(async () => {
              const db = await PGlite.create(template, {
                loadDataDir: new Blob([fs.readFileSync(inject("pgliteTemplate"))])
              })
              await db.exec("CREATE TABLE made_from_the_template (id integer)")
              await db.close()
            })
            // A folder that goes with the template (the first start's kept models).
            const kept = path.join(folder, "kept")
            fs.mkdirSync(kept)
            fs.writeFileSync(path.join(kept, "models"), "fitted on the template's data")
            const dataDir = path.join(folder, "data")
            const parcels = yield* embedded(
              dataDir,
              template,
              Effect.gen(function*() {
                const sql = yield* SqlClient.SqlClient
                yield* sql`SELECT * FROM made_from_the_template`
                yield* sql`INSERT INTO parcels (id, market, street, source) VALUES ('p-1', 'Test', '1 Main St', 'test')`
                return yield* sql<{ id: string }>`SELECT id FROM parcels`
              }),
              [kept]
            )
            expect(parcels).toEqual([{ id: "p-1" }])
            expect(fs.readFileSync(path.join(dataDir, "kept", "models"), "utf8")).toBe("fitted on the template's data")
            // Opened again, the folder's own database is used, not the template, and what went with it stays.
            fs.writeFileSync(path.join(dataDir, "kept", "models"), "fitted since")
            const again = yield* embedded(
              dataDir,
              template,
              Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string }>`SELECT id FROM parcels`),
              [kept]
            )
            expect(again).toEqual([{ id: "p-1" }])
            expect(fs.readFileSync(path.join(dataDir, "kept", "models"), "utf8")).toBe("fitted since")
          }),
        (folder) => Effect.sync(() => fs.rmSync(folder, { recursive: true, force: true }))
      ),
    { timeout: 120_000 }
  )

  it("a template is copied only when its migrations are this code's first ones (another checkout's is not)", () => {
    const dir = "/templates/schema"
    expect(usableTemplate({ dir, migrations: migrationIds })).toBe(dir)
    expect(usableTemplate({ dir, migrations: migrationIds.slice(0, 3) })).toBe(dir)
    expect(usableTemplate({ dir, migrations: [...migrationIds, [99_999, "from_a_newer_checkout"]] })).toBeUndefined()
    expect(usableTemplate({ dir, migrations: [[1, "another_first_migration"]] })).toBeUndefined()
    expect(usableTemplate(undefined)).toBeUndefined()
  })
})
