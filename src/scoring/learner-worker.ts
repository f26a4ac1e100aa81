/**
 * A worker thread's entry: fits models on the sales it is given, so that the serving thread never stops
 * answering while they are fitted, and sends them back as plain data. Its task is the stack's learners
 * (`StackData`: the comps model and the learners over it; seconds on the demo county, a minute at a million
 * sales), or the comps model alone with the digest of its sales (`KeptComps`), of the sales it is given or
 * of the demo county's (a first start fits it here while the county goes into the database).
 */
import { parentPort, workerData } from "node:worker_threads"
import { generateDemoCounty } from "../property/demo-county.js"
import { inStoreOrder } from "../property/records.js"
import { type EngineOptions, fitKeptComps, fitStackData, modelSales } from "./engine.js"
import type { Sale } from "./model.js"

const { options, sales, task } = workerData as {
  readonly task: "learners" | "comps" | "demo county comps"
  readonly sales: ReadonlyArray<Sale>
  readonly options: EngineOptions
}
parentPort!.postMessage(
  task === "learners"
    ? fitStackData(sales, options)
    : task === "comps"
    ? fitKeptComps(sales, options)
    // The county's generator is seeded: these are the sales the serving thread stores, with none sent over.
    : fitKeptComps(modelSales(inStoreOrder(generateDemoCounty())), options)
)
