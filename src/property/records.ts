/** The property store's records, as importers produce them and the scoring engine reads them. */
import type { PropertyType } from "../../schema/overrides.js"

export interface ParcelRecord {
  /** The property_id: stable across re-imports (`nyc-5-5391-65`, `demo-000123`). */
  readonly id: string
  /** The area the parcel belongs to (`Staten Island`, `Sacramento`, `Demo County (synthetic)`). */
  readonly market: string
  /** Normalised street line (`22 BLUE HERON DR`). */
  readonly street: string
  /** The street line as the source recorded it (`22 Blue Heron Drive`), when it was kept. */
  readonly recordedAddress?: string | undefined
  /**
   * Other street lines (normalised, as `street`) earlier rows of the parcel recorded: a corner building's other
   * street, a renamed street (`225 HOPKINSON AVE`, later `225 THOMAS S BOYLAND ST`), a house number since
   * changed. An address typed so finds the parcel where no other property is at it now (`AddressIndex`).
   */
  readonly earlierStreets?: ReadonlyArray<string> | undefined
  readonly unit: string
  readonly city?: string | undefined
  readonly state?: string | undefined
  readonly zipCode?: string | undefined
  readonly neighborhood?: string | undefined
  readonly block?: number | undefined
  readonly lot?: number | undefined
  readonly buildingClass?: string | undefined
  readonly propertyType?: PropertyType | undefined
  readonly bedrooms?: number | undefined
  readonly bathrooms?: number | undefined
  readonly partialBathrooms?: number | undefined
  readonly livingAreaSquareFeet?: number | undefined
  readonly lotSizeSquareFeet?: number | undefined
  readonly yearBuilt?: number | undefined
  readonly latitude?: number | undefined
  readonly longitude?: number | undefined
  /** True for the synthetic demo county. */
  readonly synthetic: boolean
  readonly source: string
}

export interface SaleRecord {
  readonly parcelId: string
  /** YYYY-MM-DD */
  readonly saleDate: string
  readonly price: number
  readonly documentType: string
  readonly grantor?: string | undefined
  readonly grantee?: string | undefined
  readonly armsLength: boolean
  /**
   * For a sale that is not arm's-length, the rule that judged it so, in words (set by the importer that
   * applied it; stored with the sale: `evaluate` and a history report it). Undefined for sales imported before
   * it was stored, until their file is imported again.
   */
  readonly notArmsLengthBecause?: string | undefined
  /**
   * For one deed and price over several parcels (a package sale), every parcel on the deed, this one
   * included, sorted: the price is the package's. Some of them may not be stored (vacant land the importer
   * rejects as a parcel).
   */
  readonly packageParcelIds?: ReadonlyArray<string> | undefined
  /** Identifies the recorded sale across files and re-imports. */
  readonly sourceKey: string
}

export type ListingStatus = "active" | "pending" | "off_market" | "unknown"

export interface ListingRecord {
  readonly parcelId: string
  readonly status: ListingStatus
  readonly listPrice?: number | undefined
  readonly listedDate?: string | undefined
}

export interface PermitRecord {
  readonly parcelId: string
  readonly issuedDate: string
  readonly permitType: string
  readonly description: string
  readonly valuation?: number | undefined
  readonly sourceKey: string
}

/**
 * The address of a property a file records but the service does not value (an apartment building of four
 * families or more, a shop, a warehouse): its street is real, and a typed address on it is never corrected
 * to another street (`20 Norma Pl` is not Norman Pl).
 */
export interface UnscoredAddress {
  readonly market: string
  /** The street line, normalized as a parcel's is (`20 NORMA PL`). */
  readonly street: string
  readonly city?: string | undefined
  readonly state?: string | undefined
  readonly zipCode?: string | undefined
  readonly neighborhood?: string | undefined
  /**
   * What the records say it is, in words (`a co-op apartment building (building class D4)`), where known; the
   * kinds of several records at one address apart by `KINDS_APART`, in code-unit order (`withKind`).
   */
  readonly recordedAs?: string | undefined
}

