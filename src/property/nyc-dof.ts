/**
 * NYC Department of Finance annual and rolling sales files: one row a recorded sale. Header cells broken
 * across lines, thousands separators, a currency prefix on some prices, $0 and nominal transfers (kept in
 * the chain of title, never arm's length), rows repeated between files (one sale by its source key), the
 * borough-block-lot parcel key, the building class as the property type, gross square feet as the living
 * area (zero is none).
 */
import { parse } from "csv-parse/sync"
import type { PropertyType } from "../../schema/overrides.js"
import { normalizeAddress } from "./address.js"
import {
  NOMINAL_PRICE_LIMIT,
  otherKindReason,
  type ParcelRecord,
  type ParsedFile,
  type SaleRecord,
  SPLIT_DEEDS_REASON,
  type UnscoredAddress,
  withKind,
  withSnapshotFacts
} from "./records.js"
import { truncatedStreetType, withNumberInFigures } from "./street-address.js"

const boroughs: Record<string, { readonly market: string; readonly city: string }> = {
  "1": { market: "Manhattan", city: "NEW YORK" },
  "2": { market: "Bronx", city: "BRONX" },
  "3": { market: "Brooklyn", city: "BROOKLYN" },
  "4": { market: "Queens", city: "QUEENS" },
  "5": { market: "Staten Island", city: "STATEN ISLAND" }
}

/** Building class → property type; classes outside the six types are not scored. */
export const propertyTypeOfBuildingClass = (buildingClass: string): PropertyType | undefined => {
  const code = buildingClass.trim().toUpperCase()
  if (code === "A4" || code === "A5") return "townhouse"
  if (/^A[0-9]$/.test(code)) return "single_family"
  if (/^B[0-9]$/.test(code)) return "two_family"
  if (code === "C0") return "three_family"
  // Residential condominium units; R5, R7 and R8 are commercial units, R9 co-ops, RG/RP/RS parking and storage, RR
  // a condominium's rental apartments billed as one lot (tax class 2, `11 SPECIAL CONDO BILLING LOTS`: `345 E 56th
  // St Apt 16E` found its building's 72,456 sq ft billing lot and was valued at $114M, an address audit, 2026-11-29).
  if (["R1", "R2", "R3", "R4", "R6"].includes(code)) return "condo"
  return undefined
}

/**
 * What a building class the service does not value is, in words, for a refused address (the Department of
 * Finance's building class codes; the class itself is named too).
 */
export const describeBuildingClass = (buildingClass: string): string => {
  const code = buildingClass.trim().toUpperCase()
  const words = ["C6", "C8", "D0", "D4"].includes(code)
    ? "a co-op apartment building"
    : code === "R9"
    ? "a co-op unit in a condominium"
    : ["R5", "R7", "R8", "RK", "RB", "RH", "RW", "RA", "RI", "RC"].includes(code)
    ? "a commercial condominium unit"
    : ["RG", "RP", "RS", "RT"].includes(code)
    ? "a condominium's parking, storage or terrace unit"
    : code === "RR"
    ? "a condominium's rental apartments, billed together as one lot"
    : {
      C: "a walk-up apartment building",
      D: "an elevator apartment building",
      S: "a house or small building with a shop or office",
      K: "a store building",
      O: "an office building",
      L: "a loft building",
      E: "a warehouse",
      F: "a factory",
      G: "a garage",
      H: "a hotel",
      V: "vacant land",
      M: "a religious building",
      W: "a school",
      I: "a health-care building",
      P: "a place of public assembly",
      Q: "a recreation property",
      N: "an asylum or home",
      J: "a theatre"
    }[code[0] ?? ""] ?? "a property of a class not valued"
  return code === "" ? words : `${words} (building class ${code})`
}

/**
 * A bungalow colony (building class A8, on cooperatively owned land): many houses on one tax lot, each sold
 * under its own address (`12 MAGNOLIA PLACE, 12`, the house number repeated as an apartment). Each house is
 * its own parcel, named by the lot and its street line: as one parcel, a Throgs Neck lot mixed 28 houses'
 * deeds into one chain of title (a user's audit, 2026-11-24).
 */
const BUNGALOW_COLONY = "A8"

/** A condominium's rental apartments billed as one lot: not valued (`propertyTypeOfBuildingClass`). */
const CONDO_BILLING_LOT = "RR"

