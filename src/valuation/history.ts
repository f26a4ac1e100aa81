/**
 * A property's recorded story (CONTRACT.md "History answer"): the chain of title in recorded order (each
 * transfer that is not a market sale with why), the flips in it (a resale within 365 days of a purchase at 10%
 * or more above it), the listing state and the recorded permit work.
 */
import type { HistoryAnswer } from "../../schema/history.js"
import { formatAddress } from "../property/address-format.js"
import { NOMINAL_PRICE_LIMIT, type ParcelRecord, type SaleRecord } from "../property/records.js"
import type { PropertyHistoryRecords } from "../services/property-store.js"
import { currencyOfState } from "./currency.js"
import { daysBetween } from "./dates.js"
import { atLeastShareOf } from "./policy.js"

export const FLIP_WINDOW_DAYS = 365
export const FLIP_MIN_GAIN = 0.1
/**
 * A market sale at the price of the parcel's market sale at most this many days before it is that sale
 * recorded again, not a second sale (Melbourne's file lists a sale scraped twice a week apart, and the NYC
 * files a deed recorded again: 16 of each).
 */
export const REPEAT_RECORD_DAYS = 31

/** A market sale is `earlier` recorded again: at its price, at most REPEAT_RECORD_DAYS after it. */
export const isRepeatRecord = (
  earlier: { readonly date: string; readonly price: number },
  later: { readonly date: string; readonly price: number }
) => earlier.price === later.price && daysBetween(earlier.date, later.date) <= REPEAT_RECORD_DAYS

/** Why a repeat record is not a sale of its own: the sale it records again, and how long after. */
export const repeatRecordReason = (earlier: { readonly date: string }, later: { readonly date: string }) =>
  `the price of the market sale of ${earlier.date}, recorded again ${daysBetween(earlier.date, later.date)} days ` +
  "later: a repeat record of that sale, not a second one"

/**
 * The earlier sale (of `kept`, in date order) that `sale` records again (`isRepeatRecord`): the latest at its
 * price within REPEAT_RECORD_DAYS, whatever other deeds lie between (a deed at another price, fenced out or not,
 * does not make the same sale a second one).
 */
export const repeatedSale = <A extends { readonly date: string; readonly price: number }>(
  kept: ReadonlyArray<A>,
  sale: { readonly date: string; readonly price: number }
): A | undefined => kept.findLast((earlier) => isRepeatRecord(earlier, sale))

/**
 * The sales with each repeat record (`repeatedSale` among the parcel's earlier arm's-length sales with a price)
 * marked not arm's-length, with `repeatRecordReason`: one sale recorded twice is neither two training sales, nor
 * two comparables (`36 Belford Rd, Kew East` was listed by its repeat record of a week later: an investor's
 * audit, 2026-11-29), nor two test sales of `evaluate`. The rest are returned as they are, in their order.
 */
export const withRepeatRecordsMarked = (sales: ReadonlyArray<SaleRecord>): ReadonlyArray<SaleRecord> => {
  const priced = (sale: SaleRecord) => sale.armsLength && sale.price > 0
  // Only parcels with two or more such sales can hold a repeat: most have one, and need no sort.
  const byParcel = new Map<string, Array<number> | number>()
  sales.forEach((sale, i) => {
    if (!priced(sale)) return
    const seen = byParcel.get(sale.parcelId)
    if (seen === undefined) byParcel.set(sale.parcelId, i)
    else if (typeof seen === "number") byParcel.set(sale.parcelId, [seen, i])
    else seen.push(i)
  })
  const repeats = new Map<number, string>()
  for (const indices of byParcel.values()) {
    if (typeof indices === "number") continue
    indices.sort((a, b) => sales[a]!.saleDate.localeCompare(sales[b]!.saleDate) || a - b)
    const kept: Array<{ readonly date: string; readonly price: number }> = []
    for (const i of indices) {
      const sale = { date: sales[i]!.saleDate, price: sales[i]!.price }
      const earlier = repeatedSale(kept, sale)
      if (earlier !== undefined) repeats.set(i, repeatRecordReason(earlier, sale))
      else kept.push(sale)
    }
  }
  return repeats.size === 0 ? sales : sales.map((sale, i) => {
    const reason = repeats.get(i)
    return reason === undefined ? sale : { ...sale, armsLength: false, notArmsLengthBecause: reason }
  })
}

/** A resale within FLIP_WINDOW_DAYS of a purchase at FLIP_MIN_GAIN or more above its price (the history's flips). */
export const isFlip = (
  bought: { readonly date: string; readonly price: number },
  sold: { readonly date: string; readonly price: number }
) =>
  daysBetween(bought.date, sold.date) <= FLIP_WINDOW_DAYS && atLeastShareOf(sold.price, bought.price, 1 + FLIP_MIN_GAIN)