/** Between the kinds of `UnscoredAddress.recordedAs`. */
export const KINDS_APART = "; "

/**
 * The kinds recorded at an address with one more (each once, in code-unit order): `345 E 56th St` holds a
 * commercial unit, a co-op unit and a rental billing lot, and a unit typed there was told only of the last one
 * read (an address audit, 2026-11-29).
 */
export const withKind = (kinds: string | undefined, kind: string): string =>
  [...new Set([...(kinds ?? "").split(KINDS_APART), kind])].filter((k) => k !== "").sort().join(KINDS_APART)

/** What an importer read from one file. */
export interface ParsedFile {
  readonly file: string
  readonly rowsRead: number
  readonly parcels: ReadonlyArray<ParcelRecord>
  readonly sales: ReadonlyArray<SaleRecord>
  readonly listings: ReadonlyArray<ListingRecord>
  readonly permits: ReadonlyArray<PermitRecord>
  /** Rows that repeat a recorded event already read from the same file. */
  readonly duplicateRows: number
  /** Rows refused, by reason. */
  readonly rejected: Readonly<Record<string, number>>
  /**
   * Parcels an earlier import wrote that these records replace (NYC's bungalow colony lots, once one parcel of
   * many houses, now a parcel a house; a condominium's billing lot, building class RR, not valued since
   * 2026-11-29): removed with their sales, listings and permits where still stored as such a lot (A8 or RR).
   */
  readonly replaces?: ReadonlyArray<string>
  /** Addresses of the file's properties of kinds not valued (their rows are counted as rejected). */
  readonly unscored?: ReadonlyArray<UnscoredAddress>
  /**
   * Sales at which a parcel's record was of a kind not valued (`otherKindReason`: NYC's house lots sold later
   * as vacant land): stored where their parcel is (from this import or an earlier one), dropped unsaid where it
   * is not (their rows are counted as rejected already). The engine reads a parcel whose latest sale is one as
   * no longer the property its earlier records describe.
   */
  readonly otherKindSales?: ReadonlyArray<SaleRecord>
  /**
   * The file's parcel facts are what each sale's row recorded (NYC's sales files), not a master record: a row
   * without a size or year says nothing of it, and the value stored before is kept (`withSnapshotFacts`).
   */
  readonly snapshotFacts?: boolean
}

/** The facts a sales file records with each sale, which a later row may leave out. */
export const SNAPSHOT_FACTS = ["livingAreaSquareFeet", "lotSizeSquareFeet", "yearBuilt"] as const

/**
 * A parcel as a later row records it, with each of the snapshot facts that row leaves out taken from the
 * record before: NYC's 2019 rows record many condominium units with 0 square feet where their 2018 rows gave
 * the area (`101 W 78th St Apt 6D`: 660 sq ft in 2018, 0 in 2019), and the unit was refused for a missing
 * living area and left out of its neighbours' comparable sales (an investor's audit, 2026-11-28).
 */
export const withSnapshotFacts = (before: ParcelRecord | undefined, later: ParcelRecord): ParcelRecord => {
  if (before === undefined) return later
  let merged = later
  for (const fact of SNAPSHOT_FACTS) {
    if (later[fact] === undefined && before[fact] !== undefined) merged = { ...merged, [fact]: before[fact] }
  }
  // A Queens house number a later row writes without its hyphen keeps it (`213-07 110TH AVE`, written `21307` by
  // one of its three rows, was answered as 21307 110th Ave: an agent's audit, 2026-11-29).
  if (keepsHyphen(before.street, later.street)) {
    merged = { ...merged, street: before.street, recordedAddress: before.recordedAddress }
  }
  // (An earlier row's lines only where it describes the same building: a lot split or built on again keeps
  // its number for a new house, which the old address is not: `52 Stafford Ave`, a two-family house on 12,000
  // sq ft, found the townhouse built in 2019 on a third of the lot, now 58: an address audit, 2026-11-29.)
  const earlierStreets = otherStreets(merged.street, [
    ...(sameBuilding(before, later) ? [...(before.earlierStreets ?? []), before.street] : []),
    ...(later.earlierStreets ?? []),
    later.street
  ])
  return earlierStreets.length === 0 ? merged : { ...merged, earlierStreets }
}

