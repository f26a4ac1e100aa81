// The comps index: the comparable sales of each market and property group as columnar typed arrays, sorted
// by tax block then lot, with everything a valuation needs per candidate precomputed (logs, ids, regression
// terms, market index at the sale month, position in miles). comps-search.ts walks it: by tax block, or by a
// grid of half-mile cells when the market's sales carry coordinates.
import { dayNumber, monthIndex, monthNumber } from "./calendar.js"
import { characteristics, type Hedonic, type MarketRegressions } from "./hedonic.js"
import { timeEffect } from "./market-index.js"
import { type Sale, salesByMarketGroup, TYPE_CODE } from "./types.js"

/** Columnar arrays of the comparable sales of one (market, group), sorted by tax block then lot (then date). */
export type CompsBucket = {
  sales: Array<Sale>
  block: Float64Array
  lot: Float64Array
  day: Int32Array
  month: Float64Array // fractional months since 2000-01-01
  logPrice: Float64Array
  logArea: Float64Array // NaN = unknown
  logLot: Float64Array // NaN = unknown
  yearBuilt: Float64Array // NaN = unknown
  typeCode: Int8Array
  neighborhood: Int32Array // id of market|neighbourhood
  zip: Int32Array // id of the zip code
  unitLine: Int32Array // id of market|block|line, -1 = unknown
  /** ids of the sale's parcel key and building class: the search compares these, not the sales' strings */
  parcel: Int32Array
  buildingClass: Int32Array
  /** precomputed regression terms per basis: characteristics and market index at the sale month */
  characteristicsSqft: Float64Array
  characteristicsPrice: Float64Array
  marketIndexSqft: Float64Array
  marketIndexPrice: Float64Array
  /** position in miles (NaN = no coordinates) and a grid of cells of GRID_MILES, when the market has coordinates */
  x: Float64Array
  y: Float64Array
  grid: Map<string, Array<number>> | undefined
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
/** Planar position in miles; fine at the scale of one market. */
export const toMiles = (latitude: number, longitude: number) => ({
  x: longitude * MILES_PER_DEGREE_LATITUDE * Math.cos((latitude * Math.PI) / 180),
  y: latitude * MILES_PER_DEGREE_LATITUDE
})

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
      lot: new Float64Array(n),
      day: new Int32Array(n),
      month: new Float64Array(n),
      logPrice: new Float64Array(n),
      logArea: new Float64Array(n),
      logLot: new Float64Array(n),
      yearBuilt: new Float64Array(n),
      typeCode: new Int8Array(n),
      neighborhood: new Int32Array(n),
      zip: new Int32Array(n),
      unitLine: new Int32Array(n),
      parcel: new Int32Array(n),
      buildingClass: new Int32Array(n),
      characteristicsSqft: new Float64Array(n),
      characteristicsPrice: new Float64Array(n),
      marketIndexSqft: new Float64Array(n),
      marketIndexPrice: new Float64Array(n),
      x: new Float64Array(n).fill(NaN),
      y: new Float64Array(n).fill(NaN),
      grid: undefined
    }
    group.forEach((sale, i) => {
      bucket.block[i] = sale.block
      bucket.lot[i] = sale.lot
      bucket.day[i] = dayNumber(sale.date)
      bucket.month[i] = monthNumber(sale.date)
      bucket.logPrice[i] = Math.log(sale.price)
      bucket.logArea[i] = sale.livingArea ? Math.log(sale.livingArea) : NaN
      bucket.logLot[i] = sale.lotSize ? Math.log(sale.lotSize) : NaN
      bucket.yearBuilt[i] = sale.yearBuilt ?? NaN
      bucket.typeCode[i] = TYPE_CODE[sale.propertyType]
      bucket.neighborhood[i] = idOf(index.neighborhoodIds, `${sale.market}|${sale.neighborhood}`)
      bucket.zip[i] = idOf(index.zipIds, sale.zip)
      const unit = sale.propertyType === "condo" ? parseUnit(sale.unit) : undefined
      bucket.unitLine[i] = unit ? idOf(index.unitLineIds, `${sale.market}|${sale.block}|${unit.line}`) : -1
      bucket.parcel[i] = idOf(index.parcelIds, sale.parcelKey)
      bucket.buildingClass[i] = idOf(index.buildingClassIds, sale.buildingClass)
      const month = monthIndex(sale.date)
      bucket.characteristicsSqft[i] = sqftRegression && sale.livingArea ? characteristics(sqftRegression, sale) : NaN
      bucket.characteristicsPrice[i] = priceRegression
        ? characteristics(priceRegression, { ...sale, livingArea: undefined })
        : NaN
      bucket.marketIndexSqft[i] = sqftRegression ? timeEffect(sqftRegression, month) : 0
      bucket.marketIndexPrice[i] = priceRegression ? timeEffect(priceRegression, month) : 0
      if (sale.latitude !== undefined && sale.longitude !== undefined) {
        const position = toMiles(sale.latitude, sale.longitude)
        bucket.x[i] = position.x
        bucket.y[i] = position.y
      }
    })
    // A market whose sales mostly carry coordinates is searched by distance instead of tax block.
    let located = 0
    for (let i = 0; i < n; i++) if (!Number.isNaN(bucket.x[i])) located++
    if (located > n / 2) {
      bucket.grid = new Map()
      for (let i = 0; i < n; i++) {
        if (Number.isNaN(bucket.x[i])) continue
        const key = cellKey(Math.floor(bucket.x[i] / GRID_MILES), Math.floor(bucket.y[i] / GRID_MILES))
        let cell = bucket.grid.get(key)
        if (!cell) bucket.grid.set(key, cell = [])
        cell.push(i)
      }
    }
    index.buckets.set(key, bucket)
  }
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
  return index
}
