#!/usr/bin/env node
// The `propscore` command (package.json "bin"): runs the TypeScript entry through tsx's loader.
import { register } from "tsx/esm/api"

register()
await import("../src/bin/propscore.ts")
