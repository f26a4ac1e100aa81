/**
 * A worker thread's entry: fits the comps model and the stack's learners on the sales it is given and sends
 * the stack back as plain data (`StackData`), so that the serving thread never stops answering while the
 * learners are fitted (seconds on the demo county, a minute at a million sales).
 */
import { parentPort, workerData } from "node:worker_threads"
import { type EngineOptions, fitStackData } from "./engine.js"
import type { Sale } from "./model.js"

const { options, sales } = workerData as { readonly sales: ReadonlyArray<Sale>; readonly options: EngineOptions }
parentPort!.postMessage(fitStackData(sales, options))
