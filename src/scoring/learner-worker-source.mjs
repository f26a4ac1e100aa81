// The learner worker's entry when the code runs from source (tsx, vitest): registers tsx's loader in the
// worker thread (Node 20 does not share the main thread's loader with workers), then runs the TypeScript entry.
import { register } from "tsx/esm/api"

register()
await import("./learner-worker.ts")