const buildingClassOf = (row: Record<string, string>) =>
  (row["BUILDING CLASS AT TIME OF SALE"] ?? column(row, "BUILDING CLASS AS OF") ?? "").trim()

/** The tax lot's key (`borough-block-lot`) and the parcel a row's sale is of: the lot, or a colony's house. */
/** A row's ZIP code, where it records one. */
const zipOf = (row: Record<string, string>) => {
  const zip = (row["ZIP CODE"] ?? "").trim()
  return /^\d{5}$/.test(zip) && zip !== "00000" ? zip : ""
}

/**
 * Parcels recorded at one price on one day that are one deed whatever lies between them: a portfolio. Two or
 * three houses of a neighbourhood may meet at one price on one day by chance (below); four or more do not, and
 * several neighbourhoods of a borough each recording four or more at one price on one day are one deed over all
 * of them (an investor's audit, 2026-11-29: `162 Vernon Ave`, one of 26 parcels of Bedford-Stuyvesant and Ocean
 * Hill in three ZIP codes sold for $14,187,500 on 2019-12-20, was said to have sold with 9 other parcels, its ZIP
 * code's part of its neighbourhood's 19). On the 2018–2019 files 14 neighbourhood groups of four or more lay in
 * several ZIP codes and blocks, at prices such as $9,631,964 over 16 Harlem parcels, and one such deed spanned two
 * neighbourhoods.
 */
const PORTFOLIO_PARCELS = 4

/**
 * The parcels of one deed, among those a neighbourhood recorded at one price on one day: all of them, unless
 * they lie on several blocks in several ZIP codes, where only those of the row's ZIP code are. Two houses of
 * one neighbourhood sold the same day at a house's price, blocks and ZIP codes apart, are two sales that met,
 * not one deed (an investor's audit, 2026-11-28: `113-02 203rd St` and `111-73 180th St`, Queens, 11412 and
 * 11433, $510,000 each, were one $510,000 package and neither house's market sale; 153 such pairs on the 2018–2019
 * files, against 1,975 packages on one block), or the same parcels are on another deed together, or they are a
 * portfolio (`PORTFOLIO_PARCELS`).
 */
const oneDeed = (
  parcels: ReadonlyMap<string, DeedParcel> | undefined,
  zip: string,
  setsOfParcels: ReadonlyMap<string, number>,
  price: number,
  middleOfPeers: (peers: string) => MiddlePrices | undefined
): ReadonlySet<string> | undefined => {
  if (parcels === undefined) return undefined
  const zips = new Set([...parcels.values()].map((parcel) => parcel.zip).filter((z) => z !== ""))
  const blocks = new Set([...parcels.values()].map((parcel) => parcel.block))
  // (Unless the same parcels change hands together on another day too: `960 E 218th St` and `959 E 223rd St`,
  // Bronx, three deeds of the two on the same days, $60,000, $10,500 and $150,000.)
  const together = (setsOfParcels.get([...parcels.keys()].sort().join(" ")) ?? 0) >= 2
  if (!together && separateSales(parcels, price, middleOfPeers)) return undefined
  // Houses on several blocks (two or three: four or more are a portfolio) whose price fits each one's size
  // against its neighbourhood's houses sold on their own, and fits it better than the price split between them,
  // are each its own sale. On one block they stay one deed: a house and its neighbour or side lot sold together
  // is common there, and a price that fits one fits two (`peersOf`).
  if (
    !together && blocks.size >= 2 && parcels.size < PORTFOLIO_PARCELS &&
    separateSales(housesAmong(parcels), price, middleOfPeers)
  ) return undefined
  if (zips.size < 2 || blocks.size < 2 || zip === "" || together || parcels.size >= PORTFOLIO_PARCELS) {
    return new Set(parcels.keys())
  }
  return new Set([...parcels].filter(([, parcel]) => parcel.zip === zip).map(([key]) => key))
}

/** The parcels as houses weighed against their neighbourhood's houses (`DeedParcel.houses`). */
const housesAmong = (parcels: ReadonlyMap<string, DeedParcel>): ReadonlyMap<string, DeedParcel> =>
  new Map([...parcels].map(([key, parcel]) => [key, { ...parcel, peers: parcel.houses }]))

