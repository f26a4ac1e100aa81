// Converts the Sacramento sample sales file (street, city, zip, state, beds, baths, sq__ft, type, sale_date,
// price, latitude, longitude) into the generic propscore CSV format (docs/data-format.md).
// Usage: npx tsx scripts/convert-sacramento.ts INPUT.csv OUTPUT_DIR
import { parse } from "csv-parse/sync"
import { type Converted, runConverter } from "./converted.js"

const types: Record<string, string> = { Residential: "single_family", Condo: "condo", "Multi-Family": "two_family" }
const months: Record<string, string> = {
  Jan: "01",
  Feb: "02",
  Mar: "03",
  Apr: "04",
  May: "05",
  Jun: "06",
  Jul: "07",
  Aug: "08",
  Sep: "09",
  Oct: "10",
  Nov: "11",
  Dec: "12"
}
const unknownIfZero = (value: string) => (Number(value) > 0 ? value : "")

/** The propscore CSV rows of the Sacramento file's text: one parcel per street line and ZIP code. */
export const convertSacramento = (text: string): Converted => {
  const rows = parse(text, { columns: true, skip_empty_lines: true, trim: true }) as Array<Record<string, string>>
  const parcels: Array<Record<string, string>> = []
  const sales: Array<Record<string, string>> = []
  const seen = new Map<string, string>()
  for (const row of rows) {
    const key = `${row.street}|${row.zip}`
    let id = seen.get(key)
    if (id === undefined) {
      id = `sac-${String(seen.size + 1).padStart(4, "0")}`
      seen.set(key, id)
      parcels.push({
        property_id: id,
        market: "Sacramento",
        address: row.street!,
        city: row.city!,
        state: row.state!,
        zip_code: row.zip!,
        property_type: types[row.type!] ?? "",
        bedrooms: unknownIfZero(row.beds!),
        bathrooms: unknownIfZero(row.baths!),
        living_area_square_feet: unknownIfZero(row.sq__ft!),
        latitude: row.latitude!,
        longitude: row.longitude!
      })
    }
    // "Wed May 21 00:00:00 EDT 2008"
    const [, month, day, , , year] = row.sale_date!.split(/\s+/)
    sales.push({
      property_id: id,
      sale_date: `${year}-${months[month!]}-${day!.padStart(2, "0")}`,
      price: row.price!,
      document_type: "deed"
    })
  }
  return { parcels, sales }
}

runConverter("convert-sacramento.ts", convertSacramento)
