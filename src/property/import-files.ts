/**
 * Importing files into the property store: read, parse by format, store, report. Loaded by the commands that
 * import (`data import`, `evaluate`) when they run, not by every start: the importers' address normaliser
 * compiles its parser's patterns when it loads.
 */
import { Data, Effect } from "effect"
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

/** A file named for import that cannot be read: said to the operator, never a stack trace. */
export class UnreadableFile
  extends Data.TaggedError("UnreadableFile")<{ readonly file: string; readonly message: string }>
{}

const reasonOf = (file: string, error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code
  switch (code) {
    case "ENOENT":
      return `${file}: no such file`
    case "EISDIR":
      return `${file} is a directory: name the files in it (${file}/*.csv)`
    case "EACCES":
    case "EPERM":
      return `${file}: permission denied`
    default:
      return `${file}: ${error instanceof Error ? error.message : String(error)}`
  }
}

/** Reads a file named for import or evaluation; fails with what is wrong with it. */
export const readImportFile = (file: string) =>
  Effect.try({
    try: () => fs.readFileSync(file),
    catch: (error) => new UnreadableFile({ file, message: reasonOf(file, error) })
  })

export const parseFile = (format: ImportFormat, file: string, content: Buffer): ParsedFile =>
  format === "nyc-dof" ? parseNycDofSales(file, content) : parsePropscoreCsv(file, content)

export const importFiles = (format: ImportFormat, files: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* PropertyStore
    return yield* Effect.forEach(inImportOrder(format, files), (file) =>
      Effect.gen(function*() {
        const content = yield* readImportFile(file)
        return yield* store.importParsed(parseFile(format, file, content), format)
      }))
  })
