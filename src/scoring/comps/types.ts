// The data the comparable-sales model reads and returns: a recorded sale, the subject to value, a valuation
// with its ranked comps. Also the small vocabulary every part of the model shares: property types and their
// codes, the house / condo group, the "sqft" / "price" basis, and the `market|group` key that partitions the
// sales into one regression and one comps index each.

export type PropertyType = "single_family" | "townhouse" | "two_family" | "three_family" | "condo" | "manufactured"

export type Sale = {
  parcelKey: string // borough-block-lot
  market: string // borough name
  neighborhood: string
  block: number
  lot: number
  zip: string
  buildingClass: string
  propertyType: PropertyType
  livingArea?: number | undefined // sq ft
  lotSize?: number | undefined // sq ft
  yearBuilt?: number | undefined
  /** apartment / unit designation (condos), e.g. "5B", "PH2A", "1203" */
  unit?: string | undefined
  /** coordinates, where the data has them: then location is distance in miles rather than tax blocks */
  latitude?: number | undefined
  longitude?: number | undefined
  /** rooms, where the data has them (the learner reads them; the comps do not) */
  bedrooms?: number | undefined
  bathrooms?: number | undefined
  price: number
  date: string // yyyy-mm-dd
  armsLength: boolean
  /** For a package sale (one deed and price over several parcels), how many parcels the price covered. */
  packageParcels?: number | undefined
  /** One of several prices recorded for the parcel on its day (not arm's-length: `SPLIT_DEEDS_REASON`). */
  splitDeeds?: true | undefined
  /** The kind not valued the parcel was recorded as at this sale, in words (not arm's-length: `otherKindReason`). */
  otherKind?: string | undefined
}

export type Subject = {
  parcelKey: string
  market: string
  neighborhood: string
  block: number
  zip: string
  propertyType: PropertyType
  livingArea?: number | undefined
  lotSize?: number | undefined
  yearBuilt?: number | undefined
  /** optional refinements */
  lot?: number | undefined // defaults to the lot part of parcelKey
  buildingClass?: string | undefined
  unit?: string | undefined
  latitude?: number | undefined
  longitude?: number | undefined
  bedrooms?: number | undefined
  bathrooms?: number | undefined
}

export const QUANTILE_LEVELS = ["0.05", "0.1", "0.25", "0.5", "0.75", "0.9", "0.95"] as const
export type QuantileLevel = (typeof QUANTILE_LEVELS)[number]

export type Comp = {
  sale: Sale
  weight: number
  /**
   * How alike the sale's property is to the subject, 0 to 1: the kernel's terms of the property alone (type,
   * building class, living area, lot, year built), not where it is nor when it sold. 1: alike in each.
   */
  likeness: number
  /** comp price adjusted to the subject (size, lot, age, class, location) and to the valuation date */
  adjustedValue: number
  /** the comp's recorded price moved to the valuation date by the market index (nothing else adjusted) */
  timeAdjustedPrice: number
  pricePerSqft?: number | undefined
}

/** "sqft": subject living area known (size-adjusted comps); "price": no living area (condos in the 2019 DOF file) */
export type Basis = "sqft" | "price"

export type Valuation = {
  quantiles: Record<QuantileLevel, number>
  mean: number
  effectiveSampleSize: number // Kish: (Σw)² / Σw² over the comps' weights
  comps: Array<Comp> // sorted by weight, descending
  basis: Basis
  /** the comps' centre and scale on the log scale (the quantiles are exp(center + scale·z)) */
  center: number
  scale: number
  /** the recent-resale premium (log) in `center`, where the subject is a recent resale and its premium is not 0 */
  resalePremium?: number
  /** The subject's own sale the premium keys on (ISO date), beside `resalePremium` */
  resaleSaleDate?: string
}
export type NoValue = { reason: string }

/** A valuation on the log scale only: what calibration and the stack read. */
export type LogPrediction = {
  center: number
  scale: number
  ess: number
  basis: Basis
  /** the subject's own parcel resold recently, and the premium that moved the centre for it (0 when not) */
  resale: boolean
  premium: number
}

/** Property types as ordered codes (the learner reads them too). */
export const TYPE_CODE: Record<PropertyType, number> = {
  single_family: 0,
  townhouse: 1,
  two_family: 2,
  three_family: 3,
  condo: 4,
  manufactured: 5
}

/** Of two type codes: 0 same, 1 close (single<->townhouse, two<->three, manufactured<->one-family), 2 other */
export function typeRelation(a: number, b: number): 0 | 1 | 2 {
  if (a === b) return 0
  const lo = Math.min(a, b), hi = Math.max(a, b)
  if ((lo === 0 && hi === 1) || (lo === 2 && hi === 3) || (lo <= 1 && hi === 5)) return 1
  return 2
}

/** Houses and condos are never comps for each other, and each has its own regression. */
export type PropertyGroup = "house" | "condo"
export const groupOf = (propertyType: PropertyType): PropertyGroup => (propertyType === "condo" ? "condo" : "house")

/** The key of one regression and one comps index: `market|group`. */
export const marketGroupKey = (market: string, propertyType: PropertyType): string =>
  `${market}|${groupOf(propertyType)}`

/** Sales partitioned by `market|group`, in their order of appearance. */
export function salesByMarketGroup(sales: Array<Sale>): Map<string, Array<Sale>> {
  const byKey = new Map<string, Array<Sale>>()
  for (const sale of sales) {
    const key = marketGroupKey(sale.market, sale.propertyType)
    let group = byKey.get(key)
    if (!group) byKey.set(key, group = [])
    group.push(sale)
  }
  return byKey
}
