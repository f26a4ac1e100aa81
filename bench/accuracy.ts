// npm run bench:accuracy — the pricing model's accuracy on the real NYC DOF sales files, when present:
// fit on sales before 2019-01-01, value every arm's-length 2019 sale as of its date, report per borough.
import * as fs from "node:fs"
import * as path from "node:path"
import { parseFile } from "../src/property/import.js"
import { evaluate, formatEvaluation, scratchStore } from "../src/scoring/evaluate.js"

const dir = path.resolve(process.argv[2] ?? "../shared/data/nyc-dof-sales")
const files = fs.existsSync(dir)
  ? fs.readdirSync(dir).filter((f) => f.endsWith(".csv")).map((f) => path.join(dir, f))
  : []
if (files.length === 0) {
  console.log(
    `bench:accuracy: no NYC DOF sales files in ${dir}; nothing to measure (the data is not part of the project).`
  )
  process.exit(0)
}
const started = performance.now()
const data = scratchStore(files.sort().map((file) => parseFile("nyc-dof", file, fs.readFileSync(file))))
const { report } = evaluate(data, "2019-01-01")
console.log(formatEvaluation(report))
console.log(
  `\n${files.length} files, ${data.sales.length} recorded sales, ${((performance.now() - started) / 1000).toFixed(1)} s`
)
if (process.argv.includes("--json")) console.log(JSON.stringify(report))
