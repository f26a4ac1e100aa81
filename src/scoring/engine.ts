/**
 * The local scoring engine: the address index and the pricing model over the imported property data.
 * `score` is pure given the data: match the address, apply the overrides to the county record, check the
 * facts the valuation needs, value the subject as of a date, and rank its comparable sales. A call is valued
 * as of its own date when the property's market has current data, else as of the date the market's recorded
 * sales run through (`valueForCall`, docs/decisions.md "Valuation dates").
 */
import { Either } from "effect"
import { createHash } from "node:crypto"
import { isDeepStrictEqual } from "node:util"
import type { AddressMatch } from "../../schema/address-match.js"
import type { Overrides } from "../../schema/overrides.js"
import {
  AmbiguousAddress,
  MissingValuationFact,
  OutsideCoverage,
  UnknownProperty,
  UnscorableAddress
} from "../../schema/problems.js"
import { formatAddress } from "../property/address-format.js"
import { normalizeAddress } from "../property/address.js"
import { milesBetween, pointOf } from "../property/miles.js"
import { otherKindOf, type ParcelRecord, type SaleRecord, SPLIT_DEEDS_REASON } from "../property/records.js"
import type { PropertyData } from "../services/property-store.js"
import type { ScoringOutcome } from "../valuation/answer.js"
import type { UncountedSale } from "../valuation/cautions.js"
import { type ComparableSale, latestSalePerParcel } from "../valuation/comps.js"
import { amountIn, currencyOfState } from "../valuation/currency.js"
import { addDays, valuationDateFor } from "../valuation/dates.js"
import { type CountyFacts, effectiveFacts, missingValuationFacts, subjectPropertyOf } from "../valuation/facts.js"
import { isFlip, withRepeatRecordsMarked } from "../valuation/history.js"
import { kishEffectiveSampleSize } from "../valuation/weighted.js"
import {
  AddressIndex,
  type AddressIndexData,
  type AddressMatch as IndexMatch,
  notValuedNamed,
  parcelDisplayAddress
} from "./address-index.js"
import {
  DEFAULT_OPTIONS,
  fitModel,
  type FittedComps,
  Model,
  type ModelOptions,
  type PropertyType,
  type Sale as ModelSale,
  type Subject
} from "./model.js"
import {
  defaultStackOptions,
  marketsExpectingLearners,
  type StackData,
  StackedModel,
  type StackOptions
} from "./stack.js"

export const countyFactsOf = (parcel: ParcelRecord): CountyFacts => ({
  bedrooms: parcel.bedrooms,
  bathrooms: parcel.bathrooms,
  partial_bathrooms: parcel.partialBathrooms,
  living_area_square_feet: parcel.livingAreaSquareFeet,
  lot_size_square_feet: parcel.lotSizeSquareFeet,
  year_built: parcel.yearBuilt,
  property_type: parcel.propertyType,
  latitude: parcel.latitude,
  longitude: parcel.longitude,
  neighborhood: parcel.neighborhood,
  zip_code: parcel.zipCode
})

/** A recorded sale as the pricing model reads it, with its parcel's facts; undefined when it cannot be used. */
export const modelSale = (parcel: ParcelRecord, sale: SaleRecord): ModelSale | undefined => {
  if (parcel.propertyType === undefined) return undefined
  return {
    parcelKey: parcel.id,
    market: parcel.market,
    neighborhood: parcel.neighborhood ?? "",
    block: parcel.block ?? 0,
    lot: parcel.lot ?? 0,
    zip: parcel.zipCode ?? "",
    buildingClass: parcel.buildingClass ?? parcel.propertyType,
    propertyType: parcel.propertyType,
    livingArea: parcel.livingAreaSquareFeet,
    lotSize: parcel.lotSizeSquareFeet,
    yearBuilt: parcel.yearBuilt,
    unit: parcel.unit || undefined,
    latitude: parcel.latitude,
    longitude: parcel.longitude,
    bedrooms: parcel.bedrooms,
    bathrooms: parcel.bathrooms,
    price: sale.price,
    date: sale.saleDate,
    armsLength: sale.armsLength,
    ...(sale.packageParcelIds === undefined ? {} : { packageParcels: sale.packageParcelIds.length }),
    ...(sale.notArmsLengthBecause === SPLIT_DEEDS_REASON ? { splitDeeds: true as const } : {}),
    ...(otherKindOf(sale.notArmsLengthBecause) === undefined
      ? {}
      : { otherKind: otherKindOf(sale.notArmsLengthBecause) })
  }
}

/** A parcel found for a call, with how its address matched (none when it was named by its id). */
export interface Located {
  readonly parcel: ParcelRecord
  readonly match?: AddressMatch | undefined
  /** The address named no town, neighbourhood, suburb or ZIP code (the index's `placeLeftOut`). */
  readonly placeLeftOut?: true | undefined
}

