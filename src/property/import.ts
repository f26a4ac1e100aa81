/** Stores the synthetic demo county: what a first start needs, without the file importers (./import-files.ts). */
import { Effect } from "effect"
import { PropertyStore } from "../services/property-store.js"
import { DEMO_MARKET, type DemoCounty, generateDemoCounty } from "./demo-county.js"

/** Stores the synthetic demo county (idempotent); generated here unless given. */
export const loadDemoCounty = (county: DemoCounty = generateDemoCounty()) =>
  Effect.gen(function*() {
    const store = yield* PropertyStore
    const report = yield* store.importParsed(county, "demo-county")
    return { market: DEMO_MARKET, synthetic: true, parcels: county.parcels.length, report }
  })
