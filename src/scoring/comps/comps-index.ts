// The comps index: the comparable sales of each market and property group, sorted by tax block then lot,
// with everything a valuation needs per candidate precomputed (logs, ids, regression terms, market index at
// the sale month, position in miles) and interleaved: one record of CANDIDATE_FIELDS numbers per sale, so
// that weighing a candidate reads two or three cache lines instead of one per field (the search visits the
// candidates in scattered order; fetching memory was most of its time). comps-search.ts walks it: by tax
// block, or by a grid of half-mile cells when the market's sales carry coordinates.
import { dayNumber, monthIndex, monthNumber } from "./calendar.js"
import { characteristics, type Hedonic, type MarketRegressions } from "./hedonic.js"
import { timeEffect } from "./market-index.js"
import { type Basis, type Sale, salesByMarketGroup, TYPE_CODE } from "./types.js"

/**
 * The fields of a sale's record in `CompsBucket.candidates` (offsets; record i starts at i * CANDIDATE_FIELDS).
 * Ids and codes are held as the whole numbers they are.
 */
export const X = 0 // position in miles (NaN = no coordinates)
export const Y = 1
export const DAY = 2 // day number of the sale date
export const LOG_AREA = 3 // NaN = unknown
export const PARCEL = 4 // id of the sale's parcel key: the search compares ids, not the sales' strings
export const LOT = 5
export const UNIT_LINE = 6 // id of market|block|line, -1 = unknown
export const NEIGHBORHOOD = 7 // id of market|neighbourhood
export const ZIP = 8 // id of the zip code
export const TYPE = 9 // TYPE_CODE of the property type
export const BUILDING_CLASS = 10 // id of the building class
export const LOG_LOT = 11 // NaN = unknown
export const YEAR_BUILT = 12 // NaN = unknown
export const MONTH = 13 // fractional months since 2000-01-01
export const LOG_PRICE = 14
/** precomputed regression terms per basis: characteristics and market index at the sale month */
export const CHARACTERISTICS_SQFT = 15
export const CHARACTERISTICS_PRICE = 16
export const MARKET_INDEX_SQFT = 17
export const MARKET_INDEX_PRICE = 18
export const CANDIDATE_FIELDS = 19

/** The market index (log) at the month of the bucket's sale `i`, by the regression of `basis`. */
export const saleMarketIndex = (bucket: CompsBucket, basis: Basis, i: number): number =>
  bucket.candidates[i * CANDIDATE_FIELDS + (basis === "sqft" ? MARKET_INDEX_SQFT : MARKET_INDEX_PRICE)]

/** The comparable sales of one (market, group), sorted by tax block then lot (then date). */
export type CompsBucket = {
  sales: Array<Sale>
  block: Float64Array
  /** one record of CANDIDATE_FIELDS per sale, in the order of `sales` */
  candidates: Float64Array
  /** a grid of cells of GRID_MILES (the sales in each), when the market has coordinates */
  grid: Map<string, Array<number>> | undefined
  /** miles per degree of longitude at the mean latitude of the sales with coordinates (`toMiles`; NaN: none) */
  milesPerDegreeLongitude: number
}

export type CompsIndex = {
  buckets: Map<string, CompsBucket> // by market|group
  /** dense ids of `market|neighbourhood`, zip codes, condo unit lines `market|block|line`, parcel keys and building classes */
  neighborhoodIds: Map<string, number>
  zipIds: Map<string, number>
  unitLineIds: Map<string, number>
  parcelIds: Map<string, number>
  buildingClassIds: Map<string, number>
  /** each regression's neighbourhood effects by neighbourhood id (NaN where it has none) */
  neighborhoodEffects: Map<Hedonic, Float64Array>
}

export const GRID_MILES = 0.5
const MILES_PER_DEGREE_LATITUDE = 69.0
export const cellKey = (column: number, row: number) => `${column}:${row}`
/**
 * Planar position in miles, every point of a market projected at one latitude (`milesPerDegreeLongitude`):
 * fine at the scale of one market. Each point's own latitude would shift it east or west by its longitude
 * times the change in the cosine: at Melbourne's 145° E about a mile for every 0.01° (0.7 mile) north.
 */
export const toMiles = (latitude: number, longitude: number, milesPerDegreeLongitude: number) => ({
  x: longitude * milesPerDegreeLongitude,
  y: latitude * MILES_PER_DEGREE_LATITUDE
})

/** Miles per degree of longitude at the mean latitude of the sales with coordinates (NaN when none has). */
export const milesPerDegreeLongitudeOf = (sales: ReadonlyArray<Pick<Sale, "latitude" | "longitude">>): number => {
  let sum = 0, count = 0
  for (const sale of sales) {
    if (sale.latitude === undefined || sale.longitude === undefined) continue
    sum += sale.latitude
    count++
  }
  return count === 0 ? NaN : MILES_PER_DEGREE_LATITUDE * Math.cos(((sum / count) * Math.PI) / 180)
}