/** A parcel of a deed's group: where it lies, its recorded living area, and the sales it is weighed against. */
interface DeedParcel {
  readonly zip: string
  readonly block: string
  readonly area: number | undefined
  /** A house's: its neighbourhood's houses sold on their own (`housesAmong`); "" for any other property. */
  readonly houses: string
  /**
   * The sales its price is weighed against (`peersOf`): a condominium unit's, its block's units sold on their
   * own; "" for any other property.
   */
  readonly peers: string
}

/** The middle price, and price a square foot, of a group of sales (one parcel a deed each). */
interface MiddlePrices {
  readonly price: number | undefined
  readonly perFoot: number | undefined
}

/** How many sales of one parcel a deed a block's units need for a middle price. */
const MIN_PEER_SALES = 3

/**
 * Condominium units of one block sold the same day at one price, each sold on its own at it, not one deed over
 * them: the price, a square foot of each where every one has a recorded area (else the price itself), is within a
 * factor of two of the middle of the block's units sold on their own (`peersOf`), and nearer it than that price
 * split between them is. Like units of a tower selling at one price on one day happens; a package over them
 * prices them together (an agent's audit, 2026-11-29: `250 E 54th St` units 20B and 20E, 376 and 391 sq ft,
 * $590,000 each, its unit 10B sold alone for $582,000, were one package and neither unit's market sale).
 */
const separateSales = (
  parcels: ReadonlyMap<string, DeedParcel>,
  price: number,
  middleOfPeers: (peers: string) => MiddlePrices | undefined
) => {
  const all = [...parcels.values()]
  const peers = all[0]?.peers ?? ""
  if (all.length < 2 || peers === "" || !all.every((parcel) => parcel.peers === peers)) return false
  const middle = middleOfPeers(peers)
  // How far (log) each one's price, alone or split, lies from its peers' middle, on the average.
  const distance = (share: number) => {
    if (middle?.perFoot !== undefined && all.every((parcel) => parcel.area !== undefined)) {
      return all.reduce((sum, parcel) => sum + Math.abs(Math.log(share / parcel.area! / middle.perFoot!)), 0) /
        all.length
    }
    return middle?.price === undefined ? undefined : Math.abs(Math.log(share / middle.price))
  }
  const alone = distance(price)
  const split = distance(price / all.length)
  // (A price far from its peers' either way is no evidence of either reading: a package, as before.)
  return alone !== undefined && split !== undefined && alone <= Math.log(MAX_UNIT_PRICE_RATIO) && alone < split
}

/**
 * Condominium units bought together for one price recorded on one of them, the other recorded at $0 the same day
 * (an apartment combination): the price a square foot of the priced unit alone lies further from its block's
 * units sold on their own than the price over both units' areas does, which is within a factor of two of it.
 * Read as its own sale, `250 E 54th St Apt 33A`'s $3.85M for 1,300 sq ft (with 33D's 1,647 sq ft at $0: $1,306
 * a square foot over both, its tower's middle) was a market sale and the first comparable of its neighbour 27A,
 * valued 49% above its own sale (an agent's audit, 2026-11-29).
 */
const combinedWith = (
  priced: { readonly area: number | undefined; readonly price: number },
  partner: { readonly area: number | undefined },
  middle: MiddlePrices | undefined
) => {
  if (priced.area === undefined || partner.area === undefined || middle?.perFoot === undefined) return false
  const alone = Math.abs(Math.log(priced.price / priced.area / middle.perFoot))
  const combined = Math.abs(Math.log(priced.price / (priced.area + partner.area) / middle.perFoot))
  return combined <= Math.log(MAX_UNIT_PRICE_RATIO) && combined < alone
}

/**
 * The sales a property's price is weighed against (`DeedParcel.peers`): a condominium unit's block's units. Not a
 * house's on one block: measured on the 2018-2019 files, a neighbourhood's houses sold alone could not tell a
 * developer's new houses sold at one price (`22 Edgeview Ln, Staten Island`) from two houses on one deed at the
 * price of one (`525 Logan St` and `669 Jerome St`, $850,000 on one day, bought for $440,000 and $410,000): both
 * fit it. Houses on several blocks are weighed so (`housesAmong`): two houses of one ZIP code sold the same day
 * at one price, each at about its own worth, were one deed (a valuation audit, 2026-11-30: `107-57 113th St`
 * and `105-28 134th St`, Richmond Hill, $585,000 each).
 */