/** Whether each parcel's recorded line has a unit of its own, read once per parcel (the line is parsed: ~30 µs). */
const recordedUnits = new WeakMap<ParcelRecord, boolean>()
const recordedLineHasUnit = (parcel: ParcelRecord): boolean => {
  if (parcel.recordedAddress === undefined || parcel.unit === "") return false
  let has = recordedUnits.get(parcel)
  if (has === undefined) recordedUnits.set(parcel, has = normalizeAddress(parcel.recordedAddress).unit !== "")
  return has
}

/** The parcel's address as its record spells it: the recorded street line, unit and locality. */
export const recordedAddress = (parcel: ParcelRecord) =>
  formatAddress({
    street: parcel.recordedAddress ?? parcel.street,
    // (Once: a recorded line with its unit in it, as the generic CSV's `address` may be, is not given it again:
    // `5201 LAGUNA OAKS DR Unit 126 UNIT 126`, an address audit, 2026-11-29.)
    unit: recordedLineHasUnit(parcel) ? "" : parcel.unit,
    city: parcel.city,
    state: parcel.state,
    zip: parcel.zipCode
  })

/** How a typed address matched, for the answer. */
const addressMatch = (sent: string, found: Extract<IndexMatch, { _tag: "Found" }>): AddressMatch => ({
  method: found.method,
  address_sent: sent,
  recorded_address: recordedAddress(found.parcel),
  notes: found.notes.map((note) => ({ ...note }))
})

/** Names in words: `A`, `A and B`, `A, B and C`. */
const listed = (names: ReadonlyArray<string>) =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`

/** The candidates of an `ambiguous-address` refusal that are properties not valued, in words (none: ""). */
const notValuedAmong = ({ notValued }: Extract<IndexMatch, { _tag: "Ambiguous" }>) =>
  notValued === undefined ?
    "" :
    ` Of them, ${notValued.map(notValuedNamed).join("; ")} ${
      notValued.length === 1 ? "is a property" : "are properties"
    } this service does not value: sent, ${notValued.length === 1 ? "it is" : "they are"} refused.`

/** What an `ambiguous-address` refusal tells the caller to send, by why the address named no one property. */
export const ambiguityDetail = (match: Extract<IndexMatch, { _tag: "Ambiguous" }>): string => {
  switch (match.reason) {
    case "unit":
      return `The address names a building with units; send the unit (the candidates list ${
        match.unitsOnRecord !== undefined && match.unitsOnRecord > match.candidates.length
          ? `${match.candidates.length} of the ${match.unitsOnRecord} units on record: ask which is meant`
          : "the units on record"
      }).` +
        (match.unitlessIds === undefined ?
          "" :
          ` The address is also on record without a unit (${
            match.unitlessIds.join(", ")
          }: the building's own lot, or a unit sale whose unit number was not recorded); no address tells ${
            match.unitlessIds.length === 1 ? "that record" : "those records"
          } apart from the units, so ${
            match.unitlessIds.length === 1 ? "it is" : "they are"
          } not scored by address, and ${
            match.unitlessIds.length === 1 ? "its history" : "their histories"
          } can be read by \`property_id\`.`)
    case "directional":
      // One candidate: the one property on record at the number, while another street of the name has houses
      // around it that never sold (`613 77th St, Brooklyn`, where E 77th St runs through the 600s: told to send a
      // direction, its one candidate the street typed; an address audit, 2026-11-29).
      return match.candidates.length === 1
        ? "The address leaves out a direction (such as E or W) that tells streets of this name apart: one of them " +
          "has the one property on record at this number (the candidate), and another has houses around it that " +
          "may be the one meant though it never sold. Send the candidate's address as it is given (with its ZIP " +
          "code) if it is the one meant, else the direction." + notValuedAmong(match)
        : "The address leaves out a direction (such as E or W) that tells streets of this name apart; send it, " +
          "or a candidate's address as it is given (with its ZIP code) if the one meant is on the street without " +
          "one (the candidates are the properties on record at this number)." + notValuedAmong(match)
    case "type":
      return "The address leaves out the street type (such as St, Ave or Ct) that tells streets of this name apart: " +
        `another street of the name has ${
          match.notValued === undefined ? "houses around this number" : "a property at this number"
        }. Send the type (the candidates are the properties on record at this number).` + notValuedAmong(match)
    case "spelling":
      return match.candidates.length === 1
        ? "The street name is not on record and is as close to several streets that are; one of them has this " +
          "number on record (the candidate): send it if it is the one meant."
        : "The street name is not on record and is as close to several streets that are; send the one meant " +
          "(the candidates are the properties on record at this number)."
    case "town": {
      // New York City's towns are its boroughs: `60 W 9th St, NYC` was told it named no town (an address audit).
      const placeWord = match.candidates.every((candidate) => /, NY \d{5}$/.test(candidate)) ? "borough" : "town"
      // The candidates' towns too, where they are several (`1126 Forest Ave, NY`, on record at the number in the
      // Bronx and Staten Island, named only Queens, whose Forest Ave has houses around it: an agent's audit).
      const towns = match.candidateTowns ?? []
      if ((match.otherTowns ?? []).length === 0 && towns.length > 1) {
        return `The address names no ${placeWord} or ZIP code, and the street address is on record in ${
          listed(towns)
        }: send the ${placeWord} or ZIP code (the candidates are the properties on record at this number).` +
          notValuedAmong(match)
      }
      return `The address names no ${placeWord} or ZIP code, and a street of this name is on record in ${
        (match.otherTowns ?? []).join(", ") || "another covered town"
      } too, with houses around this number that may be the one meant: send the ${placeWord} or ZIP code (the ` +
        `${match.candidates.length === 1 ? "candidate is the property" : "candidates are the properties"} on record ` +
        `at this number${towns.length > 1 ? `, in ${listed(towns)}` : ""}).` + notValuedAmong(match)
    }
    case "place":
      return "The town and the ZIP code sent are of different places, and the street address is on record in " +
        "each (the candidates, with their towns and ZIP codes): send the one meant."
    case "several":
      // One candidate: several properties with one and the same address (their ids, where the index gave them).
      return match.candidates.length === 1
        ? `${match.sameAddressIds?.length ?? "Several"} properties are recorded at exactly this address${
          match.sameAddressIds === undefined ? "" : ` (${match.sameAddressIds.join(", ")})`
        }, and no address tells them apart: sent again, in any spelling, it is refused the same way, so it ` +
          "cannot be scored. Their histories can be read by `property_id`."
        : `The address matches ${
          match.candidates.length === 5 ? "five or more" : match.candidates.length
        } properties; send one of the candidates.`
  }
}

