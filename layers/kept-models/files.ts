/**
 * Kept models in a folder (`DATA_DIR/kept`): the models in one file and the data they were fitted on in
 * another (the learners, fitted later, are kept without writing the data again), each written whole and
 * renamed into place, in V8's serialization (maps, typed arrays and every number exactly). The models' file
 * names the code that wrote it (a digest of the running bundle, or of the scoring sources when run from
 * them): other code, an older build included, does not read it, and fits again.
 */
import { Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { deserialize, serialize } from "node:v8"
import { type KeptData, type KeptEngineModels, KeptModels } from "../../src/services/kept-models.js"

const MODELS = "scoring-models.v8"
const DATA = "scoring-data.v8"

interface ModelsFile {
  readonly code: string
  readonly models: Omit<KeptEngineModels, "data">
}

const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(file) : [file]
  }).sort()

/**
 * The running code: bundled, every module of the bundle, which is every `.mjs` file of the folder this one
 * was built into (the entries and their shared chunks; scripts/build.mjs names the demo template the same
 * way), by name and content; run from the sources (tsx, the tests), every file under src/scoring and
 * src/property.
 */
export const runningCodeDigest = (): string => {
  const here = fileURLToPath(import.meta.url)
  const hash = createHash("sha256")
  if (!here.endsWith(".ts")) {
    const dist = path.dirname(here)
    for (const name of fs.readdirSync(dist).filter((file) => file.endsWith(".mjs")).sort()) {
      hash.update(name).update(fs.readFileSync(path.join(dist, name)))
    }
    return hash.digest("hex")
  }
  // (And the property records' readers, whose parsing of addresses and sales the kept index and data hold: a
  // change to the street parser from the sources was not seen, a review of 2026-11-30 found.)
  const src = path.resolve(path.dirname(here), "../../src")
  for (const folder of ["scoring", "property"]) {
    for (const file of filesUnder(path.join(src, folder))) {
      hash.update(path.relative(src, file)).update(fs.readFileSync(file))
    }
  }
  return hash.digest("hex")
}

/** Writes `value` to `file` whole: to a file of its own first, then renamed into place. */
const writeWhole = (file: string, value: unknown) => {
  const partial = `${file}.${process.pid}.partial`
  fs.writeFileSync(partial, serialize(value))
  fs.renameSync(partial, file)
}

/** Kept models in `dir`, for the code `code` identifies (by default the running code). */
export const KeptModelsFiles = (dir: string, code?: string) =>
  Layer.sync(KeptModels, () => {
    const models = path.join(dir, MODELS)
    const data = path.join(dir, DATA)
    let digest = code
    const codeDigest = () => (digest ??= runningCodeDigest())
    return KeptModels.of({
      read: Effect.try(() => {
        if (!fs.existsSync(models)) return Option.none()
        const kept = deserialize(fs.readFileSync(models)) as ModelsFile
        if (kept.code !== codeDigest()) return Option.none()
        const keptData = fs.existsSync(data) ? deserialize(fs.readFileSync(data)) as KeptData : undefined
        return Option.some({ ...kept.models, data: keptData })
      }).pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`the kept scoring models in ${dir} could not be read`, error), Option.none())
        )
      ),
      keep: ({ data: keptData, ...keptModels }) =>
        Effect.try(() => {
          fs.mkdirSync(dir, { recursive: true })
          if (keptData !== undefined) writeWhole(data, keptData)
          writeWhole(models, { code: codeDigest(), models: keptModels } satisfies ModelsFile)
        }).pipe(
          Effect.catchAll((error) => Effect.logWarning(`the scoring models could not be kept in ${dir}`, error))
        )
    })
  })
