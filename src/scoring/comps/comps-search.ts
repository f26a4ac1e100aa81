// One valuation from the comps: find the candidate sales near the subject in the comps index (nearest tax
// blocks first, or rings of grid cells by distance where the market has coordinates), weigh each by a product
// of kernels (location, neighbourhood, zip, type, class, size, lot, age, recency), adjust each price to the
// subject's characteristics and to the valuation date with the hedonic regression, and summarise: the
// centre is the weighted median blended with the regression's own prediction, the scale the weighted IQR
// shrunk to the market prior. Only comps dated strictly before the valuation date count, never a sale of the
// subject's own parcel. This is the hot path: per candidate it reads typed arrays and allocates nothing but
// the three result arrays' entries.
import { dayNumber, monthIndex, monthNumber } from "./calendar.js"
import {
  BUILDING_CLASS,
  CANDIDATE_FIELDS,
  cellKey,
  CHARACTERISTICS_PRICE,
  CHARACTERISTICS_SQFT,
  type CompsBucket,
  type CompsIndex,
  DAY,
  GRID_MILES,
  LOG_AREA,
  LOG_LOT,
  LOG_PRICE,
  LOT,
  MARKET_INDEX_PRICE,
  MARKET_INDEX_SQFT,
  MONTH,
  NEIGHBORHOOD,
  PARCEL,
  parseUnit,
  toMiles,
  TYPE,
  UNIT_LINE,
  X,
  Y,
  YEAR_BUILT,
  ZIP
} from "./comps-index.js"
import { characteristics, type MarketRegressions } from "./hedonic.js"
import { timeEffect } from "./market-index.js"
import type { ModelOptions } from "./options.js"
import { weightedQuantiles } from "./quantiles.js"
import { type OwnSales, recentResaleSaleDay } from "./resale-premium.js"
import {
  type Basis,
  groupOf,
  type LogPrediction,
  type NoValue,
  type Subject,
  TYPE_CODE,
  typeRelation
} from "./types.js"

/** What a valuation reads of the fitted model. */
export type CompsState = {
  index: CompsIndex
  regressions: MarketRegressions
  ownSales: OwnSales
  /** recent-resale premium (log) per "market|group|basis" */
  resalePremium: ReadonlyMap<string, number>
}

/** The log-scale valuation and the comps behind it (parallel arrays, in the order they were found). */
export type CompsEstimate = LogPrediction & {
  /** the day number of the subject's own sale that makes it a recent resale (`recentResaleSaleDay`) */
  resaleDay: number | undefined
  bucket: CompsBucket
  /** each comp's position in the bucket, adjusted log value and kernel weight */
  positions: Array<number>
  adjustedLogValues: Array<number>
  weights: Array<number>
  /** each comp's kernel terms of the property alone (type, class, size, lot, age): 1 for one alike in each */
  likenesses: Array<number>
  /** the market index at the valuation date (the subject's basis; a sale's: `saleMarketIndex`) */
  subjectMarketIndex: number
}

/** A ZIP code read as a number (`95814`, `3065`) for the walk out from a subject's. */
const NUMERIC_ZIP = /^\d{1,9}$/

/**
 * A bucket's sales by neighbourhood and by ZIP code (the index's ids), and all of them, each list newest first;
 * the numeric ZIP codes in order with their sales.
 */
type Locality = {
  readonly byNeighborhood: ReadonlyMap<number, Int32Array>
  readonly byZip: ReadonlyMap<number, Int32Array>
  readonly newestFirst: Int32Array
  readonly numericZips: ReadonlyArray<readonly [number, Int32Array]>
}
/** Built on a bucket's first search without block or coordinates, kept beside it (never serialized). */
const localities = new WeakMap<CompsBucket, Locality>()
const localityOf = (bucket: CompsBucket): Locality => {
  const known = localities.get(bucket)
  if (known !== undefined) return known
  const records = bucket.candidates
  const newestFirst = Int32Array.from(bucket.sales.keys())
    .sort((a, b) => records[b * CANDIDATE_FIELDS + DAY] - records[a * CANDIDATE_FIELDS + DAY])
  const listsBy = (field: number) => {
    const lists = new Map<number, Array<number>>()
    for (const i of newestFirst) {
      const id = records[i * CANDIDATE_FIELDS + field]
      const list = lists.get(id)
      if (list === undefined) lists.set(id, [i])
      else list.push(i)
    }
    return new Map([...lists].map(([id, list]) => [id, Int32Array.from(list)] as const))
  }
  const byZip = listsBy(ZIP)
  const numericZips = [...byZip.values()]
    .flatMap((sales) => {
      const zip = bucket.sales[sales[0]!]!.zip
      return NUMERIC_ZIP.test(zip) ? [[Number(zip), sales] as const] : []
    })
    .sort((a, b) => a[0] - b[0])
  const locality = { byNeighborhood: listsBy(NEIGHBORHOOD), byZip, newestFirst, numericZips }
  localities.set(bucket, locality)
  return locality
}

