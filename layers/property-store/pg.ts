/**
 * The property store in PostgreSQL (or the embedded PGlite). An import is one transaction of one statement
 * per table: each column of the records goes as one array (`unnest`), so a county of 20,000 parcels and
 * 40,000 sales is a handful of round trips instead of thousands of bound parameters in batches.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Layer } from "effect"
import type { PropertyType } from "../../schema/overrides.js"
import { DatabaseHealth } from "../../src/db/health.js"
import {
  type ListingRecord,
  type ListingStatus,
  type ParcelRecord,
  type PermitRecord,
  type SaleRecord,
  SAME_BUILDING,
  SNAPSHOT_FACTS,
  type UnscoredAddress
} from "../../src/property/records.js"
import { type ImportReport, PropertyStore } from "../../src/services/property-store.js"

const nullable = <A>(value: A | undefined): A | null => (value === undefined ? null : value)
const optional = <A>(value: A | null): A | undefined => (value === null ? undefined : value)

interface ParcelRow {
  readonly id: string
  readonly market: string
  readonly street: string
  readonly recorded_address: string | null
  /** `earlierStreets`, one line each (null when none). */
  readonly earlier_streets: string | null
  readonly unit: string
  readonly city: string | null
  readonly state: string | null
  readonly zip_code: string | null
  readonly neighborhood: string | null
  readonly block: number | null
  readonly lot: number | null
  readonly building_class: string | null
  readonly property_type: string | null
  readonly bedrooms: number | null
  readonly bathrooms: number | null
  readonly partial_bathrooms: number | null
  readonly living_area_square_feet: number | null
  readonly lot_size_square_feet: number | null
  readonly year_built: number | null
  readonly latitude: number | null
  readonly longitude: number | null
  readonly synthetic: boolean
  readonly source: string
}

const parcelRow = (parcel: ParcelRecord): ParcelRow => ({
  id: parcel.id,
  market: parcel.market,
  street: parcel.street,
  recorded_address: nullable(parcel.recordedAddress),
  earlier_streets: parcel.earlierStreets === undefined || parcel.earlierStreets.length === 0
    ? null
    : parcel.earlierStreets.join("\n"),
  unit: parcel.unit,
  city: nullable(parcel.city),
  state: nullable(parcel.state),
  zip_code: nullable(parcel.zipCode),
  neighborhood: nullable(parcel.neighborhood),
  block: nullable(parcel.block),
  lot: nullable(parcel.lot),
  building_class: nullable(parcel.buildingClass),
  property_type: nullable(parcel.propertyType),
  bedrooms: nullable(parcel.bedrooms),
  bathrooms: nullable(parcel.bathrooms),
  partial_bathrooms: nullable(parcel.partialBathrooms),
  living_area_square_feet: nullable(parcel.livingAreaSquareFeet),
  lot_size_square_feet: nullable(parcel.lotSizeSquareFeet),
  year_built: nullable(parcel.yearBuilt),
  latitude: nullable(parcel.latitude),
  longitude: nullable(parcel.longitude),
  synthetic: parcel.synthetic,
  source: parcel.source
})

const toParcel = (row: ParcelRow): ParcelRecord => ({
  id: row.id,
  market: row.market,
  street: row.street,
  recordedAddress: optional(row.recorded_address),
  ...(row.earlier_streets === null ? {} : { earlierStreets: row.earlier_streets.split("\n") }),
  unit: row.unit,
  city: optional(row.city),
  state: optional(row.state),
  zipCode: optional(row.zip_code),
  neighborhood: optional(row.neighborhood),
  block: optional(row.block),
  lot: optional(row.lot),
  buildingClass: optional(row.building_class),
  propertyType: optional(row.property_type) as PropertyType | undefined,
  bedrooms: optional(row.bedrooms),
  bathrooms: optional(row.bathrooms),
  partialBathrooms: optional(row.partial_bathrooms),
  livingAreaSquareFeet: optional(row.living_area_square_feet),
  lotSizeSquareFeet: optional(row.lot_size_square_feet),
  yearBuilt: optional(row.year_built),
  latitude: optional(row.latitude),
  longitude: optional(row.longitude),
  synthetic: row.synthetic,
  source: row.source
})

interface SaleRow {
  readonly parcel_id: string
  readonly sale_date: string
  readonly price: number
  readonly document_type: string
  readonly grantor: string | null
  readonly grantee: string | null
  readonly arms_length: boolean
  readonly not_arms_length_because: string | null
  readonly package_parcel_ids: string | null
  readonly source_key: string
}