/**
 * What a `missing-valuation-fact` says: the facts the record lacks, and which of them an override supplies
 * (every one but the location: coordinates are never overridable, and a neighbourhood is not a fact).
 */
export const missingFactsDetail = (missing: ReadonlyArray<string>): string => {
  const overridable = missing.filter((fact) => fact !== "location")
  const supply = overridable.length === 0
    ? ""
    : `; send ${overridable.length === 1 ? "it" : "them"} in \`overrides\` (${
      overridable.map((fact) => `\`${fact}\``).join(", ")
    }) if known`
  const location = missing.includes("location")
    ? "; the record places the property nowhere the comparable search can use (no coordinates, neighbourhood or ZIP code)" +
      ", which no override can supply"
    : ""
  return `The valuation needs ${missing.join(", ")}, which the property's record lacks${supply}${location}.`
}

export type EngineScoreError = AmbiguousAddress | OutsideCoverage | UnscorableAddress | MissingValuationFact

/** How the engine is built: the sales it may use, and the models' options. */
export interface EngineOptions {
  readonly salesBefore?: string
  readonly model?: Partial<ModelOptions>
  readonly stack?: Partial<StackOptions>
  /**
   * "fit" (the default) fits the learners before the engine is returned; "later" returns the comps model
   * alone, to be joined by `withStack` once the learners are fitted elsewhere (a worker thread).
   */
  readonly learners?: "fit" | "later"
  /**
   * A comps model fitted before (kept between starts): restored instead of fitted when it was fitted on
   * exactly the sales this engine is built on, with the same options; else ignored, and the model fitted.
   */
  readonly kept?: KeptComps | undefined
  /**
   * The digest of the sales the engine is built on (`salesDigest(modelSales(data))`, all of them: no
   * `salesBefore`), where the caller has it (kept with the data); else it is computed.
   */
  readonly salesDigest?: string | undefined
  /**
   * The address index of exactly these parcels (`AddressIndex.toData`, kept with them in the kept data):
   * restored instead of built.
   */
  readonly addressIndex?: AddressIndexData | undefined
}

/** A fitted comps model and the digest of the sales it was fitted on. */
export interface KeptComps {
  readonly salesDigest: string
  readonly comps: FittedComps
}

/** Numbers as JSON writes them, except those it cannot tell apart (NaN, ±Infinity, -0 become null or 0). */
const exactNumbers = (_key: string, value: unknown) =>
  typeof value === "number" && (!Number.isFinite(value) || Object.is(value, -0))
    ? `number:${Object.is(value, -0) ? "-0" : value}`
    : value

/**
 * Identifies the sales exactly: every field of every sale, in order (the order can change the fit). By value
 * (JSON), not by V8's serialization, which writes one number differently by how the engine holds it.
 */
export const salesDigest = (sales: ReadonlyArray<ModelSale>): string =>
  createHash("sha256").update(JSON.stringify(sales, exactNumbers)).digest("hex")

/**
 * The recorded sales the pricing model can use, as it reads them: a repeat record of a sale is not arm's-length
 * (`withRepeatRecordsMarked`), so it is neither trained on nor a comparable nor the property's own last sale.
 */
export const modelSales = (data: PropertyData, salesBefore?: string): Array<ModelSale> => {
  const parcels = new Map(data.parcels.map((parcel) => [parcel.id, parcel]))
  const sales: Array<ModelSale> = []
  for (const sale of withRepeatRecordsMarked(data.sales)) {
    if (salesBefore !== undefined && sale.saleDate >= salesBefore) continue
    const parcel = parcels.get(sale.parcelId)
    const usable = parcel && modelSale(parcel, sale)
    if (usable) sales.push(usable)
  }
  return sales
}

