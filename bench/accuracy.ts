// npm run bench:accuracy — the valuation's accuracy, out of time, on the real public sales files when present
// (they are not part of the project): the NYC DOF files (fit on sales before 2019-01-01, value every arm's-length
// 2019 sale as of its date, per borough) and the Melbourne file (converted as scripts/convert-melbourne.ts does;
// fit before 2017-07-01, value after). Printed per market: the stack, the comps model and the learner alone,
// the 0.1–0.9 coverage, and the neighbourhood baseline.
import { stringify } from "csv-stringify/sync"
import * as fs from "node:fs"
import * as path from "node:path"
import { convertMelbourne } from "../scripts/convert-melbourne.js"
import { parseFile } from "../src/property/import-files.js"
import { evaluate, formatEvaluation, scratchStore } from "../src/scoring/evaluate.js"

const nycDir = path.resolve(process.argv[2] ?? "../shared/data/nyc-dof-sales")
const melbourneFile = path.resolve(process.argv[3] ?? "../shared/data/melbourne/Melbourne_housing_FULL.csv")
const reports: Array<unknown> = []

const nycFiles = fs.existsSync(nycDir)
  ? fs.readdirSync(nycDir).filter((f) => f.endsWith(".csv")).map((f) => path.join(nycDir, f)).sort()
  : []
if (nycFiles.length > 0) {
  const started = performance.now()
  const data = scratchStore(nycFiles.map((file) => parseFile("nyc-dof", file, fs.readFileSync(file))))
  const { report } = evaluate(data, "2019-01-01")
  reports.push(report)
  console.log(formatEvaluation(report))
  console.log(
    `${nycFiles.length} NYC files, ${data.sales.length} recorded sales, ${
      ((performance.now() - started) / 1000).toFixed(1)
    } s\n`
  )
} else {
  console.log(`bench:accuracy: no NYC DOF sales files in ${nycDir}; skipped.`)
}

if (fs.existsSync(melbourneFile)) {
  const started = performance.now()
  const converted = convertMelbourne(fs.readFileSync(melbourneFile, "utf8"))
  const data = scratchStore([
    parseFile("propscore-csv", "parcels.csv", Buffer.from(stringify(converted.parcels, { header: true }))),
    parseFile("propscore-csv", "sales.csv", Buffer.from(stringify(converted.sales, { header: true })))
  ])
  const { report } = evaluate(data, "2017-07-01")
  reports.push(report)
  console.log(formatEvaluation(report))
  console.log(
    `Melbourne: ${data.sales.length} recorded sales, ${((performance.now() - started) / 1000).toFixed(1)} s`
  )
} else {
  console.log(`bench:accuracy: no Melbourne file at ${melbourneFile}; skipped.`)
}
if (process.argv.includes("--json")) console.log(JSON.stringify(reports))
