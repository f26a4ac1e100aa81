/**
 * The record facts as the learner reads them: one row of numbers per property (NaN where the record has no
 * value). Location is the coordinates where the market has them, and otherwise the tax block, ZIP code and
 * neighbourhood; the neighbourhood, ZIP code and building class are given as their smoothed mean log price
 * (and log price per square foot) in the training sales, so that the trees can split them as ordered values.
 * Time is the month of the sale (or of the valuation date): trees cannot extrapolate, so a date after the
 * training data is valued at the last month the data shows, never beyond it.
 */
import { monthNumber } from "../comps/calendar.js"
import { type PropertyType, TYPE_CODE } from "../model.js"

/** What the learner reads of a property (a sale's parcel, or a subject with its overrides). */
export interface LearnerFacts {
  /** The parcel: its own recorded sales never count in the local levels of its own row. */
  readonly parcelKey: string
  readonly neighborhood: string
  readonly zip: string
  readonly block: number
  readonly buildingClass?: string | undefined
  readonly propertyType: PropertyType
  readonly livingArea?: number | undefined
  readonly lotSize?: number | undefined
  readonly yearBuilt?: number | undefined
  readonly latitude?: number | undefined
  readonly longitude?: number | undefined
  readonly bedrooms?: number | undefined
  readonly bathrooms?: number | undefined
}

export interface LearnerSale extends LearnerFacts {
  readonly price: number
  readonly date: string
}

export const featureNames = [
  "log_living_area",
  "log_lot_size",
  "year_built",
  "property_type",
  "building_class_level",
  "neighborhood_level",
  "neighborhood_level_per_foot",
  "zip_level",
  "tax_block",
  "blocks_level_near",
  "blocks_level_mid",
  "blocks_level_far",
  "latitude",
  "longitude",
  "bedrooms",
  "bathrooms",
  "month"
] as const

/** How many training sales a level's mean counts as, when it is shrunk toward the market's mean. */
const SMOOTHING_SALES = 10

interface Levels {
  readonly overall: number
  readonly byKey: ReadonlyMap<string, number>
}

/** Smoothed means of `value` by `key`: (Σ value + m·overall) / (n + m). */
const levelsOf = <A>(items: ReadonlyArray<A>, key: (item: A) => string | undefined, value: (item: A) => number) => {
  let total = 0
  let count = 0
  const sums = new Map<string, { sum: number; count: number }>()
  for (const item of items) {
    const v = value(item)
    if (!Number.isFinite(v)) continue
    total += v
    count++
    const k = key(item)
    if (k === undefined || k === "") continue
    const entry = sums.get(k) ?? { sum: 0, count: 0 }
    entry.sum += v
    entry.count++
    sums.set(k, entry)
  }
  const overall = count > 0 ? total / count : Number.NaN
  const byKey = new Map(
    [...sums].map(([k, { count: n, sum }]) => [k, (sum + SMOOTHING_SALES * overall) / (n + SMOOTHING_SALES)])
  )
  return { overall, byKey } satisfies Levels
}

const levelOf = (levels: Levels, key: string | undefined) =>
  key === undefined || key === "" ? Number.NaN : levels.byKey.get(key) ?? Number.NaN

const positiveLog = (value: number | undefined) => (value !== undefined && value > 0 ? Math.log(value) : Number.NaN)
const orMissing = (value: number | undefined) => (value === undefined ? Number.NaN : value)

/**
 * Local levels along the tax-block numbers (which run through a borough street by street): the smoothed mean
 * of a sale's value (detrended log price per square foot) over the training sales within `radius` block
 * numbers, the parcel's own sales left out. Prefix sums over the sales sorted by block.
 */
interface BlockLevels {
  readonly blocks: Float64Array
  readonly prefixSum: Float64Array
  readonly overall: number
  readonly ownByParcel: ReadonlyMap<string, { readonly sum: number; readonly count: number }>
}

const blockLevelsOf = (entries: ReadonlyArray<{ block: number; parcelKey: string; value: number }>): BlockLevels => {
  const usable = entries.filter((entry) => entry.block > 0 && Number.isFinite(entry.value))
    .sort((a, b) => a.block - b.block)
  const blocks = Float64Array.from(usable, (entry) => entry.block)
  const prefixSum = new Float64Array(usable.length + 1)
  const ownByParcel = new Map<string, { sum: number; count: number }>()
  usable.forEach((entry, i) => {
    prefixSum[i + 1] = prefixSum[i]! + entry.value
    const own = ownByParcel.get(entry.parcelKey) ?? { sum: 0, count: 0 }
    own.sum += entry.value
    own.count++
    ownByParcel.set(entry.parcelKey, own)
  })
  const overall = usable.length > 0 ? prefixSum[usable.length]! / usable.length : Number.NaN
  return { blocks, prefixSum, overall, ownByParcel }
}

