// npm run bench:scoring — time to score one property over an index of about one million sales, generated
// by the demo county's generator (synthetic), plus the index build time and the memory it holds.
import { generateDemoCounty } from "../src/property/demo-county.js"
import { parcelDisplayAddress } from "../src/scoring/address-index.js"
import { ScoringEngine } from "../src/scoring/engine.js"

const parcels = Number(process.argv[2] ?? 500_000)
const samples = Number(process.argv[3] ?? 2_000)
const heapBefore = process.memoryUsage().heapUsed
let t = performance.now()
const county = generateDemoCounty({ parcels, seed: 7 })
const generated = performance.now() - t
t = performance.now()
const engine = ScoringEngine.build({ parcels: county.parcels, sales: county.sales })
const built = performance.now() - t
globalThis.gc?.()
const heapAfter = process.memoryUsage().heapUsed

const scorable = county.parcels.filter((p) =>
  p.livingAreaSquareFeet && (p.lotSizeSquareFeet || p.propertyType === "condo") && p.source === "demo-county"
)
const step = Math.max(1, Math.floor(scorable.length / samples))
const timings: Array<number> = []
let failures = 0
for (let i = 0; i < scorable.length && timings.length < samples; i += step) {
  const address = parcelDisplayAddress(scorable[i]!)
  const start = performance.now()
  const outcome = engine.score(address, undefined, "2026-11-01")
  timings.push(performance.now() - start)
  if (outcome._tag === "Left") failures++
}
timings.sort((a, b) => a - b)
const at = (q: number) => timings[Math.min(timings.length - 1, Math.floor(q * timings.length))]!.toFixed(3)
console.log(
  `index: ${county.parcels.length} parcels, ${county.sales.length} recorded sales (synthetic), generated in ${
    (generated / 1000).toFixed(1)
  } s`
)
console.log(
  `index build (comps fit + calibration + learners and stack + address index): ${(built / 1000).toFixed(1)} s`
)
console.log(`heap held by data and index: ${((heapAfter - heapBefore) / 1024 / 1024).toFixed(0)} MiB`)
console.log(
  `score one property (address match, facts, model, comps), ${timings.length} samples: median ${at(0.5)} ms, p90 ${
    at(0.9)
  } ms, p99 ${at(0.99)} ms (${failures} covered failures)`
)
const rssGiB = process.memoryUsage().rss / 1024 ** 3
console.log(`resident memory now: ${rssGiB.toFixed(2)} GiB`)
console.log(`target: median <= 3 ms -> ${Number(at(0.5)) <= 3 ? "met" : "NOT met"}`)
console.log(`target: p99 <= 15 ms -> ${Number(at(0.99)) <= 15 ? "met" : "NOT met"}`)
console.log(`target: build (comps model and learners) <= 90 s -> ${built / 1000 <= 90 ? "met" : "NOT met"}`)
console.log(`target: memory <= 3 GiB -> ${rssGiB <= 3 ? "met" : "NOT met"} (peak: /usr/bin/time -v)`)