const peersOf = (row: Record<string, string>) =>
  propertyTypeOfBuildingClass(buildingClassOf(row)) === "condo"
    ? `condo|${(row["BOROUGH"] ?? "").trim()}-${(row["BLOCK"] ?? "").trim()}`
    : ""

/** A house's neighbourhood's houses (`DeedParcel.houses`); "" for any other property. */
const housePeersOf = (row: Record<string, string>) => {
  const type = propertyTypeOfBuildingClass(buildingClassOf(row))
  return type === undefined || type === "condo" ? "" : `house|${neighborhoodPeers(row)}`
}

/** The wider peers of a condominium unit's block: its neighbourhood's units (`middleOfPeers`). */
const neighborhoodPeers = (row: Record<string, string>) =>
  `${(row["BOROUGH"] ?? "").trim()}|${(row["NEIGHBORHOOD"] ?? "").trim()}`

/** How far from its block's middle a unit's own price may lie for the price to be read as its own. */
const MAX_UNIT_PRICE_RATIO = 2

const parcelKeysOf = (row: Record<string, string>) => {
  const number = (name: string) => Number((row[name] ?? "").trim())
  const lot = `${(row["BOROUGH"] ?? "").trim()}-${number("BLOCK")}-${number("LOT")}`
  if (buildingClassOf(row).toUpperCase() !== BUNGALOW_COLONY) return { lot, parcel: lot }
  const street = normalizeAddress((row["ADDRESS"] ?? "").trim()).street
  return { lot, parcel: `${lot}-${street.replace(/[^A-Z0-9]+/g, "-")}` }
}

/** How many characters of a street (after its house number) the files keep: `FORT HAMILTON PARKWA`. */
const STREET_FIELD_WIDTH = 20

/** What identifies a row's sale across files and re-imports (`SaleRecord.sourceKey`). */
const saleSourceKey = (parcelId: string, apartment: string, saleDate: string, price: number) =>
  `nyc-dof:${parcelId}:${apartment}:${saleDate}:${price}`

/** Street types the NYC files misspell, and their spelling. */
const MISSPELT_TYPES: ReadonlyMap<string, string> = new Map([["STRET", "STREET"], ["AVUNUE", "AVENUE"]])

/**
 * A street the files cut at their field width, its type cut short (`4701 FORT HAMILTON PARKWA`, `122-30
 * SPRINGFIELD BOULEVAR`: about 500 rows), with that type in full: no typing of the street found such a house,
 * and the refusal suggested its neighbours as if the number were the mistake (seen, 2026-11-25). The type is
 * written as its abbreviation (`PKWY`); a word no one type begins, or one the USPS spellings read already
 * (`AVENU`, `BOULEV`), is left as it is. The files' `BL` and their misspelt types (`MISSPELT_TYPES`) are the
 * types they stand for, whatever the line's length.
 */
export const withTypeCompleted = (address: string): string => {
  const [line = "", ...rest] = address.split(",")
  const parts = /^(\S*\d\S*)\s+(.+?)\s*$/.exec(line)
  if (parts === null) return address
  const words = parts[2]!.split(/\s+/)
  // The files' `BL` is a boulevard (`FREDRICK DOUGLASS BL`, `FATHER CAPODANNO BL`: 58 rows), which the USPS
  // spellings read as a bluff (`2131 FREDRICK DOUGLASS BLF`, shown so in answers: an address audit, 2026-11-29).
  if (words.length >= 2 && words.at(-1) === "BL") {
    return [`${parts[1]} ${[...words.slice(0, -1), "BLVD"].join(" ")}`, ...rest].join(",")
  }
  // Misspelt types the files record as a house's latest address (`836 EAST 49TH STRET`: 16 rows; `AVUNUE`: 8),
  // read as part of the street's name: the house was refused as people type it (an address audit, 2026-11-29).
  const misspelt = MISSPELT_TYPES.get(words.at(-1)!)
  if (words.length >= 2 && misspelt !== undefined) {
    return [`${parts[1]} ${[...words.slice(0, -1), misspelt].join(" ")}`, ...rest].join(",")
  }
  if (parts[2]!.length < STREET_FIELD_WIDTH) return address
  const type = truncatedStreetType(words.at(-1)!)
  if (type === undefined) return address
  return [`${parts[1]} ${[...words.slice(0, -1), type].join(" ")}`, ...rest].join(",")
}

