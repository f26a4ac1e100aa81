#!/usr/bin/env node
// The `propscore` command (package.json "bin"): the built JavaScript (`npm run build`, run by `npm install`);
// from a checkout that was never built, the TypeScript entry through tsx's loader.
import { existsSync } from "node:fs"
import { URL } from "node:url"

const built = new URL("../dist/propscore.mjs", import.meta.url)
if (existsSync(built)) {
  await import(built.href)
} else {
  const { register } = await import("tsx/esm/api")
  register()
  await import("../src/bin/propscore.ts")
}