/** The comps model fitted on the sales, as it is kept (on whichever thread). */
export const fitKeptComps = (sales: ReadonlyArray<ModelSale>, options: EngineOptions = {}): KeptComps => ({
  salesDigest: salesDigest(sales),
  comps: fitModel([...sales], options.model ?? {}).fitted()
})

/** The comps model and the stack over it, fitted from the same sales (on whichever thread). */
export const fitStackData = (sales: ReadonlyArray<ModelSale>, options: EngineOptions = {}): StackData => {
  const comps = fitModel([...sales], options.model ?? {})
  return StackedModel.fit(comps, sales, { ...defaultStackOptions, ...options.stack }).toData()
}

/** Markets an outside-coverage refusal names at most. */
const MAX_MARKETS_LISTED = 12

/** One of a parcel's sales recorded as arm's-length with a price, and whether it is a market sale. */
interface OwnSale {
  readonly date: string
  readonly price: number
  /** A market sale (`isMarketSale`); else recorded as arm's-length and fenced out, or a package sale. */
  readonly market: boolean
  /** For a package sale, how many parcels its deed and price covered. */
  readonly packageParcels?: number | undefined
  /** One of several prices recorded for the parcel that day (split deeds or partial interests). */
  readonly splitDeeds?: true | undefined
}

export class ScoringEngine {
  private constructor(
    readonly index: AddressIndex,
    readonly parcels: ReadonlyMap<string, ParcelRecord>,
    readonly model: Model,
    readonly stack: StackedModel,
    private readonly marketDataThrough: ReadonlyMap<string, string>,
    private readonly marketRecordsFrom: ReadonlyMap<string, string>,
    /** The sales the models were fitted on (a worker thread fits the learners on the same). */
    readonly sales: ReadonlyArray<ModelSale>,
    /** True when the comps model is the kept one, restored (`EngineOptions.kept`), not fitted. */
    readonly compsRestored: boolean,
    /** True when the address index is the kept one, restored (`EngineOptions.addressIndex`), not built. */
    readonly addressIndexRestored: boolean,
    private digest: string | undefined
  ) {}

  /**
   * Fits the pricing model on every usable recorded sale (optionally only those before a date), or restores
   * the kept one fitted on the same sales (`EngineOptions.kept`).
   */
  static build(data: PropertyData, options: EngineOptions = {}): ScoringEngine {
    const sales = modelSales(data, options.salesBefore)
    const digest = options.kept &&
      (options.salesBefore === undefined && options.salesDigest !== undefined
        ? options.salesDigest
        : salesDigest(sales))
    const restorable = options.kept !== undefined && options.kept.salesDigest === digest &&
      isDeepStrictEqual(options.kept.comps.options, { ...DEFAULT_OPTIONS, ...options.model })
    // Per market, the latest arm's-length sale with a price the engine is built on: the day its data runs through.
    const dataThrough = new Map<string, string>()
    // And its earliest recorded transfer of any kind: the day its records (a history's chain of title) begin.
    const recordsFrom = new Map<string, string>()
    for (const sale of sales) {
      const earliest = recordsFrom.get(sale.market)
      if (earliest === undefined || sale.date < earliest) recordsFrom.set(sale.market, sale.date)
      if (!sale.armsLength || !(sale.price > 0)) continue
      const latest = dataThrough.get(sale.market)
      if (latest === undefined || sale.date > latest) dataThrough.set(sale.market, sale.date)
    }
    const comps = restorable ? Model.restore(sales, options.kept!.comps) : fitModel(sales, options.model ?? {})
    return new ScoringEngine(
      options.addressIndex !== undefined
        ? AddressIndex.fromData(options.addressIndex)
        : new AddressIndex(data.parcels, data.unscored),
      new Map(data.parcels.map((parcel) => [parcel.id, parcel])),
      comps,
      options.learners === "later"
        ? StackedModel.compsOnly(comps)
        : StackedModel.fit(comps, sales, { ...defaultStackOptions, ...options.stack }),
      dataThrough,
      recordsFrom,
      sales,
      restorable,
      options.addressIndex !== undefined,
      digest
    )
  }

  /**
   * Whether a recorded sale of the parcel is a market sale: arm's-length on the deed and within its
   * neighbourhood's prices (the comps model's fences: a $10,000 deed on a $600,000 house is neither a
   * comparable nor, in a history, a purchase a flip is counted from).
   */
  isMarketSale(parcel: ParcelRecord, sale: SaleRecord): boolean {
    if (!sale.armsLength || !(sale.price > 0)) return false
    const asModelSale = modelSale(parcel, sale)
    return asModelSale === undefined || !this.model.isOutlier(asModelSale)
  }

  /** The comps model as it can be kept, with the digest of its sales. */
  keptComps(): KeptComps {
    this.digest ??= salesDigest(this.sales)
    return { salesDigest: this.digest, comps: this.model.fitted() }
  }

  /** The same engine with the learners fitted elsewhere on its sales (`fitStackData`) joined in. */
  withStack(data: StackData): ScoringEngine {
    return new ScoringEngine(
      this.index,
      this.parcels,
      this.model,
      StackedModel.fromData(this.model, data),
      this.marketDataThrough,
      this.marketRecordsFrom,
      this.sales,
      this.compsRestored,
      this.addressIndexRestored,
      this.digest
    )
  }