/** Year built within this many years, and lot and living area within this share, is one building. */
export const SAME_BUILDING = { years: 5, share: 0.1 } as const

/**
 * Whether two records of a parcel describe one building: its year built, lot size and living area alike where
 * both record them (a lot split, or a house pulled down and built again, changes them).
 */
export const sameBuilding = (a: ParcelRecord, b: ParcelRecord): boolean => {
  const near = (x: number | undefined, y: number | undefined) =>
    x === undefined || y === undefined || Math.abs(x - y) <= SAME_BUILDING.share * Math.max(x, y)
  return (a.yearBuilt === undefined || b.yearBuilt === undefined ||
    Math.abs(a.yearBuilt - b.yearBuilt) <= SAME_BUILDING.years) &&
    near(a.lotSizeSquareFeet, b.lotSizeSquareFeet) && near(a.livingAreaSquareFeet, b.livingAreaSquareFeet)
}

/**
 * The street lines among `lines` other than `street`, each once, sorted; a line that is `street` without its
 * Queens hyphen (`keepsHyphen`) is the same address, not another.
 */
export const otherStreets = (street: string, lines: ReadonlyArray<string>): Array<string> =>
  [...new Set(lines)].filter((line) => line !== "" && line !== street && !keepsHyphen(street, line)).sort(byKey)

/** The street line before has its house number's hyphen, and the later one is the same line without it. */
export const keepsHyphen = (before: string, later: string) =>
  /^\d+-\d+ /.test(before) && !/^\d+-\d+ /.test(later) && before.replace("-", "") === later

/**
 * Why a sale is not arm's-length where several prices are recorded for one parcel on one day: the importers'
 * words, and how the engine knows such a sale (the answer says the property sold that day: `own-sale-not-counted`).
 */
export const SPLIT_DEEDS_REASON = "several prices recorded for the parcel on one day (split deeds or partial interests)"

const OTHER_KIND_OPENING = "recorded at this sale as "
const OTHER_KIND_CLOSING = ", a kind of property not valued: not a sale of the property its other sales were of"

/**
 * Why a sale at which the parcel's record was of a kind not valued is not arm's-length for the parcel's market
 * (`ParsedFile.otherKindSales`), `kind` in words (`vacant land (building class V0)`): `532 Clinton Ave`, a
 * house sold for $3.69M in 2018 and as vacant land for $6.5M in 2019, was valued as the house (an investor's
 * audit, 2026-11-29).
 */
export const otherKindReason = (kind: string) => `${OTHER_KIND_OPENING}${kind}${OTHER_KIND_CLOSING}`

/** The kind, in words, a sale's reason (`otherKindReason`) says its parcel was recorded as at that sale. */
export const otherKindOf = (reason: string | undefined): string | undefined =>
  reason !== undefined && reason.startsWith(OTHER_KIND_OPENING) && reason.endsWith(OTHER_KIND_CLOSING)
    ? reason.slice(OTHER_KIND_OPENING.length, reason.length - OTHER_KIND_CLOSING.length)
    : undefined

/** A sale below this price is a nominal transfer, never arm's length. */
export const NOMINAL_PRICE_LIMIT = 10_000

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * What the store gives back (`PropertyStore.loadAll`) once these records are stored in an empty store:
 * parcels by id, sales by date and then in the order they were stored.
 */
export const inStoreOrder = (
  parsed: ParsedFile
): { readonly parcels: Array<ParcelRecord>; readonly sales: Array<SaleRecord> } => ({
  parcels: [...parsed.parcels].sort((a, b) => byKey(a.id, b.id)),
  sales: [...parsed.sales].sort((a, b) => byKey(a.saleDate, b.saleDate))
})
