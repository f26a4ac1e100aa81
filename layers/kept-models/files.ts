/**
 * Kept models in a folder (`DATA_DIR/kept`): one file, written whole and renamed into place, in V8's
 * serialization (maps, typed arrays and every number exactly). The file names the code that wrote it (a
 * digest of the running bundle, or of the scoring sources when run from them): other code, an older build
 * included, does not read it, and fits again.
 */
import { Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { deserialize, serialize } from "node:v8"
import { type KeptEngineModels, KeptModels } from "../../src/services/kept-models.js"

const FILE = "scoring-models.v8"

interface KeptFile {
  readonly code: string
  readonly models: KeptEngineModels
}

const filesUnder = (dir: string): Array<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(file) : [file]
  }).sort()

/**
 * The running code: bundled, every module is in the bundle this file was built into; run from the sources
 * (tsx, the tests), the scoring engine is every file under src/scoring.
 */
export const runningCodeDigest = (): string => {
  const here = fileURLToPath(import.meta.url)
  const hash = createHash("sha256")
  if (!here.endsWith(".ts")) return hash.update(fs.readFileSync(here)).digest("hex")
  const scoring = path.resolve(path.dirname(here), "../../src/scoring")
  for (const file of filesUnder(scoring)) hash.update(path.relative(scoring, file)).update(fs.readFileSync(file))
  return hash.digest("hex")
}

/** Kept models in `dir`, for the code `code` identifies (by default the running code). */
export const KeptModelsFiles = (dir: string, code?: string) =>
  Layer.sync(KeptModels, () => {
    const file = path.join(dir, FILE)
    let digest = code
    const codeDigest = () => (digest ??= runningCodeDigest())
    return KeptModels.of({
      read: Effect.try(() => {
        if (!fs.existsSync(file)) return Option.none()
        const kept = deserialize(fs.readFileSync(file)) as KeptFile
        return kept.code === codeDigest() ? Option.some(kept.models) : Option.none()
      }).pipe(
        Effect.catchAll((error) =>
          Effect.as(Effect.logWarning(`the kept scoring models in ${file} could not be read`, error), Option.none())
        )
      ),
      keep: (models) =>
        Effect.try(() => {
          fs.mkdirSync(dir, { recursive: true })
          const partial = `${file}.${process.pid}.partial`
          fs.writeFileSync(partial, serialize({ code: codeDigest(), models } satisfies KeptFile))
          fs.renameSync(partial, file)
        }).pipe(
          Effect.catchAll((error) => Effect.logWarning(`the scoring models could not be kept in ${file}`, error))
        )
    })
  })