const toSale = (row: SaleRow): SaleRecord => ({
  parcelId: row.parcel_id,
  saleDate: row.sale_date,
  price: row.price,
  documentType: row.document_type,
  grantor: optional(row.grantor),
  grantee: optional(row.grantee),
  armsLength: row.arms_length,
  ...(row.not_arms_length_because === null ? {} : { notArmsLengthBecause: row.not_arms_length_because }),
  ...(row.package_parcel_ids === null ? {} : { packageParcelIds: row.package_parcel_ids.split(" ") }),
  sourceKey: row.source_key
})

/** The parcels table's columns and their PostgreSQL types. */
const parcelTypes: { readonly [Column in keyof ParcelRow]: string } = {
  id: "text",
  market: "text",
  street: "text",
  recorded_address: "text",
  earlier_streets: "text",
  unit: "text",
  city: "text",
  state: "text",
  zip_code: "text",
  neighborhood: "text",
  block: "integer",
  lot: "integer",
  building_class: "text",
  property_type: "text",
  bedrooms: "integer",
  bathrooms: "integer",
  partial_bathrooms: "integer",
  living_area_square_feet: "integer",
  lot_size_square_feet: "integer",
  year_built: "integer",
  latitude: "double precision",
  longitude: "double precision",
  synthetic: "boolean",
  source: "text"
}

const parcelColumns = Object.keys(parcelTypes).filter((column) => column !== "id")

