// Converts the Melbourne housing sales file (suburb, address, rooms, type, price, method, date, postcode,
// bedrooms, bathrooms, land size and building area in square metres, year built, latitude, longitude) into
// the generic propscore CSV format (docs/data-format.md): one parcel per address, one sale per sold row.
// Rows passed in at auction or with only a vendor's bid recorded are not sales. Areas become square feet.
// Usage: npx tsx scripts/convert-melbourne.ts INPUT.csv OUTPUT_DIR
import { parse } from "csv-parse/sync"
import { type Converted, runConverter } from "./converted.js"

const SQUARE_FEET_PER_SQUARE_METRE = 10.7639

const types: Record<string, string> = {
  "House, Cottage, Villa, Terrace": "single_family",
  "Unit, Duplex": "condo",
  "Town House": "townhouse"
}
/** Methods that record a sale: sold, sold before auction, sold after auction. */
const sold = new Set(["Property sold", "Property sold prior", "Sold after auction", "S", "SP", "SA"])

/** `d/m/yy` → `YYYY-MM-DD`. */
const isoDate = (text: string) => {
  const [day, month, year] = text.split("/")
  const fullYear = year!.length === 2 ? `20${year}` : year!
  return `${fullYear}-${month!.padStart(2, "0")}-${day!.padStart(2, "0")}`
}

const positive = (text: string | undefined) => (text !== undefined && Number(text) > 0 ? Number(text) : undefined)
const squareFeet = (squareMetres: string | undefined) => {
  const metres = positive(squareMetres)
  return metres === undefined ? "" : String(Math.round(metres * SQUARE_FEET_PER_SQUARE_METRE))
}

/** A parcel's facts from one row of the file (empty where the row has none). */
const factsOf = (row: Record<string, string>): Record<string, string> => {
  const latitude = row["Lattitude"] ?? ""
  const longitude = row["Longtitude"] ?? ""
  const located = latitude !== "" && longitude !== ""
  return {
    property_type: types[row["Type"]!] ?? "",
    bedrooms: positive(row["Bedroom2"])?.toString() ?? positive(row["Rooms"])?.toString() ?? "",
    bathrooms: positive(row["Bathroom"])?.toString() ?? "",
    living_area_square_feet: squareFeet(row["BuildingArea"]),
    lot_size_square_feet: squareFeet(row["Landsize"]),
    year_built: positive(row["YearBuilt"]) !== undefined && Number(row["YearBuilt"]) >= 1800
      ? String(Math.round(Number(row["YearBuilt"])))
      : "",
    latitude: located ? latitude : "",
    longitude: located ? longitude : ""
  }
}

/**
 * The propscore CSV rows of the Melbourne file's text. An address is one parcel however its letters are cased
 * (`23a The Boulevard` and `23A The Boulevard` were two parcels, so the address could never be scored: an
 * investor audit), and its facts are what its latest row says of each, as a record says what a property is
 * now (a parcel once took its first row's, so a 139 m² house sold again at 203 m² was valued at 139, and a
 * vendor's bid with no area left a house sold later with one unvaluable).
 */
export const convertMelbourne = (text: string): Converted => {
  const rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Array<
    Record<string, string>
  >
  const parcels: Array<Record<string, string>> = []
  const sales: Array<Record<string, string>> = []
  const ids = new Map<string, string>()
  // Ids are numbered as before the case of an address's letters was ignored (by the file's spellings as
  // written), so that every other address keeps its id when the file is converted again and imported over an
  // earlier conversion; a second spelling takes the first's id and leaves its own number unused.
  const spellings = new Set<string>()
  // Each parcel's facts, and the date of the row each was taken from.
  const latest = new Map<string, { facts: Record<string, string>; dates: Map<string, string> }>()
  for (const row of rows) {
    // `1/45 Smith St`: unit 1 of number 45.
    const [, unit = "", line = row["Address"]!] = /^(?:([^/\s]+)\/)?(.*)$/.exec(row["Address"]!.trim()) ?? []
    const key = `${row["Address"]!.trim().toUpperCase()}|${row["Suburb"]!.toUpperCase()}|${row["Postcode"]}`
    spellings.add(`${row["Address"]}|${row["Suburb"]}|${row["Postcode"]}`)
    let id = ids.get(key)
    const date = row["Date"] ? isoDate(row["Date"]) : ""
    const facts = factsOf(row)
    if (id === undefined) {
      id = `mel-${String(spellings.size).padStart(5, "0")}`
      ids.set(key, id)
      const parcel = {
        property_id: id,
        market: "Melbourne",
        address: line.trim(),
        unit,
        city: row["Suburb"]!,
        state: "VIC",
        zip_code: row["Postcode"]!.replace(/\.0$/, ""),
        neighborhood: row["Suburb"]!,
        ...facts
      }
      parcels.push(parcel)
      latest.set(id, { facts: parcel, dates: new Map(Object.keys(facts).map((fact) => [fact, date])) })
    } else {
      // Each fact from the latest row that has it (rows of a day in the file's order).
      const kept = latest.get(id)!
      for (const [fact, value] of Object.entries(facts)) {
        if (value === "" || (kept.facts[fact] !== "" && date < kept.dates.get(fact)!)) continue
        kept.facts[fact] = value
        kept.dates.set(fact, date)
      }
    }
    if (sold.has(row["Method"]!) && positive(row["Price"]) !== undefined && date !== "") {
      sales.push({ property_id: id, sale_date: date, price: row["Price"]!, document_type: "deed" })
    }
  }
  return { parcels, sales }
}

runConverter("convert-melbourne.ts", convertMelbourne)