  /** The date (YYYY-MM-DD) of the market's latest recorded arm's-length sale; undefined without any. */
  dataThrough(market: string): string | undefined {
    return this.marketDataThrough.get(market)
  }

  /** The date (YYYY-MM-DD) of the market's earliest recorded transfer of any kind; undefined without any. */
  recordsFrom(market: string): string | undefined {
    return this.marketRecordsFrom.get(market)
  }

  private coverage: string | undefined
  private withoutLots: ReadonlySet<string> | undefined
  private learnerMarkets: ReadonlySet<string> | undefined
  private typesSold: ReadonlyMap<string, ReadonlySet<PropertyType>> | undefined
  private ownSalesByParcel: Map<string, ReadonlyArray<OwnSale>> | undefined
  private otherKindSalesByParcel: Map<string, Array<ModelSale>> | undefined

  /**
   * Where the parcel's latest recorded sale on or before `asOf` found it of a kind not valued (a house's lot
   * sold as vacant land: `otherKindReason`), with no sale of the kind valued that day: that sale. The property
   * is no longer the one its earlier records describe.
   */
  otherKindSince(
    parcelId: string,
    asOf: string
  ): { readonly date: string; readonly price: number; readonly kind: string } | undefined {
    if (this.otherKindSalesByParcel === undefined) {
      const withOtherKind = new Set<string>()
      for (const sale of this.sales) if (sale.otherKind !== undefined) withOtherKind.add(sale.parcelKey)
      const byParcel = new Map<string, Array<ModelSale>>()
      for (const sale of this.sales) {
        if (!withOtherKind.has(sale.parcelKey)) continue
        const list = byParcel.get(sale.parcelKey)
        if (list) list.push(sale)
        else byParcel.set(sale.parcelKey, [sale])
      }
      this.otherKindSalesByParcel = byParcel
    }
    const sales = this.otherKindSalesByParcel.get(parcelId)?.filter((sale) => sale.date <= asOf)
    if (sales === undefined || sales.length === 0) return undefined
    const latest = sales.reduce((date, sale) => sale.date > date ? sale.date : date, "")
    const thatDay = sales.filter((sale) => sale.date === latest)
    const other = thatDay.find((sale) => sale.otherKind !== undefined)
    return other === undefined || thatDay.some((sale) => sale.otherKind === undefined)
      ? undefined
      : { date: other.date, price: other.price, kind: other.otherKind! }
  }

  /**
   * The parcel's sales recorded as arm's-length with a price, each marked whether it is a market sale
   * (`isMarketSale`), and its package sales, in date order.
   */
  private ownSales(parcelId: string): ReadonlyArray<OwnSale> {
    if (this.ownSalesByParcel === undefined) {
      const byParcel = new Map<string, Array<OwnSale>>()
      for (const sale of this.sales) {
        if (!(sale.price > 0) || (!sale.armsLength && sale.packageParcels === undefined && !sale.splitDeeds)) continue
        const own: OwnSale = sale.armsLength
          ? { date: sale.date, price: sale.price, market: !this.model.isOutlier(sale) }
          : sale.packageParcels !== undefined
          ? { date: sale.date, price: sale.price, market: false, packageParcels: sale.packageParcels }
          : { date: sale.date, price: sale.price, market: false, splitDeeds: true }
        const list = byParcel.get(sale.parcelKey)
        if (list) list.push(own)
        else byParcel.set(sale.parcelKey, [own])
      }
      // (A market sale recorded again is one sale: its repeat record is not arm's-length here, `modelSales`.)
      for (const list of byParcel.values()) list.sort((a, b) => a.date.localeCompare(b.date))
      this.ownSalesByParcel = byParcel
    }
    return this.ownSalesByParcel.get(parcelId) ?? []
  }

  /**
   * The property's own latest market sale (`isMarketSale`) on or before `asOf`: never a comparable, but what
   * an investor checks the value against first (an agent audit: a house sold for $1.65M nine months before
   * was valued at $974k with nothing in the answer to say so).
   */
  ownLastSale(parcelId: string, asOf: string): { readonly date: string; readonly price: number } | undefined {
    const last = this.ownSales(parcelId).findLast((sale) => sale.market && sale.date <= asOf)
    return last === undefined ? undefined : { date: last.date, price: last.price }
  }

  /**
   * Where the property's own latest market sale was itself a flip's resale (`history.ts`'s rule: a market sale at
   * least 10% above a market purchase at most 365 days before it), that purchase.
   */
  ownSaleFlippedFrom(parcelId: string, asOf: string): { readonly date: string; readonly price: number } | undefined {
    const market = this.ownSales(parcelId).filter((sale) => sale.market && sale.date <= asOf)
    const [bought, sold] = market.slice(-2)
    return bought !== undefined && sold !== undefined && isFlip(bought, sold)
      ? { date: bought.date, price: bought.price }
      : undefined
  }