const header = (cell: string) => cell.replace(/\s+/g, " ").trim().toUpperCase()

/** "CA$1,185,000", "$0", "1,650,000", " - " → whole dollars, or undefined. */
export const parseAmount = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const digits = text.replace(/^[A-Z]*\$/i, "").replace(/[,\s]/g, "")
  if (digits === "" || digits === "-") return undefined
  const value = Number(digits)
  return Number.isFinite(value) ? Math.round(value) : undefined
}

/** "3/19/18" or "3/19/2018" → "2018-03-19". */
export const parseUsDate = (text: string | undefined): string | undefined => {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/.exec((text ?? "").trim())
  if (!match) return undefined
  const [, m, d, y] = match
  const year = y!.length === 2 ? 2000 + Number(y) : Number(y)
  const month = Number(m)
  const day = Number(d)
  const date = new Date(Date.UTC(year, month - 1, day))
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined
  return date.toISOString().slice(0, 10)
}

const positive = (value: number | undefined) => (value !== undefined && value > 0 ? value : undefined)

/** A year built outside 1800 … 2030 is a placeholder, not a year. */
const plausibleYear = (
  year: number | undefined
) => (year !== undefined && year >= 1800 && year <= 2030 ? year : undefined)

const column = (row: Record<string, string>, prefix: string) => {
  const key = Object.keys(row).find((name) => name.startsWith(prefix))
  return key === undefined ? undefined : row[key]
}

