/**
 * Importing files into the property store: read, parse by format, store, report. Loaded by the commands that
 * import (`data import`, `evaluate`) when they run, not by every start: the importers' address normaliser
 * compiles its parser's patterns when it loads.
 */
import { parse } from "csv-parse/sync"
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

/** A file that is not of the format named, or not CSV that can be read (a row cut short, a quote not closed). */
export class UnparsableFile
  extends Data.TaggedError("UnparsableFile")<{ readonly file: string; readonly message: string }>
{}

/** The columns each format's files cannot do without, read from the header before any row. */
const neededColumns = (format: ImportFormat): ReadonlyArray<string> =>
  format === "nyc-dof" ? ["BOROUGH", "SALE PRICE", "SALE DATE"] : ["property_id"]

const otherFormat = (format: ImportFormat) => (format === "nyc-dof" ? "propscore-csv" : "nyc-dof")

/** The header's cells as the format's parser reads them (NYC's may hold line breaks; generic CSV's any case). */
const headerOf = (content: Buffer): ReadonlyArray<string> => {
  const firstRecord = parse(content, { to: 1, relax_column_count: true, bom: true }) as Array<Array<string>>
  return (firstRecord[0] ?? []).map((cell) => cell.replace(/\s+/g, " ").trim())
}

/**
 * Reads and parses one file: a file of another format (no column the format needs: an NYC file sent as
 * `propscore-csv`, or a generic file not named parcels…, sales…, listings… or permits…) or one the CSV parser
 * cannot read is refused naming the file, the line and what to do, where every row was rejected with exit 0
 * or the import crashed with a stack trace (an operator's audit, 2026-11-28).
 */
export const readAndParse = (format: ImportFormat, file: string) =>
  Effect.gen(function*() {
    const content = yield* readImportFile(file)
    if (format === "propscore-csv" && csvKindOf(file) === undefined) {
      return yield* new UnparsableFile({
        file,
        message: `${file}: a propscore-csv file is told apart by its name: name it parcels…, sales…, listings… or ` +
          "permits… (docs/data-format.md)"
      })
    }
    const header = yield* Effect.try({
      try: () => headerOf(content),
      catch: (error) => new UnparsableFile({ file, message: `${file}: ${messageOf(error)}` })
    })
    const wanted = neededColumns(format)
    const present = new Set(header.map((cell) => (format === "nyc-dof" ? cell.toUpperCase() : cell.toLowerCase())))
    const missing = wanted.filter((column) => !present.has(column))
    if (content.length > 0 && missing.length > 0) {
      return yield* new UnparsableFile({
        file,
        message: `${file}: no ${
          missing.length === 1
            ? `${missing[0]} column`
            : `${missing.slice(0, -1).join(", ")} or ${missing.at(-1)} column`
        } in its header, which a ${format} file has: is it ` +
          `--format ${otherFormat(format)}, or separated by something other than commas?`
      })
    }
    return yield* Effect.try({
      try: () => parseFile(format, file, content),
      catch: (error) => new UnparsableFile({ file, message: `${file}: ${messageOf(error)}; nothing was imported` })
    })
  })

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Imports the files (parcels before what refers to them), each in its own transaction, once every file has
 * been read and parsed: a file that cannot be leaves nothing half-imported.
 */
export const importFiles = (format: ImportFormat, files: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* PropertyStore
    const parsed = yield* Effect.forEach(inImportOrder(format, files), (file) => readAndParse(format, file))
    return yield* Effect.forEach(withOtherKindSalesLast(parsed), (file) => store.importParsed(file, format))
  })

/**
 * Every file's sales of a kind not valued, given to the last file's import too: such a sale is stored only where
 * its parcel is (`otherKindSales`), and a lot recorded as a walk-up in 2018 and a two-family house in 2019 is a
 * parcel only from the 2019 file on, imported after 2018's, whose $850,000 sale of the walk-up was dropped from
 * the house's history (`202 Washington Ave`, Brooklyn: a history audit, 2026-11-30). Files imported in separate
 * calls still drop such a sale where its parcel came later: import a market's files in one call.
 */
const withOtherKindSalesLast = (parsed: ReadonlyArray<ParsedFile>): ReadonlyArray<ParsedFile> => {
  const last = parsed.at(-1)
  if (last === undefined || parsed.length === 1) return parsed
  const every = parsed.flatMap((file) => file.otherKindSales ?? [])
  return [...parsed.slice(0, -1), { ...last, otherKindSales: every }]
}
