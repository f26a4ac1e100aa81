/** The property store: parcels with their county-record facts, recorded sales, listings and permits. */
import { Context, type Effect } from "effect"
import type {
  ListingRecord,
  ParcelRecord,
  ParsedFile,
  PermitRecord,
  SaleRecord,
  UnscoredAddress
} from "../property/records.js"
import type { StorageUnavailable } from "./storage.js"

export interface ImportReport {
  readonly file: string
  readonly format: string
  readonly rows_read: number
  /** Rows stored (new or updated). */
  readonly accepted: number
  /** Sales and permits already stored (the same recorded event, in another file or an earlier import). */
  readonly duplicates: number
  readonly rejected: Readonly<Record<string, number>>
}

export interface PropertyData {
  readonly parcels: ReadonlyArray<ParcelRecord>
  readonly sales: ReadonlyArray<SaleRecord>
  /** Addresses of recorded properties not valued, for the address index (none where no import had any). */
  readonly unscored?: ReadonlyArray<UnscoredAddress> | undefined
}

export interface PropertyHistoryRecords {
  readonly parcel: ParcelRecord
  readonly sales: ReadonlyArray<SaleRecord>
  readonly listing: ListingRecord | undefined
  readonly permits: ReadonlyArray<PermitRecord>
}

export class PropertyStore extends Context.Tag("propscore/PropertyStore")<PropertyStore, {
  /** Stores what an importer read; idempotent: importing a file again changes nothing. */
  readonly importParsed: (parsed: ParsedFile, format: string) => Effect.Effect<ImportReport>
  /**
   * Every parcel and sale, for the scoring engine's index: parcels by id, sales by date and then in the order
   * they were stored (the comps model's fit can depend on the order; see `inStoreOrder`).
   */
  readonly loadAll: Effect.Effect<PropertyData>
  /** A parcel's records (on the request path of a history call: it fails in time, typed). */
  readonly history: (parcelId: string) => Effect.Effect<PropertyHistoryRecords | undefined, StorageUnavailable>
  readonly parcelCount: Effect.Effect<number>
  /**
   * Changes whenever parcels or sales are added, updated or removed (by any statement, in its transaction):
   * equal versions, equal parcels and sales.
   */
  readonly version: Effect.Effect<string>
}>() {}