export const parseNycDofSales = (file: string, content: Buffer | string): ParsedFile => {
  const rows = parse(content, {
    columns: (cells: Array<string>) => cells.map(header),
    skip_empty_lines: true,
    relax_column_count: true,
    trim: false
  }) as Array<Record<string, string>>
  const parcels = new Map<string, ParcelRecord>()
  const parcelDates = new Map<string, string>()
  const sales = new Map<string, SaleRecord>()
  const unscored = new Map<string, UnscoredAddress>()
  const otherKindSales = new Map<string, SaleRecord>()
  const rejected: Record<string, number> = {}
  let duplicateRows = 0
  const reject = (reason: string) => {
    rejected[reason] = (rejected[reason] ?? 0) + 1
  }
  // Every readable row, in scope or not, tells which deeds covered several parcels.
  const parcelsPerDeed = new Map<string, Map<string, DeedParcel>>()
  const replacedLots = new Set<string>()
  const pricesPerParcelDay = new Map<string, Set<number>>()
  const nominalUnits = new Map<string, Array<{ readonly parcel: string; readonly area: number | undefined }>>()
  // A block's units' wider peers: its neighbourhood's units (`middleOfPeers`).
  const widerPeers = new Map<string, string>()
  const deedKey = (borough: string, neighborhood: string, date: string, price: number) =>
    `${borough}|${neighborhood}|${date}|${price}`
  for (const row of rows) {
    const price = parseAmount(row["SALE PRICE"])
    const saleDate = parseUsDate(row["SALE DATE"])
    if (price === undefined || saleDate === undefined) continue
    const { parcel } = parcelKeysOf(row)
    if (price < NOMINAL_PRICE_LIMIT) {
      // A condominium unit recorded at a nominal price: the other half of a combination, perhaps (`combinedWith`).
      const peers = peersOf(row)
      if (peers.startsWith("condo|")) {
        const key = `${peers}|${saleDate}`
        const area = positive(parseAmount(row["GROSS SQUARE FEET"]))
        nominalUnits.set(key, [...(nominalUnits.get(key) ?? []), { parcel, area }])
      }
      continue
    }
    const peers = peersOf(row)
    if (peers !== "") widerPeers.set(peers, `${peers.slice(0, peers.indexOf("|"))}|${neighborhoodPeers(row)}`)
    const deed = deedKey((row["BOROUGH"] ?? "").trim(), (row["NEIGHBORHOOD"] ?? "").trim(), saleDate, price)
    const parcels = parcelsPerDeed.get(deed) ?? new Map()
    parcelsPerDeed.set(
      deed,
      parcels.set(parcel, {
        zip: zipOf(row),
        block: `${(row["BOROUGH"] ?? "").trim()}-${(row["BLOCK"] ?? "").trim()}`,
        area: positive(parseAmount(row["GROSS SQUARE FEET"])),
        peers,
        houses: housePeersOf(row)
      })
    )
    const day = `${parcel}|${(row["APARTMENT NUMBER"] ?? "").trim().toUpperCase()}|${saleDate}`
    const prices = pricesPerParcelDay.get(day) ?? new Set<number>()
    pricesPerParcelDay.set(day, prices.add(price))
  }
  // A portfolio over several neighbourhoods of the borough (`PORTFOLIO_PARCELS`): each one's deed is all of them.
  const portfolios = new Map<string, Array<string>>()
  for (const [deed, parcels] of parcelsPerDeed) {
    if (parcels.size < PORTFOLIO_PARCELS) continue
    const [borough, , date, price] = deed.split("|")
    const key = `${borough}|${date}|${price}`
    portfolios.set(key, [...(portfolios.get(key) ?? []), deed])
  }
  for (const deeds of portfolios.values()) {
    if (deeds.length < 2) continue
    const all = new Map(deeds.flatMap((deed) => [...parcelsPerDeed.get(deed)!]))
    for (const deed of deeds) parcelsPerDeed.set(deed, all)
  }
  // The middle price, and price a square foot, of each group of peers sold on their own (one parcel a deed), found
  // when asked.
  const salesOfPeers = new Map<string, Array<{ readonly price: number; readonly area: number | undefined }>>()
  for (const [deed, parcels] of parcelsPerDeed) {
    const only = parcels.size === 1 ? [...parcels.values()][0]! : undefined
    if (only === undefined) continue
    const sale = { price: Number(deed.split("|")[3]), area: only.area }
    const keys = only.peers !== "" ? [only.peers, widerPeers.get(only.peers)!] : only.houses !== "" ? [only.houses] : []
    for (const key of keys) {
      const sales = salesOfPeers.get(key)
      if (sales === undefined) salesOfPeers.set(key, [sale])
      else sales.push(sale)
    }
  }
  const middleOf = (values: Array<number>) =>
    values.length < MIN_PEER_SALES ? undefined : values.sort((a, b) => a - b)[values.length >> 1]
  const middles = new Map<string, MiddlePrices | undefined>()
  const perFootOf = (sales: ReadonlyArray<{ readonly price: number; readonly area: number | undefined }>) =>
    middleOf(sales.flatMap((sale) => (sale.area === undefined ? [] : [sale.price / sale.area])))
  const middleOfPeers = (peers: string) => {
    if (!middles.has(peers)) {
      const sales = salesOfPeers.get(peers) ?? []
      // A block with too few units sold alone with an area is weighed by its neighbourhood's price a square foot
      // (`515 E 72nd St Apt 12F`, $2.27M for 736 sq ft with 12G's 687 at $0 the same day, on a block of two such
      // sales, stayed a market sale and a tower neighbour's third comparable: an investor's audit, 2026-11-29);
      // never by its middle price, which a neighbourhood's units of every size do not share.
      const wider = widerPeers.get(peers)
      middles.set(peers, {
        price: middleOf(sales.map((sale) => sale.price)),
        perFoot: perFootOf(sales) ?? (wider === undefined ? undefined : perFootOf(salesOfPeers.get(wider) ?? []))
      })
    }
    return middles.get(peers)
  }
  // Apartment combinations (`combinedWith`): where a block's units had one nominal sale on a day, the one unit sold
  // on its own that day whose price fits both units' areas: its sale is over both (`parcel|date` → the two).
  const combinations = new Map<string, ReadonlyArray<string>>()
  const pricedUnits = new Map<
    string,
    Array<{ readonly parcel: string; readonly price: number; area: number | undefined }>
  >()
  for (const [deed, parcels] of parcelsPerDeed) {
    const [parcel, only] = parcels.size === 1 ? [...parcels][0]! : []
    if (parcel === undefined || only === undefined || !only.peers.startsWith("condo|")) continue
    const [, , date, price] = deed.split("|")
    const key = `${only.peers}|${date}`
    if (!nominalUnits.has(key)) continue
    pricedUnits.set(key, [...(pricedUnits.get(key) ?? []), { parcel, price: Number(price), area: only.area }])
  }
  for (const [key, priced] of pricedUnits) {
    const partners = nominalUnits.get(key) ?? []
    if (partners.length !== 1) continue
    const partner = partners[0]!
    const peers = key.slice(0, key.lastIndexOf("|"))
    const combined = priced.filter((unit) =>
      unit.parcel !== partner.parcel && combinedWith(unit, partner, middleOfPeers(peers))
    )
    if (combined.length !== 1) continue
    combinations.set(`${combined[0]!.parcel}|${key.slice(key.lastIndexOf("|") + 1)}`, [
      combined[0]!.parcel,
      partner.parcel
    ])
  }
  // The same parcels together on several deeds (bought and sold together) are one holding, whatever lies between
  // them: each of those deeds is one.
  const setsOfParcels = new Map<string, number>()
  // (Each deed once: a portfolio's neighbourhoods share one.)
  for (const parcels of new Set(parcelsPerDeed.values())) {
    if (parcels.size < 2) continue
    const key = [...parcels.keys()].sort().join(" ")
    setsOfParcels.set(key, (setsOfParcels.get(key) ?? 0) + 1)
  }
  for (const row of rows) {
    const borough = boroughs[(row["BOROUGH"] ?? "").trim()]
    const block = Number((row["BLOCK"] ?? "").trim())
    const lot = Number((row["LOT"] ?? "").trim())
    const rawAddress = (row["ADDRESS"] ?? "").trim()
    const buildingClass = buildingClassOf(row)
    const price = parseAmount(row["SALE PRICE"])
    const saleDate = parseUsDate(row["SALE DATE"])
    if (!borough) {
      reject("unknown borough")
      continue
    }
    if (!Number.isInteger(block) || block <= 0 || !Number.isInteger(lot) || lot <= 0) {
      reject("missing block or lot")
      continue
    }
    if (rawAddress === "") {
      reject("missing address")
      continue
    }
    if (saleDate === undefined) {
      reject("unreadable sale date")
      continue
    }
    if (price === undefined || price < 0) {
      reject("unreadable sale price")
      continue
    }
    const propertyType = propertyTypeOfBuildingClass(buildingClass)
    // A half number written joined (`531/2 HIGHVIEW AVENUE`, 53½): as the file writes it elsewhere, `53 1/2`
    // (it was stored as 531 2 HIGHVIEW AVE, which no typing finds).
    // And a number written as a word (`ONE IRVING PL`: 6 rows of the files): its figure, else no typing finds the parcel.
    const address = normalizeAddress(
      withTypeCompleted(withNumberInFigures(rawAddress).replace(/^(\d+)-?1\/2(?=\s)/, "$1 1/2"))
    )
    const zip = zipOf(row)
    const neighborhood = (row["NEIGHBORHOOD"] ?? "").trim()
    if (propertyType === undefined) {
      reject("building class is not a scored property type")
      // A billing lot an import before 2026-11-29 stored as a condominium unit: removed (`replaces`).
      if (buildingClass.toUpperCase() === CONDO_BILLING_LOT) replacedLots.add(`nyc-${parcelKeysOf(row).lot}`)
      // Its street is real all the same (`20 NORMA PL`, a walk-up): the address index never corrects it away.
      const other: UnscoredAddress = {
        market: borough.market,
        street: address.street,
        city: borough.city,
        state: "NY",
        zipCode: zip || undefined,
        neighborhood: neighborhood || undefined,
        recordedAs: describeBuildingClass(buildingClass)
      }
      const key = `${other.street}|${other.zipCode ?? ""}|${other.city}`
      unscored.set(key, { ...other, recordedAs: withKind(unscored.get(key)?.recordedAs, other.recordedAs!) })
      // The lot's sale all the same: where the lot is a parcel valued (a house's, sold later as vacant land), its
      // history holds the sale and the engine reads the lot as no longer that house (`otherKindReason`). Not for a
      // row without a class, which says nothing of what the lot is.
      const parcelId = `nyc-${parcelKeysOf(row).parcel}`
      const apartment = (row["APARTMENT NUMBER"] ?? "").trim().toUpperCase()
      if (buildingClass !== "") {
        const sourceKey = saleSourceKey(parcelId, apartment, saleDate, price)
        otherKindSales.set(sourceKey, {
          parcelId,
          saleDate,
          price,
          documentType: "deed",
          armsLength: false,
          notArmsLengthBecause: otherKindReason(describeBuildingClass(buildingClass)),
          sourceKey
        })
      }
      continue
    }
    const apartment = (row["APARTMENT NUMBER"] ?? "").trim().toUpperCase()
    const boroughCode = row["BOROUGH"]!.trim()
    const keys = parcelKeysOf(row)
    const id = `nyc-${keys.parcel}`
    const bungalow = keys.parcel !== keys.lot
    // The lot as one parcel, as imports before 2026-11-24 wrote it: replaced by its houses.
    if (bungalow) replacedLots.add(`nyc-${keys.lot}`)
    const record: ParcelRecord = {
      id,
      market: borough.market,
      street: address.street,
      // As the file spells it, without the apartment some rows carry after a comma.
      recordedAddress: rawAddress.split(",")[0]!.trim().replace(/\s+/g, " "),
      // A unit only for a condominium unit's record: a house's tax lot is the whole house, and the apartment
      // some of its deeds name (`177 LUQUER ST`, a three-family recorded with `3`) made its address ambiguous.
      unit: propertyType === "condo" ? address.unit || apartment : "",
      city: borough.city,
      state: "NY",
      zipCode: zip || undefined,
      neighborhood: neighborhood || undefined,
      block,
      lot,
      buildingClass,
      propertyType,
      livingAreaSquareFeet: positive(parseAmount(row["GROSS SQUARE FEET"])),
      lotSizeSquareFeet: positive(parseAmount(row["LAND SQUARE FEET"])),
      yearBuilt: plausibleYear(parseAmount(row["YEAR BUILT"])),
      synthetic: false,
      source: "nyc-dof"
    }
    // The row of the latest sale is the parcel's record, with the sizes and year an earlier row recorded where
    // it leaves them out (rows are not in date order).
    const before = parcels.get(id)
    const beforeDate = parcelDates.get(id)
    if (before === undefined || beforeDate === undefined || saleDate >= beforeDate) {
      parcels.set(id, withSnapshotFacts(before, record))
      parcelDates.set(id, saleDate)
    } else {
      parcels.set(id, withSnapshotFacts(record, before))
    }
    const sourceKey = saleSourceKey(id, apartment, saleDate, price)
    if (sales.has(sourceKey)) duplicateRows++
    // Arm's length: not nominal, not one deed over several parcels (a package price), and not one of
    // several prices recorded for the same parcel on the same day (split deeds, partial interests).
    const deedParcels = price < NOMINAL_PRICE_LIMIT
      ? undefined
      : oneDeed(
        parcelsPerDeed.get(deedKey(boroughCode, neighborhood, saleDate, price)),
        zip,
        setsOfParcels,
        price,
        middleOfPeers
      )
    const together = combinations.get(`${keys.parcel}|${saleDate}`) ??
      (deedParcels !== undefined && deedParcels.size >= 2 ? [...deedParcels] : undefined)
    const packageParcelIds = together?.map((parcel) => `nyc-${parcel}`).sort()
    const notArmsLengthBecause = price < NOMINAL_PRICE_LIMIT
      ? `nominal price (under $${NOMINAL_PRICE_LIMIT.toLocaleString("en-US")})`
      : packageParcelIds !== undefined
      ? `one deed and price over ${packageParcelIds.length} parcels (a package sale)`
      : (pricesPerParcelDay.get(`${keys.parcel}|${apartment}|${saleDate}`)?.size ?? 0) >= 2
      ? SPLIT_DEEDS_REASON
      : undefined
    sales.set(sourceKey, {
      parcelId: id,
      saleDate,
      price,
      documentType: "deed",
      armsLength: notArmsLengthBecause === undefined,
      notArmsLengthBecause,
      ...(packageParcelIds === undefined ? {} : { packageParcelIds }),
      sourceKey
    })
  }
  return {
    file,
    rowsRead: rows.length,
    parcels: [...parcels.values()],
    sales: [...sales.values()],
    listings: [],
    permits: [],
    duplicateRows,
    rejected,
    replaces: [...replacedLots],
    unscored: [...unscored.values()],
    otherKindSales: [...otherKindSales.values()],
    snapshotFacts: true
  }
}