  /**
   * The property's latest sale on or before `asOf`, when it is later than its latest market sale and not
   * taken for one: recorded as arm's-length but with its price beyond its neighbourhood's fences for its
   * recorded facts, or a package sale (one deed and price over it and other parcels). The answer says so,
   * since no own sale is shown for it (investor audits: a house whose recorded area grew from 512 to 2,668 sq
   * ft between files had its own sales fenced out, unsaid; a house sold with its side lot for $550,000, valued
   * at $425,000 with nothing said).
   */
  ownUncountedSale(parcelId: string, asOf: string): UncountedSale | undefined {
    const own = this.ownSales(parcelId)
    const last = own.findLast((sale) => sale.date <= asOf)
    if (last === undefined || last.market) return undefined
    if (last.splitDeeds) {
      // Every price of that day (`1223 Lamberton Cir, Sacramento`: $155,435 and $155,500 two days before its
      // valuation date, and nothing said: an agent's audit, 2026-11-29).
      const prices = own.filter((sale) => sale.splitDeeds && sale.date === last.date).map((sale) => sale.price)
        .sort((a, b) => a - b)
      return { date: last.date, price: last.price, why: "split", prices }
    }
    return last.packageParcels === undefined
      ? { date: last.date, price: last.price, why: "fenced" }
      : { date: last.date, price: last.price, why: "package", parcels: last.packageParcels }
  }

  /** The property types of the market's recorded market sales (arm's-length, with a price). */
  typesSoldIn(market: string): ReadonlySet<PropertyType> {
    if (this.typesSold === undefined) {
      const types = new Map<string, Set<PropertyType>>()
      for (const sale of this.sales) {
        if (!sale.armsLength || !(sale.price > 0)) continue
        const set = types.get(sale.market) ?? new Set<PropertyType>()
        set.add(sale.propertyType)
        types.set(sale.market, set)
      }
      this.typesSold = types
    }
    return this.typesSold.get(market) ?? new Set()
  }

  /** The markets some recorded sale of which has the room count (`bedrooms` or `bathrooms`). */
  marketsWithRooms(fact: "bedrooms" | "bathrooms"): ReadonlySet<string> {
    let markets = this.withRooms.get(fact)
    if (markets === undefined) {
      markets = new Set(this.sales.filter((sale) => sale[fact] !== undefined).map((sale) => sale.market))
      this.withRooms.set(fact, markets)
    }
    return markets
  }
  private readonly withRooms = new Map<string, ReadonlySet<string>>()

  /** The markets with houses whose records carry no lot size at all (Sacramento's file). */
  marketsWithoutLots(): ReadonlySet<string> {
    if (this.withoutLots === undefined) {
      const housesWithLot = new Map<string, boolean>()
      for (const parcel of this.parcels.values()) {
        if (parcel.propertyType !== undefined && parcel.propertyType !== "condo") {
          housesWithLot.set(
            parcel.market,
            housesWithLot.get(parcel.market) === true || parcel.lotSizeSquareFeet !== undefined
          )
        }
      }
      this.withoutLots = new Set([...housesWithLot].filter(([, withLot]) => !withLot).map(([market]) => market))
    }
    return this.withoutLots
  }

  /**
   * Whether the stack fits a learner for the market (`marketsExpectingLearners`). An engine serving on the comps model alone while its learners are fitted
   * says so in such a market's answers (`ScoringOutcome.learnersPending`).
   */
  learnerExpected(market: string): boolean {
    this.learnerMarkets ??= marketsExpectingLearners(this.sales)
    return this.learnerMarkets.has(market)
  }

  /**
   * The markets covered, for a refusal as outside coverage (an agent told only "outside every covered area"
   * had no way to learn what is covered): each market with its states, how far its records run, and whether
   * its houses' records lack the lot size the valuation needs.
   */
  coveredMarkets(): string {
    if (this.coverage === undefined) {
      const states = new Map<string, Set<string>>()
      for (const parcel of this.parcels.values()) {
        const set = states.get(parcel.market) ?? new Set<string>()
        if (parcel.state) set.add(parcel.state.toUpperCase())
        states.set(parcel.market, set)
      }
      const markets = [...states].sort(([a], [b]) => a.localeCompare(b)).map(([market, inStates]) => {
        const through = this.marketDataThrough.get(market)
        return `${market}${inStates.size > 0 ? ` (${[...inStates].sort().join(", ")})` : ""}${
          through === undefined ? "" : `, records through ${through}`
        }${
          // (Every house there needs the override, which an agent could not learn before its first refusal.)
          this.marketsWithoutLots().has(market)
            ? ", no lot sizes on record (a house there needs the lot_size_square_feet override)"
            : ""}`
      })
      this.coverage = markets.length > MAX_MARKETS_LISTED
        ? `${markets.slice(0, MAX_MARKETS_LISTED).join("; ")}; and ${markets.length - MAX_MARKETS_LISTED} more`
        : markets.join("; ")
    }
    return this.coverage
  }

