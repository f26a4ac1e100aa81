// `npm run build` (also run by `npm install` through "prepare", and before `npm start`): bundles the command
// (`src/bin/propscore.ts`) and the learner's worker thread into `dist/` as plain JavaScript with esbuild, so
// that the server, the CLI and the package's bin start without transpiling TypeScript (tsx stays for
// development and the tests). PGlite is left outside the bundle: it loads its WebAssembly and data files from
// its own package directory.
//
// It also makes, once per PGlite version, `dist/pglite-<version>-initdb/`: an empty database cluster as initdb
// makes it. A first start on an empty DATA_DIR copies it (layers/database/embedded.ts) instead of running
// initdb, which takes seconds in WebAssembly.
//
// `--if-stale` (`npm start`) bundles only when a file the last bundle was made from changed since (or the
// installed packages did): a start after no change does not wait for esbuild.
import * as fs from "node:fs"
import { createRequire } from "node:module"
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

const bundle = async () => {
  const { build } = await import("esbuild")
  const startedAt = Date.now()
  const { metafile } = await build({
    entryPoints: { "propscore": "src/bin/propscore.ts", "learner-worker": "src/scoring/learner-worker.ts" },
    absWorkingDir: root,
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
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

/** The empty cluster a first start copies (the name is layers/database/embedded.ts's `initdbTemplate`). */
const makeInitdbTemplate = async () => {
  const pglite = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const { version } = JSON.parse(fs.readFileSync(path.join(path.dirname(pglite), "..", "package.json"), "utf8"))
  const template = path.join(dist, `pglite-${version}-initdb`)
  if (fs.existsSync(path.join(template, "PG_VERSION"))) return
  const { PGlite } = await import("@electric-sql/pglite")
  const partial = `${template}.${process.pid}`
  const db = await PGlite.create(partial)
  await db.close()
  fs.rmSync(template, { recursive: true, force: true })
  fs.renameSync(partial, template)
}

if (!(process.argv.includes("--if-stale") && fresh())) await bundle()
await makeInitdbTemplate()
