// `npm run build` (also run by `npm install` through "prepare", and before `npm start`): bundles the command
// (`src/bin/propscore.ts`) and the learner's worker thread into `dist/` as plain JavaScript with esbuild, so
// that the server, the CLI and the package's bin start without transpiling TypeScript (tsx stays for
// development and the tests). The modules both entries, or the command's entry and the command it loads
// after it (src/bin/run-command.ts), share are in chunks of their own beside them (`chunk-<hash>.mjs`, and
// `run-command-<hash>.mjs`); a build removes the previous build's. PGlite is left outside the bundle: it
// loads its WebAssembly and data files from its own package directory.
//
// It also makes `dist/pglite-<version>-schema/`: a database as a first start would make it before it loads
// anything (initdb, then every migration), closed, with `dist/pglite-<version>-schema.json` naming the
// migrations it holds. A first start on an empty DATA_DIR copies it (layers/database/embedded.ts) instead of
// running initdb, which takes seconds in WebAssembly, and the migrations. It is made again when
// src/db/migrations.ts changes, by the bundle's own `migrate` command. And `dist/pglite-<version>-demo/`:
// that database with the synthetic demo county in it and the scoring models kept for it, which `serve`'s
// first start copies instead of loading the county and fitting (made again whenever the bundle changes).
//
// `--if-stale` (`npm start`) bundles only when a file the last bundle was made from changed since (or the
// installed packages did): a start after no change does not wait for esbuild.
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const dist = path.join(root, "dist")
const inputsFile = path.join(dist, "build-inputs.json")
const outputs = ["propscore.mjs", "learner-worker.mjs"].map((file) => path.join(dist, file))

/** True when the bundles exist and nothing they were made from (nor the installed packages) changed since. */
const fresh = () => {
  try {
    const { inputs, startedAt } = JSON.parse(fs.readFileSync(inputsFile, "utf8"))
    const watched = [
      ...inputs.map((input) => path.resolve(root, input)),
      path.join(root, "package-lock.json"),
      path.join(root, "node_modules/.package-lock.json"),
      path.join(root, "scripts/build.mjs")
    ]
    return watched.every((file) => fs.statSync(file).mtimeMs < startedAt) &&
      outputs.every((file) => fs.statSync(file).mtimeMs >= startedAt)
  } catch {
    return false
  }
}

/** The previous build's chunks (`chunk-<hash>.mjs`, `run-command-<hash>.mjs`: named by their content). */
const removeChunks = () => {
  for (const file of fs.readdirSync(dist, { withFileTypes: true })) {
    if (file.isFile() && /^[a-z-]+-[A-Z0-9]{8}\.mjs(\.map)?$/.test(file.name)) fs.rmSync(path.join(dist, file.name))
  }
}

const bundle = async () => {
  const { build } = await import("esbuild")
  const startedAt = Date.now()
  if (fs.existsSync(dist)) removeChunks()
  const { metafile } = await build({
    entryPoints: { "propscore": "src/bin/propscore.ts", "learner-worker": "src/scoring/learner-worker.ts" },
    absWorkingDir: root,
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    // The entry's static imports are small (src/bin/propscore.ts); the command it loads, and the modules
    // shared with the learner's worker, are chunks.
    splitting: true,
    target: "node20",
    sourcemap: true,
    // Stack traces name the sources (in the package) by file and line; without their text in it, the map
    // is a fifth of the size, and Node reads it at every start (--enable-source-maps).
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
    external: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg-native"],
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: {
      js:
        "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
    }
  })
  // Packages in node_modules are watched through the lock files: npm rewrites them on every change.
  const inputs = Object.keys(metafile.inputs).filter((input) => !input.includes("node_modules/"))
  fs.writeFileSync(inputsFile, JSON.stringify({ startedAt, inputs }))
}

/** The installed PGlite's version: the templates are made for it and named by it. */
const pgliteVersion = () => {
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  return JSON.parse(fs.readFileSync(path.join(path.dirname(pglite), "..", "package.json"), "utf8")).version
}