/** The id of `key` in `ids`, a new one (the next integer) the first time. */
const idOf = (ids: Map<string, number>, key: string): number => {
  let id = ids.get(key)
  if (id === undefined) ids.set(key, id = ids.size)
  return id
}

/** Parses a condo unit designation into floor and line ("5B" -> 5,"B"; "1203" -> 12,"03"; "PH2A" -> top,"A"). */
export function parseUnit(unit: string | undefined): { floor: number; line: string } | undefined {
  if (!unit) return undefined
  const normalized = unit.toUpperCase().replace(/^(APT|UNIT|#)\s*/, "").replace(/\s+/g, "")
  let match = /^(\d{1,2})-?([A-Z]{1,2})$/.exec(normalized)
  if (match) return { floor: +match[1], line: match[2] }
  match = /^([A-Z])-?(\d{1,2})$/.exec(normalized)
  if (match) return { floor: +match[2], line: match[1] }
  match = /^(\d{1,2})(\d{2})$/.exec(normalized)
  if (match) return { floor: +match[1], line: match[2] }
  match = /^PH-?(\d{0,2})([A-Z]{0,2})$/.exec(normalized)
  if (match) return { floor: 99, line: match[2] || match[1] || "PH" }
  return undefined
}

/** Builds the comps index of the clean training sales, with the regressions' terms precomputed per sale. */
export function buildCompsIndex(sales: Array<Sale>, regressions: MarketRegressions): CompsIndex {
  const index: CompsIndex = {
    buckets: new Map(),
    neighborhoodIds: new Map(),
    zipIds: new Map(),
    unitLineIds: new Map(),
    parcelIds: new Map(),
    buildingClassIds: new Map(),
    neighborhoodEffects: new Map()
  }
  for (const sale of sales) idOf(index.neighborhoodIds, `${sale.market}|${sale.neighborhood}`)
  for (const [key, group] of salesByMarketGroup(sales)) {
    group.sort((a, b) => a.block - b.block || a.lot - b.lot || (a.date < b.date ? -1 : a.date > b.date ? 1 : 0))
    const n = group.length
    const sqftRegression = regressions.sqft.get(key), priceRegression = regressions.price.get(key)
    const bucket: CompsBucket = {
      sales: group,
      block: new Float64Array(n),
      candidates: new Float64Array(n * CANDIDATE_FIELDS),
      grid: undefined,
      milesPerDegreeLongitude: milesPerDegreeLongitudeOf(group)
    }
    const records = bucket.candidates
    group.forEach((sale, i) => {
      const record = i * CANDIDATE_FIELDS
      bucket.block[i] = sale.block
      records[record + LOT] = sale.lot
      // `| 0` and the int8 wrap: the values the columns of 32- and 8-bit integers held before.
      records[record + DAY] = dayNumber(sale.date) | 0
      records[record + MONTH] = monthNumber(sale.date)
      records[record + LOG_PRICE] = Math.log(sale.price)
      records[record + LOG_AREA] = sale.livingArea ? Math.log(sale.livingArea) : NaN
      records[record + LOG_LOT] = sale.lotSize ? Math.log(sale.lotSize) : NaN
      records[record + YEAR_BUILT] = sale.yearBuilt ?? NaN
      records[record + TYPE] = (TYPE_CODE[sale.propertyType] << 24) >> 24
      records[record + NEIGHBORHOOD] = idOf(index.neighborhoodIds, `${sale.market}|${sale.neighborhood}`)
      records[record + ZIP] = idOf(index.zipIds, sale.zip)
      const unit = sale.propertyType === "condo" ? parseUnit(sale.unit) : undefined
      records[record + UNIT_LINE] = unit ? idOf(index.unitLineIds, `${sale.market}|${sale.block}|${unit.line}`) : -1
      records[record + PARCEL] = idOf(index.parcelIds, sale.parcelKey)
      records[record + BUILDING_CLASS] = idOf(index.buildingClassIds, sale.buildingClass)
      const month = monthIndex(sale.date)
      records[record + CHARACTERISTICS_SQFT] = sqftRegression && sale.livingArea
        ? characteristics(sqftRegression, sale)
        : NaN
      records[record + CHARACTERISTICS_PRICE] = priceRegression
        ? characteristics(priceRegression, sale, false)
        : NaN
      records[record + MARKET_INDEX_SQFT] = sqftRegression ? timeEffect(sqftRegression, month) : 0
      records[record + MARKET_INDEX_PRICE] = priceRegression ? timeEffect(priceRegression, month) : 0
      const position = sale.latitude !== undefined && sale.longitude !== undefined
        ? toMiles(sale.latitude, sale.longitude, bucket.milesPerDegreeLongitude)
        : undefined
      records[record + X] = position?.x ?? NaN
      records[record + Y] = position?.y ?? NaN
    })
    // A market whose sales mostly carry coordinates is searched by distance instead of tax block.
    let located = 0
    for (let i = 0; i < n; i++) if (!Number.isNaN(records[i * CANDIDATE_FIELDS + X])) located++
    if (located > n / 2) {
      bucket.grid = new Map()
      for (let i = 0; i < n; i++) {
        const x = records[i * CANDIDATE_FIELDS + X], y = records[i * CANDIDATE_FIELDS + Y]
        if (Number.isNaN(x)) continue
        const key = cellKey(Math.floor(x / GRID_MILES), Math.floor(y / GRID_MILES))
        let cell = bucket.grid.get(key)
        if (!cell) bucket.grid.set(key, cell = [])
        cell.push(i)
      }
    }
    index.buckets.set(key, bucket)
  }
  setNeighborhoodEffects(index, regressions)
  return index
}

/** Each regression's neighbourhood effects by the index's neighbourhood ids. */
const setNeighborhoodEffects = (index: CompsIndex, regressions: MarketRegressions) => {
  for (const basis of ["sqft", "price"] as const) {
    for (const [key, hedonic] of regressions[basis]) {
      const market = key.split("|")[0]
      const effects = new Float64Array(index.neighborhoodIds.size).fill(NaN)
      for (const [neighborhood, effect] of hedonic.nbhdEffect) {
        const id = index.neighborhoodIds.get(`${market}|${neighborhood}`)
        if (id !== undefined) effects[id] = effect
      }
      index.neighborhoodEffects.set(hedonic, effects)
    }
  }
}

/**
 * A comps index as it is kept (plain data): each bucket's sales by their positions in the sales the model
 * indexed, with its typed arrays and ids as they are. Over the same sales, in the same order,
 * `restoreCompsIndex` makes the index again without computing a record.
 */
export type KeptCompsIndex = {
  readonly sales: number
  readonly buckets: ReadonlyArray<
    readonly [string, {
      readonly positions: Int32Array
      readonly block: Float64Array
      readonly candidates: Float64Array
      readonly grid: Map<string, Array<number>> | undefined
      readonly milesPerDegreeLongitude: number
    }]
  >
  readonly neighborhoodIds: Map<string, number>
  readonly zipIds: Map<string, number>
  readonly unitLineIds: Map<string, number>
  readonly parcelIds: Map<string, number>
  readonly buildingClassIds: Map<string, number>
}

/** The index as it is kept, its sales by position in `sales` (those the model indexed). */
export function keptCompsIndex(index: CompsIndex, sales: ReadonlyArray<Sale>): KeptCompsIndex {
  const positions = new Map<Sale, number>()
  sales.forEach((sale, i) => positions.set(sale, i))
  return {
    sales: sales.length,
    buckets: [...index.buckets].map(([key, bucket]) =>
      [key, {
        positions: Int32Array.from(bucket.sales, (sale) => positions.get(sale)!),
        block: bucket.block,
        candidates: bucket.candidates,
        grid: bucket.grid,
        milesPerDegreeLongitude: bucket.milesPerDegreeLongitude
      }] as const
    ),
    neighborhoodIds: index.neighborhoodIds,
    zipIds: index.zipIds,
    unitLineIds: index.unitLineIds,
    parcelIds: index.parcelIds,
    buildingClassIds: index.buildingClassIds
  }
}

/**
 * The index `kept` describes, over the sales it was kept from (the caller knows they are the same: the
 * kept model's sales digest), with the regressions the model was fitted with.
 */
export function restoreCompsIndex(
  kept: KeptCompsIndex,
  sales: ReadonlyArray<Sale>,
  regressions: MarketRegressions
): CompsIndex {
  const index: CompsIndex = {
    buckets: new Map(kept.buckets.map(([key, bucket]) => [key, {
      sales: Array.from(bucket.positions, (position) => sales[position]!),
      block: bucket.block,
      candidates: bucket.candidates,
      grid: bucket.grid,
      milesPerDegreeLongitude: bucket.milesPerDegreeLongitude
    }])),
    neighborhoodIds: kept.neighborhoodIds,
    zipIds: kept.zipIds,
    unitLineIds: kept.unitLineIds,
    parcelIds: kept.parcelIds,
    buildingClassIds: kept.buildingClassIds,
    neighborhoodEffects: new Map()
  }
  setNeighborhoodEffects(index, regressions)
  return index
}