  /** Finds the one property an address names, and how its address matched. */
  locate(address: string): Either.Either<Located, AmbiguousAddress | OutsideCoverage | UnscorableAddress> {
    const match = this.index.match(address)
    switch (match._tag) {
      case "Found":
        return Either.right({
          parcel: match.parcel,
          match: addressMatch(address, match),
          ...(match.placeLeftOut ? { placeLeftOut: true as const } : {})
        })
      case "Ambiguous":
        return Either.left(new AmbiguousAddress({ detail: ambiguityDetail(match), candidates: match.candidates }))
      case "OutsideCoverage": {
        const covered = this.coveredMarkets()
        return Either.left(
          new OutsideCoverage({
            // (No data at all is no coverage to name: "Covered markets: ." told an operator nothing.)
            detail: covered === ""
              ? "No property data is loaded, so no address can be valued yet: the operator loads it with " +
                "`propscore data demo` or `propscore data import`."
              // The place that put it outside, where one did: a town the records lack may be mistyped beyond the
              // corrections, or truly elsewhere (an agent's audit, 2026-11-29: `2 Maple St, Cedar` said nothing of
              // why, and the agent gave up on a street of the coverage).
              : `The address lies outside every covered area${
                match.place === undefined
                  ? ""
                  : `: ${match.place} is no town, neighbourhood or suburb of the covered markets (if it is mistyped, ` +
                    "send the town as the records spell it, or the ZIP code)"
              }. Covered markets: ${covered}.`
          })
        )
      }
      case "Unknown":
        return Either.left(
          new UnscorableAddress({
            detail: match.hint,
            ...(match.suggestions.length > 0 ? { suggestions: match.suggestions } : {})
          })
        )
    }
  }

  /**
   * Values a property for a call made on `callDate` (YYYY-MM-DD), its facts replaced by the overrides: as of
   * `callDate` when its market's data is current, else as of the day the data runs through. Every sale recorded
   * through the valuation date counts.
   */
  valueForCall(
    located: Located,
    overrides: Overrides | undefined,
    callDate: string
  ): Either.Either<ScoringOutcome, EngineScoreError> {
    const dataThrough = this.dataThrough(located.parcel.market)
    if (dataThrough === undefined) return this.valueParcel(located, overrides, callDate)
    const valuationDate = valuationDateFor(callDate, dataThrough)
    return Either.map(
      this.valueParcel(located, overrides, addDays(valuationDate, 1)),
      (outcome) => ({ ...outcome, dates: { callDate, valuationDate, dataThrough } })
    )
  }

  /**
   * Values a property as of `asOf` (YYYY-MM-DD) from the sales recorded before it, its facts replaced by the
   * overrides (what `evaluate` does for a sale on its own date).
   */
  valueParcel(
    { match, parcel, placeLeftOut }: Located,
    overrides: Overrides | undefined,
    asOf: string
  ): Either.Either<ScoringOutcome, EngineScoreError> {
    const otherKind = this.otherKindSince(parcel.id, asOf)
    if (otherKind !== undefined) {
      return Either.left(
        new UnscorableAddress({
          detail: `The latest record of ${
            parcelDisplayAddress(parcel)
          } (property_id ${parcel.id}), its sale of ${otherKind.date}${
            otherKind.price > 0
              ? ` for ${amountIn(currencyOfState(parcel.state))(otherKind.price)}`
              : ""
          }, is of ${otherKind.kind}: the ${
            parcel.propertyType === "condo" ? "unit" : "building"
          } its earlier records describe may no longer stand as they say, and this service does not value ${
            otherKind.kind.replace(/ \(building class [^)]*\)$/, "")
          }. Its recorded sales are in its history (property_history).`
        })
      )
    }
    const record = countyFactsOf(parcel)
    const facts = effectiveFacts(record, overrides)
    const missing = missingValuationFacts(facts)
    if (missing.length > 0) {
      return Either.left(
        new MissingValuationFact({
          detail: missingFactsDetail(missing),
          missing,
          // Which property was found, so that the caller can confirm it before asking for the facts (an agent's
          // audit, 2026-11-25: a corrected typo's property was known only by its missing living area).
          subject_property: subjectPropertyOf(
            { propertyId: parcel.id, address: parcelDisplayAddress(parcel), record, match },
            overrides
          )
        })
      )
    }
    const subject: Subject = {
      parcelKey: parcel.id,
      market: parcel.market,
      neighborhood: facts.neighborhood ?? "",
      block: parcel.block ?? 0,
      lot: parcel.lot,
      zip: facts.zip_code ?? "",
      propertyType: facts.property_type!,
      buildingClass: overrides?.property_type !== undefined && overrides.property_type !== parcel.propertyType
        ? undefined
        : parcel.buildingClass,
      livingArea: facts.living_area_square_feet,
      lotSize: facts.lot_size_square_feet,
      yearBuilt: facts.year_built,
      unit: parcel.unit || undefined,
      latitude: facts.latitude,
      longitude: facts.longitude,
      bedrooms: facts.bedrooms,
      bathrooms: facts.bathrooms
    }
    const dataThrough = this.dataThrough(parcel.market)
    if (dataThrough === undefined) {
      return Either.left(
        new UnscorableAddress({ detail: "The property could not be valued: its market has no sales." })
      )
    }
    const valuation = this.stack.value(subject, asOf)
    if ("reason" in valuation) {
      return Either.left(new UnscorableAddress({ detail: `The property could not be valued: ${valuation.reason}.` }))
    }
    const subjectPoint = pointOf(facts)
    const comps: Array<ComparableSale> = latestSalePerParcel(valuation.comps.map((comp) => {
      const compParcel = this.parcels.get(comp.sale.parcelKey)!
      const point = pointOf(compParcel)
      return {
        propertyId: compParcel.id,
        address: parcelDisplayAddress(compParcel),
        saleDate: comp.sale.date,
        salePrice: comp.sale.price,
        timeAdjustedPrice: Math.round(comp.timeAdjustedPrice),
        distanceMiles: subjectPoint && point ? milesBetween(subjectPoint, point) : undefined,
        facts: countyFactsOf(compParcel),
        similarity: comp.likeness,
        weight: comp.weight
      }
    }))
    const lastSale = this.ownLastSale(parcel.id, asOf)
    const flippedFrom = this.ownSaleFlippedFrom(parcel.id, asOf)
    const uncountedSale = this.ownUncountedSale(parcel.id, asOf)
    const usualLivingArea = this.stack.usualLivingArea(subject)
    // A type no recorded sale of the market has (a what-if `manufactured` in Melbourne): every comparable and
    // training sale is of another type.
    const typeWithoutSales = this.typesSoldIn(parcel.market).has(subject.propertyType)
      ? undefined
      : subject.propertyType
    // A lot size sent for a house in a market whose records carry none: required by the contract, read by
    // nothing (no comparable sale or training sale has one to set it beside).
    const lotSizeUnused = overrides?.lot_size_square_feet !== undefined && subject.propertyType !== "condo" &&
        this.marketsWithoutLots().has(parcel.market)
      ? overrides.lot_size_square_feet
      : undefined
    // Room counts sent that nothing reads: no recorded sale of the market has that count (NYC's records carry
    // none; an investor's audit, 2026-11-30: 10 bedrooms and 6 bathrooms sent gave the answer of none, labelled
    // caller-stated, unsaid).
    const roomsUnused = ROOM_FACTS.filter((fact) =>
      overrides?.[fact] !== undefined && !this.marketsWithRooms(fact).has(parcel.market)
    )
    return Either.right({
      subject: {
        propertyId: parcel.id,
        address: parcelDisplayAddress(parcel),
        record,
        currency: currencyOfState(parcel.state),
        ...(match === undefined ? {} : { match }),
        ...(placeLeftOut ? { placeLeftOut } : {}),
        ...(lastSale === undefined ? {} : { lastSale }),
        ...(flippedFrom === undefined ? {} : { lastSaleFlippedFrom: flippedFrom }),
        ...(uncountedSale === undefined ? {} : { uncountedSale }),
        ...(usualLivingArea === undefined ? {} : { usualLivingArea }),
        ...(lotSizeUnused === undefined ? {} : { lotSizeUnused }),
        ...(roomsUnused.length === 0 ? {} : { roomsUnused }),
        ...(typeWithoutSales === undefined ? {} : { typeWithoutSales })
      },
      model: {
        quantiles: valuation.quantiles,
        mean: valuation.mean,
        // Over one sale per parcel, as the band and the listed comps are.
        effectiveSampleSize: kishEffectiveSampleSize(comps.map((comp) => comp.weight)),
        ...(valuation.parts?.unusualSize === undefined ? {} : { unusualSize: valuation.parts.unusualSize }),
        ...(valuation.parts?.resalePremium === undefined ? {} : {
          resalePremium: valuation.parts.resalePremium,
          resaleSaleDate: valuation.parts.resaleSaleDate
        }),
        parts: valuation.parts
      },
      comps,
      dates: { callDate: asOf, valuationDate: asOf, dataThrough }
    })
  }

  score(
    address: string,
    overrides: Overrides | undefined,
    asOf: string
  ): Either.Either<ScoringOutcome, EngineScoreError> {
    return Either.flatMap(this.locate(address), (located) => this.valueParcel(located, overrides, asOf))
  }

  parcelById(propertyId: string): Either.Either<ParcelRecord, UnknownProperty> {
    const parcel = this.parcels.get(propertyId)
    if (parcel) return Either.right(parcel)
    // An id copied with spaces around it (an agent's audit, 2026-11-29): said, with the id to send; not taken, since
    // the request is judged and stored (its idempotency key) as sent.
    const trimmed = propertyId.trim()
    return Either.left(
      new UnknownProperty({
        detail: trimmed !== propertyId && this.parcels.has(trimmed)
          ? `No property has the id ${JSON.stringify(propertyId)}: the id was sent with spaces around it; send ` +
            `${JSON.stringify(trimmed)}.`
          : `No property has the id ${propertyId}.`
      })
    )
  }
}

/** The room counts a call may send in `overrides`, in the order an answer names them. */
const ROOM_FACTS = ["bedrooms", "bathrooms"] as const
