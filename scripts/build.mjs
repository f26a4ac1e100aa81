// `npm run build` (also run by `npm install` through "prepare", and before `npm start`): bundles the command
// (`src/bin/propscore.ts`) and the learner's worker thread into `dist/` as plain JavaScript with esbuild, so
// that the server, the CLI and the package's bin start without transpiling TypeScript (tsx stays for
// development and the tests). PGlite is left outside the bundle: it loads its WebAssembly and data files from
// its own package directory.
import { build } from "esbuild"

await build({
  entryPoints: { "propscore": "src/bin/propscore.ts", "learner-worker": "src/scoring/learner-worker.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: true,
  logLevel: "warning",
  external: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg-native"],
  // Bundled CommonJS packages call require(); an ES module has none of its own.
  banner: {
    js:
      "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  }
})
