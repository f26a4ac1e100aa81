// What a converter of a public sales file makes (rows of the generic propscore CSV format, docs/data-format.md),
// and the command line every converter runs: INPUT.csv OUTPUT_DIR → OUTPUT_DIR/parcels.csv and sales.csv.
import { stringify } from "csv-stringify/sync"
import * as fs from "node:fs"
import * as path from "node:path"

export interface Converted {
  readonly parcels: Array<Record<string, string>>
  readonly sales: Array<Record<string, string>>
}

/** Runs `convert` as the command `script` when that script is the one node was started with. */
export const runConverter = (script: string, convert: (text: string) => Converted) => {
  if (!process.argv[1]?.endsWith(script)) return
  const [input, outDir] = process.argv.slice(2)
  if (!input || !outDir) {
    console.error(`usage: ${script} INPUT.csv OUTPUT_DIR`)
    process.exit(2)
  }
  const { parcels, sales } = convert(fs.readFileSync(input, "utf8"))
  fs.mkdirSync(outDir, { recursive: true })
  fs.writeFileSync(path.join(outDir, "parcels.csv"), stringify(parcels, { header: true }))
  fs.writeFileSync(path.join(outDir, "sales.csv"), stringify(sales, { header: true }))
  console.log(`${parcels.length} parcels and ${sales.length} sales written to ${outDir}`)
}