/** The first index whose block is >= `block` (or > it, with `after`). */
const boundOf = (blocks: Float64Array, block: number, after: boolean) => {
  let low = 0
  let high = blocks.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (after ? blocks[middle]! <= block : blocks[middle]! < block) low = middle + 1
    else high = middle
  }
  return low
}

const blockLevel = (levels: BlockLevels, block: number, parcelKey: string, radius: number) => {
  if (!(block > 0) || levels.blocks.length === 0) return Number.NaN
  const from = boundOf(levels.blocks, block - radius, false)
  const to = boundOf(levels.blocks, block + radius, true)
  let sum = levels.prefixSum[to]! - levels.prefixSum[from]!
  let count = to - from
  const own = levels.ownByParcel.get(parcelKey)
  if (own !== undefined) {
    sum -= own.sum
    count -= own.count
  }
  return count <= 0 ? Number.NaN : (sum + SMOOTHING_SALES * levels.overall) / (count + SMOOTHING_SALES)
}

/** Block-number radii of the local levels: the block's street, its neighbourhood, its part of the borough. */
const BLOCK_RADII = [3, 20, 100] as const

/** What an encoder learnt from its training sales, as plain data (it crosses a worker thread as it is). */
export interface FeatureEncoderData {
  readonly neighborhood: Levels
  readonly neighborhoodPerFoot: Levels
  readonly zip: Levels
  readonly buildingClass: Levels
  readonly blockLevels: BlockLevels
  /** The first and last month of the training sales: a date outside is read as the nearest of them. */
  readonly firstMonth: number
  readonly lastMonth: number
}

/** Turns facts into learner rows, with levels learnt from one market's training sales. */
export interface FeatureEncoder {
  readonly featureCount: number
  readonly data: FeatureEncoderData
  readonly row: (facts: LearnerFacts, date: string) => Float64Array
}

/** The encoder of what was learnt (fitted here, or sent from a worker thread). */
export const encoderOf = (data: FeatureEncoderData): FeatureEncoder => {
  const { blockLevels, buildingClass, firstMonth, lastMonth, neighborhood, neighborhoodPerFoot, zip } = data
  const row = (facts: LearnerFacts, date: string) =>
    Float64Array.from([
      positiveLog(facts.livingArea),
      positiveLog(facts.lotSize),
      orMissing(facts.yearBuilt),
      TYPE_CODE[facts.propertyType],
      levelOf(buildingClass, facts.buildingClass),
      levelOf(neighborhood, facts.neighborhood),
      levelOf(neighborhoodPerFoot, facts.neighborhood),
      levelOf(zip, facts.zip),
      facts.block > 0 ? facts.block : Number.NaN,
      ...BLOCK_RADII.map((radius) => blockLevel(blockLevels, facts.block, facts.parcelKey, radius)),
      orMissing(facts.latitude),
      orMissing(facts.longitude),
      orMissing(facts.bedrooms),
      orMissing(facts.bathrooms),
      Math.min(Math.max(monthNumber(date), firstMonth), lastMonth)
    ])
  return { featureCount: featureNames.length, data, row }
}

export const fitFeatureEncoder = (
  sales: ReadonlyArray<LearnerSale>,
  /** The market index (log) at a sale's date, taken out of the local levels. */
  indexAt: (sale: LearnerSale) => number = () => 0
): FeatureEncoder => {
  const logPrice = (sale: LearnerSale) => Math.log(sale.price)
  const logPricePerFoot = (sale: LearnerSale) =>
    sale.livingArea !== undefined && sale.livingArea > 0 ? Math.log(sale.price / sale.livingArea) : Number.NaN
  const neighborhood = levelsOf(sales, (sale) => sale.neighborhood, logPrice)
  const neighborhoodPerFoot = levelsOf(sales, (sale) => sale.neighborhood, logPricePerFoot)
  const zip = levelsOf(sales, (sale) => sale.zip, logPrice)
  const buildingClass = levelsOf(sales, (sale) => sale.buildingClass, logPrice)
  const blockLevels = blockLevelsOf(sales.map((sale) => ({
    block: sale.block,
    parcelKey: sale.parcelKey,
    value: logPricePerFoot(sale) - indexAt(sale)
  })))
  let firstMonth = Number.POSITIVE_INFINITY
  let lastMonth = Number.NEGATIVE_INFINITY
  for (const sale of sales) {
    const month = monthNumber(sale.date)
    if (month < firstMonth) firstMonth = month
    if (month > lastMonth) lastMonth = month
  }
  return encoderOf({ neighborhood, neighborhoodPerFoot, zip, buildingClass, blockLevels, firstMonth, lastMonth })
}