/** The position in `sales` (newest first) of the first sale dated before `day` (binary search). */
const firstBefore = (records: Float64Array, sales: Int32Array, day: number): number => {
  let lo = 0, hi = sales.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (records[sales[mid]! * CANDIDATE_FIELDS + DAY] >= day) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The numeric ZIP codes (in order) with their sales, nearest `from` first (the lower of two equally near). */
function* zipsOutwardFrom(
  numericZips: ReadonlyArray<readonly [number, Int32Array]>,
  from: number
): Generator<readonly [number, Int32Array]> {
  let right = 0
  while (right < numericZips.length && numericZips[right]![0] < from) right++
  let left = right - 1
  while (left >= 0 || right < numericZips.length) {
    const below = left >= 0 ? from - numericZips[left]![0] : Infinity
    const above = right < numericZips.length ? numericZips[right]![0] - from : Infinity
    yield below <= above ? numericZips[left--]! : numericZips[right++]!
  }
}

/** The fewest comps among which one is judged against the others (`localFence`). */
const LOCAL_FENCE_MIN_COMPS = 5

/**
 * Tukey fences on the comps' adjusted log values (weighted quartiles of those at or above `floor` weight,
 * `iqrMultiple` interquartile ranges out, the range at least `minimumIqr`): none below LOCAL_FENCE_MIN_COMPS.
 */
const localFence = (
  values: ReadonlyArray<number>,
  weights: ReadonlyArray<number>,
  floor: number,
  fence: { readonly iqrMultiple: number; readonly minimumIqr: number }
): readonly [number, number] => {
  const keptValues: Array<number> = [], keptWeights: Array<number> = []
  for (let k = 0; k < values.length; k++) {
    if (weights[k]! >= floor) {
      keptValues.push(values[k]!)
      keptWeights.push(weights[k]!)
    }
  }
  if (keptValues.length < LOCAL_FENCE_MIN_COMPS) return [Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]
  const [q25, q75] = weightedQuantiles(keptValues, keptWeights, [0.25, 0.75]) as [number, number]
  const reach = fence.iqrMultiple * Math.max(q75 - q25, fence.minimumIqr)
  return [q25 - reach, q75 + reach]
}

/**
 * Candidate search, kernel weights, adjusted comp values, centre and log-scale of the subject as of `asOf`,
 * with the market's `options`.
 */
export function estimateFromComps(
  state: CompsState,
  options: ModelOptions,
  subject: Subject,
  asOf: string
): CompsEstimate | NoValue {
  const group = groupOf(subject.propertyType)
  const key = `${subject.market}|${group}`
  const bucket = state.index.buckets.get(key)
  if (!bucket) return { reason: `no comparable sales indexed for ${key}` }
  const basis: Basis = subject.livingArea && state.regressions.sqft.has(key) ? "sqft" : "price"
  const useArea = basis === "sqft"
  const hedonic = state.regressions[basis].get(key)
  if (!hedonic) return { reason: `no market model for ${key}` }
  const condoPrice = group === "condo" && !useArea
  // A condominium's own building first (its tax block's narrow kernel, its lots and unit line; its spot where
  // the market has coordinates), on either basis: with a living area the block kernel was a house's, 80 blocks
  // wide, and `209 W 14th St Apt 10A`'s five units of its size in its building and the next, sold at $3.40–3.54M,
  // were outweighed by 140 sales of the neighbourhood (band middle $2.39M: an agent's audit, 2026-11-28).
  const condoBuilding = group === "condo"

  const subjectCharacteristics = characteristics(hedonic, subject, useArea)
  const subjectMarketIndex = timeEffect(hedonic, monthIndex(asOf))
  const asOfMonth = monthNumber(asOf)
  const asOfDay = dayNumber(asOf)
  const subjectNeighborhood = state.index.neighborhoodIds.get(`${subject.market}|${subject.neighborhood}`) ?? -1
  const subjectNeighborhoodEffect = hedonic.nbhdEffect.get(subject.neighborhood) ?? 0
  const neighborhoodEffects = state.index.neighborhoodEffects.get(hedonic)!
  const subjectZip = state.index.zipIds.get(subject.zip) ?? -1
  const subjectLogArea = subject.livingArea ? Math.log(subject.livingArea) : NaN
  const subjectLogLot = subject.lotSize ? Math.log(subject.lotSize) : NaN
  const subjectType = TYPE_CODE[subject.propertyType]
  const subjectLot = subject.lot ?? Number(subject.parcelKey.split("-").pop())
  const unit = condoBuilding ? parseUnit(subject.unit) : undefined
  const subjectLine = unit
    ? state.index.unitLineIds.get(`${subject.market}|${subject.block}|${unit.line}`) ?? -2
    : -2
  // Ids, never found among the sales when the index does not know the subject's (an id is never negative).
  const subjectParcel = state.index.parcelIds.get(subject.parcelKey) ?? -1
  const subjectClass = subject.buildingClass ? state.index.buildingClassIds.get(subject.buildingClass) ?? -1 : -1
  const blockBandwidth = condoBuilding ? options.condoBlockBandwidth : options.blockBandwidth
  const records = bucket.candidates
  const characteristicsField = useArea ? CHARACTERISTICS_SQFT : CHARACTERISTICS_PRICE
  const marketIndexField = useArea ? MARKET_INDEX_SQFT : MARKET_INDEX_PRICE
  const [sameTypeWeight, closeTypeWeight, otherTypeWeight] = options.typeSimilarity

  const adjustedLogValues: Array<number> = [], weights: Array<number> = [], positions: Array<number> = []
  const likenesses: Array<number> = []
  let maxWeight = 0
  /** Weighs candidate i at location weight `locationWeight`; `sameSpot` = same tax block (or building). */
  const consider = (i: number, locationWeight: number, sameSpot: boolean) => {
    const r = i * CANDIDATE_FIELDS
    if (records[r + DAY] >= asOfDay || (useArea && Number.isNaN(records[r + LOG_AREA]))) return
    if (records[r + PARCEL] === subjectParcel) return

    // kernel weight: where the comp is (location, neighbourhood, ZIP; a condo's building and unit line), what
    // it is (its likeness: type, class, size, lot, age) and when it sold
    let where = locationWeight
    if (condoBuilding && sameSpot) {
      // (Lot numbers only where the market records them: a Melbourne id's number is no lot.)
      if (subject.lot !== undefined && records[r + LOT] > 0) {
        where *= Math.exp(-Math.abs(records[r + LOT] - subjectLot) / options.condoLotBandwidth)
      }
      if (records[r + UNIT_LINE] === subjectLine) where *= 1 + options.condoSameLineBonus
    }
    const neighborhood = records[r + NEIGHBORHOOD]
    const sameNeighborhood = neighborhood === subjectNeighborhood
    if (!sameNeighborhood) where *= options.otherNeighborhoodFactor
    if (records[r + ZIP] !== subjectZip) where *= options.otherZipFactor
    const relation = typeRelation(subjectType, records[r + TYPE])
    let likeness = relation === 0 ? sameTypeWeight : relation === 1 ? closeTypeWeight : otherTypeWeight
    if (relation === 0 && subject.buildingClass && records[r + BUILDING_CLASS] !== subjectClass) {
      likeness *= options.classMismatchFactor
    }
    if (useArea) {
      const z = (records[r + LOG_AREA] - subjectLogArea) / options.areaBandwidth
      likeness *= Math.exp(-0.5 * z * z)
    }
    const logLot = records[r + LOG_LOT]
    if (group === "house" && !Number.isNaN(subjectLogLot) && !Number.isNaN(logLot)) {
      const z = (logLot - subjectLogLot) / options.lotBandwidth
      likeness *= Math.exp(-0.5 * z * z)
    }
    const yearBuilt = records[r + YEAR_BUILT]
    if (subject.yearBuilt !== undefined && !Number.isNaN(yearBuilt)) {
      likeness *= Math.exp(-Math.abs(yearBuilt - subject.yearBuilt) / options.yearBandwidth)
    }
    const weight = where * likeness * Math.exp(-Math.abs(asOfMonth - records[r + MONTH]) / options.recencyBandwidth)
    if (!(weight > 0)) return

    // adjusted log value: characteristics, market index, (part of) the neighbourhood effect
    let adjusted = records[r + LOG_PRICE] + (subjectCharacteristics - records[r + characteristicsField]) +
      (subjectMarketIndex - records[r + marketIndexField])
    if (!sameNeighborhood && options.neighborhoodAdjustment && !Number.isNaN(neighborhoodEffects[neighborhood])) {
      adjusted += options.neighborhoodAdjustment * (subjectNeighborhoodEffect - neighborhoodEffects[neighborhood])
    }
    adjustedLogValues.push(adjusted)
    weights.push(weight)
    likenesses.push(likeness)
    positions.push(i)
    if (weight > maxWeight) maxWeight = weight
  }

  const grid = bucket.grid
  if (grid && subject.latitude !== undefined && subject.longitude !== undefined) {
    // candidates: rings of grid cells around the subject, nearest first, up to maxMiles
    const position = toMiles(subject.latitude, subject.longitude, bucket.milesPerDegreeLongitude)
    const column = Math.floor(position.x / GRID_MILES), row = Math.floor(position.y / GRID_MILES)
    const maxRing = Math.ceil(options.maxMiles / GRID_MILES)
    for (let ring = 0; ring <= maxRing && adjustedLogValues.length < options.maxCandidates; ring++) {
      for (let dx = -ring; dx <= ring; dx++) {
        for (let dy = -ring; dy <= ring; dy++) {
          if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue
          const cell = grid.get(cellKey(column + dx, row + dy))
          if (!cell) continue
          for (const i of cell) {
            const miles = Math.hypot(
              records[i * CANDIDATE_FIELDS + X] - position.x,
              records[i * CANDIDATE_FIELDS + Y] - position.y
            )
            if (miles <= options.maxMiles) consider(i, Math.exp(-miles / options.mileBandwidth), miles < 0.01)
          }
        }
      }
    }
  } else if (subject.block === 0) {
    // No tax block (the generic files have none) and no coordinates (a market without them, or a subject without
    // them): the subject's neighbourhood, then its ZIP code, then the other ZIP codes outward from its number as
    // the block walk goes outward (a code's number standing for the block: nearby codes are mostly nearby
    // places), then the rest of the market at the weight of the farthest block; the newest sales of each first.
    // A walk from block 0 took the market's oldest sales (a generality audit, 2026-11-30: Melbourne without
    // coordinates, comps alone 13.1% → 22.6% MdAPE; 16.5% with this search).
    const locality = localityOf(bucket)
    // The lists in the order searched, each with its location weight: drawn as the search goes, which mostly
    // ends in the first lists.
    function* tiers(): Generator<readonly [Int32Array | undefined, number]> {
      if (subject.neighborhood !== "") yield [locality.byNeighborhood.get(subjectNeighborhood), 1]
      if (subject.zip !== "") yield [locality.byZip.get(subjectZip), 1]
      if (NUMERIC_ZIP.test(subject.zip)) {
        const zipNumber = Number(subject.zip)
        for (const [number, sales] of zipsOutwardFrom(locality.numericZips, zipNumber)) {
          const distance = Math.abs(number - zipNumber)
          if (distance > options.maxBlockDistance) break
          yield [sales, Math.exp(-distance / options.blockBandwidth)]
        }
      }
      yield [locality.newestFirst, Math.exp(-options.maxBlockDistance / options.blockBandwidth)]
    }
    const seen = new Set<number>()
    let scanned = 0
    search: for (const [sales, locationWeight] of tiers()) {
      if (sales === undefined) continue
      // From the newest sale before the valuation date: the later ones are no comps, and counted they ended the
      // search (a review: valued as of an earlier date, as calibration does, a busy ZIP code found none).
      for (let k = firstBefore(records, sales, asOfDay); k < sales.length; k++) {
        if (adjustedLogValues.length >= options.maxCandidates || scanned >= 4 * options.maxCandidates) break search
        const i = sales[k]!
        if (seen.has(i)) continue
        seen.add(i)
        scanned++
        consider(i, locationWeight, false)
      }
    }
  } else {
    // candidates: expand outward from the subject's block (binary search), nearest blocks first
    const n = bucket.block.length
    let lo = 0, hi = n
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (bucket.block[mid] < subject.block) lo = mid + 1
      else hi = mid
    }
    let left = lo - 1, right = lo, scanned = 0
    while (adjustedLogValues.length < options.maxCandidates && scanned++ < 4 * options.maxCandidates) {
      const leftDistance = left >= 0 ? subject.block - bucket.block[left] : Infinity
      const rightDistance = right < n ? bucket.block[right] - subject.block : Infinity
      const blockDistance = Math.min(leftDistance, rightDistance)
      if (blockDistance > options.maxBlockDistance) break
      const i = leftDistance <= rightDistance ? left-- : right++
      consider(i, Math.exp(-blockDistance / blockBandwidth), blockDistance === 0)
    }
  }
  if (adjustedLogValues.length === 0) return { reason: "no comparable sales nearby" }
  // drop negligible weights and, among at least LOCAL_FENCE_MIN_COMPS comps, adjusted values far outside the
  // others' (a sale at a price no neighbour's explains: a distress or family sale the neighbourhood's own
  // fences let through), in place
  const priorScale = state.regressions.priorScale[basis]
  const [low, high] = localFence(adjustedLogValues, weights, maxWeight * options.relativeWeightFloor, {
    iqrMultiple: options.localFenceIqr,
    minimumIqr: 1.349 * priorScale
  })
  let kept = 0
  for (let k = 0; k < adjustedLogValues.length; k++) {
    const value = adjustedLogValues[k]!
    if (weights[k] >= maxWeight * options.relativeWeightFloor && value >= low && value <= high) {
      adjustedLogValues[kept] = adjustedLogValues[k]
      weights[kept] = weights[k]
      likenesses[kept] = likenesses[k]
      positions[kept] = positions[k]
      kept++
    }
  }
  adjustedLogValues.length =
    weights.length =
    likenesses.length =
    positions.length =
      kept
  let sumWeights = 0, sumSquaredWeights = 0
  for (const weight of weights) {
    sumWeights += weight
    sumSquaredWeights += weight * weight
  }
  const ess = (sumWeights * sumWeights) / sumSquaredWeights

  // centre: weighted median of adjusted comps, blended with the hedonic prediction by ESS
  const [q25, q50, q75] = weightedQuantiles(adjustedLogValues, weights, [0.25, 0.5, 0.75])
  const hedonicPrediction = hedonic.intercept + subjectNeighborhoodEffect + subjectCharacteristics +
    subjectMarketIndex
  const hedonicPseudoCount = condoPrice ? options.condoPriceHedonicPseudoCount : options.hedonicPseudoCount
  const resaleDay = recentResaleSaleDay(state.ownSales, subject.parcelKey, asOfDay, options, subject.yearBuilt)
  const premium = resaleDay === undefined ? 0 : state.resalePremium.get(`${key}|${basis}`) ?? 0
  const center = (ess * q50 + hedonicPseudoCount * hedonicPrediction) / (ess + hedonicPseudoCount) + premium
  // scale: weighted IQR of adjusted comps, shrunk to the market prior, inflated for the centre's own uncertainty
  const localScale = (q75 - q25) / 1.349
  const variance = (ess * localScale * localScale + options.scalePseudoCount * priorScale * priorScale) /
    (ess + options.scalePseudoCount)
  const scale = Math.sqrt(variance * (1 + 1 / (ess + hedonicPseudoCount)))
  return {
    center,
    scale,
    ess,
    basis,
    resale: resaleDay !== undefined,
    resaleDay,
    premium,
    bucket,
    positions,
    adjustedLogValues,
    weights,
    likenesses,
    subjectMarketIndex
  }
}
