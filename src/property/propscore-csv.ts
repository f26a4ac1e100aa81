/**
 * The generic property CSV format (docs/data-format.md): `parcels.csv`, `sales.csv`, `listings.csv`,
 * `permits.csv`, each with a header row, told apart by file name. Data with bedrooms, bathrooms and
 * coordinates (such as the Sacramento sample) converts into it.
 */
import { parse } from "csv-parse/sync"
import { Schema } from "effect"
import * as path from "node:path"
import { PropertyType } from "../../schema/overrides.js"
import { normalizeAddress } from "./address.js"
import {
  type ListingRecord,
  type ListingStatus,
  NOMINAL_PRICE_LIMIT,
  type ParcelRecord,
  type ParsedFile,
  type PermitRecord,
  type SaleRecord,
  SPLIT_DEEDS_REASON
} from "./records.js"

export type CsvKind = "parcels" | "sales" | "listings" | "permits"

export const csvKindOf = (file: string): CsvKind | undefined => {
  const name = path.basename(file).toLowerCase()
  for (const kind of ["parcels", "sales", "listings", "permits"] as const) if (name.startsWith(kind)) return kind
  return undefined
}

const isPropertyType = Schema.is(PropertyType)
const isoDate = /^\d{4}-\d{2}-\d{2}$/

const optionalNumber = (text: string | undefined, options: { integer?: boolean; min?: number } = {}) => {
  const trimmed = (text ?? "").trim()
  if (trimmed === "") return { ok: true as const, value: undefined }
  const value = Number(trimmed)
  if (
    !Number.isFinite(value) || (options.integer && !Number.isInteger(value)) ||
    (options.min !== undefined && value < options.min)
  ) {
    return { ok: false as const }
  }
  return { ok: true as const, value }
}

const validDate = (text: string | undefined) => {
  const trimmed = (text ?? "").trim()
  if (!isoDate.test(trimmed)) return undefined
  const date = new Date(`${trimmed}T00:00:00Z`)
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== trimmed ? undefined : trimmed
}