export const parcelAddress = (parcel: ParcelRecord) =>
  formatAddress({
    street: parcel.street,
    unit: parcel.unit,
    city: parcel.city,
    state: parcel.state,
    zip: parcel.zipCode
  })

/** Why a transfer is not a market sale, in words: the importer's rule where it recorded one. */
const notMarketReason = (sale: SaleRecord): string =>
  !(sale.price > 0)
    ? "no price recorded (a transfer without consideration)"
    : !sale.armsLength
    ? sale.notArmsLengthBecause ?? "recorded as not arm's-length"
    : "a price far outside its neighbourhood's for its recorded facts (beyond three interquartile ranges)"

/** A package sale's parcels as one key: two deeds over the same parcels have the same key. */
const packageKey = (sale: SaleRecord) => sale.packageParcelIds?.join(" ")

/**
 * `marketSale`: whether a transfer is a market sale (the scoring engine's rule: arm's-length on the deed and
 * within its neighbourhood's prices); by default, arm's-length on the deed with a price.
 */
export const propertyHistory = (
  records: PropertyHistoryRecords,
  recordsThrough?: string,
  marketSale: (sale: SaleRecord) => boolean = (sale) => sale.armsLength && sale.price > 0,
  recordsFrom?: string
): HistoryAnswer => {
  // A repeat record of a market sale is no second sale (`79 New Rd, Oak Park`: two market sales at A$1,071,888
  // a week apart, one sale listed twice; an investor audit, 2026-11-29): not counted, with why.
  const marketSales: Array<{ readonly date: string; readonly price: number }> = []
  const transfers = [...records.sales].sort((a, b) => a.saleDate.localeCompare(b.saleDate)).map((sale) => {
    const market = marketSale(sale)
    const at = { date: sale.saleDate, price: sale.price }
    const repeatOf = market ? repeatedSale(marketSales, at) : undefined
    if (repeatOf !== undefined) return { sale, market: false, reason: repeatRecordReason(repeatOf, at) }
    if (market) marketSales.push(at)
    return { sale, market, reason: undefined }
  })
  // Only market sales say what a buyer paid and a seller got (a $10,000 deed on a house was a flip's purchase),
  // and package sales what a buyer paid for the package: a flip is a market sale resold in a market sale, or a
  // package resold whole (a house and its side lot bought for $295,000 and sold for $550,000 five months later).
  // (A package at a nominal price a parcel is no purchase: `960 East 218th St, Bronx` and another house, $10,500
  // for both, then $150,000 for both, was a flip with a gain of $139,500: an investor's audit, 2026-11-28.)
  const priced = transfers.filter(({ market, sale }) =>
    market ||
    (packageKey(sale) !== undefined && sale.price / (sale.packageParcelIds?.length ?? 1) >= NOMINAL_PRICE_LIMIT)
  ).map(({ sale }) => sale)
  const flips = priced.flatMap((bought, i) => {
    const sold = priced[i + 1]
    if (!sold || packageKey(bought) !== packageKey(sold)) return []
    return isFlip({ date: bought.saleDate, price: bought.price }, { date: sold.saleDate, price: sold.price })
      ? [{
        bought: { date: bought.saleDate, price: bought.price },
        sold: { date: sold.saleDate, price: sold.price },
        holding_days: daysBetween(bought.saleDate, sold.saleDate),
        gross_gain: sold.price - bought.price,
        ...(bought.packageParcelIds === undefined ? {} : { package_property_ids: [...bought.packageParcelIds] })
      }]
      : []
  })
  return {
    property_id: records.parcel.id,
    address: parcelAddress(records.parcel),
    chain_of_title: transfers.map(({ market, reason, sale }) => ({
      recorded_date: sale.saleDate,
      document_type: sale.documentType,
      price: sale.price,
      arms_length: market,
      ...(market ? {} : { not_arms_length_reason: reason ?? notMarketReason(sale) }),
      ...(sale.packageParcelIds === undefined ? {} : { package_property_ids: [...sale.packageParcelIds] }),
      ...(sale.grantor ? { grantor: sale.grantor } : {}),
      ...(sale.grantee ? { grantee: sale.grantee } : {})
    })),
    flips,
    listing: records.listing
      ? {
        status: records.listing.status,
        ...(records.listing.listPrice === undefined ? {} : { list_price: records.listing.listPrice }),
        ...(records.listing.listedDate === undefined ? {} : { listed_date: records.listing.listedDate })
      }
      : { status: "unknown" },
    permits: records.permits.map((permit) => ({
      issued_date: permit.issuedDate,
      permit_type: permit.permitType,
      description: permit.description,
      ...(permit.valuation === undefined ? {} : { valuation: permit.valuation })
    })),
    currency: currencyOfState(records.parcel.state),
    ...(recordsFrom === undefined ? {} : { records_from: recordsFrom }),
    ...(recordsThrough === undefined ? {} : { records_through: recordsThrough })
  }
}