/** The columns of `SNAPSHOT_FACTS`. */
const snapshotColumns: ReadonlySet<string> = new Set(
  SNAPSHOT_FACTS.map((fact) => fact.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`))
)

/** `keepsHyphen` of the stored street and the one upserted, in SQL. */
const hyphenKept = "parcels.street ~ '^[0-9]+-[0-9]+ ' AND EXCLUDED.street !~ '^[0-9]+-[0-9]+ ' AND " +
  "regexp_replace(parcels.street, '^([0-9]+)-', '\\1') = EXCLUDED.street"

/** The street the upsert leaves stored. */
const streetKept = `CASE WHEN ${hyphenKept} THEN parcels.street ELSE EXCLUDED.street END`

/** A column's values within `within` of each other, where both rows record it. */
const alike = (column: string, within: string) =>
  `(parcels.${column} IS NULL OR EXCLUDED.${column} IS NULL OR abs(parcels.${column} - EXCLUDED.${column}) <= ${within})`

/** `sameBuilding` of the stored row and the one upserted, in SQL. */
const sameBuildingKept = [
  alike("year_built", String(SAME_BUILDING.years)),
  alike(
    "lot_size_square_feet",
    `${SAME_BUILDING.share} * greatest(parcels.lot_size_square_feet, EXCLUDED.lot_size_square_feet)`
  ),
  alike(
    "living_area_square_feet",
    `${SAME_BUILDING.share} * greatest(parcels.living_area_square_feet, EXCLUDED.living_area_square_feet)`
  )
].join(" AND ")

/**
 * `otherStreets` of the street kept among both rows' streets and earlier streets, in SQL (the stored row's only
 * where both rows are of one building): a renamed street or a corner building's other address, recorded by one
 * file and not the next, stays an address of the parcel.
 */
const earlierStreetsKept = `(SELECT NULLIF(string_agg(DISTINCT line COLLATE "C", E'\\n' ORDER BY line COLLATE "C"), '')
  FROM unnest(string_to_array(concat_ws(E'\\n', CASE WHEN ${sameBuildingKept} THEN parcels.earlier_streets END,
    EXCLUDED.earlier_streets, CASE WHEN ${sameBuildingKept} THEN parcels.street END, EXCLUDED.street), E'\\n')) AS line
  WHERE line <> '' AND line <> ${streetKept} AND NOT (${streetKept} ~ '^[0-9]+-[0-9]+ ' AND line !~ '^[0-9]+-[0-9]+ '
    AND regexp_replace(${streetKept}, '^([0-9]+)-', '\\1') = line))`

/** One stored row per address: its market, street line, town and ZIP code. */
const unscoredKey = (address: UnscoredAddress) =>
  `${address.market}|${address.street}|${address.city ?? ""}|${address.zipCode ?? ""}`

export const PropertyStorePg = Layer.effect(
  PropertyStore,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { guard } = yield* DatabaseHealth

    const knownParcels = (ids: ReadonlyArray<string>) =>
      sql<{ id: string }>`SELECT id FROM parcels WHERE id = ANY(${[...new Set(ids)]}::text[])`.pipe(
        Effect.map((rows) => new Set(rows.map((row) => row.id)))
      )

    /**
     * One statement for the whole table: every column sent as one array, rows taken in the records' order.
     * None without rows (a statement on parcels or sales changes the store's version, even one that stores
     * nothing).
     */
    const bulkInsert = <Row extends object>(
      table: string,
      types: { readonly [Column in keyof Row]: string },
      rows: ReadonlyArray<Row>,
      onConflict: string
    ): Effect.Effect<ReadonlyArray<{ id?: number }>, SqlError> => {
      if (rows.length === 0) return Effect.succeed([])
      const columns = Object.keys(types) as Array<keyof Row & string>
      const arrays = columns.map((column, i) => `$${i + 1}::${types[column]}[]`).join(", ")
      return sql.unsafe<{ id?: number }>(
        `INSERT INTO ${table} (${columns.join(", ")})
         SELECT ${columns.join(", ")} FROM unnest(${arrays}) WITH ORDINALITY AS incoming (${
          columns.join(", ")
        }, ordinal)
         ORDER BY ordinal
         ${onConflict}`,
        columns.map((column) => rows.map((row) => row[column] ?? null))
      )
    }

    /** The last record of each key, as upserting them one after the other would leave it. */
    const lastOf = <A>(records: ReadonlyArray<A>, key: (record: A) => string) => [
      ...new Map(records.map((record) => [key(record), record])).values()
    ]

    // A file of snapshot facts (`ParsedFile.snapshotFacts`) keeps the sizes and year stored before where its
    // row leaves them out, as `withSnapshotFacts` does in memory.
    const upsertParcels = (parcels: ReadonlyArray<ParcelRecord>, snapshotFacts: boolean) =>
      bulkInsert(
        "parcels",
        parcelTypes,
        lastOf(parcels, (parcel) => parcel.id).map(parcelRow),
        `ON CONFLICT (id) DO UPDATE SET ${
          parcelColumns.map((c) =>
            snapshotFacts && snapshotColumns.has(c)
              ? `${c} = COALESCE(EXCLUDED.${c}, parcels.${c})`
              // (A Queens house number stored with its hyphen keeps it, as `keepsHyphen` says.)
              : snapshotFacts && (c === "street" || c === "recorded_address")
              ? `${c} = CASE WHEN ${hyphenKept} THEN parcels.${c} ELSE EXCLUDED.${c} END`
              : snapshotFacts && c === "earlier_streets"
              ? `${c} = ${earlierStreetsKept}`
              : `${c} = EXCLUDED.${c}`
          ).join(", ")
        }`
      )

    const insertSales = (sales: ReadonlyArray<SaleRecord>) =>
      bulkInsert(
        "sales",
        {
          parcel_id: "text",
          sale_date: "date",
          price: "bigint",
          document_type: "text",
          grantor: "text",
          grantee: "text",
          arms_length: "boolean",
          not_arms_length_because: "text",
          package_parcel_ids: "text",
          source_key: "text"
        },
        sales.map((sale) => ({
          parcel_id: sale.parcelId,
          sale_date: sale.saleDate,
          price: sale.price,
          document_type: sale.documentType,
          grantor: nullable(sale.grantor),
          grantee: nullable(sale.grantee),
          arms_length: sale.armsLength,
          not_arms_length_because: nullable(sale.notArmsLengthBecause),
          package_parcel_ids: sale.packageParcelIds === undefined ? null : sale.packageParcelIds.join(" "),
          source_key: sale.sourceKey
        })),
        // A sale imported again keeps its row; the importer's judgement and its words follow the file.
        `ON CONFLICT (source_key) DO UPDATE SET arms_length = EXCLUDED.arms_length,
           not_arms_length_because = EXCLUDED.not_arms_length_because,
           package_parcel_ids = EXCLUDED.package_parcel_ids
         WHERE (sales.arms_length, sales.not_arms_length_because, sales.package_parcel_ids)
           IS DISTINCT FROM (EXCLUDED.arms_length, EXCLUDED.not_arms_length_because, EXCLUDED.package_parcel_ids)
         RETURNING id`
      ).pipe(Effect.map((rows) => rows.length))

    const upsertListings = (listings: ReadonlyArray<ListingRecord>) =>
      bulkInsert(
        "listings",
        { parcel_id: "text", status: "text", list_price: "bigint", listed_date: "date" },
        lastOf(listings, (listing) => listing.parcelId).map((listing) => ({
          parcel_id: listing.parcelId,
          status: listing.status,
          list_price: nullable(listing.listPrice),
          listed_date: nullable(listing.listedDate)
        })),
        `ON CONFLICT (parcel_id) DO UPDATE SET status = EXCLUDED.status, list_price = EXCLUDED.list_price,
           listed_date = EXCLUDED.listed_date`
      )

    const insertPermits = (permits: ReadonlyArray<PermitRecord>) =>
      bulkInsert(
        "permits",
        {
          parcel_id: "text",
          issued_date: "date",
          permit_type: "text",
          description: "text",
          valuation: "bigint",
          source_key: "text"
        },
        permits.map((permit) => ({
          parcel_id: permit.parcelId,
          issued_date: permit.issuedDate,
          permit_type: permit.permitType,
          description: permit.description,
          valuation: nullable(permit.valuation),
          source_key: permit.sourceKey
        })),
        "ON CONFLICT (source_key) DO NOTHING RETURNING id"
      ).pipe(Effect.map((rows) => rows.length))

    /**
     * Parcels the records replace (`ParsedFile.replaces`), where still stored as a bungalow colony's lot or a
     * condominium's billing lot (valued as a unit until 2026-11-29): their sales, listing and permits, then the
     * parcel. Nothing (not a statement) when none is stored.
     */
    const removeReplaced = (ids: ReadonlyArray<string>) =>
      Effect.gen(function*() {
        if (ids.length === 0) return
        const stored = yield* sql<{ id: string }>`SELECT id FROM parcels
          WHERE id = ANY(${[...new Set(ids)]}::text[]) AND building_class IN ('A8', 'RR')`
        const gone = stored.map((row) => row.id)
        if (gone.length === 0) return
        for (const table of ["sales", "listings", "permits"]) {
          yield* sql`DELETE FROM ${sql(table)} WHERE parcel_id = ANY(${gone}::text[])`
        }
        yield* sql`DELETE FROM parcels WHERE id = ANY(${gone}::text[])`
      })

    const insertUnscored = (addresses: ReadonlyArray<UnscoredAddress>) =>
      bulkInsert(
        "unscored_addresses",
        {
          key: "text",
          market: "text",
          street: "text",
          city: "text",
          state: "text",
          zip_code: "text",
          neighborhood: "text",
          recorded_as: "text"
        },
        lastOf(addresses, unscoredKey).map((address) => ({
          key: unscoredKey(address),
          market: address.market,
          street: address.street,
          city: nullable(address.city),
          state: nullable(address.state),
          zip_code: nullable(address.zipCode),
          neighborhood: nullable(address.neighborhood),
          recorded_as: nullable(address.recordedAs)
        })),
        // Importing a file again fills in what an address stored before lacks (`recorded_as`, migration 0020).
        // The kinds recorded at the address, each file's added to those stored (`withKind`, in SQL).
        "ON CONFLICT (key) DO UPDATE SET recorded_as = (SELECT string_agg(DISTINCT kind COLLATE \"C\", '; ' " +
          "ORDER BY kind COLLATE \"C\") FROM unnest(string_to_array(coalesce(unscored_addresses.recorded_as, ''), '; ') || " +
          "string_to_array(EXCLUDED.recorded_as, '; ')) AS kind WHERE kind <> '') " +
          "WHERE EXCLUDED.recorded_as IS NOT NULL AND NOT (string_to_array(EXCLUDED.recorded_as, '; ') <@ " +
          "string_to_array(coalesce(unscored_addresses.recorded_as, ''), '; '))"
      )

    const importParsed = (parsed: Parameters<PropertyStore["Type"]["importParsed"]>[0], format: string) =>
      sql.withTransaction(Effect.gen(function*() {
        const rejected: Record<string, number> = { ...parsed.rejected }
        yield* removeReplaced(parsed.replaces ?? [])
        yield* upsertParcels(parsed.parcels, parsed.snapshotFacts === true)
        yield* insertUnscored(parsed.unscored ?? [])
        const otherKindSales = parsed.otherKindSales ?? []
        const dependent = [...parsed.sales, ...parsed.listings, ...parsed.permits, ...otherKindSales]
        const known = yield* knownParcels(dependent.map((record) => record.parcelId))
        const keep = <A extends { readonly parcelId: string }>(records: ReadonlyArray<A>) =>
          records.filter((record) => {
            if (known.has(record.parcelId)) return true
            rejected["unknown property_id"] = (rejected["unknown property_id"] ?? 0) + 1
            return false
          })
        // One recorded event once, even when a file repeats it.
        const unique = <A extends { readonly sourceKey: string }>(
          records: ReadonlyArray<A>
        ) => [...new Map(records.map((record) => [record.sourceKey, record])).values()]
        const keptSales = keep(parsed.sales)
        const keptPermits = keep(parsed.permits)
        const sales = unique(keptSales)
        const permits = unique(keptPermits)
        const repeated = keptSales.length - sales.length + keptPermits.length - permits.length
        const listings = keep(parsed.listings)
        const storedSales = yield* insertSales(sales)
        // A sale of a kind not valued is stored only where its parcel is; its row was counted as rejected already.
        yield* insertSales(unique(otherKindSales.filter((sale) => known.has(sale.parcelId))))
        yield* upsertListings(listings)
        const storedPermits = yield* insertPermits(permits)
        const rejectedCount = Object.values(rejected).reduce((sum, count) => sum + count, 0)
        return {
          file: parsed.file,
          format,
          rows_read: parsed.rowsRead,
          accepted: parsed.rowsRead - rejectedCount,
          duplicates: parsed.duplicateRows + repeated + sales.length - storedSales + permits.length - storedPermits,
          rejected
        } satisfies ImportReport
      })).pipe(Effect.orDie)

    return PropertyStore.of({
      importParsed,
      loadAll: Effect.gen(function*() {
        const parcels = yield* sql<ParcelRow>`SELECT * FROM parcels ORDER BY id`
        const sales = yield* sql<SaleRow>`
          SELECT parcel_id, to_char(sale_date, 'YYYY-MM-DD') AS sale_date, price, document_type, grantor, grantee,
                 arms_length, not_arms_length_because, package_parcel_ids, source_key
          FROM sales ORDER BY sale_date, id`
        const unscored = yield* sql<
          {
            market: string
            street: string
            city: string | null
            state: string | null
            zip_code: string | null
            neighborhood: string | null
            recorded_as: string | null
          }
        >`SELECT market, street, city, state, zip_code, neighborhood, recorded_as FROM unscored_addresses ORDER BY key`
        return {
          parcels: parcels.map(toParcel),
          sales: sales.map(toSale),
          unscored: unscored.map((row) => ({
            market: row.market,
            street: row.street,
            city: optional(row.city),
            state: optional(row.state),
            zipCode: optional(row.zip_code),
            neighborhood: optional(row.neighborhood),
            recordedAs: optional(row.recorded_as)
          }))
        }
      }).pipe(Effect.orDie),
      history: (parcelId) =>
        Effect.gen(function*() {
          const parcel = yield* sql<ParcelRow>`SELECT * FROM parcels WHERE id = ${parcelId}`
          if (!parcel[0]) return undefined
          const sales = yield* sql<SaleRow>`
            SELECT parcel_id, to_char(sale_date, 'YYYY-MM-DD') AS sale_date, price, document_type, grantor, grantee,
                   arms_length, not_arms_length_because, package_parcel_ids, source_key
            FROM sales WHERE parcel_id = ${parcelId} ORDER BY sale_date, id`
          const listing = yield* sql<{ status: ListingStatus; list_price: number | null; listed_date: string | null }>`
            SELECT status, list_price, to_char(listed_date, 'YYYY-MM-DD') AS listed_date FROM listings WHERE parcel_id = ${parcelId}`
          const permits = yield* sql<
            {
              issued_date: string
              permit_type: string
              description: string
              valuation: number | null
              source_key: string
            }
          >`
            SELECT to_char(issued_date, 'YYYY-MM-DD') AS issued_date, permit_type, description, valuation, source_key
            FROM permits WHERE parcel_id = ${parcelId} ORDER BY issued_date, id`
          return {
            parcel: toParcel(parcel[0]),
            sales: sales.map(toSale),
            listing: listing[0]
              ? {
                parcelId,
                status: listing[0].status,
                listPrice: optional(listing[0].list_price),
                listedDate: optional(listing[0].listed_date)
              }
              : undefined,
            permits: permits.map((row) => ({
              parcelId,
              issuedDate: row.issued_date,
              permitType: row.permit_type,
              description: row.description,
              valuation: optional(row.valuation),
              sourceKey: row.source_key
            }))
          }
        }).pipe(guard("PropertyStore.history")),
      version: sql<{ version: string }>`SELECT version FROM property_data_version`.pipe(
        Effect.map((rows) => rows[0]?.version ?? ""),
        Effect.orDie
      ),
      parcelCount: sql<{ count: number }>`SELECT count(*)::int AS count FROM parcels`.pipe(
        Effect.map((rows) => rows[0]?.count ?? 0),
        Effect.orDie
      )
    })
  })
)
