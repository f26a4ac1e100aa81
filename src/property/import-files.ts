/**
 * Importing files into the property store: read, parse by format, store, report. Loaded by the commands that
 * import (`data import`, `evaluate`) when they run, not by every start: the importers' address normaliser
 * compiles its parser's patterns when it loads.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import { PropertyStore } from "../services/property-store.js"
import { parseNycDofSales } from "./nyc-dof.js"
import { csvKindOf, parsePropscoreCsv } from "./propscore-csv.js"
import type { ParsedFile } from "./records.js"

export type ImportFormat = "nyc-dof" | "propscore-csv"

const order = { parcels: 0, sales: 1, listings: 2, permits: 3 } as const

/** Files in the order they must be stored: parcels before what refers to them. */
const inImportOrder = (format: ImportFormat, files: ReadonlyArray<string>) =>
  format === "propscore-csv"
    ? [...files].sort((a, b) => (order[csvKindOf(a) ?? "permits"] - order[csvKindOf(b) ?? "permits"]))
    : [...files].sort()

export const parseFile = (format: ImportFormat, file: string, content: Buffer): ParsedFile =>
  format === "nyc-dof" ? parseNycDofSales(file, content) : parsePropscoreCsv(file, content)

export const importFiles = (format: ImportFormat, files: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* PropertyStore
    return yield* Effect.forEach(inImportOrder(format, files), (file) =>
      Effect.gen(function*() {
        const content = yield* Effect.try(() => fs.readFileSync(file)).pipe(Effect.orDie)
        return yield* store.importParsed(parseFile(format, file, content), format)
      }))
  })