export const parsePropscoreCsv = (file: string, content: Buffer | string): ParsedFile => {
  const kind = csvKindOf(file)
  const rows = parse(content, {
    columns: (cells: Array<string>) => cells.map((cell) => cell.trim().toLowerCase()),
    skip_empty_lines: true,
    trim: true
  }) as Array<Record<string, string>>
  const rejected: Record<string, number> = {}
  const reject = (reason: string) => {
    rejected[reason] = (rejected[reason] ?? 0) + 1
  }
  const parcels: Array<ParcelRecord> = []
  const sales: Array<SaleRecord> = []
  /** The sales whose arm's length the file leaves to the importer. */
  const inferred = new Set<SaleRecord>()
  const listings: Array<ListingRecord> = []
  const permits: Array<PermitRecord> = []
  if (kind === undefined) {
    return {
      file,
      rowsRead: rows.length,
      parcels,
      sales,
      listings,
      permits,
      duplicateRows: 0,
      rejected: { "file name is not parcels, sales, listings or permits": rows.length }
    }
  }
  for (const row of rows) {
    const parcelId = (row["property_id"] ?? "").trim()
    if (parcelId === "") {
      reject("missing property_id")
      continue
    }
    if (kind === "parcels") {
      const address = (row["address"] ?? "").trim()
      const market = (row["market"] ?? "").trim()
      if (address === "") {
        reject("missing address")
        continue
      }
      if (market === "") {
        reject("missing market")
        continue
      }
      const type = (row["property_type"] ?? "").trim()
      if (type !== "" && !isPropertyType(type)) {
        reject("unknown property_type")
        continue
      }
      const numbers = {
        bedrooms: optionalNumber(row["bedrooms"], { integer: true, min: 0 }),
        // A count with a fraction, as county files write a half or three-quarter bath (`2.5`, `1.75`), is read
        // below as full bathrooms and one partial: such a file's parcels were all refused.
        bathrooms: optionalNumber(row["bathrooms"], { min: 0 }),
        partialBathrooms: optionalNumber(row["partial_bathrooms"], { integer: true, min: 0 }),
        livingAreaSquareFeet: optionalNumber(row["living_area_square_feet"], { integer: true, min: 0 }),
        lotSizeSquareFeet: optionalNumber(row["lot_size_square_feet"], { integer: true, min: 0 }),
        yearBuilt: optionalNumber(row["year_built"], { integer: true, min: 0 }),
        latitude: optionalNumber(row["latitude"]),
        longitude: optionalNumber(row["longitude"])
      }
      const bad = Object.entries(numbers).find(([, parsed]) => !parsed.ok)
      if (bad) {
        reject(`unreadable ${bad[0]}`)
        continue
      }
      const value = (key: keyof typeof numbers) => (numbers[key] as { value: number | undefined }).value
      const bathrooms = value("bathrooms")
      const fractionalBath = bathrooms !== undefined && !Number.isInteger(bathrooms)
      const lat = value("latitude")
      const lon = value("longitude")
      if (
        (lat === undefined) !== (lon === undefined) ||
        (lat !== undefined && (Math.abs(lat) > 90 || Math.abs(lon!) > 180))
      ) {
        reject("latitude and longitude must both be given and valid")
        continue
      }
      const normalized = normalizeAddress(address)
      // The locality as its columns give it (in one spelling): not read back from the address, so that a
      // state or postcode of another country's form (`VIC 3067`) is kept.
      const column = (name: string) => (row[name] ?? "").trim().toUpperCase().replace(/\s+/g, " ") || undefined
      const zipCode = column("zip_code")?.replace(/^(\d{5})-\d{4}$/, "$1")
      parcels.push({
        id: parcelId,
        market,
        street: normalized.street,
        recordedAddress: address.replace(/\s+/g, " "),
        unit: normalized.unit || (row["unit"] ?? "").trim().toUpperCase(),
        city: column("city") ?? normalized.city,
        state: column("state") ?? normalized.state,
        zipCode: zipCode ?? normalized.zip,
        neighborhood: (row["neighborhood"] ?? "").trim() || undefined,
        propertyType: type === "" ? undefined : (type as PropertyType),
        bedrooms: value("bedrooms"),
        bathrooms: bathrooms === undefined ? undefined : Math.floor(bathrooms),
        partialBathrooms: value("partialBathrooms") ?? (fractionalBath ? 1 : undefined),
        livingAreaSquareFeet: value("livingAreaSquareFeet") || undefined,
        lotSizeSquareFeet: value("lotSizeSquareFeet") || undefined,
        yearBuilt: value("yearBuilt") || undefined,
        latitude: lat,
        longitude: lon,
        synthetic: (row["synthetic"] ?? "").trim().toLowerCase() === "true",
        source: "propscore-csv"
      })
    } else if (kind === "sales") {
      const saleDate = validDate(row["sale_date"])
      const price = optionalNumber(row["price"], { integer: true, min: 0 })
      if (saleDate === undefined) {
        reject("unreadable sale_date")
        continue
      }
      if (!price.ok || price.value === undefined) {
        reject("unreadable price")
        continue
      }
      const stated = (row["arms_length"] ?? "").trim().toLowerCase()
      if (stated !== "" && stated !== "true" && stated !== "false") {
        reject("arms_length must be true or false")
        continue
      }
      const documentType = (row["document_type"] ?? "").trim() || "deed"
      const sale: SaleRecord = {
        parcelId,
        saleDate,
        price: price.value,
        documentType,
        grantor: (row["grantor"] ?? "").trim() || undefined,
        grantee: (row["grantee"] ?? "").trim() || undefined,
        armsLength: stated === "" ? price.value >= NOMINAL_PRICE_LIMIT : stated === "true",
        notArmsLengthBecause: stated === "false"
          ? "arms_length is false in the file"
          : stated === "" && price.value < NOMINAL_PRICE_LIMIT
          ? `nominal price (under $${NOMINAL_PRICE_LIMIT.toLocaleString("en-US")})`
          : undefined,
        sourceKey: `propscore-csv:${parcelId}:${saleDate}:${price.value}:${documentType}`
      }
      sales.push(sale)
      if (stated === "") inferred.add(sale)
    } else if (kind === "listings") {
      const status = (row["status"] ?? "").trim() as ListingStatus
      if (!["active", "pending", "off_market", "unknown"].includes(status)) {
        reject("unknown listing status")
        continue
      }
      const listPrice = optionalNumber(row["list_price"], { integer: true, min: 0 })
      if (!listPrice.ok) {
        reject("unreadable list_price")
        continue
      }
      const listedDate = (row["listed_date"] ?? "").trim()
      if (listedDate !== "" && validDate(listedDate) === undefined) {
        reject("unreadable listed_date")
        continue
      }
      listings.push({ parcelId, status, listPrice: listPrice.value, listedDate: listedDate || undefined })
    } else {
      const issuedDate = validDate(row["issued_date"])
      const permitType = (row["permit_type"] ?? "").trim()
      const valuation = optionalNumber(row["valuation"], { integer: true, min: 0 })
      if (issuedDate === undefined) {
        reject("unreadable issued_date")
        continue
      }
      if (permitType === "") {
        reject("missing permit_type")
        continue
      }
      if (!valuation.ok) {
        reject("unreadable valuation")
        continue
      }
      const description = (row["description"] ?? "").trim()
      permits.push({
        parcelId,
        issuedDate,
        permitType,
        description,
        valuation: valuation.value,
        sourceKey: `propscore-csv:${parcelId}:${issuedDate}:${permitType}:${description}`
      })
    }
  }
  return {
    file,
    rowsRead: rows.length,
    parcels,
    sales: withSeveralPricesOnADay(sales, inferred),
    listings,
    permits,
    duplicateRows: 0,
    rejected
  }
}

/**
 * A sale whose arm's length the file does not state is not one where the file records several prices for the
 * parcel on its day (split deeds, partial interests), as the NYC importer rules: Sacramento's file holds two
 * deeds of one house on 2008-05-19 at $155,435 and $155,500, both counted as market sales (an audit).
 */
const withSeveralPricesOnADay = (
  sales: ReadonlyArray<SaleRecord>,
  inferred: ReadonlySet<SaleRecord>
): Array<SaleRecord> => {
  const prices = new Map<string, Set<number>>()
  for (const sale of sales) {
    const key = `${sale.parcelId}|${sale.saleDate}`
    const day = prices.get(key)
    if (day) day.add(sale.price)
    else prices.set(key, new Set([sale.price]))
  }
  return sales.map((sale) =>
    inferred.has(sale) && sale.armsLength && (prices.get(`${sale.parcelId}|${sale.saleDate}`)?.size ?? 0) >= 2
      ? {
        ...sale,
        armsLength: false,
        notArmsLengthBecause: SPLIT_DEEDS_REASON
      }
      : sale
  )
}