/**
 * The digest that names the bundle's code: the kept models, and so the demo template, are the running
 * bundle's only (layers/kept-models/files.ts's `runningCodeDigest`, which this repeats for a script that
 * cannot import TypeScript): every `.mjs` file of dist/, by name and content, in name order.
 */
const bundleDigest = () => {
  const hash = createHash("sha256")
  for (const name of fs.readdirSync(dist).filter((file) => file.endsWith(".mjs")).sort()) {
    hash.update(name).update(fs.readFileSync(path.join(dist, name)))
  }
  return hash.digest("hex")
}

/** Runs the bundle's command `args` on the embedded database in `dataDir` (never a server's); its stdout. */
const runBundle = (args, dataDir) => {
  const { DATABASE_URL: _server, ...env } = process.env
  return execFileSync(process.execPath, [path.join(dist, "propscore.mjs"), ...args], {
    env: { ...env, DATA_DIR: dataDir },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })
}

/** The database a first start copies (its name is layers/database/embedded.ts's `schemaTemplate`). */
const makeSchemaTemplate = () => {
  const version = pgliteVersion()
  const template = path.join(dist, `pglite-${version}-schema`)
  const made = `${template}.json`
  const source = createHash("sha256").update(fs.readFileSync(path.join(root, "src/db/migrations.ts"))).digest("hex")
  try {
    if (
      JSON.parse(fs.readFileSync(made, "utf8")).source === source && fs.existsSync(path.join(template, "PG_VERSION"))
    ) {
      return
    }
  } catch {
    // Not made yet.
  }
  // Made from nothing (initdb, then every migration), so that the old one is not copied into it.
  fs.rmSync(made, { force: true })
  fs.rmSync(template, { recursive: true, force: true })
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "propscore-template-"))
  try {
    const migrated = runBundle(["migrate", "--json"], dataDir)
    const migrations = JSON.parse(migrated).applied.map(({ id, name }) => [id, name])
    // Copied where a rename cannot cross from the temporary folder's file system.
    try {
      fs.renameSync(path.join(dataDir, "pgdata"), template)
    } catch {
      fs.cpSync(path.join(dataDir, "pgdata"), template, { recursive: true })
    }
    fs.writeFileSync(made, JSON.stringify({ source, migrations }))
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * The folder `serve`'s first start copies (layers/database/embedded.ts's `demoTemplate`): the schema template
 * with the demo county loaded by the bundle's own `data demo` (which keeps the comps model fitted on it and the
 * data beside it), for this bundle only: the kept models name the bundle they were fitted by, and so does
 * `dist/pglite-<version>-demo.json`. Made again whenever the bundle changes.
 */
const makeDemoTemplate = () => {
  const version = pgliteVersion()
  const template = path.join(dist, `pglite-${version}-demo`)
  const made = `${template}.json`
  try {
    const { code } = JSON.parse(fs.readFileSync(made, "utf8"))
    if (code === bundleDigest() && fs.existsSync(path.join(template, "kept"))) return
  } catch {
    // Not made yet.
  }
  fs.rmSync(made, { force: true })
  fs.rmSync(template, { recursive: true, force: true })
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "propscore-demo-"))
  try {
    // A new folder: the bundle copies the schema template into it, then loads the demo county.
    runBundle(["data", "demo", "--json"], dataDir)
    const { migrations } = JSON.parse(fs.readFileSync(path.join(dist, `pglite-${version}-schema.json`), "utf8"))
    if (!fs.existsSync(path.join(dataDir, "kept"))) throw new Error("data demo kept no scoring models")
    const code = bundleDigest()
    fs.mkdirSync(template)
    for (const folder of ["pgdata", "kept"]) {
      fs.cpSync(path.join(dataDir, folder), path.join(template, folder), { recursive: true })
    }
    fs.writeFileSync(made, JSON.stringify({ code, migrations }))
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

if (!(process.argv.includes("--if-stale") && fresh())) await bundle()
makeSchemaTemplate()
try {
  makeDemoTemplate()
} catch (error) {
  // Without it a first start loads the demo county and fits its model itself, as it did before.
  console.warn(
    `build: the first start's template could not be made (${error.message}); serve will load the demo county`
  )
}
