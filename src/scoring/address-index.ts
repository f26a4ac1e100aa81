/**
 * Address matching over the imported parcels, for addresses as people type them: with or without commas,
 * abbreviations either way, a unit where a house has none, the neighbourhood as the town, a directional on
 * the other side, a typo in the street name. A wrong parcel is worse than a refusal (the caller would pay
 * for someone else's house), so every relaxation has a guard:
 *
 * - a street-name typo is corrected only when exactly one street of the locality is that close (one edit
 *   for names of up to 5 letters, two beyond; never in a name with digits) and the house number exists on
 *   it; several close streets are `Ambiguous`, ranked;
 * - a house number that does not exist on the street is never moved to a neighbour: `Unknown`, with the
 *   nearest numbers that exist as suggestions;
 * - a street type or directional that differs from the record is accepted only when no street of that
 *   spelling exists in the locality; a different directional never;
 * - a unit given for a parcel without units is ignored (and said so); where units exist, the unit decides,
 *   and an address without one is ambiguous (even where one record at it has no unit).
 *
 * The outcome says how the address matched: `exact` (every part given is the record's, in one of its usual
 * spellings; a town or ZIP code left out does not count), `normalized` (a part read another way, taken from
 * the record or ignored: the neighbourhood as the town, a type left out) or `corrected` (a spelling fixed),
 * with the notes.
 */
import { stateCodesMap } from "@sroussey/parse-address/dist/maps/us/states.js"
import { distance } from "fastest-levenshtein"
import { formatAddress } from "../property/address-format.js"
import { milesBetween, type Point, pointOf } from "../property/miles.js"
import { KINDS_APART, type ParcelRecord, type UnscoredAddress } from "../property/records.js"
import {
  DIRECTIONALS,
  HOUSE_NUMBER,
  ORDINALS,
  parseStreetLine,
  PENTHOUSE,
  STREET_TYPE_NAMES,
  STREET_TYPES,
  type StreetParts,
  streetParts,
  takeUnit,
  tokenize,
  UNIT_DESIGNATORS,
  unitKey,
  VALUELESS_DESIGNATORS,
  withNumberInFigures,
  withNumberLetter,
  withoutRemarks
} from "../property/street-address.js"
import { AUSTRALIAN_STATE_CODES } from "../valuation/currency.js"

/** What was done to the address to match it: a part corrected, added from the record, or ignored. */
export type MatchNote =
  | {
    readonly kind: "corrected"
    readonly part: "street_name" | "street_type" | "town"
    readonly sent: string
    readonly used: string
  }
  | {
    readonly kind: "ignored"
    readonly part: "unit" | "directional" | "town" | "street_type" | "remark"
    readonly sent: string
  }
  | {
    readonly kind: "normalized"
    readonly part:
      | "street_name"
      | "street_type"
      | "directional"
      | "town"
      | "zip_code"
      | "house_number"
      | "unit"
      | "street_address"
    readonly sent: string
    readonly used: string
  }

export type MatchMethod = "exact" | "normalized" | "corrected"

export type AddressMatch =
  | {
    readonly _tag: "Found"
    readonly parcel: ParcelRecord
    readonly method: MatchMethod
    readonly notes: ReadonlyArray<MatchNote>
    /**
     * The address named no town, neighbourhood, suburb or ZIP code (a state or a country alone is no place): the
     * property is the only one of the covered markets at the street address, which a property elsewhere may have.
     */
    readonly placeLeftOut?: true
  }
  | {
    readonly _tag: "Ambiguous"
    readonly candidates: ReadonlyArray<string>
    /**
     * Why the address names no one property: a building's units without the unit, a directional left out
     * where streets of the name differ by theirs, a misspelt street name as close to several streets, or
     * several properties (streets, towns or records) alike, no town given for a street of several towns, or a
     * town and a ZIP code of different places, each with the street address on record (`place`).
     */
    readonly reason: AmbiguityReason
    /** For `town`: the other towns whose street of the name has houses on record around the number. */
    readonly otherTowns?: ReadonlyArray<string>
    /** For `town`: the towns of the candidates (the properties on record at the number). */
    readonly candidateTowns?: ReadonlyArray<string>
    /**
     * Where every property matched has one and the same address (several tax lots at one address, sold
     * together: `750 W 232nd St, Bronx`): their ids, since no address can tell them apart.
     */
    readonly sameAddressIds?: ReadonlyArray<string>
    /**
     * A building's units asked for without one, where the address also has a record without a unit (the
     * building's own lot, or a unit sale whose number the records left out): that record's ids. It is not among
     * the candidates, since the address sent back would be refused again (an agent looped on it).
     */
    readonly unitlessIds?: ReadonlyArray<string>
    /**
     * For `unit`, a building asked for without its unit: how many units it has on record, of which the
     * candidates are at most `MAX_CANDIDATES` (five offered of a building's twelve could be taken for all of them).
     */
    readonly unitsOnRecord?: number
    /**
     * Properties not valued on record at this number on a street of the name with another directional or type
     * (first among the candidates): sent, they are refused as not valued.
     */
    readonly notValued?: ReadonlyArray<NotValued>
  }
  | {
    readonly _tag: "OutsideCoverage"
    /** The place the address named that no covered market has (as sent), where that was the reason. */
    readonly place?: string | undefined
  }
  | {
    readonly _tag: "Unknown"
    readonly hint: string
    readonly suggestions: ReadonlyArray<string>
    /**
     * The address sent is on record, but only as properties the service does not value (a co-op, an
     * apartment building, a house with a shop): their recorded addresses. Nothing is suggested in its place.
     */
    readonly notValued?: ReadonlyArray<string>
  }

/** A property on record that is not valued: its address, and what the record says it is, where it says. */
export interface NotValued {
  readonly address: string
  readonly recordedAs?: string | undefined
}

/** A property not valued in words: its address, and what the record says it is. */
export const notValuedNamed = ({ address, recordedAs }: NotValued) => {
  if (recordedAs === undefined) return address
  const kinds = recordedAs.split(KINDS_APART)
  return kinds.length === 1
    ? `${address}, ${kinds[0]}`
    : `${address} (its records: ${kinds.slice(0, -1).join(", ")} and ${kinds.at(-1)})`
}

/**
 * The refusal of an address on record only as properties not valued (`recorded`), `reading` saying how it
 * was read when not as sent, `valuedElsewhere` the valued properties at the number on a street of the name
 * with a directional, which was not sent.
 */
const notValuedHere = (
  recorded: ReadonlyArray<NotValued>,
  reading?: string,
  valuedElsewhere: ReadonlyArray<string> = []
): AddressMatch => {
  const what = recorded.length === 1 && recorded[0]!.recordedAs !== undefined
    ? `${notValuedNamed(recorded[0]!)}, which this service does not value`
    : `${
      recorded.length === 1
        ? notValuedNamed(recorded[0]!)
        : `${recorded.length} addresses (${recorded.map(notValuedNamed).join("; ")})`
    }, but only as ${
      recorded.length === 1 ? "a property" : "properties"
    } this service does not value (an apartment building of four families or more, a co-op, a building with a ` +
      "shop or office, and the like)"
  return {
    _tag: "Unknown",
    hint: `${reading !== undefined ? `Read with ${reading}, this` : "This"} address is on record as ${what}: it ` +
      "cannot be valued in any spelling, and no other property is suggested in its place." + (
        valuedElsewhere.length === 0 ?
          "" :
          ` ${valuedElsewhere.join("; ")} ${
            valuedElsewhere.length === 1 ? "is" : "are"
          } on a street of this name with a direction (such as E or W): send the address with it if that is the ` +
          "property meant."
      ),
    suggestions: [],
    notValued: recorded.map(({ address }) => address)
  }
}

export type AmbiguityReason = "unit" | "directional" | "type" | "spelling" | "several" | "town" | "place"

export const MAX_CANDIDATES = 5

/** The most addresses on streets of a close name a refusal suggests before the street's own nearest numbers. */
const MAX_CLOSE_NAME_SUGGESTIONS = 3

export const parcelDisplayAddress = (parcel: ParcelRecord) =>
  formatAddress({
    street: parcel.street,
    unit: parcel.unit,
    city: parcel.city,
    state: parcel.state,
    zip: parcel.zipCode
  })

/**
 * Words of place names as people abbreviate them (`Staten Is`, `Jackson Hts`, `Kew Gdns`, `Mt Waverley`), in
 * one spelling on both sides: the record's and the address's.
 */
const PLACE_WORDS: ReadonlyMap<string, string> = new Map([
  ["IS", "ISLAND"],
  ["ISL", "ISLAND"],
  ["HTS", "HEIGHTS"],
  ["HGTS", "HEIGHTS"],
  ["GDNS", "GARDENS"],
  ["PK", "PARK"],
  ["BCH", "BEACH"],
  ["VLG", "VILLAGE"],
  ["SPGS", "SPRINGS"],
  ["HLS", "HILLS"],
  ["MT", "MOUNT"],
  ["FT", "FORT"],
  // `Pt` is Port or Point (`83 Evans St, Pt Melbourne` was refused: an address audit, 2026-11-29): the three
  // are one word in a place's name (a Port and a Point of one name would be one place, its addresses told apart
  // by their streets, or refused as ambiguous).
  ["PT", "PT"],
  ["PORT", "PT"],
  ["POINT", "PT"],
  ["STH", "SOUTH"],
  ["NTH", "NORTH"],
  // A directional's letter in a place's name of several words (`W Sacramento`, `N Highlands`, `E Elmhurst`):
  // read as the word, so the place is found whole, and its letter is never left on the street line.
  ["N", "NORTH"],
  ["S", "SOUTH"],
  ["E", "EAST"],
  ["W", "WEST"],
  // `Elk Grv` (an address audit, 2026-11-30: `8424 Merry Hill Way Elk Grv CA` was told to add its town).
  ["GRV", "GROVE"],
  ["MELB", "MELBOURNE"],
  ["SAINT", "ST"]
])

/**
 * Short names of places that abbreviate no word of them, by state, given to that state's parcels of the place
 * (Melbourne has a Brooklyn too): `Bklyn` is Brooklyn, NY only; `Sacto` and `EDH` are Sacramento's and El
 * Dorado Hills' (a carried audit item: `Sacto, CA` was outside coverage).
 */
const PLACE_NICKNAMES: ReadonlyMap<string, ReadonlyMap<string, ReadonlyArray<string>>> = new Map([
  [
    "NY",
    new Map([
      // The boroughs' counties where the county's name is not the borough's (`…, Brooklyn, Kings County, NY` was
      // `outside-coverage`, and `Richmond County, NY` read as Melbourne's Richmond: an address audit, 2026-11-29).
      // And neighbourhoods as people name them that the records do not (each was `outside-coverage`, which tells a
      // caller not to retry, with nothing suggested: a wrong-parcel audit, 2026-11-30, 130 of 242 such typings):
      // read as their borough, whose streets are searched (a street address the borough holds twice is refused as
      // ambiguous, as for the borough sent). Only names no other US place is known by (Eastchester and Yorkville
      // are towns of New York State too, Arlington, Rockaway, Auburndale and Hunters Point other states' places, and
      // an address sent with no state would be read as the borough's), none a street's name without its type
      // (`54 D Edgewater Park`), none spanning several neighbourhoods (`The Rockaways`, read as Queens, took `340 149th
      // St` for Whitestone's 3-40), and none a town's one letter away (Georgetown, NY read as Georgetowne, Malta as
      // Malba: a place is corrected to a known one a letter away; never to a nickname since: a review, 2026-11-30).
      [
        "STATEN ISLAND",
        [
          "SI",
          "RICHMOND COUNTY",
          "RICHMOND CO",
          "WEST BRIGHTON",
          "HEARTLAND VILLAGE",
          "RANDALL MANOR",
          "LIGHTHOUSE HILL",
          "EGBERTVILLE"
        ]
      ],
      [
        "BROOKLYN",
        [
          "BKLYN",
          "BKLN",
          "BK",
          "KINGS COUNTY",
          "KINGS CO",
          "DITMAS PARK",
          "PROSPECT PARK SOUTH",
          "BORO PARK",
          "STUYVESANT HEIGHTS",
          "HOMECREST",
          "DOWNTOWN BROOKLYN",
          "COLUMBIA STREET WATERFRONT",
          "FISKE TERRACE",
          "STARRETT CITY"
        ]
      ],
      [
        "QUEENS",
        [
          "POMONOK",
          "ROCHDALE VILLAGE",
          "DITMARS",
          "ELECTCHESTER",
          "DOUGLASTON MANOR",
          "LEFRAK CITY",
          "QUEENSBORO HILL"
        ]
      ],
      // `The Bronx`, as the borough is spoken of (refused as no place: an address audit, 2026-11-29).
      [
        "BRONX",
        [
          "BX",
          "THE BRONX",
          "SPUYTEN DUYVIL",
          "OLINVILLE",
          "NORTH RIVERDALE"
        ]
      ],
      ["LONG ISLAND CITY", ["LIC"]],
      ["BEDFORD STUYVESANT", ["BED STUY"]],
      // Neighbourhoods as people name them, where the records name them otherwise (each was `outside-coverage`,
      // which tells a caller not to retry, with its state sent: an address audit, 2026-11-29). A street the
      // neighbourhood of the records lacks widens to its borough, as for any neighbourhood.
      ["CLINTON", ["HELLS KITCHEN", "HELL S KITCHEN"]],
      ["DOWNTOWN FULTON FERRY", ["DUMBO"]],
      ["FLATBUSH LEFFERTS GARDEN", ["PROSPECT LEFFERTS GARDENS", "PROSPECT LEFFERTS", "LEFFERTS GARDENS"]],
      ["EAST TREMONT", ["TREMONT"]],
      ["FLUSHING SOUTH", ["KEW GARDENS HILLS"]],
      [
        "NEW YORK",
        [
          "BATTERY PARK CITY",
          "MARBLE HILL",
          "LENOX HILL",
          "CARNEGIE HILL",
          "SPANISH HARLEM",
          "HAMILTON HEIGHTS",
          "NOLITA",
          "HUDSON SQUARE",
          "HUDSON YARDS",
          "STUYVESANT TOWN",
          "TWO BRIDGES",
          "MANHATTANVILLE"
        ]
      ],
      // The post office's town of ZIP code 11693, from Beach 73rd to Beach 109th St (`159 Beach 93rd St,
      // Rockaway Beach, NY 11693` was refused with nothing suggested: an address audit, 2026-11-29).
      ["HAMMELS", ["ROCKAWAY BEACH"]],
      ["ROCKAWAY PARK", ["ROCKAWAY BEACH"]]
    ])
  ],
  ["CA", new Map([["SACRAMENTO", ["SACTO"]], ["EL DORADO HILLS", ["EDH"]], ["WEST SACRAMENTO", ["WEST SAC"]]])]
])
/** New York City's boroughs other than Manhattan, as the NYC records name their towns. */
const OTHER_BOROUGHS: ReadonlySet<string> = new Set(["BRONX", "BROOKLYN", "QUEENS", "STATEN ISLAND"])

/** Countries typed after an address, as words, and their code (the US's states, Australia's). */
const COUNTRIES: ReadonlyArray<readonly [ReadonlyArray<string>, "US" | "AU"]> = [
  ["UNITED STATES OF AMERICA", "US"],
  ["UNITED STATES", "US"],
  ["U S A", "US"],
  ["USA", "US"],
  ["US", "US"],
  ["AUSTRALIA", "AU"],
  ["AUS", "AU"],
  ["AU", "AU"]
].map(([phrase, code]) => [phrase!.split(" "), code as "US" | "AU"] as const)

/** Countries' short codes, words of an address too: a country only after a comma, a ZIP code or a state. */
const SHORT_COUNTRIES: ReadonlySet<string> = new Set(["US", "AU", "AUS"])

/** Whether a parcel's state (or a display address's `, NY 11201` ending) is one of the US. */
const inUsState = (state: string | undefined) => US_STATE_CODES.has(state?.toUpperCase() ?? "")
/** A display address's state: a US state's code and ZIP code, or an Australian state's and postcode. */
const displayState = (address: string) => /, ([A-Z]{2,3})(?: \d{4,5})?$/.exec(address)?.[1]
/** A display address's town: the part before its state and ZIP code (`…, NEW YORK, NY 10003`). */
const displayTown = (address: string) => address.split(", ").at(-2) ?? address
/** A display address's street, read as a street line (its unit left out). */
const displayStreetLine = (address: string) => parseStreetLine(address.split(", ")[0]!.replace(/ UNIT .*$/, ""))
const displayStreet = (address: string) => displayStreetLine(address)?.street

/** An ambiguity's candidates with the properties not valued among them first, and those named as not valued. */
const notValuedFirst = (recorded: ReadonlyArray<UnscoredAt>, candidates: ReadonlyArray<string>) => ({
  candidates: [...new Set([...recorded.map(({ address }) => address), ...candidates])].slice(0, MAX_CANDIDATES),
  notValued: recorded.map(({ address, recordedAs }) => ({ address, recordedAs }))
})

/** The addresses a match names: the house found, or the candidates or suggestions. */
/** The addresses of the properties a match found (found or ambiguous); none for a refusal's suggestions. */
const foundAddressesOf = (match: AddressMatch | undefined): ReadonlyArray<string> =>
  match?._tag === "Found" || match?._tag === "Ambiguous" ? addressesOf(match) : []

const addressesOf = (match: AddressMatch | undefined): ReadonlyArray<string> =>
  match === undefined || match._tag === "OutsideCoverage"
    ? []
    : match._tag === "Found"
    ? [parcelDisplayAddress(match.parcel)]
    : match._tag === "Ambiguous"
    ? match.candidates
    : match.suggestions

/** The short names of a place of the state (`nicknamesOf("NY", "BROOKLYN")`: BKLYN, BKLN). */
const nicknamesOf = (state: string | undefined, place: string): ReadonlyArray<string> =>
  PLACE_NICKNAMES.get(state?.toUpperCase() ?? "")?.get(place) ?? []

const NICKNAMED: ReadonlyMap<string, string> = new Map(
  [...PLACE_NICKNAMES.values()].flatMap((places) =>
    [...places].flatMap(([place, nicknames]) => nicknames.map((nickname) => [nickname, place] as const))
  )
)

/**
 * Place words in their one spelling. A word alone is never read so: `Hts` alone is the street type of
 * `42 Excelsior Hts`, not a place called Heights.
 */
const placePhraseOf = (words: ReadonlyArray<string>) =>
  words.length < 2 ? words.join(" ") : words.map((word) => PLACE_WORDS.get(word) ?? word).join(" ")

/** A locality phrase in one spelling: words of a town, a neighbourhood or a market (`FLUSHING NORTH`). */
const phraseOf = (text: string) =>
  placePhraseOf(tokenize(text.replace(/\([^)]*\)/g, " ").replace(/[-/]/g, " ")).filter((t) => t !== ","))

/**
 * A place whose name ends with a directional, as people also say it (`BALWYN NORTH` is North Balwyn,
 * `WILLIAMSBURG-SOUTH` South Williamsburg); undefined for other names.
 */
const directionalFirst = (phrase: string): string | undefined => {
  const words = phrase.split(" ")
  const last = words.at(-1)!
  return words.length >= 2 && DIRECTIONALS.has(last) && last.length > 1
    ? [last, ...words.slice(0, -1)].join(" ")
    : undefined
}

/**
 * The phrases a neighbourhood is known by: its name (with its directional first too), each of its parts
 * (`BEDFORD PARK/NORWOOD`, `FLUSHING-NORTH`), and a name without a directional word (`FLUSHING`).
 */
const neighbourhoodPhrases = (name: string): Array<string> => {
  const phrases = new Set<string>([phraseOf(name)])
  const swapped = directionalFirst(phraseOf(name))
  if (swapped !== undefined) phrases.add(swapped)
  for (const part of name.replace(/\([^)]*\)/g, " ").split(/[/-]/)) {
    const phrase = phraseOf(part)
    if (phrase === "") continue
    phrases.add(phrase)
    const words = phrase.split(" ")
    // `FLUSHING-NORTH` is a part of Flushing; `EAST NEW YORK` is not New York, nor `EAST ELMHURST` Elmhurst.
    if (words.length >= 2 && DIRECTIONALS.has(words.at(-1)!)) phrases.add(words.slice(0, -1).join(" "))
  }
  // A lone directional (`NORTH` of `FLUSHING-NORTH`) names no place.
  return [...phrases].filter((p) => p !== "" && !DIRECTIONALS.has(p))
}

/** US states and territories by name (`NEW YORK`), from the parser's table, and their two-letter codes. */
const US_STATE_NAMES = new Map(
  Object.entries(stateCodesMap).map(([name, code]) => [name.toUpperCase(), code] as const)
)
const US_STATE_CODES = new Set(US_STATE_NAMES.values())
/** States by name: the US table's and Australia's (`Murrumbeena, Victoria`, as Melbourne's people write it). */
const STATE_NAMES: ReadonlyMap<string, string> = new Map([
  ...US_STATE_NAMES,
  // The older abbreviations people still write (`Calif.`, `Penn.`), without those that are words too (Del.,
  // Ill., Ind., Miss., Wash.).
  ...([
    ["ALA", "AL"],
    ["ARIZ", "AZ"],
    ["ARK", "AR"],
    ["CALIF", "CA"],
    ["CAL", "CA"],
    ["COLO", "CO"],
    ["CONN", "CT"],
    ["FLA", "FL"],
    ["KAN", "KS"],
    ["KANS", "KS"],
    ["MASS", "MA"],
    ["MICH", "MI"],
    ["MINN", "MN"],
    ["MONT", "MT"],
    ["NEB", "NE"],
    ["NEBR", "NE"],
    ["NEV", "NV"],
    ["OKLA", "OK"],
    ["ORE", "OR"],
    ["OREG", "OR"],
    ["PENN", "PA"],
    ["PENNA", "PA"],
    ["TENN", "TN"],
    ["TEX", "TX"],
    ["WIS", "WI"],
    ["WISC", "WI"],
    ["WYO", "WY"]
  ] as const),
  ["VICTORIA", "VIC"],
  // (`Vict` too: `25 Bloomburg St Abbotsford Vict` was outside coverage, which says not to retry: an address
  // audit, 2026-11-29.)
  ["VICT", "VIC"],
  ["NEW SOUTH WALES", "NSW"],
  ["QUEENSLAND", "QLD"],
  ["SOUTH AUSTRALIA", "SA"],
  ["WESTERN AUSTRALIA", "WA"],
  ["TASMANIA", "TAS"],
  ["NORTHERN TERRITORY", "NT"],
  ["AUSTRALIAN CAPITAL TERRITORY", "ACT"]
])

/** A house number as a position along its street: `161-22` as 16122, `12A` as 12; NaN when it has none. */
const houseNumberValue = (number: string) => {
  const hyphenated = HYPHENATED.exec(number)
  return hyphenated !== null ? Number(hyphenated[1]) * 100 + Number(hyphenated[2]) : Number.parseInt(number, 10)
}

/** How far past a street's numbers on record a house may lie (about a block of New York numbering). */
const NUMBER_SPAN_MARGIN = 100

/** Designators that stand for a unit whatever follows them (`Apt C`), where `Fl`, `No` or `Lot` may not. */
const LETTER_UNIT_DESIGNATORS = new Set(["APT", "APARTMENT", "UNIT", "#", "STE", "SUITE"])
/** Words that widen or narrow a place's name to an area of it (`Sacramento County`, `Melbourne CBD`). */
const AREA_WORDS = new Set([
  "COUNTY",
  "CO",
  "CBD",
  "CITY",
  "CENTRAL",
  "DOWNTOWN",
  "METRO",
  "AREA",
  "NORTH",
  "SOUTH",
  "EAST",
  "WEST",
  // Australia's short forms (`Box Hill Nth`: `outside-coverage` until 2026-11-29, sixth session).
  "NTH",
  "STH"
])
/** Words that name a unit only before its house number (`Flat 2, 12 Smith St`, `Villa 3, 72 Charles St`). */
const LEADING_UNIT_WORDS = new Set(["FLAT", "VILLA", "TOWNHOUSE"])
/** How a refusal says it suggests `count` addresses. */
const thoseSuggested = (count: number) => count === 1 ? "that address is suggested" : "those addresses are suggested"

/** How near another town's house must lie to the street's houses here to be on the same street, run on. */
const STREET_RUNS_ON_MILES = 1

/** The lowest and highest house numbers on record of each street, found when first asked. */
const numberRanges = new WeakMap<Street, { readonly low: number; readonly high: number }>()

/**
 * Whether `value` lies within a street's numbers on record, a margin (a block) either side; `fromFirstHouse`:
 * from 1, as a street of another town has its own first houses below its lowest number on record, recorded
 * or not (`5 Sycamore St` beside a Sycamore St on record from 116). A street of the same name with a
 * directional (`Park Ave S`, `Hylan Blvd N`) is often a stretch numbered on from another: there the margin
 * holds below too.
 */
const numbersSpan = (street: Street, value: number, fromFirstHouse = false) =>
  numbersSpanAll([street], value, fromFirstHouse)

/**
 * `numbersSpan` over several streets' numbers together: the index keeps a street once per ZIP code, and a
 * number between two ZIP codes' stretches of one street (`1250 Park Ave, New York`, between 1100 in 10128 and
 * 1400 in 10029) lies within the street's numbers.
 */
const numbersSpanAll = (streets: ReadonlyArray<Street>, value: number, fromFirstHouse = false) => {
  if (Number.isNaN(value)) return true
  let low = Number.POSITIVE_INFINITY
  let high = Number.NEGATIVE_INFINITY
  for (const street of streets) {
    const range = numberRangeOf(street)
    if (range.low < low) low = range.low
    if (range.high > high) high = range.high
  }
  return low !== Number.POSITIVE_INFINITY &&
    (fromFirstHouse || value >= low - NUMBER_SPAN_MARGIN) && value <= high + NUMBER_SPAN_MARGIN
}

const numberRangeOf = (street: Street) => {
  let range = numberRanges.get(street)
  if (range === undefined) {
    let low = Number.POSITIVE_INFINITY
    let high = Number.NEGATIVE_INFINITY
    for (const recorded of street.numbers.keys()) {
      const at = houseNumberValue(recorded)
      if (Number.isNaN(at)) continue
      if (at < low) low = at
      if (at > high) high = at
    }
    range = { low, high }
    numberRanges.set(street, range)
  }
  return range
}

/** The most house numbers a building's ranged number spans (`2444-2446`, `66-72`): wider is no one building. */
const MAX_RANGE_SPAN = 20

/**
 * The last number of a ranged house number, written out (`85-87`: 87; `1373-75`: 1375): on the same side of the
 * street as the first (same parity) and at most MAX_RANGE_SPAN above it; undefined for anything else, such as
 * a Queens-style number in a ZIP code of plain ones (`12-45`, block 12's house 45: an audit of the diff found
 * `45 Cornaga Ave Apt 3` taken for `12-45 CORNAGA AVE`'s unit 3) or a span of a whole block (`1-87`).
 */
const rangeLast = (number: string): string | undefined => {
  const range = /^(\d+)-(\d+)$/.exec(number)
  if (range === null) return undefined
  const [, first, end] = range as unknown as [string, string, string]
  const last = end.length < first.length ? first.slice(0, first.length - end.length) + end : end
  const span = Number(last) - Number(first)
  return span > 0 && span <= MAX_RANGE_SPAN && span % 2 === 0 ? last : undefined
}

/** How far along its own street an earlier line of a parcel may lie (house numbers) and still be the parcel's. */
const NEAR_DOORS = 20

/** A house number's leading figures, its hyphenated parts joined (`35-36` and `2444-2446` as one number); NaN if none. */
const leadingNumber = (number: string) => Number(/^\d+/.exec(number.replace(/^(\d+)-(\d+)/, "$1$2"))?.[0] ?? Number.NaN)

/** How many house numbers apart two numbers of one street are (`leadingNumber`). */
const doorsApart = (a: string, b: string) => {
  const gap = Math.abs(leadingNumber(a) - leadingNumber(b))
  return Number.isNaN(gap) ? Number.POSITIVE_INFINITY : gap
}

/** A ranged number's first and last numbers (`rangeLast`: `1373-75` is 1373 and 1375), where `ranges` says the place writes them; else the number alone. */
const rangeEnds = (number: string, ranges: boolean): ReadonlyArray<string> => {
  const last = ranges ? rangeLast(number) : undefined
  return last === undefined ? [number] : [number.split("-")[0]!, last]
}

/**
 * How many house numbers apart a line's number is from the parcel's (`doorsApart`): ranges (`rangeEnds`), where
 * `ranges` says the place writes them (no Queens-style numbers), by their nearer ends.
 */
const doorsFrom = (number: string, from: string, ranges: boolean) =>
  Math.min(...rangeEnds(number, ranges).flatMap((end) => rangeEnds(from, ranges).map((at) => doorsApart(end, at))))

/** Whether a street's numbers on record are Queens-style (`12-45`: block 12's house 45), not ranges of doors. */
const queensStyleNumbers = (street: Street | undefined): boolean =>
  street !== undefined &&
  [...street.numbers.keys()].some((number) => HYPHENATED.test(number) && rangeLast(number) === undefined)

/**
 * How far apart along a street a number on record and the number sent are (`houseNumberValue`): ranges
 * (`rangeEnds`), where `ranges` says the place writes them, by their nearer ends (`61-63` is next to 61, not
 * after 18: an investor's audit, 2026-11-30, saw `54-56 LUDWIG ST` suggested last).
 */
const numberGap = (number: string, sent: string, ranges: boolean) =>
  Math.min(
    ...rangeEnds(number, ranges).flatMap((end) =>
      rangeEnds(sent, ranges).map((at) => Math.abs(houseNumberValue(end) - houseNumberValue(at)))
    )
  )

/** Whether two house numbers on one street lie on its two sides (one odd, one even: `leadingNumber`). */
const otherSide = (a: string, b: string) => {
  const x = leadingNumber(a)
  const y = leadingNumber(b)
  return !Number.isNaN(x) && !Number.isNaN(y) && x % 2 !== y % 2
}

/** A house number in both Queens forms where it has another (`otherNumberForm`). */
const numberForms = (number: string): Array<string> => {
  const other = otherNumberForm(number)
  return other === undefined ? [number] : [number, other]
}

/** Whether two units' records are of one condominium: one block and one thousand of lot numbers, where recorded. */
const sameCondominium = (a: ParcelRecord, b: ParcelRecord) =>
  a.block === undefined || b.block === undefined || a.lot === undefined || b.lot === undefined ||
  (a.block === b.block && Math.floor(a.lot / 1000) === Math.floor(b.lot / 1000))

/** Manhattan's town as the NYC records name it (its avenues' second names are its own). */
const MANHATTAN = "NEW YORK"

/** A second reading of an address, and what it says of the property it finds. */
interface ReadAgain {
  readonly read: Parsed
  /** The note saying what was read otherwise, or undefined where this reading may not take the property found. */
  readonly noteFor: (found: Extract<AddressMatch, { _tag: "Found" }>) => MatchNote | undefined
  /** What this reading took otherwise, in words (`15T as the unit`). */
  readonly said: string
  /** Only a property found by this reading counts: its refusals, candidates and suggestions are not offered. */
  readonly foundOnly?: boolean
  /** A property this reading finds is only suggested, where this says so of it; nothing else of it is offered. */
  readonly suggestOnly?: (parcel: ParcelRecord) => boolean
  /** Not read so where a street of the name and type sent is in the place sent (another street's house may be it). */
  readonly unlessTypedStreetInPlace?: boolean
  /**
   * Suggested first, before the nearest numbers as sent, even with a place sent (`suggestOnly` readings are
   * otherwise suggested only where the address as sent has nothing to suggest, or names no place).
   */
  readonly suggestFirst?: boolean
}

/**
 * `110 20 215th St`: a Queens number with a space for its hyphen (a numbered street after it). Any street where
 * the ZIP code sent numbers its houses Queens-style (`hyphenatedPlace`); otherwise (no ZIP code sent, or one of
 * plain numbers) any street, if the house found is in such a ZIP code or in the US (`takes`), where two numbers
 * written so name one house (or
 * a building's range: `49 51 Chambers St`): `53 29 Junction Blvd, Queens` was refused with no suggestion (an
 * address audit, 2026-11-30). Not in Australia, where `12 14 Smith St` may be unit 12 of No. 14 and
 * `12-14 SMITH ST` another property.
 */
const queensNumberWithSpace = (
  read: Parsed,
  hyphenatedPlace: boolean,
  takes: (parcel: ParcelRecord) => boolean
): ReadAgain | undefined => {
  const [second, next] = read.streetWords
  if (!/^\d{1,3}$/.test(read.number) || second === undefined || !/^\d{2}$/.test(second)) return undefined
  if (next === undefined) return undefined
  // (`205 27 Murdock Ave, Queens, NY 11412`: refused until 2026-11-29, an address audit.) A ZIP code of plain
  // numbers sent is read as none is: `105 21 Avenue L, Brooklyn NY 11236` (105-21, one of Canarsie's few) was
  // refused with no suggestion where the same address without its ZIP code was found (until 2026-11-30).
  const anyHouse = /^\d/.test(next) || hyphenatedPlace
  const words = read.streetWords.slice(1)
  return {
    read: { ...read, number: `${read.number}-${second}`, streetWords: words, street: streetParts(words) },
    said: `${read.number} ${second} as the house number ${read.number}-${second}`,
    foundOnly: !anyHouse,
    noteFor: (found) =>
      anyHouse || takes(found.parcel)
        ? {
          kind: "normalized",
          part: "house_number",
          sent: `${read.number} ${second}`,
          used: `${read.number}-${second}`
        }
        : undefined
  }
}

/**
 * `4 57 Blyth St, Altona`: Australia's unit and number with a space for the slash (4/57). Only suggested, never
 * taken (`suggestOnly`): No. 4 of a street may be a house that never sold (an address audit, 2026-11-30: it was
 * refused with nothing to send).
 */
const unitBeforeNumberWithSpace = (read: Parsed): ReadAgain | undefined => {
  const [second, ...rest] = read.streetWords
  if (read.unit !== "" || !/^\d+[A-Z]?$/.test(read.number) || second === undefined || !/^\d+[A-Z]?$/.test(second)) {
    return undefined
  }
  if (rest.length === 0 || !/^[A-Z]/.test(rest[0]!)) return undefined
  return {
    read: {
      ...read,
      number: second,
      unit: read.number,
      unitSlashed: true,
      streetWords: rest,
      street: streetParts(rest)
    },
    said: `${read.number} ${second} as unit ${read.number} of No. ${second} (${read.number}/${second})`,
    suggestOnly: (parcel) => !inUsState(parcel.state),
    noteFor: () => undefined
  }
}

/**
 * `250 South Street 22P`, `138 Broadway 5E`, `2730 Schurz Avenue J-4`: a unit after the street with no word for
 * it (a number in it).
 */
const unitWithoutDesignator = (read: Parsed): ReadAgain | undefined => {
  const unit = read.streetWords.at(-1)
  if (read.unit !== "" || read.streetWords.length < 2 || unit === undefined) return undefined
  // A digit in it, or a letter alone that is no directional (`84 Congress St, A`, as the NYC files write a unit:
  // refused with nothing suggested, a wrong-parcel audit of 2026-11-30; `12 Main St N` is North Main St's).
  const letter = /^[A-Z]$/.test(unit) && !DIRECTIONALS.has(unit)
  if (!letter && (!/\d/.test(unit) || !/^[A-Z0-9]{1,4}(?:-[A-Z0-9]{1,3})?$/.test(unit))) return undefined
  const words = read.streetWords.slice(0, -1)
  return {
    read: { ...read, unit, streetWords: words, street: streetParts(words) },
    said: `${unit} as the unit`,
    // Only a property with that unit on record: a house found with the unit ignored could be another road's.
    noteFor: (found) =>
      found.parcel.unit === "" || found.notes.some((note) => note.part === "unit")
        ? undefined
        : { kind: "normalized", part: "unit", sent: unit, used: found.parcel.unit }
  }
}

/**
 * Manhattan's avenues of two names, each name on record (one building's units under both: `655 6th Ave Apt 5H`
 * is recorded as `655 AVENUE OF THE AMER`, and was refused, as was `380 Lenox Ave Apt 7B`, recorded on Malcolm
 * X Blvd: an address audit, 2026-11-29), with the files' spellings of each (cut at their field width too). 7th
 * and 8th Avenues carry the Harlem names only north of Central Park, where their numbers pass 1,700 (below it
 * they run under 1,000): a lower number is never read on the other name.
 */
const CO_NAMED_AVENUES: ReadonlyArray<{ readonly names: ReadonlyArray<StreetParts>; readonly fromNumber: number }> = [
  {
    names: ["6TH AVE", "AVENUE OF THE AMERICAS", "AVENUE OF THE AMERIC", "AVENUE OF THE AMER", "AVENUE OF AMERICAS"],
    fromNumber: 0
  },
  { names: ["LENOX AVE", "MALCOLM X BLVD", "MALCOLM X"], fromNumber: 0 },
  // And Central Park West and South as people write them.
  { names: ["CENTRAL PARK W", "CPW"], fromNumber: 0 },
  { names: ["CENTRAL PARK S", "CPS"], fromNumber: 0 },
  {
    names: [
      "7TH AVE",
      "ADAM CLAYTON POWELL JR BLVD",
      "ADAM CLAYTON POWELL BLVD",
      "ADAM C POWELL BLVD",
      "ADAM CLAYTON POWELL"
    ],
    fromNumber: 1_700
  },
  {
    names: [
      "8TH AVE",
      "FREDERICK DOUGLASS BLVD",
      "FREDRICK DOUGLASS BLVD",
      "FREDERICK DOUGLAS BLVD",
      "FREDERICK DOUGLASS B"
    ],
    fromNumber: 1_700
  }
].map(({ fromNumber, names }) => ({ names: names.map((name) => streetParts(tokenize(name))), fromNumber }))

/** A street's parts as one string for a note (`6 AVE`, `ESPLANADE E`). */
const spelledStreet = (parts: StreetParts) =>
  [parts.name, parts.type, parts.directional].filter((part) => part !== "").join(" ")

const sameStreetParts = (a: StreetParts, b: StreetParts) =>
  a.name === b.name && a.type === b.type && a.directional === b.directional

/** The address read with the avenue's other names (`CO_NAMED_AVENUES`), where it names one; a Manhattan house only. */
const coNamedAvenues = (read: Parsed): ReadonlyArray<ReadAgain> => {
  const avenue = CO_NAMED_AVENUES.find(({ names }) => names.some((name) => sameStreetParts(name, read.street)))
  if (avenue === undefined || houseNumberValue(read.number) < avenue.fromNumber) return []
  return avenue.names.filter((name) => !sameStreetParts(name, read.street)).map((name) => ({
    read: { ...read, street: name, streetWords: spelledStreet(name).split(" ") },
    said: `the avenue's other name, ${spelledStreet(name)}`,
    noteFor: (found) =>
      found.parcel.state?.toUpperCase() === "NY" && found.parcel.city?.toUpperCase() === "NEW YORK"
        ? { kind: "normalized", part: "street_name", sent: spelledStreet(read.street), used: spelledStreet(name) }
        : undefined
  }))
}

/** Whether the address names a place: a town, suburb, neighbourhood or ZIP code (a state alone is none). */
const placeSent = (read: Parsed) => read.locality !== undefined || read.zip !== undefined

/**
 * A directional's letter and its word, where a street is named by the word (South Ave, West St): `DIRECTIONALS`
 * read backwards, for the four one-letter ones.
 */
const DIRECTIONAL_WORDS: ReadonlyMap<string, string> = new Map(
  [...DIRECTIONALS].filter(([word, letter]) => letter.length === 1 && word.length > 1).map(([word, letter]) =>
    [letter, word] as const
  )
)

/**
 * A street named by its type with `The` left off (`67 Parade, Ascot Vale` for 67 The Parade, `88 Esplanade,
 * Maribyrnong`, `21 Boulevard, Ivanhoe`), or its directional put first (`281 East Esplanade` for Esplanade East):
 * refused until 2026-11-29, `88 Esplanade` told that no street of the name is in Maribyrnong (an address audit).
 */
const streetNamedByItsType = (read: Parsed): ReadonlyArray<ReadAgain> => {
  const { directional, name, type } = read.street
  const readings: Array<StreetParts> = []
  // (And The Strand, whose name is no street type: `75 Strand, Newport`, an address audit of 2026-11-30.)
  if (type === "" && directional === "" && !name.includes(" ")) {
    const withThe = streetParts(["THE", name])
    if (withThe.name === "THE" ? withThe.type !== "" : name !== "THE") readings.push(withThe)
  }
  // A type word that is the name's last, the street's own type left off: `4899 Wind Creek, Sacramento` for 4899
  // WIND CREEK DR, told its street was on record only in another ZIP code, with Wind Ct's house suggested (an
  // address audit, 2026-11-30).
  // Not where a street of the name and type sent is in the place: `12 Lake Court` is Lake Ct's, whose house 12
  // may never have sold, not 12 LAKE COURT DR (a review of the change, 2026-11-30).
  const typed = read.streetWords.at(-1)
  const typeWordNamed: StreetParts | undefined =
    type !== "" && directional === "" && typed !== undefined && read.streetWords.length >= 2 &&
      /^[A-Z]+$/.test(typed)
      ? { name: `${name} ${typed}`, type: "", directional: "", directionalAfter: false }
      : undefined
  const [first, ...rest] = read.streetWords
  // An avenue so read is only suggested: `46 South Ave` and `107 S Ave` (Staten Island's South Ave, its house 46
  // vacant land) were found and charged as Brooklyn's Avenue S, and `214 North Ave` as Avenue N (an address audit,
  // 2026-11-30). A directional before a type word names that street (South Ave), and only the Esplanade's and the
  // Parade's kind puts it after; `25 S Ave, Brooklyn` may be Avenue S all the same.
  let letterAvenue: StreetParts | undefined
  if (type !== "" && directional === "" && first !== undefined && DIRECTIONALS.has(first) && rest.length === 1) {
    const after = streetParts([...rest, first])
    if (after.directional !== "" && after.type === "") {
      if (type === "AVE") letterAvenue = after
      else readings.push(after)
    }
  }
  // Brooklyn's other lettered avenues written so too (`10 P Ave` for Avenue P: 1,776 of 1,776 such typings were
  // refused with nothing suggested, an address audit, 2026-11-30): suggested, as Avenue S is.
  if (type === "AVE" && directional === "" && /^[A-Z]$/.test(name) && !DIRECTIONAL_WORDS.has(name)) {
    letterAvenue = streetParts(["AVENUE", name])
  }
  // A directional's letter as the name (`107 S Ave, Staten Island` for South Ave, `250 S St, New York` for South St):
  // refused until 2026-11-30, or taken for Brooklyn's Avenue S (an address audit). The word's street, where the
  // letter's is not on record.
  // (After the avenue's suggestion: `107 S Ave, Brooklyn`, where no South Ave is, is offered Brooklyn's Avenue S.)
  const word = name.length === 1 && directional === "" && type !== "" ? DIRECTIONAL_WORDS.get(name) : undefined
  const namedByWord: StreetParts | undefined = word === undefined
    ? undefined
    : { name: word, type, directional: "", directionalAfter: false }
  return [
    ...readings,
    ...(typeWordNamed === undefined ? [] : [typeWordNamed]),
    ...(letterAvenue === undefined ? [] : [letterAvenue]),
    ...(namedByWord === undefined ? [] : [namedByWord])
  ].map((street) => ({
    read: { ...read, street, streetWords: spelledStreet(street).split(" ") },
    said: `the street as ${spelledStreet(street)}`,
    ...(street === typeWordNamed ? { unlessTypedStreetInPlace: true } : {}),
    // (The letter's word too where no place is sent: `107 S Ave, NY` may be Staten Island's South Ave or Brooklyn's
    // Avenue S, both on record: a review, 2026-11-30. Both are suggested.)
    ...(street === letterAvenue || (street === namedByWord && !placeSent(read)) ? { suggestOnly: () => true } : {}),
    noteFor: () => ({
      kind: "normalized",
      part: "street_name",
      sent: spelledStreet(read.street),
      used: spelledStreet(street)
    })
  }))
}

/**
 * `145 B 149th St, Queens`: the Rockaways' `B` for Beach before a numbered street (BEACH 149 STREET), as people
 * there write it: refused until 2026-11-30, with 149th St's houses in Whitestone suggested (an address check).
 * Only a property found so counts (`foundOnly`): a `B` that is a unit's or a half-number's letter names a house
 * the first reading would have found.
 */
const beachWithItsInitial = (read: Parsed): ReadAgain | undefined => {
  // The B is read as the number's letter (`145B`).
  const number = /^(\d+)B$/.exec(read.number)?.[1]
  const [numbered] = read.streetWords
  if (number === undefined || numbered === undefined || !/^\d+(?:ST|ND|RD|TH)?$/.test(numbered)) return undefined
  if (read.street.directional !== "") return undefined
  const words = ["BEACH", ...read.streetWords]
  const street = streetParts(words)
  return {
    read: { ...read, number, street, streetWords: words },
    said: `the street as ${spelledStreet(street)}`,
    foundOnly: true,
    // With no place sent, only suggested: `425B 44th St` may be Brooklyn's house beside 427 44th St that never sold
    // (a review, 2026-11-30, found it taken for Arverne's 425 Beach 44th St).
    ...(placeSent(read) ? {} : { suggestOnly: () => true }),
    noteFor: () => ({
      kind: "normalized",
      part: "street_name",
      sent: `B ${spelledStreet(read.street)}`,
      used: spelledStreet(street)
    })
  }
}

/** East for west and north for south: the directional of the other side of a divided street. */
const OPPOSITE_DIRECTIONALS: ReadonlyMap<string, string> = new Map([["E", "W"], ["W", "E"], ["N", "S"], ["S", "N"]])

/**
 * `64 E 180th St, Bronx`: the directional mistaken, the number on record on the street's other side (`64 W 180th
 * St`). Only suggested, never taken (`suggestOnly`): the house sent may be one that never sold, and the other side's
 * is someone else's. Suggested first, before the nearest numbers on the side sent (an investor's audit, 2026-12-01:
 * `455` and `648 E 180th St` were offered, not `64 W 180th St`).
 */
const otherDirectional = (read: Parsed): ReadAgain | undefined => {
  const opposite = OPPOSITE_DIRECTIONALS.get(read.street.directional)
  if (opposite === undefined) return undefined
  const at = read.street.directionalAfter ? read.streetWords.length - 1 : 0
  const word = read.streetWords[at]
  if (word === undefined || DIRECTIONALS.get(word) !== read.street.directional) return undefined
  const words = read.streetWords.map((w, i) => i === at ? opposite : w)
  const street = streetParts(words)
  if (street.directional !== opposite || street.name !== read.street.name) return undefined
  return {
    read: { ...read, street, streetWords: words },
    said: `the street as ${spelledStreet(street)}`,
    // Only a house of the other side itself: not one the reading finds with the directional set aside (`60 N 3rd
    // St, Staten Island`, where another place's N 3rd St holds the number, offered Staten Island's plain 3rd St).
    suggestOnly: (parcel) => parseStreetLine(parcel.street)?.street.directional === opposite,
    suggestFirst: true,
    noteFor: () => undefined
  }
}

/**
 * `340 149th St, Neponsit`: a Rockaway Beach street with its Beach left out (340 BEACH 149TH ST). Only suggested,
 * never taken (`suggestOnly`): 149th St is a street of its own elsewhere in Queens, and the place sent may be
 * the mistake (an address audit, 2026-11-30: it was found as Whitestone's 3-40 149th St, then refused with nothing
 * to send).
 */
const beachLeftOut = (read: Parsed): ReadAgain | undefined => {
  if (!/^\d+$/.test(read.street.name) || read.street.directional !== "" || read.streetWords.length === 0) {
    return undefined
  }
  const words = ["BEACH", ...read.streetWords]
  const street = streetParts(words)
  return {
    read: { ...read, street, streetWords: words },
    said: `the street as ${spelledStreet(street)}`,
    suggestOnly: () => true,
    noteFor: () => undefined
  }
}

/** A Queens-style house number: the cross street's number, a hyphen, two digits (`161-22`). */
const HYPHENATED = /^(\d{1,3})-(\d{2})$/

/** The same number in the other Queens form: `16122` for `161-22`, and `161-22` for `16122`. */
const otherNumberForm = (number: string): string | undefined => {
  const hyphenated = HYPHENATED.exec(number)
  if (hyphenated !== null) return `${hyphenated[1]}${hyphenated[2]}`
  return /^\d{3,5}$/.test(number) ? `${number.slice(0, -2)}-${number.slice(-2)}` : undefined
}

/**
 * The ZIP codes where three in five of the house numbers on record (each street's, once) are Queens-style:
 * a street's few records are too few to tell (`85-10` and `8510` are both on record on one).
 */
const hyphenatedZipsOf = (byName: Iterable<ReadonlyArray<Street>>): ReadonlySet<string> => {
  const counts = new Map<string, { all: number; hyphenated: number }>()
  for (const streets of byName) {
    for (const street of streets) {
      if (street.zip === "") continue
      const count = counts.get(street.zip) ?? { all: 0, hyphenated: 0 }
      for (const number of street.numbers.keys()) {
        count.all += 1
        if (HYPHENATED.test(number)) count.hyphenated += 1
      }
      counts.set(street.zip, count)
    }
  }
  return new Set([...counts].filter(([, { all, hyphenated }]) => hyphenated >= 0.6 * all).map(([zip]) => zip))
}

type StreetLine = NonNullable<ReturnType<typeof parseStreetLine>>

/** One street as recorded in one place: its parcels by house number. */
interface Street {
  readonly parts: StreetParts
  readonly zip: string
  readonly numbers: Map<string, Array<ParcelRecord>>
}

/** Where a parcel is: the same object for every parcel of one town, neighbourhood, market and state. */
interface Place {
  /** The locality phrases the parcel is in (its town, neighbourhood, market). */
  readonly localities: ReadonlySet<string>
  /** Those its own record names it by (its town either way round, its neighbourhood's): not its market's. */
  readonly own: ReadonlySet<string>
  /** Its town (its market where the record names none), as places are keyed. */
  readonly town: string
}

interface Indexed extends Place {
  readonly parcel: ParcelRecord
}

/** What a typed address says, read with the index's knowledge of the localities it covers. */
interface Parsed {
  readonly number: string
  readonly street: StreetParts
  /** The street's words as typed (after cleaning), for notes. */
  readonly streetWords: ReadonlyArray<string>
  readonly unit: string
  /** The unit was sent as a floor (`Fl 3`): a unit `3` is it only where no other unit is on that floor. */
  readonly unitIsFloor: boolean
  /** The unit was read from Australia's `unit/number` (`3/72`), the address naming no US place. */
  readonly unitSlashed: boolean
  /** The country typed after the address, if any. */
  readonly country: "US" | "AU" | undefined
  readonly zip: string | undefined
  readonly state: string | undefined
  /** A known locality phrase. */
  readonly locality: string | undefined
  /** The locality as typed, when it was corrected. */
  readonly localityTypo: string | undefined
  /** Words that name a place this index does not know. */
  readonly unknownLocality: string | undefined
  /**
   * The wider place typed after the locality (`Kensington, Brooklyn`): every property found lies in it too, since
   * the locality's name may be another place's elsewhere (Melbourne's Kensington, Chelsea and St Albans).
   */
  readonly within?: string | undefined
  /** What reading the address corrected (a misspelt street type). */
  readonly notes: ReadonlyArray<MatchNote>
}

type Refusal = { readonly _tag: "Refusal"; readonly hint: string }

/** One edit apart: a letter added, dropped or changed, or two neighbouring letters swapped (`RAOD`). */
const oneEditApart = (a: string, b: string) => {
  if (distance(a, b) <= 1) return true
  if (a.length !== b.length) return false
  const differ = [...a].flatMap((letter, i) => (letter === b[i] ? [] : [i]))
  return differ.length === 2 && differ[1] === differ[0]! + 1 && a[differ[0]!] === b[differ[1]!] &&
    a[differ[1]!] === b[differ[0]!]
}

/**
 * Typing mistakes between two names: the edit distance, two neighbouring letters swapped counting as one
 * (`ANDESRON`: ANDERSON as close as ANDERON; `COTLON`: Colton as close as Colon).
 */
const typingEdits = (a: string, b: string) => {
  const plain = distance(a, b)
  return plain === 2 && oneEditApart(a, b) ? 1 : plain
}

/**
 * Two spellings of one name, as the files write some streets both ways: one has a letter more, an E or an S
 * (`BERKLEY`/`BERKELEY`, `OSBORNE`/`OSBORN`, `ST JOHN`/`ST JOHNS`), a doubled letter (`SCHAEFFER`/`SCHAEFER`)
 * or a space (`GUNHILL`/`GUN HILL`). Any other letter makes another street (`COLON`/`COLTON`, `NORMA`/`NORMAN`).
 */
const spellingVariant = (a: string, b: string) => {
  if (Math.abs(a.length - b.length) !== 1) return false
  const [long, short] = a.length > b.length ? [a, b] : [b, a]
  let i = 0
  while (i < short.length && long[i] === short[i]) i++
  if (long.slice(i + 1) !== short.slice(i)) return false
  const extra = long[i]!
  return extra === "E" || extra === "S" || extra === " " || long[i - 1] === extra || long[i + 1] === extra
}

/**
 * Whether a name `edits` apart from the one typed may be what was meant, mistyped: the first letter kept (few
 * mistype it), and one typing slip apart (`typingEdits`: a letter dropped, doubled or mistyped, or two side by
 * side swapped). Names two slips apart are suggested, never taken: a real street the records hold no sale of was
 * taken for another street of its suburb (`81 Bartrop St, Reservoir` for 81 Barton St, `375 Warley Rd, Malvern
 * East` for 375 Waverley Rd, `12 Riddle St` for 12 Riddell St: an audit holding out real streets, and a review,
 * 2026-11-30), and for a shorter one (`75 Rosser St, Brunswick` valued 75 Rose St, `6 Lambert Pl, Richmond` 6
 * Albert Pl: an address audit, 2026-11-30).
 */
const typoOf = (name: string, typed: string, edits: number) =>
  // (An ordinal word mistyped is its number's street, `Srcond St` 2 ST: its own rule, `corrected`.)
  (name[0] === typed[0] || (/\d/.test(name) && !/\d/.test(typed))) && edits <= 1

/** The largest edit distance a street name of this length may be corrected across; 0: never. */
const allowedEdits = (name: string) => {
  const letters = name.replace(/[^A-Z]/g, "").length
  return letters <= 3 ? 0 : letters <= 5 ? 1 : 2
}

/**
 * The numbers and lone letters of a street name (`BRIGHTON 3` → `3`, `AVENUE D` → `D`): a correction never
 * changes them (2ND is not 3RD, Avenue C is not Avenue D).
 */
const numbersOf = (name: string) =>
  [
    name.replace(/[^0-9 ]/g, " ").trim().split(/\s+/).join(" "),
    ...name.split(" ").filter((word) => /^[A-Z]$/.test(word))
  ].join("|")

/**
 * An address index as plain data (maps and sets over the parcel records it was built from): kept with those
 * records in one structured clone (the kept data, `KeptData.addressIndex`), which keeps the records shared,
 * so that a restart restores the index instead of reading every parcel's address again.
 */
export interface AddressIndexData {
  readonly byName: Map<string, Array<Street>>
  readonly parcels: Map<ParcelRecord, Indexed>
  readonly names: Map<string, Map<number, Set<string>>>
  readonly phrases: Set<string>
  readonly phrasesByLength: Map<number, Array<string>>
  readonly zips: Set<string>
  readonly states: Set<string>
  readonly towns: Map<string, Set<string>>
  readonly localityStates: Map<string, Set<string>>
  readonly hyphenatedZips: ReadonlySet<string>
  readonly zipTowns: Map<string, Set<string>>
  readonly townStates: Map<string, Set<string>>
  readonly unscoredNames?: Map<string, Map<string, Set<string>>>
  readonly unscoredAt?: Map<string, Array<UnscoredAt>>
  readonly unscoredDirectionals?: Set<string>
  readonly unscoredHighest?: Map<string, number>
}

/** A property on record that is not valued, under one of its areas' keys (`unscoredAtKey`). */
interface UnscoredAt {
  readonly street: StreetParts
  /** Its house number as recorded, and ZIP code ("" when none). */
  readonly number: string
  readonly zip: string
  /** Its recorded address, as shown. */
  readonly address: string
  /** What the record says it is (`UnscoredAddress.recordedAs`). */
  readonly recordedAs?: string | undefined
}

/** Two street types that name the same street: the same, or either left out. */
const typesAgree = (a: string, b: string) => a === b || a === "" || b === ""

/** The keys of the place sent: its ZIP code's and its town's, each when sent; else every place's (`*`). */
const placeKeys = (parsed: Parsed): ReadonlyArray<string> => {
  const keys = [
    ...(parsed.zip !== undefined ? [`Z:${parsed.zip}`] : []),
    ...(parsed.locality !== undefined ? [`L:${parsed.locality}`] : [])
  ]
  return keys.length > 0 ? keys : ["*"]
}

/** The key of an address not valued: its area (as `unscoredNames`'), house number (no hyphen) and street name. */
const unscoredAtKey = (area: string, number: string, name: string) => `${area}|${number.replace(/-/g, "")}|${name}`

export class AddressIndex {
  private readonly byName = new Map<string, Array<Street>>()
  private readonly parcels = new Map<ParcelRecord, Indexed>()
  /** Street names by locality key (`Z:10312`, `L:ANNADALE`, `*`) and by length, for corrections. */
  private readonly names = new Map<string, Map<number, Set<string>>>()
  /**
   * Street names of properties on record that are not valued (`UnscoredAddress`), by the same keys: real
   * streets, never corrected to another (none of their houses is found).
   */
  private readonly unscoredNames = new Map<string, Map<string, Set<string>>>()
  /**
   * The same properties by area, house number and street name: an address sent that is one of them is
   * refused as not valued, never answered with its neighbours' addresses (`unscoredAtAddress`).
   */
  private readonly unscoredAt = new Map<string, Array<UnscoredAt>>()
  /**
   * The highest house number of those properties' streets, by `area|name|type|directional`: a street of buildings
   * not valued is a street of the name too, when one is typed without its type (`unscoredTypeReaches`).
   */
  private readonly unscoredHighest = new Map<string, number>()
  /** `area|name|directional` of their streets that have a directional (`SUTTON PL S`): another street than the name's. */
  private readonly unscoredDirectionals = new Set<string>()
  private readonly phrases = new Set<string>()
  private readonly phrasesByLength = new Map<number, Array<string>>()
  private readonly zips = new Set<string>()
  private readonly states = new Set<string>()
  /** The towns (or markets) each locality phrase lies in. */
  private readonly towns = new Map<string, Set<string>>()
  /** The states of the parcels each locality phrase names (a neighbourhood widens only to its own state's town). */
  private readonly localityStates = new Map<string, Set<string>>()
  /** ZIP codes that number their houses Queens-style (`hyphenatedZipsOf`). */
  private readonly hyphenatedZips: ReadonlySet<string>
  /** The towns of each ZIP code's parcels. */
  private readonly zipTowns = new Map<string, Set<string>>()
  /** The states each town lies in (`KENSINGTON` is a Melbourne suburb; Brooklyn's is a neighbourhood). */
  private readonly townStates = new Map<string, Set<string>>()

  /**
   * The properties at the house number on the street as sent, whatever the ZIP code, in `towns`: the same street
   * only, its directional as sent (`1460 84th St` is not `1460 E 84 ST` in Canarsie) and its type as sent or none
   * on record.
   */
  private onStreetAsSent(parsed: Parsed, towns: ReadonlyArray<string>): Array<ParcelRecord> {
    return towns.flatMap((town) =>
      this.parcelsOn({ ...parsed, zip: undefined }, parsed.street.name, town).parcels.filter((parcel) => {
        const recorded = parseStreetLine(parcel.street)?.street
        return recorded !== undefined && recorded.directional === parsed.street.directional &&
          typesAgree(parsed.street.type, recorded.type)
      })
    )
  }

  /**
   * A directional left out with a ZIP code sent, where the street exactly as typed (no directional, the type as
   * sent or none on record) has the house number in the town under another ZIP code: that house is a candidate
   * too, after the ZIP code's. An investor's audit (2026-12-01): `89 Burgher Ave, Staten Island, NY 10310` was
   * refused with 89 N Burgher Ave alone and told the other street's house "never sold", where 89 Burgher Ave
   * (10304) sold in 2018; the ZIP code or the directional may be the mistake, and only the caller knows which.
   */
  private withTypedStreetElsewhere(parsed: Parsed, exact: AddressMatch | undefined): AddressMatch | undefined {
    if (
      exact?._tag !== "Ambiguous" || exact.reason !== "directional" || parsed.zip === undefined ||
      parsed.street.directional !== ""
    ) return exact
    // (The town a neighbourhood sent lies in: `89 Burgher Ave, West New Brighton, NY 10310` too.)
    const towns = parsed.locality !== undefined
      ? [...(this.towns.get(parsed.locality) ?? [parsed.locality])]
      : [...this.townsOfZip(parsed.zip)]
    const asTyped = this.onStreetAsSent(parsed, towns).filter((parcel) => parcel.zipCode !== parsed.zip)
    const added = buildingsWithUnitSent(asTyped, parsed.unit).filter((address) => !exact.candidates.includes(address))
    return added.length === 0
      ? exact
      : { ...exact, candidates: [...exact.candidates, ...added].slice(0, MAX_CANDIDATES) }
  }

  private townsOfZip(zip: string): ReadonlySet<string> {
    return this.zipTowns.get(zip) ?? new Set()
  }

  /** The town a parcel of the index is recorded in. */
  private townOf(parcel: ParcelRecord): string {
    return this.parcels.get(parcel)!.town
  }

  /** The index as plain data, for `fromData` (it shares the index's maps: not to be changed). */
  toData(): AddressIndexData {
    const {
      byName,
      hyphenatedZips,
      localityStates,
      names,
      parcels,
      phrases,
      phrasesByLength,
      states,
      towns,
      townStates,
      unscoredAt,
      unscoredDirectionals,
      unscoredNames,
      unscoredHighest,
      zips,
      zipTowns
    } = this
    return {
      unscoredNames,
      unscoredAt,
      unscoredDirectionals,
      unscoredHighest,
      byName,
      parcels,
      names,
      phrases,
      phrasesByLength,
      zips,
      states,
      towns,
      localityStates,
      hyphenatedZips,
      zipTowns,
      townStates
    }
  }

  /** The index `toData` described, over the same parcel records, without building it again. */
  static fromData(data: AddressIndexData): AddressIndex {
    const index = Object.create(AddressIndex.prototype) as AddressIndex
    return Object.assign(
      index,
      { unscoredNames: new Map(), unscoredAt: new Map(), unscoredDirectionals: new Set(), unscoredHighest: new Map() },
      data
    )
  }

  constructor(parcels: Iterable<ParcelRecord>, unscored: Iterable<UnscoredAddress> = []) {
    const interned = new Map<string, Place>()
    const streets = new Map<string, Street>()
    /** The key of the line's street in the parcel's place. */
    const streetKey = (parcel: ParcelRecord, { street: parts }: StreetLine) =>
      `${parts.name}|${parts.type}|${parts.directional}|${parts.directionalAfter}|${parcel.zipCode ?? ""}|${
        parcel.city ?? ""
      }`
    /**
     * The parcel indexed at the line, on its street in the parcel's place (made where new), and the street's name
     * indexed for corrections unless `named` is false: an earlier line's is not (`37 DULANCY CT`, an earlier
     * deed's misspelling of Dulancey Ct, made `21 Dulancy Ct` a name on record, no longer corrected: an address
     * audit, 2026-11-29).
     */
    const indexAt = (parcel: ParcelRecord, line: StreetLine, named: boolean) => {
      const parts = line.street
      const zip = parcel.zipCode ?? ""
      const key = streetKey(parcel, line)
      let street = streets.get(key)
      if (street === undefined) {
        street = { parts, zip, numbers: new Map() }
        streets.set(key, street)
        const list = this.byName.get(parts.name)
        if (list) list.push(street)
        else this.byName.set(parts.name, [street])
      }
      const atNumber = street.numbers.get(line.number)
      if (atNumber) atNumber.push(parcel)
      else street.numbers.set(line.number, [parcel])
      if (!named) return
      for (
        const area of [
          "*",
          ...(zip ? [`Z:${zip}`] : []),
          ...[...this.parcels.get(parcel)!.localities].map((p) => `L:${p}`)
        ]
      ) {
        this.addName(area, parts.name)
      }
    }
    const withEarlierStreets: Array<ParcelRecord> = []
    for (const parcel of parcels) {
      const line = parseStreetLine(parcel.street)
      if (line === undefined) continue
      const hood = parcel.neighborhood ?? ""
      const localityKey = `${parcel.city ?? ""}|${hood}|${parcel.market}|${parcel.state ?? ""}`
      let place = interned.get(localityKey)
      if (place === undefined) {
        const own = new Set<string>()
        if (parcel.city) {
          own.add(phraseOf(parcel.city))
          const swapped = directionalFirst(phraseOf(parcel.city))
          if (swapped !== undefined) own.add(swapped)
        }
        if (hood) { for (const phrase of neighbourhoodPhrases(hood)) own.add(phrase) }
        const set = new Set([...own, phraseOf(parcel.market)])
        own.delete("")
        set.delete("")
        // Only the parcel's own places' short names: `Sacto` is the city of Sacramento, never the market of the
        // name (`5615 Lupin Ln, Sacto CA` found and charged for the house in Pollock Pines, where `…, Sacramento`
        // is refused: an audit, 2026-11-28).
        for (const phrase of [...own]) {
          for (const nickname of nicknamesOf(parcel.state, phrase)) {
            set.add(nickname)
            own.add(nickname)
          }
        }
        place = { localities: set, own, town: phraseOf(parcel.city ?? parcel.market) }
        interned.set(localityKey, place)
        const town = place.town
        const stateOfTown = parcel.state?.toUpperCase() ?? ""
        const statesOfTown = this.townStates.get(town)
        if (statesOfTown) statesOfTown.add(stateOfTown)
        else this.townStates.set(town, new Set([stateOfTown]))
        for (const phrase of set) {
          this.addPhrase(phrase)
          const towns = this.towns.get(phrase)
          if (towns) towns.add(town)
          else this.towns.set(phrase, new Set([town]))
          const states = this.localityStates.get(phrase)
          if (states) states.add(parcel.state?.toUpperCase() ?? "")
          else this.localityStates.set(phrase, new Set([parcel.state?.toUpperCase() ?? ""]))
        }
      }
      this.parcels.set(parcel, { parcel, ...place })
      const zip = parcel.zipCode ?? ""
      if (zip) {
        this.zips.add(zip)
        const townsOfZip = this.zipTowns.get(zip)
        if (townsOfZip) townsOfZip.add(place.town)
        else this.zipTowns.set(zip, new Set([place.town]))
      }
      if (parcel.state) this.states.add(parcel.state.toUpperCase())
      indexAt(parcel, line, true)
      if (parcel.earlierStreets !== undefined && parcel.earlierStreets.length > 0) withEarlierStreets.push(parcel)
    }
    this.hyphenatedZips = hyphenatedZipsOf(this.byName.values())
    for (const address of unscored) {
      const line = parseStreetLine(address.street)
      if (line === undefined) continue
      const { street } = line
      const { name, type } = street
      const named = [
        ...(address.city ? [phraseOf(address.city)] : []),
        ...(address.neighborhood ? neighbourhoodPhrases(address.neighborhood) : [])
      ]
      // With the places' short names, as the parcels' (`4820 Ave N, Bklyn` was answered with the neighbours): of
      // its own places, not its market's.
      const places = [
        ...new Set([
          ...named,
          phraseOf(address.market),
          ...named.flatMap((place) => nicknamesOf(address.state, place))
        ])
      ]
      const areas = ["*", ...(address.zipCode ? [`Z:${address.zipCode}`] : []), ...places.map((p) => `L:${p}`)]
      const shown = formatAddress({
        street: address.street,
        unit: "",
        city: address.city,
        state: address.state,
        zip: address.zipCode
      })
      const zip = address.zipCode ?? ""
      const entry = { street, number: line.number, zip, address: shown, recordedAs: address.recordedAs }
      // One entry per address, however the files spell it (`640 W 239 ST` and `640 W 239TH ST`): the one that
      // says what it is, else the fuller spelling.
      const same = (known: UnscoredAt) =>
        known.zip === zip && known.street.name === name && known.street.directional === street.directional &&
        typesAgree(known.street.type, type)
      const better = (known: UnscoredAt) =>
        known.recordedAs === undefined ?
          entry.recordedAs !== undefined || shown.length > known.address.length :
          entry.recordedAs !== undefined && shown.length > known.address.length
      for (const area of areas) {
        const key = unscoredAtKey(area, line.number, name)
        const at = this.unscoredAt.get(key)
        const i = at?.findIndex(same) ?? -1
        if (at === undefined) this.unscoredAt.set(key, [entry])
        else if (i < 0) at.push(entry)
        else if (better(at[i]!)) at[i] = entry
      }
      // The files spell some streets two ways (BERKLEY PL and BERKELEY PL in 11217): a name one typing mistake
      // from a valued street of its type in its ZIP code is that street, not another (a sweep: 62 typings of
      // such streets were refused, and the spelling itself was).
      if (address.zipCode !== undefined && this.spelledOtherwise(name, type, address.zipCode)) continue
      for (const area of areas) {
        let names = this.unscoredNames.get(area)
        if (names === undefined) this.unscoredNames.set(area, names = new Map())
        const types = names.get(name)
        if (types) types.add(type)
        else names.set(name, new Set([type]))
        if (street.directional !== "") this.unscoredDirectionals.add(`${area}|${name}|${street.directional}`)
        const at = houseNumberValue(line.number)
        const key = `${area}|${name}|${type}|${street.directional}`
        const highest = this.unscoredHighest.get(key)
        if (!Number.isNaN(at) && (highest === undefined || at > highest)) this.unscoredHighest.set(key, at)
      }
    }
    // An address an earlier row of the parcel recorded (a corner building's other street, a renamed street, a
    // number since changed: `225 HOPKINSON AVE`, recorded later as `225 THOMAS S BOYLAND ST`) finds it too, where
    // no other property is at that address now: another house there (or another unit of the number), or a
    // property not valued, is what the address is today. Not the record's own number and street name with
    // another type or directional, or none (`485 HUMBOLDT` beside `485 HUMBOLDT ST`): the record's street found
    // already, by the rules for a type or directional left out or typed otherwise, and the parcel twice on two
    // streets of the name was ambiguous with itself; except a directional the latest row left out (below).
    // The names of the streets of each ZIP code as the latest records write them (where any parcel has lines).
    const namesInZip = new Map<string, Set<string>>()
    for (const street of withEarlierStreets.length > 0 ? streets.values() : []) {
      const names = namesInZip.get(street.zip) ?? new Set()
      names.add(street.parts.name)
      namesInZip.set(street.zip, names)
    }
    // Where a place writes ranges of doors (a ZIP code on record that numbers no house Queens-style, on a street
    // with no Queens-style number on record), a range line of a parcel's own street is read as one (`54-56`:
    // 54 and 56); and kept only by one parcel (a deed over two lots gives both the line).
    const readsRanges = (zip: string, street: Street | undefined) =>
      zip !== "" && !this.hyphenatedZips.has(zip) && !queensStyleNumbers(street)
    const rangeClaims = new Map<string, Set<ParcelRecord>>()
    for (const parcel of withEarlierStreets) {
      for (const earlier of parcel.earlierStreets!) {
        const line = parseStreetLine(earlier)
        if (line === undefined || rangeLast(line.number) === undefined) continue
        const key = `${streetKey(parcel, line)}|${line.number}`
        rangeClaims.set(key, (rangeClaims.get(key) ?? new Set()).add(parcel))
      }
    }
    for (const parcel of withEarlierStreets) {
      const zip = parcel.zipCode ?? ""
      const current = parseStreetLine(parcel.street)!
      for (const earlier of parcel.earlierStreets!) {
        const line = parseStreetLine(earlier)
        if (line === undefined) continue
        const street = streets.get(streetKey(parcel, line))
        const at = (number: string) => street?.numbers.get(number) ?? []
        const ranges = readsRanges(zip, street)
        const numbers = numberForms(line.number)
        // Only its directional where the latest row has none (`170 E 206 ST`, later `170 206TH ST`, its
        // neighbours on E 206 St): the rules for a directional typed found no 170 on E 206 St, and the address
        // was refused (an audit, 2026-11-29).
        const directionalOnly = current.street.directional === "" && line.street.directional !== "" &&
          typesAgree(line.street.type, current.street.type)
        if (line.street.name === current.street.name && numbers.includes(current.number) && !directionalOnly) continue
        // Nor the other side of its own street: a house does not cross it (`2447 E 74TH ST`, a $0 deed's line for
        // 2444-2446 on the even side, found it, an address audit).
        if (line.street.name === current.street.name && otherSide(line.number, current.number)) continue
        // Nor a number of its own street more than a few doors away: a lot's line far along its street is another
        // building's, a deed's error (`208 LINDEN ST` for 78 Linden St, on another block: an address audit). A
        // range where the ZIP code numbers no house Queens-style is as near as its nearer end (`54-56 LUDWIG ST`,
        // the only market sale's line of 56 Ludwig St, was read as number 5456 and dropped: an investor's audit,
        // 2026-11-30).
        if (line.street.name === current.street.name && doorsFrom(line.number, current.number, ranges) > NEAR_DOORS) {
          continue
        }
        // A range no other property's doors are among (`54-56`, where 54 is a house of its own, is both or
        // either: not this one's alone), claimed by no other parcel.
        const [first, last] = rangeEnds(line.number, ranges)
        if (last !== undefined) {
          if ((rangeClaims.get(`${streetKey(parcel, line)}|${line.number}`)?.size ?? 0) > 1) continue
          const doors = Array.from(
            { length: (Number(last) - Number(first)) / 2 + 1 },
            (_, i) => String(Number(first) + 2 * i)
          )
          const another = (other: ParcelRecord) =>
            other !== parcel && (parcel.unit === "" || other.unit === "" || !sameCondominium(other, parcel) ||
              unitKey(other.unit) === unitKey(parcel.unit))
          if (doors.some((door) => at(door).some(another))) continue
        }
        // Nor a misspelling of a street of its ZIP code (`37 DULANCY CT` for Dulancey Ct): the street's name found,
        // it made `21 Dulancy Ct` a name on record, no longer corrected to its street (an address audit).
        const here = namesInZip.get(zip) ?? new Set<string>()
        if (!here.has(line.street.name) && [...here].some((name) => distance(name, line.street.name) <= 1)) continue
        // A unit at an address whose units on record are another condominium's (another block, or another
        // thousand of lot numbers, as NYC numbers a condominium's units): that building's unit of the name is
        // another flat (`300 E 33rd St Apt 19K`, a deed's line for 333 E 30th St's 19-K on the same block, found
        // it: an address audit, 2026-11-29).
        if (
          parcel.unit !== "" &&
          numbers.some((number) => at(number).some((other) => other.unit !== "" && !sameCondominium(other, parcel)))
        ) continue
        // (Itself there already: the line is the record's in another spelling, `E 185 ST` for `E 185TH ST`.)
        const taken = at(line.number).includes(parcel) ||
          numbers.some((number) =>
            at(number).some((other) => other !== parcel && unitKey(other.unit) === unitKey(parcel.unit))
          ) ||
          // (A property not valued at the address, where none valued is: a condominium's units beside its billing
          // lot are one building.)
          (zip !== "" && numbers.every((number) => at(number).length === 0) &&
            numbers.some((number) =>
              (this.unscoredAt.get(unscoredAtKey(`Z:${zip}`, number, line.street.name)) ?? []).some((at) =>
                typesAgree(at.street.type, line.street.type) && at.street.directional === line.street.directional
              )
            ))
        if (!taken) indexAt(parcel, line, false)
      }
    }
  }

  /**
   * The towns, other than `town`, with a street of the avenue's other name (`CO_NAMED_AVENUES`) whose numbers
   * on record reach the number sent (its first houses included), in the state sent: their names as shown.
   */
  private coNamedTowns(read: Parsed, town: string): Array<string> {
    // The second names are Manhattan's: a name found in Manhattan is that avenue (`655 Avenue of the Americas`
    // was told of Brooklyn's and Queens' 6th Avenues: an address audit), and only Manhattan's street of the other
    // name is another place it may be.
    if (town === MANHATTAN) return []
    const wanted = houseNumberValue(read.number)
    const towns = new Map<string, string>()
    for (const again of coNamedAvenues(read)) {
      const { directional, name, type } = again.read.street
      for (const street of this.byName.get(name) ?? []) {
        if (street.parts.type !== type || street.parts.directional !== directional) continue
        const first = firstParcelOf(street)
        if (first === undefined || this.townOf(first) !== MANHATTAN || !numbersSpan(street, wanted, true)) continue
        if (read.state !== undefined && first.state?.toUpperCase() !== read.state) continue
        towns.set(this.townOf(first), first.city ?? first.market)
      }
    }
    return [...towns.values()].sort()
  }

  /** Whether a property not valued has a valued one at its address too (its street, number and ZIP code). */
  private valuedAt(at: UnscoredAt) {
    return (this.byName.get(at.street.name) ?? []).some((street) =>
      street.zip === at.zip && street.parts.directional === at.street.directional &&
      typesAgree(street.parts.type, at.street.type) &&
      numberForms(at.number).some((number) => street.numbers.has(number))
    )
  }

  /**
   * The properties at the house number sent (in either Queens form) on the streets of the name with the
   * directional sent, anywhere in the state sent (any state where none is sent).
   */
  private withDirectionalAnywhere(parsed: Parsed, name: string): Array<ParcelRecord> {
    const numbers = numberForms(parsed.number)
    return (this.byName.get(name) ?? []).flatMap((street) =>
      street.parts.directional !== parsed.street.directional ?
        [] :
        numbers.flatMap((number) =>
          (street.numbers.get(number) ?? []).filter((parcel) =>
            parsed.state === undefined || parcel.state === undefined || parcel.state.toUpperCase() === parsed.state
          )
        )
    )
  }

  /** Whether a street of the name with the directional sent is on record with properties not valued, in the place sent. */
  private unscoredDirectionalIn(parsed: Parsed, name: string) {
    return placeKeys(parsed).some((area) =>
      this.unscoredDirectionals.has(`${area}|${name}|${parsed.street.directional}`)
    )
  }

  /**
   * The recorded addresses of properties not valued at the address sent, read with the street `name`, in the
   * place sent (its ZIP code and its town, each when sent): of the street's type and directional as sent, or
   * any when none is sent.
   */
  private unscoredAtAddress(parsed: Parsed, name: string): ReadonlyArray<UnscoredAt> {
    const lists = placeKeys(parsed).map((area) =>
      (this.unscoredAt.get(unscoredAtKey(area, parsed.number, name)) ?? []).filter(({ street }) =>
        typesAgree(parsed.street.type, street.type) &&
        (parsed.street.directional === "" || street.directional === parsed.street.directional)
      )
    )
    const [first = [], ...others] = lists
    return first.filter(({ address }) => others.every((list) => list.some((other) => other.address === address)))
      .sort((a, b) => naturally(a.address, b.address))
  }

  /**
   * Whether a street of properties not valued, in the area, the place or the towns the place lies in, is
   * within `edits` of the name sent (a correction would then as likely be to it): of the type sent (any, when
   * none is sent), and not a valued street of that name and type here (Fingal St has a walk-up as well as
   * houses; Willow Ave's buildings are not valued where Willow Rd's houses are). Names of the length within
   * `edits` only; this runs only where a correction is about to be made.
   */
  private unscoredAsClose(area: string, locality: string | undefined, parsed: Parsed, edits: number) {
    const { name, type } = parsed.street
    // The towns of the place (the ZIP code's where no place is sent): a street valued anywhere in them is the
    // valued street (Marmion Ave, valued in the Bronx but not in the ZIP code sent, blocked Marrion → Marion).
    const towns = locality !== undefined
      ? [...(this.towns.get(locality) ?? [])]
      : parsed.zip !== undefined
      ? [...this.townsOfZip(parsed.zip)]
      : [undefined]
    const anywhere = { ...parsed, zip: undefined }
    const valued = (other: string, otherType: string) =>
      (this.byName.get(other) ?? []).some((street) =>
        street.parts.type === otherType && towns.some((town) => this.streetHasParcelIn(street, anywhere, town))
      )
    const keys = new Set([area, ...(locality === undefined ? [] : [`L:${locality}`])])
    for (const town of towns) if (town !== undefined) keys.add(`L:${town}`)
    for (const key of keys) {
      for (const [other, types] of this.unscoredNames.get(key) ?? []) {
        if (Math.abs(other.length - name.length) > edits || (type !== "" && !types.has(type))) continue
        if ([...types].filter((t) => type === "" || t === type).every((t) => valued(other, t))) continue
        if (typingEdits(other, name) <= edits) return true
      }
    }
    return false
  }

  /** A valued street of the type in the ZIP code whose name is `name` spelt another way (`spellingVariant`). */
  private spelledOtherwise(name: string, type: string, zip: string) {
    if (allowedEdits(name) === 0) return false
    return this.closeNames(`Z:${zip}`, name, 1).some(({ name: known }) =>
      spellingVariant(known, name) &&
      (this.byName.get(known) ?? []).some((street) => street.zip === zip && street.parts.type === type)
    )
  }

  /**
   * Whether a street of the name of another type than `typesHolding`, on record in the place only with properties
   * not valued, has numbers up to the one sent, or past it by under a block (its first houses are below them):
   * `1635 Grand, Bronx` found 1635 Grand Ave, where the Grand Concourse's buildings, not valued, run 296–2103
   * (an address audit, 2026-11-30: 726 of 948 such typings with the town were answered as the valued street).
   */
  private unscoredTypeReaches(
    parsed: Parsed,
    locality: string | undefined,
    typesHolding: ReadonlySet<string>,
    wanted: number
  ) {
    const { name } = parsed.street
    const areas = [
      ...(parsed.zip !== undefined ? [`Z:${parsed.zip}`] : []),
      ...(locality !== undefined ? [`L:${locality}`] : [])
    ]
    return areas.some((area) =>
      [...(this.unscoredNames.get(area)?.get(name) ?? [])].some((type) => {
        if (type === "" || typesHolding.has(type)) return false
        // (Of the directional sent: `168 W Kingsbridge, Bronx` is not in doubt for Kingsbridge Ave's buildings, a
        // review of 2026-11-30 found.)
        const highest = this.unscoredHighest.get(`${area}|${name}|${type}|${parsed.street.directional}`)
        return highest !== undefined && (Number.isNaN(wanted) || wanted <= highest + NUMBER_SPAN_MARGIN)
      })
    )
  }

  /** A street of the area (a locality key) on record with properties not valued: of the type, when one is sent. */
  private unscoredStreetOf(area: string, name: string, type = "") {
    const types = this.unscoredNames.get(area)?.get(name)
    return types !== undefined && (type === "" || types.has(type))
  }

  private addPhrase(phrase: string) {
    if (this.phrases.has(phrase)) return
    this.phrases.add(phrase)
    const list = this.phrasesByLength.get(phrase.length)
    if (list) list.push(phrase)
    else this.phrasesByLength.set(phrase.length, [phrase])
  }

  private addName(area: string, name: string) {
    let byLength = this.names.get(area)
    if (byLength === undefined) {
      byLength = new Map()
      this.names.set(area, byLength)
    }
    const set = byLength.get(name.length)
    if (set) set.add(name)
    else byLength.set(name.length, new Set([name]))
  }

  /**
   * A known locality phrase one typing mistake (a letter added, dropped, changed, or two neighbouring letters
   * swapped) from `phrase`, with the same first letter, when exactly one is: `Staten Islnd`, but not
   * `Elmont` for Belmont nor `Bronxville` for Brownsville, towns of their own outside the coverage.
   */
  private closeLocality(phrase: string): string | undefined {
    if (phrase.length < 5) return undefined
    const found: Array<string> = []
    for (let length = phrase.length - 1; length <= phrase.length + 1; length++) {
      for (const known of this.phrasesByLength.get(length) ?? []) {
        // (Never to a short name of a place: `Georgetown, NY` was read as Brooklyn's Georgetowne, a review found.)
        if (NICKNAMED.has(known)) continue
        if (known[0] === phrase[0] && oneEditApart(known, phrase)) found.push(known)
      }
    }
    return found.length === 1 ? found[0] : undefined
  }

  /**
   * A country after the address (`…, NY 10312, USA`, `… VIC 3133 Australia`; agents add one often) is taken
   * off and returned; so is `NYC` or `New York City` after another place or as the place, read as the state
   * (`…, Springfield Gardens, NYC`, `…, Brooklyn, New York City, NY 11201`). Each was outside every covered
   * area before (an audit, 2026-11-24). `US`, `AU` and `AUS` alone are a country only after a comma, a ZIP
   * code or a state.
   */
  private withoutCountry(raw: string): { readonly tokens: Array<string>; readonly country: "US" | "AU" | undefined } {
    // Australia's unit and number with spaces about the slash (`3 / 191 Balwyn Rd`, `3 /191`): `3/191` (refused
    // as no such street address, or as having no house number: an address audit, 2026-11-29).
    const tokens = tokenize(raw.replace(/^(\s*[A-Z]?\d+[A-Z]?)(?:\s+\/\s*|\/\s+)(?=\d)/i, "$1/"))
    while (tokens.at(-1) === ",") tokens.pop()
    let country: "US" | "AU" | undefined
    for (const [phrase, code] of COUNTRIES) {
      const n = phrase.length
      if (tokens.length < n + 2 || tokens.slice(-n).join(" ") !== phrase.join(" ")) continue
      const before = tokens[tokens.length - n - 1]!
      if (
        SHORT_COUNTRIES.has(phrase.join(" ")) && before !== "," && !/^\d{4,5}(-\d{4})?$/.test(before) &&
        !US_STATE_CODES.has(before) && !this.states.has(before)
      ) continue
      tokens.splice(tokens.length - n)
      while (tokens.at(-1) === ",") tokens.pop()
      country = code
      break
    }
    // New York City as a place: the state of its five boroughs (`NY` in its place unless the state follows).
    for (let i = 2; i < tokens.length; i++) {
      const n = tokens[i] === "NYC" ? 1 : tokens.slice(i, i + 3).join(" ") === "NEW YORK CITY" ? 3 : 0
      if (n === 0) continue
      const after = tokens.slice(i + n).filter((token) => token !== ",")
      // After a comma, or last (before a state or ZIP code at most): `77 Park Ave Apt 9F NYC` was told to add
      // the town (an address audit, 2026-11-29).
      const last = after.length <= 2 && after.every((token) => token === "NY" || /^\d{5}(?:-\d{4})?$/.test(token))
      if (tokens[i - 1] !== "," && !last) continue
      const stateFollows = after[0] === "NY" || (after[0] === "NEW" && after[1] === "YORK")
      tokens.splice(i, n, ...(stateFollows ? [] : ["NY"]))
      if (tokens[i] === ",") tokens.splice(i, 1)
      break
    }
    return { tokens, country }
  }

  /** Reads a typed address against what the index covers. */
  private parse(raw: string): Parsed | Refusal {
    const { country, tokens } = this.withoutCountry(raw)
    const words = tokens.filter((token) => token !== ",")
    if (!words.some((word) => /[A-Z0-9]/.test(word))) {
      return { _tag: "Refusal", hint: "The address has no street address in it: send a house number and a street." }
    }
    const joined = ` ${words.join(" ")} `
    if (/ (P ?O ?BOX|POB|BOX) \d/.test(joined) || / POST OFFICE BOX /.test(joined)) {
      return { _tag: "Refusal", hint: "A post office box is not a property: send the street address of the house." }
    }
    if (/[&@]/.test(raw) || (!HOUSE_NUMBER.test(words[0] ?? "") && / (AND|AT) /.test(joined))) {
      return {
        _tag: "Refusal",
        hint: "An intersection names no one property: send the house number and street of the property."
      }
    }
    // Where the commas were: a segment boundary after word i.
    const commaAfter = new Set<number>()
    let wordIndex = -1
    for (const token of tokens) {
      if (token === ",") commaAfter.add(wordIndex)
      else wordIndex++
    }
    // (A postcode not on record is one all the same after an Australian state's code: `Geelong VIC 3220` was
    // read as a street named so, and refused as an address to send with its town, an agent's audit found.)
    const isZip = (word: string, before?: string) =>
      /^\d{5}(-?\d{4})?$/.test(word) ||
      (/^\d{4}$/.test(word) && (this.zips.has(word) || AUSTRALIAN_STATE_CODES.has(before ?? "")))
    let end = words.length
    // A unit written after the town (`…, Riverton ZZ 99103, Apt 2`): taken from the end first.
    let trailingUnit = ""
    const designator = words[end - 2]
    const unitValue = words[end - 1] ?? ""
    // A value that looks like a ZIP code right after its designator is the unit's all the same (`Apt 3105`,
    // `Unit 10301`: a 31st-floor flat, not the postcode 3105), after `Apt`, `Unit`, `#` or `Ste` only and no
    // comma between them: `FL 32101` is Florida and a ZIP code, and `Templestowe Lower 3107` a suburb and its
    // postcode.
    // A value without a digit (`Apt C`, `Unit PHB`) only after a designator that names nothing else.
    const zipLike = isZip(unitValue)
    if (
      end >= 5 && designator !== undefined && UNIT_DESIGNATORS.has(designator) &&
      (/\d/.test(unitValue) || (LETTER_UNIT_DESIGNATORS.has(designator) && !US_STATE_CODES.has(unitValue))) &&
      (!zipLike || (LETTER_UNIT_DESIGNATORS.has(designator) && !commaAfter.has(end - 2)))
    ) {
      trailingUnit = PENTHOUSE.has(designator) ? `PH ${words[end - 1]!}` : words[end - 1]!
      end -= 2
      // `Apt #10I`, `Unit # 126`, `Apt PH 3M`: the designator before the `#` or the penthouse is the unit's too (left
      // as a place, the address was outside coverage: an address audit, 2026-11-29).
      if (
        (designator === "#" || PENTHOUSE.has(designator)) && end >= 4 && UNIT_DESIGNATORS.has(words[end - 1]!) &&
        words[end - 1] !== "#" && !PENTHOUSE.has(words[end - 1]!)
      ) end--
    }
    let zip: string | undefined
    let state: string | undefined
    // A state code also spells a street type (`CT`, `LA`), a directional (`NE`) or a unit (`MA`): taken as a
    // state when the index knows it, or when a comma stands before it.
    const isState = (word: string, at: number) =>
      this.states.has(word) || (US_STATE_CODES.has(word) && commaAfter.has(at - 1))
    // The words from `start` to `end` as a locality phrase is spelt (`BEDFORD-STUYVESANT` as two words).
    const typedPhrase = (start: number, end: number) =>
      words.slice(start, end).join(" ").replace(/[-/]/g, " ").split(" ").filter((w) => w !== "").join(" ")
    const phraseOfWords = (start: number, end: number) => placePhraseOf(typedPhrase(start, end).split(" "))
    // A place on record ends just before word `at` (for a state's name that is a place too: `New York`).
    const placeEndsAt = (at: number) => {
      for (let length = Math.min(5, at - 2); length >= 1; length--) {
        // (Not a unit's value after its designator: `236 W 123 St Unit Upper, New York, NY` is no place Upper,
        // the service's own address of it refused in a loop: an address audit, 2026-11-29.)
        if (UNIT_DESIGNATORS.has(words[at - length - 1] ?? "")) continue
        if (this.phrases.has(phraseOfWords(at - length, at))) return true
      }
      return false
    }
    // A state's name (`New York`, `North Carolina`): taken as the state code's reading is, and when it is also
    // a place on record only after another place (`Staten Island, New York`; `12 Main St, New York` stays
    // the place).
    const stateNamed = (): { readonly code: string; readonly length: number } | undefined => {
      for (let length = Math.min(4, end - 2); length >= 1; length--) {
        const phrase = words.slice(end - length, end).join(" ")
        const code = STATE_NAMES.get(phrase)
        if (code === undefined) continue
        if (!this.states.has(code) && !commaAfter.has(end - length - 1)) continue
        if (this.phrases.has(phrase) && !placeEndsAt(end - length)) continue
        return { code, length }
      }
      return undefined
    }
    for (let pass = 0; pass < 2; pass++) {
      const last = words[end - 1]
      if (zip === undefined && last !== undefined && end > 2 && isZip(last, words[end - 2])) {
        zip = last.slice(0, last.length === 4 ? 4 : 5)
        end--
      }
      const maybeState = words[end - 1]
      if (state === undefined && maybeState !== undefined && end > 2 && isState(maybeState, end - 1)) {
        state = maybeState
        end--
      } else if (state === undefined) {
        const named = stateNamed()
        if (named !== undefined) {
          state = named.code
          end -= named.length
        }
      }
    }
    // The state twice, by name and by code (`Staten Island, New York, NY 10302`; `Maspeth, Queens, New York,
    // NY` was refused as outside coverage): the name is the state's too where a place on record stands before
    // it (`12 Main St, New York, NY` stays Manhattan).
    if (state !== undefined) {
      for (let length = Math.min(4, end - 2); length >= 1; length--) {
        const phrase = words.slice(end - length, end).join(" ")
        if (STATE_NAMES.get(phrase) !== state || !commaAfter.has(end - length - 1)) continue
        if (placeEndsAt(end - length)) end -= length
        break
      }
    }
    // The locality: the longest run of last words that is a place the index knows (exactly, else within an
    // edit or two when exactly one place is that close).
    let locality: string | undefined
    let localityTypo: string | undefined
    let localityStart = end
    // The place's words as typed, where they are an abbreviation of the place's (`STATEN IS`, `SI`).
    let localityAbbreviated: string | undefined
    // A place never spans a comma: `101 Street East, New York` is not in East New York. (Without commas
    // the longest place wins; where that is the wrong reading, street and place do not meet: a refusal.)
    const spansComma = (start: number) => [...commaAfter].some((i) => i >= start && i < end - 1)
    for (let length = Math.min(5, end - 2); length >= 1 && locality === undefined; length--) {
      const start = end - length
      const phrase = phraseOfWords(start, end)
      if (!this.phrases.has(phrase) || spansComma(start)) continue
      locality = phrase
      localityStart = start
      localityAbbreviated = typedPhrase(start, end)
    }
    // `NY, NY` (or `NY NY`): the town New York, then its state (`77 Park Ave NY NY` was answered outside coverage,
    // and `77 Park Ave Apt 9F NY NY 10016` read NY into the street: an address audit, 2026-11-29). A lone `NY` stays
    // the state, which names no one borough.
    if (
      locality === undefined && state === "NY" && end >= 3 && words[end - 1] === "NY" && this.phrases.has("NEW YORK")
    ) {
      locality = "NEW YORK"
      localityStart = end - 1
      localityAbbreviated = "NY"
    }
    // Whether the street line ends right before word `at`: after its type (`Brentwood Drive`), a directional
    // after its type (`Drumgoole Road West`), or a unit (`Apt 13A`, `# 2`, `Rear`).
    const streetEndsAt = (at: number) => {
      const last = words[at - 1], beforeLast = words[at - 2]
      if (last === undefined || at < 3) return false
      if (STREET_TYPES.has(last) || VALUELESS_DESIGNATORS.has(last)) return true
      if (DIRECTIONALS.has(last) && beforeLast !== undefined && STREET_TYPES.has(beforeLast) && at >= 4) return true
      return beforeLast !== undefined && UNIT_DESIGNATORS.has(beforeLast) && at >= 4 && /\d|^[A-Z]$/.test(last)
    }
    // A neighbourhood before its town, each after its comma (`92nd St, Howard Beach, Queens`) or after the street's
    // end (`1016 Decatur Street Bushwick, Brooklyn`, `68-34 Ingram St, Forest Hills Queens`: refused with no
    // suggestion, as no property at that address, until an address audit of 2026-11-30): the narrower place is
    // the locality (its streets are the town's too).
    let within: string | undefined
    if (locality !== undefined) {
      const towns = this.towns.get(locality) ?? new Set<string>()
      for (let length = Math.min(5, localityStart - 2); length >= 1; length--) {
        const start = localityStart - length
        const phrase = phraseOfWords(start, localityStart)
        if (!(commaAfter.has(start - 1) || streetEndsAt(start)) || !this.phrases.has(phrase)) continue
        if ([...commaAfter].some((i) => i >= start && i < localityStart - 1)) continue
        if (![...(this.towns.get(phrase) ?? [])].some((town) => towns.has(town))) continue
        localityAbbreviated = typedPhrase(start, localityStart)
        // (The wider place still holds: `35 Henry St, Kensington, Brooklyn` found and charged for 35 Henry St,
        // Kensington VIC, the neighbourhood's name a Melbourne suburb's: an address audit, 2026-11-29.)
        within = locality
        locality = phrase
        localityStart = start
        break
      }
    }
    for (let length = Math.min(3, end - 2); length >= 1 && locality === undefined; length--) {
      const phrase = words.slice(end - length, end).join(" ")
      // Only words that cannot be part of the street (no number; no street type unless a comma, or the
      // street's end, sets the words apart: `Britton Ave, Staten Islnd`, where ISLND also spells a type;
      // `Brentwood Drive Glen Waverly`, GLEN a type too, was outside coverage) may be a corrected town.
      const setApart = commaAfter.has(end - length - 1) || streetEndsAt(end - length)
      if (words.slice(end - length, end).some((w) => /\d/.test(w) || (!setApart && STREET_TYPES.has(w)))) continue
      const close = this.closeLocality(phraseOfWords(end - length, end))
      if (close !== undefined) {
        locality = close
        localityTypo = phrase
        localityStart = end - length
      }
    }
    // A directional between a comma and the place is the place's, never the street's: `Fawn Cir, E Sacramento`
    // names a place the index does not know (below), not Fawn Cir E in Sacramento's towns (a Sacramento audit:
    // `W Sacramento`, before West Sacramento was read whole, found houses in 38 other towns).
    if (
      locality !== undefined && localityStart >= 3 && DIRECTIONALS.has(words[localityStart - 1]!) &&
      commaAfter.has(localityStart - 2)
    ) {
      locality = undefined
      localityTypo = undefined
      localityAbbreviated = undefined
      localityStart = end
    }
    let streetWords = words.slice(0, localityStart)
    // A place the index does not know: the words after the last comma (past the street), or else the words
    // after the last street type.
    let unknownLocality: string | undefined
    if (locality === undefined) {
      const lastComma = Math.max(-1, ...[...commaAfter].filter((i) => i >= 1 && i < localityStart - 1))
      const afterComma = lastComma >= 1 ? streetWords.slice(lastComma + 1) : []
      const typeAt = streetWords.findLastIndex((w, i) => i >= 2 && STREET_TYPES.has(w))
      const tail = afterComma.length > 0 && !afterComma.some((w) => /\d/.test(w))
        ? afterComma
        : typeAt >= 2
        // Past the street's own directional (`Main St E Riverton`); a suffix, taken off by its length (it dropped
        // every directional: `Bay Ridge Pkwy Unit E, NY 11228` lost its unit's E, an audit found).
        ? streetWords.slice(typeAt + 1 + (DIRECTIONALS.has(streetWords[typeAt + 1] ?? "") ? 1 : 0))
        : []
      const tailIsUnit = tail.length > 0 && takeUnit(["X", ...tail]).unit !== ""
      // After a comma a place may begin with a directional (`N Highlands`); a lone one is the street's.
      const placeWords = tail === afterComma
        ? tail.every((w) => /^[A-Z]+$/.test(w)) && !tail.every((w) => DIRECTIONALS.has(w))
        : tail.every((w) => /^[A-Z]+$/.test(w) && !DIRECTIONALS.has(w))
      if (tail.length > 0 && !tailIsUnit && placeWords) {
        unknownLocality = tail.join(" ")
        streetWords = streetWords.slice(0, streetWords.length - tail.length)
      }
    }
    // Australia's unit before its number (`3/72 Charles St`, `G1/5 Smith St`): the unit, then the number. In
    // a US place (a state, a ZIP code, a town of US states only) `71/2` is 7½ and `2042/2044` two houses (an
    // audit: both found another house, No. 2 and No. 2044); with no place, a number before the slash is read
    // as the unit only if the house found is not in the US (`match`).
    // A unit word before it says what the slash says already (`Unit 3/46 Fewster Rd`, `Flat 3/46 …`: told they had
    // no house number, an address audit of 2026-11-29). Not where a house number follows (`Apt 5A/5C, 77 Reade
    // St`: the unit is `5A/5C`, named before the number, below).
    if (
      streetWords.length >= 3 &&
      (LETTER_UNIT_DESIGNATORS.has(streetWords[0]!) || LEADING_UNIT_WORDS.has(streetWords[0]!)) &&
      /^[A-Z0-9][A-Z0-9-]*\/\d/.test(streetWords[1]!) && !HOUSE_NUMBER.test(streetWords[2]!)
    ) {
      streetWords = streetWords.slice(1)
    }
    const usPlace = (zip !== undefined && /^\d{5}/.test(zip)) || (state !== undefined && US_STATE_CODES.has(state)) ||
      (locality !== undefined && [...(this.localityStates.get(locality) ?? [])].every((s) => US_STATE_CODES.has(s)))
    // Australia's `U` for a unit, joined to its number or apart (`U1/1 Danae St`, `U1 1 Danae St`, `U 1 1 Danae
    // St`, `U607 2 McGoun St`: told they had no house number, or no unit U1: an address audit, 2026-11-29), read as
    // `Unit`. Not in a US place.
    if (!usPlace && streetWords.length >= 3) {
      const joined = /^U(\d+[A-Z]?)(\/\d\S*)?$/.exec(streetWords[0]!)
      if (streetWords[0] === "U" && /^\d+[A-Z]?$/.test(streetWords[1]!) && HOUSE_NUMBER.test(streetWords[2]!)) {
        streetWords = ["UNIT", ...streetWords.slice(1)]
      } else if (joined !== null && joined[2] !== undefined) {
        streetWords = [`${joined[1]}${joined[2]}`, ...streetWords.slice(1)]
      } else if (joined !== null && HOUSE_NUMBER.test(streetWords[1]!)) {
        streetWords = ["UNIT", joined[1]!, ...streetWords.slice(1)]
      }
    }
    // `No. 12 Main St`, `Number 12 …`: the word says what the number is (every such typing was told it had no house
    // number: an address audit, 2026-11-30).
    if (
      (streetWords[0] === "NO" || streetWords[0] === "NUMBER") && streetWords.length >= 3 &&
      /^\d/.test(streetWords[1]!)
    ) {
      streetWords = streetWords.slice(1)
    }
    const slashed = streetWords.length >= 2
      ? /^([A-Z0-9][A-Z0-9-]*)\/(\d+[A-Z]?(?:-\d+[A-Z]?)?)$/.exec(streetWords[0]!)
      : null
    let unitBefore = ""
    let unitSlashed = false
    // A unit with a letter (`4B/300 Main St`) is no half and no second house.
    const numericSlash = slashed !== null && /^\d+(?:-\d+)?$/.test(slashed[1]!)
    // In a US place a number before the slash is a half (`71/2`, `11-1/2`), or the first of two houses when
    // the second is a little above it (`2042/2044`, refused), or else the unit (`3/300 Main St`).
    const half = usPlace && numericSlash ? /^(\d+)-?1\/2$/.exec(streetWords[0]!) : null
    const gap = slashed !== null ? Number(slashed[2]) - Number(slashed[1]) : Number.NaN
    if (half !== null) streetWords = [half[1]!, "1/2", ...streetWords.slice(1)]
    else if (usPlace && numericSlash && gap > 0 && gap <= 20) {
      return {
        _tag: "Refusal",
        hint: `${streetWords[0]} names two house numbers, not one property: send the one house number.`
      }
    } else if (slashed !== null) {
      unitBefore = slashed[1]!
      unitSlashed = numericSlash && !usPlace
      streetWords = [slashed[2]!, ...streetWords.slice(1)]
    } // A unit named before the number (`Unit 4, 98 Church Rd`, `Flat 2 12 Smith St`, `#7 765 Malvern Rd`; Australia's
    // `Villa 3, 72 Charles St` and `Townhouse 3, …` too, which were told they have no house number: an audit).
    else if (
      streetWords.length >= 4 &&
      (LETTER_UNIT_DESIGNATORS.has(streetWords[0]!) || LEADING_UNIT_WORDS.has(streetWords[0]!)) &&
      HOUSE_NUMBER.test(streetWords[2]!)
    ) {
      unitBefore = streetWords[1]!
      streetWords = streetWords.slice(2)
    }
    // The house number (with a fraction: `12 1/2`), then the unit, then the street. A letter hyphened to it
    // (`20-A`) is the number's (`20A`), as one written apart is.
    let number = streetWords[0]?.replace(/^(\d+)-([A-Z])$/, "$1$2")
    if (number === undefined || !HOUSE_NUMBER.test(number)) {
      return {
        _tag: "Refusal",
        hint: zip !== undefined && streetWords.length === 0
          ? "A ZIP code alone names no property: send the house number and street."
          : "The address has no house number: send it as the first part, e.g. \"12 Elm St\"."
      }
    }
    let rest = streetWords.slice(1)
    if (/^\d+\/\d+$/.test(rest[0] ?? "")) {
      number = `${number} ${rest[0]}`
      rest = rest.slice(1)
    } else {
      const joined = withNumberLetter(number, rest)
      number = joined.number
      rest = [...joined.words]
    }
    const taken = takeUnit(rest)
    const unitIsFloor = taken.floor === true
    let unit = taken.unit || unitBefore || trailingUnit
    let street = taken.words
    // A bare unit after its own comma: `12 Elm St, 2A, Riverton`.
    if (unit === "" && street.length >= 2) {
      const lastWord = street.at(-1)!
      const commaBefore = commaAfter.has(streetWords.length - 2)
      if (commaBefore && /\d/.test(lastWord) && !HOUSE_NUMBER.test(street[0] ?? "")) {
        // A postcode on record before its suburb, and the suburb's, is the postcode (`85 Turner St, 3067
        // Abbotsford` was told "No unit 3067 is recorded": an audit of the Melbourne file). Another number is
        // the unit, whatever town has it for a postcode (`350 E 57th St, 3105, New York`).
        const townsOfLocality = locality === undefined ? undefined : this.towns.get(locality)
        if (
          zip === undefined && isZip(lastWord) &&
          [...this.townsOfZip(lastWord)].some((town) => townsOfLocality?.has(town) === true)
        ) zip = lastWord
        else unit = lastWord
        street = street.slice(0, -1)
      }
    }
    if (street.length === 0) {
      return {
        _tag: "Refusal",
        hint: /^\d{5}(-\d{4})?$/.test(number) && rest.length === 0
          ? "A ZIP code alone names no property: send the house number and street."
          : "The address has no street name after its house number."
      }
    }
    const notes: Array<MatchNote> = []
    if (locality !== undefined && NICKNAMED.has(locality)) {
      notes.push({
        kind: "normalized",
        part: "town",
        sent: localityAbbreviated ?? locality,
        used: NICKNAMED.get(locality)!
      })
    } else if (locality !== undefined && localityAbbreviated !== undefined && localityAbbreviated !== locality) {
      notes.push({ kind: "normalized", part: "town", sent: localityAbbreviated, used: locality })
    }
    // A misspelt street type (`Stret`): within one edit of exactly one type, and in its place.
    const typeAt = DIRECTIONALS.has(street.at(-1)!) && street.length >= 3 ? street.length - 2 : street.length - 1
    const typeWord = street[typeAt]!
    // (An ordinal ending a name is the name's: `East One Hundred Eighty First` is not a misspelt Forest; nor is
    // the last word of a street on record as typed with the number: `17 The Dell` was read as The Well, and never
    // found. Records misspell types too, `HAWTHORNE STRET`: with another house only, the type is corrected.)
    if (
      typeAt >= 1 && !STREET_TYPES.has(typeWord) && !ORDINALS.has(typeWord) && /^[A-Z]{4,}$/.test(typeWord) &&
      !(this.byName.get(streetParts(street).name) ?? []).some((onRecord) => onRecord.numbers.has(number))
    ) {
      // Compared with each type's usual spelling first (`STREET`), then with every spelling on the list
      // (which holds misspellings of its own, `STREME` for a stream).
      const typesWithin = (spellings: Iterable<readonly [string, string]>) => {
        const found = new Set<string>()
        for (const [spelling, abbreviation] of spellings) {
          if (
            spelling.length >= 4 && Math.abs(spelling.length - typeWord.length) <= 1 && oneEditApart(spelling, typeWord)
          ) {
            found.add(abbreviation)
          }
        }
        return found
      }
      const usual = typesWithin([...STREET_TYPE_NAMES].map(([abbreviation, name]) => [name, abbreviation] as const))
      let types = usual.size > 0 ? usual : typesWithin(STREET_TYPES)
      // One edit from several types (`Cort`: Court or Port; `Drove`: Drive or Grove; `Gove`: Grove or Cove), where
      // the town or ZIP code sent has a street of the name with only one of them: that one (each was a dead end,
      // nothing suggested, in an address audit of 2026-11-29). Only where no street of the name has another of
      // them there, recorded at any number: a house on the other that never sold may be the one meant.
      if (types.size > 1 && (locality !== undefined || zip !== undefined)) {
        const inPlace = [...types].filter((type) => {
          const parts = streetParts([...street.slice(0, typeAt), type, ...street.slice(typeAt + 1)])
          return (this.byName.get(parts.name) ?? []).some((onRecord) =>
            onRecord.parts.type === parts.type && onRecord.parts.directional === parts.directional &&
            (zip !== undefined
              ? onRecord.zip === zip
              : [...onRecord.numbers.values()].some((parcels) =>
                parcels.some((parcel) => this.parcels.get(parcel)!.localities.has(locality!))
              ))
          )
        })
        if (inPlace.length === 1) types = new Set(inPlace)
      }
      if (types.size === 1) {
        const [type] = types
        notes.push({ kind: "corrected", part: "street_type", sent: typeWord, used: type! })
        street = [...street.slice(0, typeAt), type!, ...street.slice(typeAt + 1)]
      }
    }
    return {
      notes,
      number,
      street: streetParts(street),
      streetWords: street,
      unit,
      unitIsFloor,
      unitSlashed,
      country,
      zip,
      state,
      locality,
      localityTypo,
      unknownLocality,
      ...(within === undefined ? {} : { within })
    }
  }

  /**
   * Whether a street's place fits what the address says of its place. A street recorded without a ZIP code fits
   * a ZIP code of its own town only: `314 Logan Ave, NY 10301`, a Staten Island ZIP code, found and charged the
   * Bronx's 314 Logan Ave, on record without one, with nothing said (an address audit, 2026-11-30: 22 NYC parcels
   * have no ZIP code on record).
   */
  private streetIn(street: Street, parsed: Parsed) {
    if (parsed.zip === undefined || street.zip === parsed.zip) return true
    if (street.zip !== "") return false
    const towns = this.townsOfZip(parsed.zip)
    // (One street is in one town: its first parcel tells which.)
    const first = firstParcelOf(street)
    return towns.size === 0 || first === undefined || towns.has(this.townOf(first))
  }

  private parcelIn(parcel: ParcelRecord, parsed: Parsed, locality: string | undefined) {
    if (parsed.state !== undefined && parcel.state !== undefined && parcel.state.toUpperCase() !== parsed.state) {
      return false
    }
    const { localities } = this.parcels.get(parcel)!
    if (parsed.within !== undefined && !localities.has(parsed.within)) return false
    return locality === undefined || localities.has(locality)
  }

  /** Street names close to `name` among the streets of an area (`Z:…`, `L:…` or `*`), nearest first. */
  private closeNames(area: string, name: string, edits: number): Array<{ name: string; edits: number }> {
    const byLength = this.names.get(area)
    if (byLength === undefined || edits === 0) return []
    const numbers = numbersOf(name)
    const found: Array<{ name: string; edits: number }> = []
    for (let length = name.length - edits; length <= name.length + edits; length++) {
      for (const known of byLength.get(length) ?? []) {
        if (known === name || numbersOf(known) !== numbers) continue
        const d = typingEdits(known, name)
        if (d <= edits) found.push({ name: known, edits: d })
      }
    }
    return found.sort((a, b) => a.edits - b.edits || a.name.localeCompare(b.name))
  }

  match(typed: string): AddressMatch {
    // Remarks typed with the address (`(corner lot)`, `- asking $650k`) are not read: said in the answer. So are
    // symbols no address holds (an emoji, `☃`, the replacement character of bytes that were not UTF-8), which
    // reading drops: `3 Pine ☃ Ct` was charged as an exact match (an integrator's audit, 2026-11-30).
    const { address: raw, remarks: typedRemarks } = withoutRemarks(typed, (phrase) => this.isPlaceOrState(phrase))
    const symbols = raw.match(/[\p{So}\p{Co}\p{Cs}\uFFFD]/gu)
    const remarks = symbols === null ? typedRemarks : [...typedRemarks, [...new Set(symbols)].join(" ")]
    const found = this.withNumberInWords(raw, this.withUnitWrittenApart(raw, this.matchWithoutRemarks(raw)))
    if (remarks.length === 0) return found
    if (found._tag === "Found") {
      return {
        ...found,
        method: found.method === "exact" ? "normalized" : found.method,
        notes: [...found.notes, ...remarks.map((sent) => ({ kind: "ignored" as const, part: "remark" as const, sent }))]
      }
    }
    if (found._tag === "Unknown") {
      return {
        ...found,
        hint: `${found.hint} (Read as \`${raw}\`: ${remarks.map((remark) => `\`${remark}\``).join(" and ")} ${
          remarks.length === 1 ? "is" : "are"
        } not part of an address and ${remarks.length === 1 ? "was" : "were"} not read.)`
      }
    }
    return found
  }

  /**
   * A place the index knows, its short name, or a state (what a remark must not hold: `withoutRemarks`). A method,
   * not a function-valued field: `fromData` builds an index without running field initialisers, and a restored
   * index (every start from kept data, the first start's template among them) had none, so places were read as
   * remarks there and `116 Elm St on Staten Island` was refused where a fresh index found it.
   */
  private isPlaceOrState(phrase: string): boolean {
    return this.localityStates.has(phrase) || NICKNAMED.has(phrase) || STATE_NAMES.has(phrase) ||
      US_STATE_CODES.has(phrase) || AUSTRALIAN_STATE_CODES.has(phrase)
  }

  /**
   * The address found with the words after `Unit` up to the comma read as one unit, where as read it was not:
   * the service's own candidates write units the records write apart so (`210 BOWERY UNIT 4TH FL, NEW YORK`,
   * `1030 ELTON ST UNIT 18 CB`, `291 7 AVE UNIT 10&PH`), and each, sent back, was refused (read as unit `4TH`
   * on a street `BOWERY FL`, or as an intersection): an agent looped on them (an address audit, 2026-11-29).
   * Only a unit of that name: the match is kept only where it found one.
   */
  private withUnitWrittenApart(raw: string, found: AddressMatch): AddressMatch {
    if (found._tag === "Found") return found
    const apart = /^(.*?(?:\b(?:UNIT|APT|APARTMENT)|#)\s*)([^,#]+?)(\s*,.*)?$/i.exec(raw)
    const value = apart?.[2]
    if (apart === null || value === undefined || !/[\s&]/.test(value) || value.split(/\s+/).length > 3) return found
    // (As its key, one word, which is the record's unit's key: `4TH` for `4TH FL`, `10PH` for `10&PH`.)
    const key = unitKey(value)
    if (key === "" || /\s/.test(key)) return found
    const again = this.matchWithoutRemarks(`${apart[1]}${key}${apart[3] ?? ""}`)
    const unitFound = again._tag === "Found" && again.parcel.unit !== "" ? again : undefined
    // Digits apart (`2-3 B`, `2 3B`) may be floors 2 and 3's `2/3B` as well as floor 23's `23B`: where both are on
    // record, both are candidates (`Unit 2-3 B` was valued as 23B beside 2/3B: an address audit, 2026-11-29).
    const slashed = /\d[\s\-/]+\d/.test(value)
      ? this.matchWithoutRemarks(
        `${apart[1]}${value.replace(/(\d)[\s\-/]+(\d)/, "$1/$2").replace(/\s+/g, "")}${apart[3] ?? ""}`
      )
      : undefined
    if (unitFound !== undefined && slashed?._tag === "Found" && slashed.parcel !== unitFound.parcel) {
      return ambiguous([unitFound.parcel, slashed.parcel], "several")
    }
    // Else only the unit as the record writes it, but for spaces and periods: a key drops more (`1&2` and `12`
    // are one key, and `132 Remsen St Unit 1&2` was charged as unit 12: an address audit, 2026-11-29).
    const written = (unit: string) => unit.toUpperCase().replace(/[\s.]+/g, "")
    return unitFound !== undefined && written(unitFound.parcel.unit) === written(value) ? unitFound : found
  }

  /**
   * The address found with a house number written as a word (`One Irving Pl`, `Two Columbus Ave`, `Three Webster
   * Pl`, as buildings are named) read as its figure, where as typed it had no house number: refused so until
   * 2026-11-29 (an address audit). Not where the words are a street's name on record (`One Tree Hill Rd`).
   */
  private withNumberInWords(raw: string, found: AddressMatch): AddressMatch {
    if (found._tag !== "Unknown") return found
    const inFigures = withNumberInFigures(raw)
    if (inFigures === raw) return found
    const whole = parseStreetLine(`1 ${tokenize(raw.split(",")[0]!).filter((t) => t !== ",").join(" ")}`)
    if (whole !== undefined && this.byName.has(whole.street.name)) return found
    const again = this.matchWithoutRemarks(inFigures)
    // (A building's units, `One Irving Pl` without one: its candidates.)
    if (again._tag === "Ambiguous") return again
    if (again._tag !== "Found") return found
    const sent = raw.trim().split(/\s+/)[0]!.toUpperCase()
    const note: MatchNote = { kind: "normalized", part: "house_number", sent, used: inFigures.split(" ")[0]! }
    return { ...again, method: again.method === "exact" ? "normalized" : again.method, notes: [note, ...again.notes] }
  }

  private matchWithoutRemarks(raw: string): AddressMatch {
    const read = this.parse(raw)
    if ("_tag" in read) return { _tag: "Unknown", hint: read.hint, suggestions: [] }
    const found = this.matchOrReadAgain(read)
    // Candidates and suggestions in the other country than the one typed are none of the one meant (`1740 High St,
    // Australia` was offered its one candidate in Auburn, CA: an address audit, 2026-11-29).
    if (read.country !== undefined && (found._tag === "Ambiguous" || found._tag === "Unknown")) {
      const inCountry = (address: string) => {
        const state = displayState(address) ?? ""
        return read.country === "US" ? !AUSTRALIAN_STATE_CODES.has(state) : !inUsState(state)
      }
      if (found._tag === "Unknown") return { ...found, suggestions: found.suggestions.filter(inCountry) }
      const candidates = found.candidates.filter(inCountry)
      if (candidates.length === 0) {
        return {
          _tag: "Unknown",
          hint: `The address names ${read.country === "US" ? "the United States" : "Australia"}, but the ` +
            "street address is on record in another country only: check the country or the address.",
          suggestions: []
        }
      }
      if (candidates.length < found.candidates.length) return { ...found, candidates }
    }
    // A house found in the other country than the one typed is not the one meant (a state of neither, the demo
    // county's ZZ, is no contradiction).
    if (read.country !== undefined && found._tag === "Found") {
      const state = found.parcel.state?.toUpperCase() ?? ""
      if (read.country === "US" ? AUSTRALIAN_STATE_CODES.has(state) : inUsState(state)) {
        return {
          _tag: "Unknown",
          hint: `The address names ${read.country === "US" ? "the United States" : "Australia"}, but the ` +
            "street address is on record in another country only: check the country or the address.",
          suggestions: []
        }
      }
    }
    // `unit/number` is Australia's way: a US house so read (`71/2 Bevy Ct` for 7½, No. 2 found) is not the one meant.
    if (read.unitSlashed && found._tag !== "OutsideCoverage" && found._tag !== "Unknown") {
      const inUs = found._tag === "Found"
        ? inUsState(found.parcel.state)
        : found.candidates.some((candidate) => inUsState(displayState(candidate)))
      if (inUs) {
        return {
          _tag: "Unknown",
          hint: `${read.unit}/${read.number} reads as unit ${read.unit} of No. ${read.number} only in Australia: for ` +
            "a US house send its one house number (a half as `7 1/2`), with its town or ZIP code.",
          suggestions: []
        }
      }
    }
    return found._tag === "Found" && read.locality === undefined && read.zip === undefined
      ? { ...found, placeLeftOut: true }
      : found
  }

  /**
   * The address as read; when that finds nothing, read once more as New Yorkers also write a Queens number
   * and a condominium's unit with no word for them: `110 20 215th St` (110-20) and `250 South Street 22P` (unit
   * 22P). The second reading is taken only when it finds a property with nothing corrected, and for the unit
   * only a property with that unit on record (a house found with the word ignored could be another road's:
   * `10 County Rd 5`).
   */
  private matchOrReadAgain(read: Parsed): AddressMatch {
    const found = this.matchParsed(read)
    // No town or ZIP code sent, and the avenue's other name is a street of another town whose numbers reach this
    // one: the town is what tells them apart (`165 Malcolm X Blvd, NY` charged for Brooklyn's house, beside
    // Manhattan's Malcolm X Blvd, Lenox Ave on record from 192: an address audit, 2026-11-29).
    if (found._tag === "Found" && read.locality === undefined && read.zip === undefined) {
      const otherTowns = this.coNamedTowns(read, this.townOf(found.parcel))
      if (otherTowns.length > 0) return ambiguous([found.parcel], "town", otherTowns)
    }
    // A building's units asked for without one, where the building's units are on record under the avenue's
    // other names too: every name's units are candidates (`655 Avenue of the Americas` offered its one unit
    // recorded so, 5H, its eleven others being on record as `655 AVENUE OF THE AMER` and `655 6TH AVE`).
    if (found._tag === "Ambiguous" && found.reason === "unit" && found.otherTowns === undefined) {
      return withUnitsOf(found, coNamedAvenues(read).map((again) => this.matchParsed(again.read)))
    }
    if (found._tag !== "Unknown") return found
    let notValued: AddressMatch | undefined
    let suggested: AddressMatch | undefined
    let suggestedOnly: Extract<AddressMatch, { readonly _tag: "Unknown" }> | undefined
    let units: Extract<AddressMatch, { readonly _tag: "Ambiguous" }> | undefined
    let unitsCoNamed = false
    let candidates: AddressMatch | undefined
    const unitless = unitWithoutDesignator(read)
    const coNamed = new Set(coNamedAvenues(read))
    for (
      const again of [
        queensNumberWithSpace(
          read,
          read.zip !== undefined && this.hyphenatedZips.has(read.zip),
          (parcel) => this.hyphenatedZips.has(parcel.zipCode ?? "") || inUsState(parcel.state)
        ),
        unitless,
        ...coNamed,
        // Both at once: the unit with no word for it on the avenue's other name (`655 Avenue of the Americas 5B`,
        // 5B on record as `655 AVENUE OF THE AMER`, was a dead end where `Apt 5B` was found).
        ...(unitless === undefined ? [] : coNamedAvenues(unitless.read)),
        ...streetNamedByItsType(read),
        beachWithItsInitial(read),
        beachLeftOut(read),
        unitBeforeNumberWithSpace(read),
        otherDirectional(read)
      ]
    ) {
      if (again === undefined) continue
      if (again.unlessTypedStreetInPlace === true && this.typedStreetInPlace(read)) continue
      const second = this.matchParsed(again.read)
      if (again.foundOnly === true && second._tag !== "Found") continue
      if (again.suggestOnly !== undefined) {
        // (With no place sent, before the addresses the first reading suggests: `10 P Ave` was offered Lincoln's
        // 604 P St, California, and not Brooklyn's Avenue P: a review, 2026-11-30.)
        const alongside = (again.suggestFirst === true || !placeSent(read)) && found.suggestions.length > 0 &&
          suggested === undefined
        if (
          second._tag === "Found" && second.method !== "corrected" && again.suggestOnly(second.parcel) &&
          (found.suggestions.length === 0 || alongside) && found.notValued === undefined
        ) {
          const address = parcelDisplayAddress(second.parcel)
          const asSent = alongside && !found.suggestions.includes(address) ? found.suggestions : []
          // Two readings, two properties (`107 S Ave`: South Ave's and Avenue S's): both suggested.
          if (
            suggestedOnly !== undefined && suggested === suggestedOnly && !suggestedOnly.suggestions.includes(address)
          ) {
            suggested = suggestedOnly = {
              _tag: "Unknown",
              hint: "No property with this street address was found; read in other ways, these are on record (the " +
                "addresses suggested): send the one meant.",
              suggestions: [...suggestedOnly.suggestions, address].slice(0, MAX_CANDIDATES)
            }
          }
          suggested ??= suggestedOnly = {
            _tag: "Unknown",
            hint: `No property with this street address was found; read with ${again.said}, it is on record (the ` +
              (asSent.length === 0
                ? "address suggested): send it if it is the one meant."
                : "first address suggested): send it if it is the one meant. The others are the addresses on record " +
                  "nearest to it as sent."),
            suggestions: [address, ...asSent].slice(0, MAX_CANDIDATES)
          }
        }
        continue
      }
      // Read so, the address is refused with addresses to suggest where as read it had none (`209 W 14th St 10A,
      // New York NY 10014`, a wrong ZIP code, was told only that no such street address is on record, where
      // `… Apt 10A …` is told the ZIP code on record: an agent's audit, 2026-11-28): that refusal, saying how it
      // read the address.
      if (
        second._tag === "Unknown" && found.suggestions.length === 0 && found.notValued === undefined &&
        second.suggestions.some((address) =>
          unitKey(/ UNIT (.+?),/.exec(address)?.[1] ?? "") === unitKey(again.read.unit)
        )
      ) {
        suggested ??= {
          ...second,
          hint: `Read with ${again.said}: ${second.hint[0]!.toLowerCase()}${second.hint.slice(1)}`
        }
      }
      // Read so, the address is one on record as not valued (`5700 Arlington Ave 15T`, a co-op's apartment):
      // that is the answer, unless another reading finds a property.
      if (second._tag === "Unknown" && found.notValued === undefined) {
        const recorded = this.unscoredAtAddress(this.withBoroughOfZip(again.read), again.read.street.name)
        if (recorded.length > 0) notValued ??= notValuedHere(recorded, again.said)
      }
      // Read so, the address is a building whose units are on record, sent without one: its units are the
      // candidates (`2351 Adam Clayton Powell Jr Blvd`, its 15 units recorded on `2351 ADAM CLAYTON POWELL`, was
      // told the number is not on the street and offered 2322-2328: an address audit, 2026-11-29).
      // (Each of the avenue's names: the building's units under all of them.)
      if (second._tag === "Ambiguous" && second.reason === "unit") {
        if (units === undefined) {
          units = second
          unitsCoNamed = coNamed.has(again)
        } else if (unitsCoNamed && coNamed.has(again)) {
          units = withUnitsOf(units, [second])
        }
      }
      // Read so, the address names properties the reading cannot tell apart (`376 Broadway 8D, New York`: the
      // unit's building on Broadway and W Broadway): those candidates, where as read it had nothing to offer (a
      // dead end, with no suggestion: an address audit, 2026-11-29).
      if (second._tag === "Ambiguous" && found.suggestions.length === 0 && found.notValued === undefined) {
        candidates ??= second
      }
      if (second._tag !== "Found" || second.method === "corrected") continue
      const note = again.noteFor(second)
      if (note !== undefined) return { ...second, method: "normalized", notes: [note, ...second.notes] }
    }
    return units ?? notValued ?? suggested ?? candidates ?? found
  }

  /**
   * A place not on record that is a covered town's or market's name with a word of a wider or narrower area
   * (`Sacramento County`, `Melbourne CBD`, `Melbourne North`): `outside-coverage`, which tells a caller not to
   * retry, was untrue (an audit, 2026-11-28). The street address is looked for in the place named, and
   * suggested, never taken: the area may be another (Pollock Pines lies in El Dorado County). Any other place
   * not on record is outside the coverage, as before.
   */
  private qualifiedPlace(parsed: Parsed): AddressMatch {
    const words = (parsed.unknownLocality ?? "").split(" ")
    const place = [words.slice(0, -1), words.slice(1)].map((kept) => kept.join(" ")).find((phrase, i) =>
      words.length >= 2 && AREA_WORDS.has(i === 0 ? words.at(-1)! : words[0]!) && this.towns.has(phrase)
    )
    if (place === undefined) {
      return this.soundAlikePlace(parsed) ?? { _tag: "OutsideCoverage", place: parsed.unknownLocality }
    }
    const inPlace = this.matchParsed({ ...parsed, unknownLocality: undefined, locality: place })
    const suggestions = addressesOf(inPlace)
    return {
      _tag: "Unknown",
      hint: `${parsed.unknownLocality} is no place on record; ${place} is` +
        (suggestions.length > 0
          ? `, and the addresses suggested are there: send the town or ZIP code of the one meant.`
          : ", but no property with this street address was found there: send the town or ZIP code."),
      suggestions: suggestions.slice(0, MAX_CANDIDATES)
    }
  }

  /**
   * A place not on record spelt like a covered one, beyond the one or two letters a typo is corrected by
   * (`Bentley` for Bentleigh: `7 Gordon St Unit 2, Bentley` was `outside-coverage`, which tells a caller not to
   * retry, where Bentleigh has that flat: an agent's audit, 2026-11-28), that holds the street address sent:
   * refused with that address suggested, never taken (Bentley is a suburb of Perth too). The same first four
   * letters and at most three edits apart.
   */
  private soundAlikePlace(parsed: Parsed): AddressMatch | undefined {
    const typed = parsed.unknownLocality ?? ""
    if (typed.length < 5) return undefined
    const places: Array<string> = []
    const suggestions: Array<string> = []
    for (const phrase of this.towns.keys()) {
      if (phrase.slice(0, 4) !== typed.slice(0, 4) || Math.abs(phrase.length - typed.length) > 3) continue
      if (distance(phrase, typed) > 3) continue
      const there = this.matchParsed({ ...parsed, unknownLocality: undefined, locality: phrase })
      const addresses = there._tag === "Found" && there.method !== "corrected" ||
          there._tag === "Ambiguous" && there.reason !== "spelling"
        ? addressesOf(there)
        : []
      if (addresses.length === 0) continue
      places.push(phrase)
      for (const address of addresses) suggestions.push(address)
    }
    if (places.length === 0) return undefined
    return {
      _tag: "Unknown",
      hint: `${typed} is no place on record; this street address is on record in ${places.sort().join(" and ")}: ` +
        `check the town (${thoseSuggested(new Set(suggestions).size)}; send the town or ZIP code of the one meant).`,
      suggestions: [...new Set(suggestions)].slice(0, MAX_CANDIDATES)
    }
  }

  /**
   * `New York, NY` with another borough's ZIP code is read in that borough (`withBoroughOfZip`); but New York
   * is Manhattan's own town too, and where the address sent is on record there, either may be meant: both are
   * candidates (`209 W 14th St Apt 10A, New York, NY 11215` found and charged for Brooklyn's 209 14th St, its
   * directional and unit ignored, where Manhattan has 209 W 14th St unit 10A: an audit, 2026-11-28), as for
   * `Manhattan` with that ZIP code.
   */
  private matchParsed(read: Parsed): AddressMatch {
    const parsed = this.withBoroughOfZip(read)
    const byZip = this.matchInPlace(parsed)
    if (parsed === read) return byZip
    const asSent = this.matchInPlace({ ...read, zip: undefined })
    const inTown = asSent._tag === "Found" && asSent.method !== "corrected" ||
        asSent._tag === "Ambiguous" && asSent.reason !== "spelling"
      ? addressesOf(asSent)
      : []
    if (inTown.length === 0) return byZip
    const inZip = foundAddressesOf(byZip)
    if (inZip.length === 0) {
      return {
        _tag: "Unknown",
        hint: `The street address is on record in NEW YORK (Manhattan), not in the ZIP code ${read.zip} sent, ` +
          `which is ${parsed.locality}'s: check the ZIP code (that address is suggested).`,
        suggestions: inTown.slice(0, MAX_CANDIDATES)
      }
    }
    return {
      _tag: "Ambiguous",
      reason: "place",
      candidates: [...new Set([...inZip, ...inTown])].slice(0, MAX_CANDIDATES)
    }
  }

  private matchInPlace(parsed: Parsed): AddressMatch {
    // A state no covered market is in decides first: `18 Hill St, Brooklyn, CT 06234` was told to check its ZIP
    // code, which led to Brooklyn, NY's house (an agent's audit, 2026-11-30); without the ZIP code it was, rightly,
    // outside the coverage.
    if (parsed.state !== undefined && this.states.size > 0 && !this.states.has(parsed.state)) {
      return { _tag: "OutsideCoverage" }
    }
    if (parsed.zip !== undefined && !this.zips.has(parsed.zip)) {
      // A covered town with a ZIP code not on record (a wrong digit): refused as a wrong ZIP code on record
      // is, with the town's house suggested, not `outside-coverage`, which says not to retry (an audit, 2026-11-24).
      if (parsed.locality === undefined) return { _tag: "OutsideCoverage" }
      const suggestions = addressesOf(this.matchParsed({ ...parsed, zip: undefined }))
      return {
        _tag: "Unknown",
        hint: `ZIP code ${parsed.zip} is not on record in ${parsed.locality}: check the ZIP code` +
          (suggestions.length > 0 ? " (the town's addresses nearest to the one sent are suggested)." : "."),
        suggestions: suggestions.slice(0, MAX_CANDIDATES)
      }
    }
    if (parsed.unknownLocality !== undefined && parsed.zip === undefined) return this.qualifiedPlace(parsed)
    const notes: Array<MatchNote> = [...parsed.notes]
    if (parsed.localityTypo !== undefined) {
      notes.push({ kind: "corrected", part: "town", sent: parsed.localityTypo, used: parsed.locality! })
    }
    // A place not on record beside a ZIP code that is (`Colony Ave, SI, NY 10306`): the ZIP decides.
    if (parsed.unknownLocality !== undefined) {
      notes.push({ kind: "ignored", part: "town", sent: parsed.unknownLocality })
    }
    // The place first as given; a neighbourhood that holds no such street is widened to the town it lies
    // in (people use neighbourhood names the record does not), only for a street spelt as recorded.
    const exact = this.withTypedStreetElsewhere(
      parsed,
      this.onStreet(parsed, parsed.street.name, parsed.locality, notes)
    )
    // No directional sent where streets of the name differ by theirs, and a property not valued is on record
    // at the number too (an audit, 2026-11-25: `1478 86th St, Brooklyn`, a building not valued, was ambiguous
    // with one candidate, 1478 E 86th St, which an agent sends back). Recorded as sent, with no directional,
    // it is that property; with one, it is a candidate, first.
    if (exact?._tag === "Ambiguous" && exact.reason === "directional") {
      // (Not those also recorded as valued at the number: a building's parking unit beside its homes.)
      const recorded = this.unscoredAtAddress(parsed, parsed.street.name).filter((at) => !this.valuedAt(at))
      // Recorded as sent only where the valued properties at the number differ from it by their directional
      // alone: in its town and of its type (`366 Broadway`, typed with no town, was refused as Manhattan's co-op,
      // with Staten Island's valued house called "on a street of this name with a direction"; `21-20 45th, Long
      // Island City` as 45th Rd's walk-up beside 45th St's house: a review, 2026-11-28).
      const sameBut = (at: UnscoredAt) =>
        exact.candidates.every((candidate) => {
          const street = displayStreet(candidate)
          return displayTown(candidate) === displayTown(at.address) && street !== undefined &&
            typesAgree(street.type, at.street.type)
        })
      const asSent = recorded.filter((at) => at.street.directional === "" && sameBut(at))
      if (asSent.length > 0) return notValuedHere(asSent, undefined, exact.candidates)
      if (recorded.length > 0) {
        const towns = new Set([...recorded.map(({ address }) => address), ...exact.candidates].map(displayTown))
        const types = new Set([
          ...recorded.map(({ street }) => street.type),
          ...exact.candidates.map((candidate) => displayStreet(candidate)?.type ?? "")
        ])
        // What the candidates differ by: the town where none was sent, else the type where none was sent.
        const reason: AmbiguityReason = parsed.locality === undefined && parsed.zip === undefined && towns.size > 1
          ? "town"
          : parsed.street.type === "" && types.size > 1
          ? "type"
          : "directional"
        return {
          ...exact,
          reason,
          ...notValuedFirst(recorded, exact.candidates),
          ...(reason === "town" ? { candidateTowns: [...towns].sort() } : {})
        }
      }
    }
    // No type sent, and a property not valued is on record at the number on a street of the name with another
    // type: as for a directional left out, it is a candidate, first (`74-16 88th, Queens, NY 11421` found the
    // house at 74-16 88TH AVE, where 74-16 88TH RD, a walk-up, may be the one meant). The rule for a type left
    // out weighs only the valued streets of the name, and a street of buildings not valued has none.
    if (
      parsed.street.type === "" && (exact?._tag === "Found" || exact?._tag === "Ambiguous" && exact.reason === "type")
    ) {
      const taken = exact._tag === "Found" ? parseStreetLine(exact.parcel.street)?.street : undefined
      const otherType = this.unscoredAtAddress(parsed, parsed.street.name).filter((at) =>
        at.street.type !== "" && !this.valuedAt(at) &&
        (taken === undefined ||
          !typesAgree(taken.type, at.street.type) && taken.directional === at.street.directional)
      )
      if (otherType.length > 0) {
        return { _tag: "Ambiguous", reason: "type", ...notValuedFirst(otherType, addressesOf(exact)) }
      }
    }
    // No town or ZIP code sent, and the street address is on record in another town too, as a property not
    // valued: either may be meant, as where both are valued (`735 E 9th St`, a Brooklyn house, found it and charged
    // for it, where Manhattan's 735 E 9th St is a co-op; `30 Sutton Pl` named only Staten Island's house, never
    // Manhattan's co-op: a review, 2026-11-28). The one not valued is a candidate, first.
    if (
      parsed.locality === undefined && parsed.zip === undefined &&
      (exact?._tag === "Found" ||
        exact?._tag === "Ambiguous" && (exact.reason === "town" || exact.reason === "several"))
    ) {
      const taken = exact._tag === "Found" ? parseStreetLine(exact.parcel.street)?.street : undefined
      const takenAddress = exact._tag === "Found" ? parcelDisplayAddress({ ...exact.parcel, unit: "" }) : undefined
      const alsoHere = this.unscoredAtAddress(parsed, parsed.street.name).filter((at) =>
        !this.valuedAt(at) && at.address !== takenAddress &&
        (taken === undefined || typesAgree(taken.type, at.street.type) && taken.directional === at.street.directional)
      )
      if (alsoHere.length > 0) {
        return {
          _tag: "Ambiguous",
          reason: "town",
          ...notValuedFirst(alsoHere, addressesOf(exact)),
          ...(exact._tag === "Ambiguous" && exact.otherTowns !== undefined ? { otherTowns: exact.otherTowns } : {}),
          candidateTowns: [
            ...new Set([
              ...alsoHere.map(({ address }) => displayTown(address)),
              ...(exact._tag === "Found"
                ? [exact.parcel.city ?? exact.parcel.market]
                : exact.candidateTowns ?? exact.candidates.map(displayTown))
            ])
          ].sort()
        }
      }
    }
    if (exact !== undefined) return exact
    // The address is on record, as a property not valued (`5700 Arlington Ave, Bronx`, a co-op; `4820 Avenue
    // N, Brooklyn`, a house with a shop): said so, its neighbours not suggested (an audit, 2026-11-25: they
    // were, as if the house number were a mistake, inviting a paid answer for another property).
    const notValued = this.unscoredAtAddress(parsed, parsed.street.name)
    if (notValued.length > 0) return notValuedHere(notValued)
    const area = parsed.zip !== undefined
      ? `Z:${parsed.zip}`
      : parsed.locality !== undefined
      ? `L:${parsed.locality}`
      : "*"
    const respaced = this.onAnotherSpacing(parsed, notes) ?? this.onAnotherSpelling(parsed, notes)
    if (respaced !== undefined) return respaced
    const attempt = this.corrected(parsed, area, parsed.locality, notes)
    if (attempt.match !== undefined) return attempt.match
    if (attempt.namedElsewhere === true) return this.namedElsewhereRefusal(parsed, attempt.close)
    // A street name the neighbourhood sent does not have, close to a street elsewhere in its town: suggested,
    // never valued. Both the place and the name would be changed, and the name is often a real street the
    // records hold no house of (an audit: `30 Brienna Ct, Charleston` valued Rosebank's 30 Vienna Ct, and
    // `14-19 Manton St, Briarwood` Far Rockaway's Minton St).
    const towns = parsed.locality === undefined ? [] : [...(this.towns.get(parsed.locality) ?? [])]
    if (towns.length === 1 && towns[0] !== parsed.locality && !attempt.known) {
      const town = towns[0]!
      const wider = this.corrected(parsed, parsed.zip !== undefined ? area : `L:${town}`, town, notes).match
      // A close street's house or houses (a refusal of the wider attempt suggests nothing here).
      const elsewhere = foundAddressesOf(wider)
      if (elsewhere.length > 0) {
        return {
          _tag: "Unknown",
          hint: `No street of this name is on record in ${parsed.locality}; a street of a close name is on record ` +
            `elsewhere in ${town} (suggested): check the street's spelling and the neighbourhood.`,
          suggestions: elsewhere.slice(0, MAX_CANDIDATES)
        }
      }
    }
    // A misspelt street whose closest spellings name such a property at the number, and no valued one.
    const notValuedClose = attempt.close.flatMap(({ name }) => this.unscoredAtAddress(parsed, name))
    if (notValuedClose.length > 0) {
      return notValuedHere([...new Map(notValuedClose.map((at) => [at.address, at])).values()])
    }
    const suggestions = [
      ...this.nearNumbers(parsed, parsed.street.name),
      ...attempt.close.flatMap(({ name }) => this.nearNumbers(parsed, name))
    ].slice(0, MAX_CANDIDATES)
    // The ZIP code sent is another town's than the town sent, and the street address is on record in it: the
    // ZIP code names a property the town does not (`251 Robinson Ave, Bronx, NY 10312`, a Staten Island house).
    const byZip = parsed.zip !== undefined && parsed.locality !== undefined &&
        !this.townsOfZip(parsed.zip).has(parsed.locality)
      ? this.onStreet({ ...parsed, locality: undefined }, parsed.street.name, undefined, notes)
      : undefined
    const inZip = foundAddressesOf(byZip)
    // The house is on record on the street, in the town, under another ZIP code (a long street crosses
    // several): refused all the same (the ZIP code or the number may be the mistake), with that address first.
    if (parsed.zip !== undefined) {
      const towns = parsed.locality !== undefined ? [parsed.locality] : [...this.townsOfZip(parsed.zip)]
      const elsewhere = this.onStreetAsSent(parsed, towns)
      if (elsewhere.length > 0) {
        const zips = [...new Set(elsewhere.flatMap((parcel) => parcel.zipCode ?? []))].sort()
        const addresses = buildingsWithUnitSent(elsewhere, parsed.unit)
        // And in the ZIP code's town too: the town names one property and the ZIP code another (an agent's
        // audit, 2026-11-25: `243 Robinson Ave, Bronx, NY 10312` suggested only the Bronx's house, `…, Staten
        // Island, NY 10465` only Staten Island's, and an agent confirms the one suggestion it is given). Both are
        // candidates; which is meant, only the caller knows.
        if (inZip.length > 0) {
          return {
            _tag: "Ambiguous",
            reason: "place",
            candidates: [...new Set([...inZip, ...addresses])].slice(0, MAX_CANDIDATES)
          }
        }
        return {
          _tag: "Unknown",
          hint: `This house number is on record on the street in ${
            [...new Set(elsewhere.map((parcel) => parcel.city ?? parcel.market))].join(" or ")
          } with ZIP code ${zips.join(" or ")}, not ${parsed.zip}: ` +
            "check the ZIP code (that address is suggested first, then the numbers nearest to it in the ZIP code sent).",
          suggestions: [...new Set([...addresses, ...suggestions])].slice(0, MAX_CANDIDATES)
        }
      }
    }
    // The street is the town's, but none of its houses lies in the ZIP code sent (`3 Pine Ct, Riverton, ZZ
    // 99105`): say so, and suggest the street's addresses in the town. Unless the street is on record in that
    // ZIP code with properties not valued (`3130 Grand Concourse, Bronx, NY 10458`, an office condo, was told
    // to check its right ZIP code): that is the answer, below.
    if (
      suggestions.length === 0 && attempt.known && parsed.zip !== undefined && parsed.locality !== undefined &&
      !this.unscoredStreetOf(area, parsed.street.name, parsed.street.type)
    ) {
      const inTown = this.nearNumbers({ ...parsed, zip: undefined }, parsed.street.name)
      if (inZip.length > 0) {
        // (The street in the town only where its addresses there are suggested: an address audit, 2026-11-29, read
        // it for `… Brighton Beach` and `… Elk Grove`, where the street has no house on record.)
        return {
          _tag: "Unknown",
          hint: `This street address is on record in ZIP code ${parsed.zip}, which is not in ${parsed.locality}` + (
            inTown.length > 0
              ? `; the street is in ${parsed.locality} too, without this number: check the town and the ZIP code ` +
                "(the address in the ZIP code is suggested first)."
              : ": check the town (the address in the ZIP code is suggested)."
          ),
          suggestions: [...new Set([...inZip, ...inTown])].slice(0, MAX_CANDIDATES)
        }
      }
      if (inTown.length > 0) {
        // Where the place sent reaches a town of a longer name and the street lies there only (`1/29 Grant St,
        // Malvern VIC 3144`: Grant St is Malvern East's, 3145), that town is named and the town is to be checked
        // too: "on record in MALVERN ... check the ZIP code" blamed the one part that was right (an investor's
        // audit, 2026-11-30).
        // (Judged by the names the records give the street's properties' places, town and neighbourhood, never by
        // the town of a display address: `527 Sycamore St, Annadale` is Annadale's, on record as Staten Island's;
        // nor by a name read from them, as MALVERN from MALVERN EAST.)
        const named = (parcel: ParcelRecord) =>
          [parcel.city, parcel.neighborhood].some((name) =>
            name !== undefined && name !== null &&
            (phraseOf(name) === parsed.locality || directionalFirst(phraseOf(name)) === parsed.locality)
          )
        const elsewhere = ![...(this.byName.get(parsed.street.name) ?? [])].some((street) =>
          [...street.numbers.values()].some((parcels) =>
            parcels.some((parcel) =>
              this.parcelIn(parcel, { ...parsed, zip: undefined }, parsed.locality) && named(parcel)
            )
          )
        )
        const towns = [...new Set(inTown.map(displayTown))]
        return {
          _tag: "Unknown",
          hint: elsewhere
            ? `The street is on record in ${towns.join(" and ")}, not in ${parsed.locality} itself, and not in ` +
              `ZIP code ${parsed.zip}: check the town and the ZIP code (the street's addresses nearest to the ` +
              "number are suggested)."
            : `The street is on record in ${parsed.locality}, but not in ZIP code ${parsed.zip}: check the ZIP ` +
              "code (the street's addresses in the town nearest to the number are suggested).",
          suggestions: inTown
        }
      }
    }
    // The street address is on record in another town of the state, not in the place sent (`7 Wilson St, E
    // Brighton` for Brighton's): never corrected to a street here (`corrected`); that address is suggested. So
    // too where the place's street has houses, but none numbered near this one (`4463 Park Ave, Manhattan`:
    // Manhattan's Park Ave is on record to 1399, the Bronx's holds 4463; an agent's audit, 2026-11-25, was
    // offered Manhattan's only): that address first, then the place's nearest.
    // (Each street of the name in the place with its stretches in every ZIP code together: a number more than a
    // block from each of two ZIP codes' stretches, but between them, is within the street.)
    const placeStreets = new Map<string, Array<Street>>()
    for (const street of this.byName.get(parsed.street.name) ?? []) {
      if (!this.streetHasParcelIn(street, parsed, parsed.locality)) continue
      const key = `${street.parts.type}|${street.parts.directional}`
      placeStreets.set(key, [...(placeStreets.get(key) ?? []), street])
    }
    const placeSpans = suggestions.length > 0 &&
      [...placeStreets.values()].some((stretches) => numbersSpanAll(stretches, houseNumberValue(parsed.number)))
    // Another town's address is suggested without a unit other than the one sent (`481 Park Ave, New York` was
    // offered Brooklyn's 481 Park Ave Unit 4B and 6B: sent back, each values someone's flat; a review).
    const unitAsSent = (parcels: ReadonlyArray<ParcelRecord>) => buildingsWithUnitSent(parcels, parsed.unit)
    // (In the place's own state: `1300 Park Ave, New York` is never offered another country's Park Ave.)
    const placeStates = parsed.locality === undefined ? undefined : this.localityStates.get(parsed.locality)
    const misplaced = parsed.locality === undefined ?
      [] :
      this.inState(parsed).flatMap(({ parcels, street }) =>
        street.parts.directional === parsed.street.directional &&
          (parsed.street.type === "" || street.parts.type === parsed.street.type)
          ? parcels.filter((parcel) =>
            placeStates?.has(parcel.state?.toUpperCase() ?? "") !== false &&
            // (Within the wider place sent: `Kensington, Brooklyn` is not misplaced in Kensington VIC.)
            this.parcelIn(parcel, parsed, undefined)
          )
          : []
      )
    if ((suggestions.length === 0 || !placeSpans) && parsed.locality !== undefined) {
      if (misplaced.length > 0) {
        return {
          _tag: "Unknown",
          hint: `This street address is on record in ${
            [...new Set(misplaced.map((parcel) => parcel.city ?? parcel.market))].sort().join(" or ")
          }, not in ${parsed.locality}: check the town (${thoseSuggested(new Set(unitAsSent(misplaced)).size)}${
            suggestions.length > 0 ? ` first, then the numbers nearest to it in ${parsed.locality}` : ""
          }).`,
          suggestions: [
            ...new Set([...unitAsSent(misplaced).sort(naturally), ...suggestions])
          ].slice(0, MAX_CANDIDATES)
        }
      }
    }
    // The directional sent is on no street of the name here, and a street of the name with it holds the number
    // in another place (`318 W 52nd St, Brooklyn, NY 11220`, Manhattan's 318 W 52nd St): that address first.
    const { directional } = parsed.street
    const withDirectional = directional !== "" &&
        !(this.byName.get(parsed.street.name) ?? []).some((street) =>
          street.parts.directional === directional && this.streetIn(street, parsed) &&
          this.streetHasParcelIn(street, parsed, parsed.locality)
        )
      ? this.withDirectionalAnywhere(parsed, parsed.street.name)
      : []
    if (withDirectional.length > 0) {
      // The unit sent where it is on record there, alone, else the building or house (never another flat).
      const named = withDirectional.filter((parcel) =>
        parsed.unit !== "" && unitKey(parcel.unit) === unitKey(parsed.unit)
      )
      const there = unitAsSent(named.length > 0 ? named : withDirectional).sort(naturally)
      return {
        _tag: "Unknown",
        hint: `No street of this name with the directional ${directional} is on record in the place sent; the street ` +
          `address is on record in ${
            [...new Set(withDirectional.map((parcel) => parcel.city ?? parcel.market))].sort().join(" or ")
          } (suggested first, then the addresses here nearest to it on streets of this name without it, ` +
          "another street): check the town and ZIP code.",
        suggestions: [...new Set([...there, ...suggestions])].slice(0, MAX_CANDIDATES)
      }
    }
    // Within the town's numbers, the street address on record in another town is suggested too: a house here
    // that never sold may be the one meant, but so may that one (`602 Lexington Ave, New York, NY`: Manhattan's
    // Lexington Ave has houses from 90 to 993, and Brooklyn's 602 was never named; an investor audit), after the
    // town's nearest numbers (`New York` too, which many people write for every borough: the house in the town
    // sent stays the likelier reading of what was sent).
    // With a ZIP code sent the place is the ZIP code's, and another town's address is suggested only where the
    // street runs on into it: the records' coordinates put it within a mile of the street's houses here
    // (`233 Balwyn Rd, Balwyn VIC 3103`, Balwyn North's, was offered only Balwyn's numbers: an address audit,
    // 2026-11-29). A street of the name in another borough (`1300 Park Ave, New York, NY 10029`) is another street.
    // (The street's houses here, with coordinates: gathered only for a candidate that needs them.)
    let placeHouses: ReadonlyArray<Point> | undefined
    const housesHere = () =>
      placeHouses ??= [...placeStreets.values()].flatMap((stretches) =>
        stretches.flatMap((street) =>
          [...street.numbers.values()].flatMap((parcels) =>
            parcels.flatMap((parcel) => {
              const point = pointOf(parcel)
              return point !== undefined && this.parcelIn(parcel, parsed, parsed.locality) ? [point] : []
            })
          )
        )
      )
    const runsOnInto = (parcel: ParcelRecord) => {
      if (parsed.zip === undefined) return true
      const point = pointOf(parcel)
      return point !== undefined && housesHere().some((house) => milesBetween(house, point) <= STREET_RUNS_ON_MILES)
    }
    const elsewhere = placeSpans && parsed.locality !== undefined
      ? misplaced.filter((parcel) =>
        (!this.parcelIn(parcel, parsed, parsed.locality) ||
          // (`Balwyn` names Balwyn North too, but not with Balwyn's ZIP code.)
          (parsed.zip !== undefined && parcel.zipCode !== parsed.zip && this.townOf(parcel) !== parsed.locality)) &&
        runsOnInto(parcel)
      )
      : []
    if (elsewhere.length > 0) {
      const there = unitAsSent(elsewhere).sort(naturally).slice(0, 2)
      const towns = [...new Set(elsewhere.map((parcel) => parcel.city ?? parcel.market))].sort().join(" or ")
      return {
        _tag: "Unknown",
        hint: `No property with this house number was found on this street in ${parsed.locality}, where a ` +
          `property that never sold may stand; the street address is on record in ${towns} (suggested after the numbers ` +
          `nearest to it in ${parsed.locality}): check the town.`,
        suggestions: [...new Set([...suggestions.slice(0, MAX_CANDIDATES - there.length), ...there])]
      }
    }
    // The place is a town and also a wider place (`Melbourne`, its market's name), read as the town, which has
    // no such house, while other towns of the wider place have the street address: name them (`6 Hamilton St,
    // Melbourne VIC` was told the number is not on the street, with 6 Hamilton St in Brighton suggested).
    if (parsed.locality !== undefined && parsed.zip === undefined && (this.towns.get(parsed.locality)?.size ?? 0) > 1) {
      const locality = parsed.locality
      const inPlace = this.inState(parsed).flatMap(({ parcels, street }) =>
        street.parts.directional === parsed.street.directional &&
          (parsed.street.type === "" || street.parts.type === parsed.street.type)
          ? parcels.filter((parcel) => this.parcelIn(parcel, parsed, locality) && this.townOf(parcel) !== locality)
          : []
      )
      if (inPlace.length > 0) {
        const addresses = [...new Set(inPlace.map(parcelDisplayAddress))].sort(naturally)
        return {
          _tag: "Unknown",
          hint: `This street address is not on record in the town of ${locality}, but it is in ${
            [...new Set(inPlace.map((parcel) => parcel.city ?? parcel.market))].sort().join(" or ")
          }: name the town (${thoseSuggested(addresses.length)}).`,
          suggestions: addresses.slice(0, MAX_CANDIDATES)
        }
      }
    }
    // The name is a street of the place, but not with the type sent (`3 Pine St` where Riverton has Pine Ct).
    const { type } = parsed.street
    const otherType = type !== "" &&
      !(this.byName.get(parsed.street.name) ?? []).some((street) =>
        street.parts.type === type && this.streetIn(street, parsed) &&
        this.streetHasParcelIn(street, parsed, parsed.locality)
      )
    // The street sent is on record here only with properties not valued: none of it valued here (`104-51 120th
    // Ave, Queens` was told so, then offered 120th Ave's valued houses: an investor's audit, 2026-11-30).
    const valuedHere = (this.byName.get(parsed.street.name) ?? []).some((street) =>
      (type === "" || street.parts.type === type) && street.parts.directional === parsed.street.directional &&
      this.streetIn(street, parsed) && this.streetHasParcelIn(street, parsed, parsed.locality)
    )
    const unscoredHere = !valuedHere &&
      [area, ...(parsed.locality !== undefined ? [`L:${parsed.locality}`] : [])].some((key) =>
        this.unscoredStreetOf(key, parsed.street.name, parsed.street.type)
      )
    // The house number on record on a street of the name with another type, in the town (and the ZIP code
    // sent): suggested first, for the caller to confirm which is meant, never taken (`72-30 51st Ave, Woodside`
    // was suggested only 32-11 51st St, where 72-30 51st Rd and 72-30 51st Dr are on record: an agent's audit).
    // (And where the street of the type sent is on record without the number: `248-18 88th Ave, Bellerose NY
    // 11426`, with 248-18 88th Rd and 88th Dr on record.)
    // (So too where the street sent is on record here only with properties not valued: `72-30 51st Ave, Woodside
    // NY 11377` was told no property at this address can be valued, where 72-30 51st Rd is valued.)
    const sameNumber = type !== "" && attempt.known ? this.sameNumberOtherType(parsed) : []
    if (sameNumber.length > 0) {
      return {
        _tag: "Unknown",
        hint: `${
          unscoredHere
            ? "The street sent is on record here only with properties this service does not value (apartment " +
              "buildings of four families or more, shops, offices and the like)."
            : otherType
            ? `No street of this name with the type ${type} is on record here (a street of another type is another ` +
              "street)."
            : "No property with this house number was found on this street."
        } The house number is on record on ${
          sameNumber.length === 1 ? "a street" : "streets"
        } of this name with another type (suggested first: confirm which is meant before sending it), then the ` +
          "addresses on the streets of this name nearest to the number.",
        suggestions: [...new Set([...sameNumber, ...suggestions])].slice(0, MAX_CANDIDATES)
      }
    }
    // A name too short to be corrected (three letters or fewer) that is no street here: the streets one letter from
    // it with this house number are suggested, never taken (`57 Hal Ave, Staten Island`, where Hall Ave has 57 and
    // Hale Ave is as close, was refused with nothing to send: an address audit, 2026-11-29).
    if (!attempt.known && allowedEdits(parsed.street.name) === 0 && suggestions.length === 0) {
      const addresses = this.atNumberOn(parsed, this.closeNames(area, parsed.street.name, 1).map(({ name }) => name))
      if (addresses.length > 0) {
        return {
          _tag: "Unknown",
          hint: "No street of this name is on record here, and a name this short is never corrected: the house " +
            `number is on record on ${addresses.length === 1 ? "a street" : "streets"} one letter from it (${
              thoseSuggested(addresses.length)
            }): send the one meant.`,
          suggestions: addresses.slice(0, MAX_CANDIDATES)
        }
      }
    }
    // The nearest numbers are the number sent itself in another town of the ZIP code or place sent (`3 Myrtle St,
    // Williamstown VIC 3016`, a house of Williamstown North's, was told the number is not on the street: an
    // agent's audit, 2026-11-28): said so, and suggested first.
    const placeSent = parsed.locality ?? `ZIP code ${parsed.zip}`
    const sameAddressElsewhere = parsed.locality === undefined && parsed.zip === undefined ? [] : suggestions.filter(
      (address) => {
        const line = displayStreetLine(address)
        return line !== undefined && line.number === parsed.number && line.street.name === parsed.street.name &&
          (parsed.locality === undefined || displayTown(address) !== parsed.locality)
      }
    )
    // The street sent is real and lacks the number, which a street of a close name here has: one letter from it
    // (`365 Mosel Ave, Staten Island`, where 365 Mosely Ave sold) or a longer name ending in it (`148 127th St,
    // Queens`, where 148 Beach 127th St sold). Suggested first, never taken: the street sent is real and its house
    // may never have sold (an investor's audit, 2026-12-01, was offered only Mosel Ave's and 127th St's numbers).
    // Not where the street sent is on record here only with properties not valued, nor with another type only, nor
    // where the street address itself is on record in another town of the place: each is said as before. At most
    // MAX_CLOSE_NAME_SUGGESTIONS, so that the street's own nearest numbers keep a place.
    const closeName = attempt.known && !unscoredHere && !otherType && sameAddressElsewhere.length === 0
      ? this.sameNumberOnCloseNames(parsed, area).slice(0, MAX_CLOSE_NAME_SUGGESTIONS)
      : []
    if (closeName.length > 0) {
      const offered = [...new Set([...closeName, ...suggestions])].slice(0, MAX_CANDIDATES)
      return {
        _tag: "Unknown",
        hint: `No property with this house number was found on this street. The house number is on record on ${
          closeName.length === 1 ? "a street" : "streets"
        } of a close name (suggested first: confirm which is meant before sending it)${
          offered.length > closeName.length ? ", then the addresses on this street nearest to the number" : ""
        }.`,
        suggestions: offered
      }
    }
    return {
      _tag: "Unknown",
      hint: unscoredHere && (otherType || suggestions.length === 0)
        ? "The street is on record here only with properties this service does not value (apartment buildings " +
          "of four families or more, shops, offices and the like): no property at this address can be valued."
        : attempt.known && suggestions.length > 0 && otherType
        ? `No street of this name with the type ${type} is on record here (a street of another type is another ` +
          "street); the addresses on the streets of this name nearest to the number are suggested."
        : attempt.known && sameAddressElsewhere.length > 0
        ? `This street address is not on record in ${placeSent}, but it is in ${
          [...new Set(sameAddressElsewhere.map(displayTown))].sort().join(" or ")
        }: check the town (${thoseSuggested(sameAddressElsewhere.length)}${
          sameAddressElsewhere.length < suggestions.length ? " first, then the numbers nearest to it" : ""
        }).`
        : attempt.known && suggestions.length > 0
        ? "No property with this house number was found on this street; the numbers nearest to it are suggested."
        : attempt.known
        ? "No property with this street address was found in the place sent."
        : parsed.locality === undefined && parsed.zip === undefined
        ? "No covered property has this street address; add the town or ZIP code if it is in a covered area."
        : "The address is in a covered area, but no property with this street address was found there.",
      suggestions: [...new Set([...sameAddressElsewhere, ...suggestions])].slice(0, MAX_CANDIDATES)
    }
  }

  /**
   * `New York, NY` with a ZIP code of one other borough (`2436 Walton Ave, New York, NY 10468`): the city's
   * name, as many people and databases write it for all five boroughs, where the NYC records name the borough
   * (Manhattan's is New York). The borough of the ZIP code is the town, with a note.
   */
  private withBoroughOfZip(parsed: Parsed): Parsed {
    if (parsed.locality !== "NEW YORK" || parsed.zip === undefined) return parsed
    const towns = this.townsOfZip(parsed.zip)
    const borough = [...towns][0]
    if (towns.size !== 1 || borough === undefined || !OTHER_BOROUGHS.has(borough)) return parsed
    return {
      ...parsed,
      locality: borough,
      notes: [...parsed.notes, { kind: "normalized", part: "town", sent: "NEW YORK", used: borough }]
    }
  }

  /**
   * The street name corrected within `area`: the one closest street of the area that has the house number,
   * or the equally close ones as candidates. `known`: the name is a street of the area (never corrected).
   */
  private corrected(
    parsed: Parsed,
    area: string,
    locality: string | undefined,
    notes: ReadonlyArray<MatchNote>
  ): {
    readonly match: AddressMatch | undefined
    readonly known: boolean
    readonly close: ReadonlyArray<{ name: string; edits: number }>
    /** The name is on record elsewhere in the state only (not here, nor with this number): never corrected. */
    readonly namedElsewhere?: boolean
  } {
    // A street that exists is never exchanged for a neighbour: its missing house number is the answer. So is
    // one of the town typed, where the ZIP code is another's (`16 Francis Pl, Staten Island, NY 10308`). And a
    // name on record elsewhere in the state with this house number is that street, misplaced, not a misspelling
    // of one here: `7 Wilson St, E Brighton` was 7 Billson St in Brighton East, meant for Brighton's Wilson St
    // (an audit, 2026-11-24); refused, that address suggested. Nor a name on record anywhere in the place's state,
    // whatever its numbers: a record holds the houses that sold, not every house of a street, and `24 Rose St,
    // Alphington` (Rose St on record in Ivanhoe, a kilometre away) was answered, and charged, as 24 Ross St in
    // Alphington (an address audit, 2026-11-29: 15 such Melbourne streets, none a misspelling).
    const isStreetOf = (key: string) => this.names.get(key)?.get(parsed.street.name.length)?.has(parsed.street.name)
    const known = isStreetOf(area) === true || (locality !== undefined && isStreetOf(`L:${locality}`) === true) ||
      this.unscoredStreetOf(area, parsed.street.name) ||
      (locality !== undefined && this.unscoredStreetOf(`L:${locality}`, parsed.street.name)) ||
      this.inState(parsed).length > 0
    if (!known && this.nameInStateOf(parsed, locality)) {
      // The close names are only suggested (`namedElsewhereRefusal`).
      return {
        match: undefined,
        known: true,
        close: this.closeNames(area, parsed.street.name, allowedEdits(parsed.street.name)),
        namedElsewhere: true
      }
    }
    const close = known ? [] : this.closeNames(area, parsed.street.name, allowedEdits(parsed.street.name))
    // A street of properties not valued as close as the closest valued one (`Normma Pl` for Norma Pl, not
    // Norman Pl; an audit found 50 such typings valued as the other street): not corrected.
    if (close.length > 0 && this.unscoredAsClose(area, locality, parsed, close[0]!.edits)) {
      return { match: undefined, known: true, close: [] }
    }
    // A misspelt ordinal word (`Secod Ave` for `Second Ave`, recorded `2 AVE`) is another close name.
    if (!known) {
      const words = parsed.street.name.split(" ")
      words.forEach((word, i) => {
        const ordinals = [...ORDINALS].filter(([spelled]) => word.length >= 5 && oneEditApart(spelled, word))
        if (ordinals.length !== 1) return
        const name = [...words.slice(0, i), ordinals[0]![1], ...words.slice(i + 1)].join(" ")
        if (this.names.get(area)?.get(name.length)?.has(name)) close.push({ name, edits: 1 })
      })
      close.sort((a, b) => a.edits - b.edits || a.name.localeCompare(b.name))
    }
    // The closest street, when no other is as close: it must have the house number (else a refusal, never
    // a farther street that has it). Streets equally close are candidates, ranked.
    const closest = close.filter(({ edits }) => edits === close[0]?.edits)
    if (closest.length === 1 && typoOf(closest[0]!.name, parsed.street.name, closest[0]!.edits)) {
      const corrected = this.onStreet(parsed, closest[0]!.name, locality, [
        ...notes,
        { kind: "corrected", part: "street_name", sent: parsed.street.name, used: closest[0]!.name }
      ])
      if (corrected !== undefined) return { match: corrected, known, close }
    }
    if (closest.length > 1) {
      const candidates = closest.flatMap(({ name }) => this.parcelsOn(parsed, name, locality).parcels)
      if (candidates.length > 0) return { match: ambiguous(candidates, "spelling"), known, close }
    }
    return { match: undefined, known, close }
  }

  /** Whether a street of the name and type sent has a property in the place sent. */
  private typedStreetInPlace(parsed: Parsed): boolean {
    const { directional, name, type } = parsed.street
    return (this.byName.get(name) ?? []).some((street) =>
      street.parts.type === type && street.parts.directional === directional &&
      this.streetHasParcelIn(street, parsed, parsed.locality)
    )
  }

  /**
   * The parcels at the house number on the streets named `name` that fit the address, with what fitting
   * them took (a type or directional from the record, a locality widened).
   */
  private parcelsOn(parsed: Parsed, name: string, locality: string | undefined) {
    const streets = (this.byName.get(name) ?? []).filter((street) => this.streetIn(street, parsed))
    const notes: Array<MatchNote> = []
    // A directional given where the record has none is ignored only when no street of the name has one
    // (`West Broadway` is not `Broadway`), valued or not: `1 Sutton Place South`, a co-op not valued, found the
    // house at 1 Sutton Pl and valued it at $9.7M (an audit, 2026-11-25).
    // Nor where a street of the name with the directional sent holds the number in another ZIP code of the state:
    // `318 W 52nd St Apt 3C, Brooklyn, NY 11220` found and charged for 318 52nd St, Brooklyn, with W and the unit
    // ignored, where Manhattan has 318 W 52nd St (an audit, 2026-11-28; without the ZIP code it was refused).
    const namesHaveDirectionals = streets.some((street) => street.parts.directional !== "") ||
      (parsed.street.directional !== "" &&
        (this.unscoredDirectionalIn(parsed, name) || this.withDirectionalAnywhere(parsed, name).length > 0))
    // The streets of the name with a parcel in the place (read by the rarer readings below; found once).
    let streetsInPlace: Array<Street> | undefined
    const inPlace =
      () => (streetsInPlace ??= streets.filter((street) => this.streetHasParcelIn(street, parsed, locality)))
    const fitting = (street: Street) => {
      const { directional, type } = parsed.street
      if (type !== "" && street.parts.type !== type) return false
      if (directional !== "" && street.parts.directional !== directional) {
        return street.parts.directional === "" && !namesHaveDirectionals
      }
      return true
    }
    let chosen = streets.filter(fitting)
    // A type typed where the record has none (`Broadway Ave`), when no street of the place is spelt so. A
    // different type is another street, never taken (`3 Pine Ct` is not 3 Pine Way, which may be the only
    // Pine of the place on record: a record holds the parcels that sold, not every house of a street).
    if (chosen.length === 0) {
      const { directional, type } = parsed.street
      const sameDirectional = inPlace().filter((street) =>
        directional === "" || street.parts.directional === directional ||
        (street.parts.directional === "" && !namesHaveDirectionals)
      )
      const variants = new Set(sameDirectional.map((street) => `${street.parts.type}|${street.parts.directional}`))
      // The street as typed exists in the place, only not at this ZIP code: no other type is taken for it
      // (`184 Kent Ave, Brooklyn, NY 11222` is not 184 Kent St).
      const typedElsewhere = type !== "" &&
        (this.byName.get(name) ?? []).some((street) =>
          street.parts.type === type && (directional === "" || street.parts.directional === directional) &&
          this.streetHasParcelIn(street, parsed, locality)
        )
      if (variants.size === 1 && type !== "" && sameDirectional[0]!.parts.type === "" && !typedElsewhere) {
        chosen = sameDirectional
        // The record has no type: the one sent is a part the property's record does not have, not a misspelling.
        notes.push({ kind: "ignored", part: "street_type", sent: type })
      }
    }
    const number = this.numberAsRecorded(chosen, parsed, locality)
    if (number !== parsed.number) {
      notes.push({ kind: "normalized", part: "house_number", sent: parsed.number, used: number })
    }
    const atNumber = (of: ReadonlyArray<Street>) =>
      of.flatMap((street) =>
        (street.numbers.get(number) ?? []).filter((parcel) => this.parcelIn(parcel, parsed, locality))
      )
    let parcels = atNumber(chosen)
    // The type sent where a record of the name left its type out (`2123 Bathgate Ave` recorded `2123 BATHGATE`):
    // the same street, when the type sent is the only type the name has in the place.
    if (parcels.length === 0 && parsed.street.type !== "" && chosen.length > 0) {
      const types = new Set(inPlace().map((street) => street.parts.type).filter((type) => type !== ""))
      const typeless = inPlace().filter((street) =>
        street.parts.type === "" && street.parts.directional === parsed.street.directional
      )
      const found = types.size === 1 && types.has(parsed.street.type) ? atNumber(typeless) : []
      if (found.length > 0) {
        parcels = found
        chosen = typeless
        // The same street, its type left out of this record: the address sent was right (an investor audit,
        // 2026-11-29: `3324 Gunther Avenue, Bronx`, recorded `3324 GUNTHER` by its latest deed, was said corrected).
        notes.push({ kind: "normalized", part: "street_type", sent: parsed.street.type, used: "none" })
      }
    }
    // Typed without a directional, where only a street of the name that has none holds the number: that
    // street, as typed (`324 Broadway`, beside an E Broadway without a 324). Where one with a directional holds
    // it too, the directional may have been left out: ambiguous, below.
    // Only where the number lies beyond the numbers on record of each of those (a block either side): within
    // them, a house there that never sold may be the one meant (`607 17th St, Brooklyn` for 607 E 17th St).
    // With its ZIP code too, the address as typed is the street without one, wherever the other's numbers run:
    // it is the address on record to the letter, and the refusal's own candidate, sent back, was refused again
    // (an address audit, 2026-11-29: `574 New York Ave, Brooklyn, NY 11225`, beside E New York Ave's 553–594 in
    // 11225; 53 of 60 such houses could not be valued in any spelling).
    const wanted = houseNumberValue(number)
    // So too, with its ZIP code, a unit the street without one has at the number and the one with one has not
    // (`2600 HENRY HUDSON PKWY UNIT 2A, BRONX, NY 10463`, its other flats recorded on PKWY E: the refusal's own
    // candidate, sent back, was refused again, an address audit of 2026-11-29).
    const unitAsTyped = parsed.street.directional === "" && parsed.zip !== undefined && parsed.unit !== "" && (() => {
      const unit = unitKey(parsed.unit)
      const named = (of: ReadonlyArray<Street>) => atNumber(of).some((parcel) => unitKey(parcel.unit) === unit)
      return named(chosen.filter((street) => street.parts.directional === "")) &&
        !named(chosen.filter((street) => street.parts.directional !== ""))
    })()
    const asTyped = parsed.street.directional === "" && parcels.length > 0 && (unitAsTyped ||
      atNumber(chosen.filter((street) => street.parts.directional !== "")).length === 0 &&
        (parsed.zip !== undefined ||
          chosen.every((street) =>
            street.parts.directional === "" || !this.streetHasParcelIn(street, parsed, locality) ||
            !numbersSpan(street, wanted)
          )))
    // A directional left out is taken from the record only when no two streets of the name in the place
    // differ by theirs: `12 Drumgoole Rd` may be on Drumgoole Rd E or W, and `28 Broadway` is not on E
    // Broadway, whichever of them has the number on record (a record holds the parcels that sold, not every
    // house of a street).
    // Nor where every street of the name in the place carries a directional: its sibling of another may hold
    // the house and never have sold (`13 10th Rd, Broad Channel` found 13 E 10TH RD, where W 10th Rd's houses
    // are not in the files; so are most of the Bronx's W numbered streets): the house is the candidate.
    const directionalLeftOut = parsed.street.directional === "" && parcels.length > 0 && !asTyped && (() => {
      const directionalsHere = new Set(
        chosen.filter((street) => this.streetHasParcelIn(street, parsed, locality)).map((street) =>
          street.parts.directional
        )
      )
      return directionalsHere.size > 1 && new Set(chosen.map((street) => street.parts.directional)).size > 1 ||
        !directionalsHere.has("") && parcels.every((parcel) => parseStreetLine(parcel.street)?.street.directional)
    })()
    // Typed without a type, where the name is a street of another type in the place too: the street that holds
    // the number is taken only where the number lies beyond the numbers on record of each other type's street
    // (a block either side), as for a directional left out. Within them, a house there that never sold may be
    // the one meant: `100 Crystalwood, Lincoln` found 100 Crystalwood Way, where Crystalwood Cir is numbered
    // 3–100 and its 100 had not sold (a Sacramento audit). A record without a type is the same street as its
    // typed records, never another. Below the other street's numbers on record lie its first houses, recorded or
    // not: `1 Princes, Port Melbourne` found 1 Princes Pl, where Princes St is on record from 178 (an address
    // audit, 2026-11-29).
    const typeLeftOut = parsed.street.type === "" && parcels.length > 0 && (() => {
      const typesHolding = new Set(
        chosen.filter((street) => atNumber([street]).length > 0).map((street) => street.parts.type)
      )
      return !typesHolding.has("") &&
        (chosen.some((street) =>
          street.parts.type !== "" && !typesHolding.has(street.parts.type) &&
          this.streetHasParcelIn(street, parsed, locality) && numbersSpan(street, wanted, true)
        ) || this.unscoredTypeReaches(parsed, locality, typesHolding, wanted))
    })()
    // No town or ZIP code sent, and the street is in several towns: the parcels at the number are taken only
    // where it lies above the numbers on record of the street in each other town by more than a block (below
    // them lie that street's first houses). Within them, a house there that never sold may be the one meant:
    // `250 E 93rd St, NY` found Brooklyn's 250 on record, where Manhattan's E 93rd St has 245 and 300.
    // A place that reaches several towns: its own town where it is one (`Altona`, also read as Altona North
    // without its directional; `Melbourne` and `Sacramento`, each a town and its market's name), whether or
    // not the street is on record there: a record holds the parcels that sold, not every street (`1316 I St,
    // Sacramento` found Rio Linda's I St where the city's had no sale, and `5615 Lupin Ln, Sacramento` a house
    // in Pollock Pines, 60 miles away: a Sacramento audit). Else it names none of them (`Melbourne` for 14
    // Collins St, which Box Hill and Bulleen both have).
    const placeTowns = parsed.locality === undefined ? undefined : this.towns.get(parsed.locality)
    // (A town of the state sent: `Kensington, NY` is Brooklyn's neighbourhood, not Melbourne's suburb. And only
    // where the place's towns are of one state: `Chelsea` alone is Melbourne's suburb or Manhattan's
    // neighbourhood, and the street decides, as for any place of several towns.)
    const ownTown = parsed.locality !== undefined && placeTowns !== undefined && placeTowns.size > 1 &&
      placeTowns.has(parsed.locality) && this.localityStates.get(parsed.locality)?.size === 1 &&
      (parsed.state === undefined || this.townStates.get(parsed.locality)?.has(parsed.state) === true) &&
      (parsed.zip === undefined || this.townsOfZip(parsed.zip).has(parsed.locality))
    if (ownTown) parcels = parcels.filter((parcel) => this.townOf(parcel) === parsed.locality)
    const namesNoTown = parsed.locality === undefined || (placeTowns !== undefined && placeTowns.size > 1 && !ownTown)
    const otherTowns = new Map<string, string>()
    if (namesNoTown && parsed.zip === undefined && parcels.length > 0) {
      const townsFound = new Set(parcels.map((parcel) => this.townOf(parcel)))
      for (const street of chosen) {
        const first = firstParcelOf(street)
        if (
          first === undefined || !this.parcelIn(first, parsed, parsed.locality) || townsFound.has(this.townOf(first)) ||
          !numbersSpan(street, wanted, true)
        ) continue
        otherTowns.set(this.townOf(first), first.city ?? first.market)
      }
    }
    return { parcels, notes, directionalLeftOut, typeLeftOut, otherTowns: [...otherTowns.values()].sort() }
  }

  /**
   * The house number as the streets record it: as typed, unless none of them has it and those of them in the
   * place named lie in ZIP codes that number their houses Queens-style, where `16122` is `161-22` and
   * `161-22` is a `16122` recorded without its hyphen (the records write both). Elsewhere a hyphen joins two
   * houses (`12-14`), and `1214` is another house. A number on record under both forms is read as the other
   * one only for a unit that only the other one has. Never on top of a directional typed and not on record:
   * `2116 East 36th St, NY 11105` is a Brooklyn address with a Queens ZIP code or an Astoria one with a
   * direction too many, and either guess could be someone else's house. Where a place is sent, the typed form
   * is judged on the place's streets: `2215 80th St, East Elmhurst` is 22-15 80th St there, not Brooklyn's 2215
   * 80th St, which was suggested as the one meant (an investor's audit, 2026-11-30).
   */
  private numberAsRecorded(streets: ReadonlyArray<Street>, parsed: Parsed, locality: string | undefined): string {
    const typed = parsed.number
    const other = otherNumberForm(typed)
    // (A number with no other form is as typed whatever the place: judged without reading the place's streets.)
    if (other === undefined) return typed
    const inPlace = streets.filter((street) => this.streetHasParcelIn(street, parsed, locality))
    const judged = locality !== undefined && inPlace.length > 0 ? inPlace : streets
    // A building the records write both ways may hold the unit under the other form only.
    const wanted = unitKey(parsed.unit)
    const unitAt = (number: string) =>
      parsed.unit !== "" &&
      judged.some((street) => (street.numbers.get(number) ?? []).some((parcel) => unitKey(parcel.unit) === wanted))
    const typedOnRecord = judged.some((street) => street.numbers.has(typed))
    if (typedOnRecord && (parsed.unit === "" || unitAt(typed) || !unitAt(other))) return typed
    const { directional } = parsed.street
    if (directional !== "" && streets.some((street) => street.parts.directional !== directional)) return typed
    if (!inPlace.some((street) => street.numbers.has(other))) return typed
    return inPlace.every((street) => this.hyphenatedZips.has(street.zip)) ? other : typed
  }

  /**
   * The streets of the name sent that have the house number on record in the state sent (anywhere in it, any
   * town), with the parcels there: a street address on record elsewhere is misplaced, not misspelt.
   */
  private inState(parsed: Parsed): Array<{ readonly street: Street; readonly parcels: Array<ParcelRecord> }> {
    return (this.byName.get(parsed.street.name) ?? []).flatMap((street) => {
      const parcels = (street.numbers.get(parsed.number) ?? []).filter((parcel) =>
        parsed.state === undefined || parcel.state?.toUpperCase() === parsed.state
      )
      return parcels.length > 0 ? [{ street, parcels }] : []
    })
  }

  /**
   * A street name on record elsewhere in the state, but not in the place sent nor anywhere with this house number
   * (`24 Rose St, Alphington`: Rose St is Ivanhoe's): where it is, and the streets of a close name here that have
   * the number, suggested as other streets, never taken.
   */
  private namedElsewhereRefusal(parsed: Parsed, close: ReadonlyArray<{ name: string }>): AddressMatch {
    const named = this.placesOfNameInState(parsed, parsed.locality)
    const where = named.length > 3
      ? `${named.slice(0, 3).join(", ")} and ${named.length - 3} more places`
      : named.join(" and ")
    const suggestions = [...new Set(close.flatMap(({ name }) => this.nearNumbers(parsed, name)))].slice(
      0,
      MAX_CANDIDATES
    )
    const place = parsed.locality ?? (parsed.zip !== undefined ? `ZIP code ${parsed.zip}` : "the place sent")
    return {
      _tag: "Unknown",
      hint: `No street of this name is on record in ${place}; it is on record in ${where}, without this house ` +
        "number. A street the records do not hold may still be the one meant, so no other street is taken for it" +
        (suggestions.length > 0
          ? `: the addresses suggested are on streets of a close name in ${place}, other streets than the one sent.`
          : ".") +
        " Check the street and the town.",
      suggestions
    }
  }

  /**
   * Whether a street of the name sent is on record anywhere in the state of the place typed (the state sent,
   * else the states the locality lies in), with any house number: then the name is a street's, not a typo.
   */
  private nameInStateOf(parsed: Parsed, locality: string | undefined): boolean {
    const states = this.statesOf(parsed, locality)
    if (states === undefined) return false
    // A street's parcels share a ZIP code, so a state: its first parcel says.
    return (this.byName.get(parsed.street.name) ?? []).some((street) => {
      for (const atNumber of street.numbers.values()) {
        for (const parcel of atNumber) return states.has(parcel.state?.toUpperCase() ?? "")
      }
      return false
    })
  }

  /**
   * The state sent, else the states the locality lies in, else those of the ZIP code's towns: a ZIP code sent
   * alone places the address as a town does (`24 Rose St, 3078` was corrected to 24 Ross St, Alphington, and
   * charged, where `24 Rose St, VIC 3078` is refused as a street on record elsewhere: an address audit, 2026-11-29).
   */
  private statesOf(parsed: Parsed, locality: string | undefined): ReadonlySet<string> | undefined {
    if (parsed.state !== undefined) return new Set([parsed.state])
    if (locality !== undefined) return this.localityStates.get(locality)
    if (parsed.zip === undefined) return undefined
    const states = new Set<string>()
    for (const town of this.townsOfZip(parsed.zip)) {
      for (const state of this.townStates.get(town) ?? []) states.add(state)
    }
    return states.size === 0 ? undefined : states
  }

  /** The places (towns, else markets) of the state of the place typed where a street of the name sent is on record. */
  private placesOfNameInState(parsed: Parsed, locality: string | undefined): Array<string> {
    const states = this.statesOf(parsed, locality)
    if (states === undefined) return []
    const places = new Set<string>()
    for (const street of this.byName.get(parsed.street.name) ?? []) {
      for (const atNumber of street.numbers.values()) {
        for (const parcel of atNumber) {
          if (states.has(parcel.state?.toUpperCase() ?? "")) places.add(parcel.city ?? parcel.market)
        }
      }
    }
    return [...places].sort()
  }

  /** Whether any parcel of the street lies in the place the address names. */
  private streetHasParcelIn(street: Street, parsed: Parsed, locality: string | undefined) {
    for (const atNumber of street.numbers.values()) {
      for (const parcel of atNumber) if (this.parcelIn(parcel, parsed, locality)) return true
    }
    return false
  }

  private localityZips: Map<string, Set<string>> | undefined

  /** Whether any ZIP code of the place's parcels numbers its houses Queens-style (`hyphenatedZips`). */
  private numbersQueensStyleIn(locality: string): boolean {
    if (this.localityZips === undefined) {
      this.localityZips = new Map()
      for (const [parcel, place] of this.parcels) {
        if (parcel.zipCode === undefined) continue
        for (const phrase of place.localities) {
          let zips = this.localityZips.get(phrase)
          if (zips === undefined) this.localityZips.set(phrase, zips = new Set())
          zips.add(parcel.zipCode)
        }
      }
    }
    return [...this.localityZips.get(locality) ?? []].some((zip) => this.hyphenatedZips.has(zip))
  }

  private onStreet(
    parsed: Parsed,
    name: string,
    locality: string | undefined,
    notes: ReadonlyArray<MatchNote>
  ): AddressMatch | undefined {
    let { directionalLeftOut, notes: fitNotes, otherTowns, parcels, typeLeftOut } = this.parcelsOn(
      parsed,
      name,
      locality
    )
    const widened: Array<MatchNote> = []
    if (parcels.length === 0 && locality !== undefined && name === parsed.street.name) {
      // Only within the town the named place lies in: a neighbourhood of another town never widens to it.
      const townsOfLocality = this.towns.get(locality) ?? new Set<string>()
      let anywhere = this.parcelsOn(parsed, name, undefined)
      const statesOfLocality = this.localityStates.get(locality) ?? new Set<string>()
      const ofLocality = (found: ReadonlyArray<ParcelRecord>) =>
        found.filter((p) => townsOfLocality.has(this.townOf(p)) && statesOfLocality.has(p.state?.toUpperCase() ?? ""))
      // Not where the place sent numbers its houses plainly: `340 149th St, Neponsit` (340 BEACH 149TH ST, the
      // Beach left out) was found and charged as Whitestone's 3-40 149th St (an address audit, 2026-11-30).
      const otherFormHere = otherNumberForm(parsed.number) === undefined || this.numbersQueensStyleIn(locality)
      let inTown = otherFormHere || !anywhere.notes.some((note) => note.part === "house_number")
        ? ofLocality(anywhere.parcels)
        : []
      // Read in each town itself, the number as that town records it: `7023 71st St, Ridgewood` is 70-23 71ST ST
      // in Queens' Glendale, but read anywhere the number stayed 7023, since Brooklyn's 71st St numbers its
      // houses plainly, and the address was refused with another street's house suggested (an investor audit).
      for (const town of inTown.length > 0 || !otherFormHere ? [] : townsOfLocality) {
        const there = this.parcelsOn(parsed, name, town)
        if (ofLocality(there.parcels).length === 0) continue
        anywhere = there
        inTown = ofLocality(there.parcels)
        break
      }
      // The neighbourhood sent has the house number on a street of the name with another type: the type may be the
      // mistake as well as the neighbourhood (`27 Sterling St, Park Slope` found 27 Sterling St in another part of
      // Brooklyn, where Park Slope has 27 Sterling Pl: a review). Both suggested, neither taken.
      const siblings = inTown.length > 0 && parsed.street.type !== "" && !townsOfLocality.has(locality)
        ? this.sameNumberOtherType(parsed, [locality])
        : []
      if (siblings.length > 0) {
        return {
          _tag: "Unknown",
          hint: `No street of this name with the type ${parsed.street.type} has this house number in ${locality}, ` +
            `where a street of this name with another type has it; elsewhere in ${
              this.townOf(inTown[0]!)
            } the street address is on record as sent (both suggested: confirm which is meant before sending it).`,
          suggestions: [
            ...new Set([...siblings, ...inTown.map((parcel) => parcelDisplayAddress({ ...parcel, unit: "" }))])
          ].slice(0, MAX_CANDIDATES)
        }
      }
      if (inTown.length > 0 && !townsOfLocality.has(locality)) {
        parcels = inTown
        fitNotes = anywhere.notes
        directionalLeftOut = anywhere.directionalLeftOut
        typeLeftOut = anywhere.typeLeftOut
        otherTowns = anywhere.otherTowns
        widened.push({
          kind: "normalized",
          part: "town",
          sent: locality,
          used: this.townOf(inTown[0]!)
        })
      }
    }
    if (parcels.length === 0) return undefined
    // One property found twice, on its own street as typed and at an earlier address with a directional (`170
    // 206TH ST`, earlier `170 E 206 ST`): either reading is it, so no directional was left out. (One property
    // found once on the street without one, beside streets of the name with one, still asks for it.)
    const distinct = [...new Set(parcels)]
    if (
      directionalLeftOut && distinct.length === 1 && parcels.length > 1 &&
      parseStreetLine(distinct[0]!.street)?.street.directional === parsed.street.directional
    ) directionalLeftOut = false
    parcels = distinct
    // No town or ZIP code sent, and the properties at the number lie in several towns, each on a street of the
    // name spelt alike: the town is what tells them apart, whatever directionals or types other streets of the
    // name have (`193 Park Ave`, on record in Brooklyn and Staten Island, was told to send a direction, and an
    // agent that sent `193 E Park Ave` was offered another borough's Park Dr E).
    if ((directionalLeftOut || typeLeftOut) && parsed.locality === undefined && parsed.zip === undefined) {
      const towns = new Set(parcels.map((parcel) => this.townOf(parcel)))
      const spellings = new Set(parcels.map((parcel) => {
        const street = parseStreetLine(parcel.street)?.street
        return `${street?.type}|${street?.directional}`
      }))
      if (towns.size > 1 && spellings.size === 1) return ambiguous(parcels, "town", otherTowns, parsed.unit)
    }
    if (directionalLeftOut) return ambiguous(parcels, "directional", undefined, parsed.unit)
    if (typeLeftOut) return ambiguous(parcels, "type", undefined, parsed.unit)
    if (otherTowns.length > 0) return ambiguous(parcels, "town", otherTowns, parsed.unit)
    // No town or ZIP code sent, and the properties at the address lie in several towns: the town is what is
    // missing, whatever units one of them has (`324 E 4th St`, a Manhattan building's flats and a Brooklyn house,
    // was told to send the unit: a review); each town's address once, without its units. (A unit sent that one
    // town's building has names its flat, as before: `350 E 57th St Apt 3105`.)
    if (parsed.locality === undefined && parsed.zip === undefined && parsed.unit === "") {
      const towns = new Set(parcels.map((parcel) => this.townOf(parcel)))
      if (towns.size > 1) {
        const byTown = new Map(parcels.map((parcel) => [`${this.townOf(parcel)}|${parcel.street}`, parcel]))
        return ambiguous([...byTown.values()].map((parcel) => ({ ...parcel, unit: "" })), "town", otherTowns)
      }
    }
    // The unit sent names a flat in one town's building, and another town has a house of two or three families
    // at the address, whose apartment the unit may name as well (`1950 80th St Apt 1`: a Queens condominium's
    // unit 1, and Brooklyn's three-family house, charged as the flat with no word: an address audit,
    // 2026-11-29): the town tells them apart.
    if (parsed.locality === undefined && parsed.zip === undefined && parsed.unit !== "") {
      const wanted = unitKey(parsed.unit)
      const flats = parcels.filter((parcel) => parcel.unit !== "" && unitKey(parcel.unit) === wanted)
      const flatTowns = new Set(flats.map((parcel) => this.townOf(parcel)))
      const houses = parcels.filter((parcel) =>
        parcel.unit === "" && (parcel.propertyType === "two_family" || parcel.propertyType === "three_family") &&
        !flatTowns.has(this.townOf(parcel))
      )
      if (flats.length > 0 && houses.length > 0) return ambiguous([...flats, ...houses], "town", otherTowns)
    }
    const all = [...notes, ...fitNotes, ...widened]
    const chosen = this.byUnit(parcels, parsed, all)
    // The building's units asked for without one, where some of them are on record under another spelling of
    // its street (`1920 MC GRAW AVE` and `1920 MCGRAW AVE`): those are candidates too (it offered the one unit
    // recorded under the spelling sent, 6A, of the building's three).
    if (chosen._tag === "Ambiguous" && chosen.reason === "unit" && parsed.unit === "") {
      const others = this.unitsUnderOtherSpellings(parcels, parsed)
      if (others.length > 0) {
        return withUnitsOf(chosen, [unitsOfBuilding(others)])
      }
    }
    if (chosen._tag === "Unknown" && parsed.unit !== "" && parcels.some((parcel) => parcel.unit !== "")) {
      const sibling = this.unitUnderAnotherSpelling(parcels, parsed)
      if (sibling !== undefined) {
        return found(sibling.parcel, parsed, [...all, sibling.note], this.parcels.get(sibling.parcel)!)
      }
    }
    // A letter sent as the unit of a house, where the number with that letter is a house of its own on the
    // street: either may be meant (`849 Greene Ave Apt A`, beside 849A Greene Ave, valued 849: an address audit,
    // 2026-11-29, found 34 such pairs in the NYC files). So for a house of one family, which the unit was refused
    // on with only the house suggested (`Unit B, 9 Stewart St, Murrumbeena`, beside 9B: an address audit of the
    // Melbourne file, 2026-11-29).
    const letter = unitKey(parsed.unit)
    const house = chosen._tag === "Found"
      ? chosen.parcel.unit === "" ? chosen.parcel : undefined
      : parcels.length === 1 && parcels[0]!.unit === "" ?
      parcels[0]
      : undefined
    if (house !== undefined && /^[A-Z]$/.test(letter)) {
      const lettered = this.parcelsOn({ ...parsed, number: `${parsed.number}${letter}`, unit: "" }, name, locality)
      if (lettered.parcels.length > 0) return ambiguous([house, ...lettered.parcels], "several")
    }
    if (chosen._tag !== "Found") return chosen
    return found(chosen.parcel, parsed, all, this.parcels.get(chosen.parcel)!)
  }

  private compactNames: Map<string, Array<string>> | undefined

  /** The street names written with the same letters as `name`, apart or joined (`DE GRAW`, `DEGRAW`). */
  private sameLetters(name: string): ReadonlyArray<string> {
    if (this.compactNames === undefined) {
      this.compactNames = new Map()
      for (const known of this.byName.keys()) {
        const key = known.replace(/ /g, "")
        this.compactNames.set(key, [...(this.compactNames.get(key) ?? []), known])
      }
    }
    return this.compactNames.get(name.replace(/ /g, "")) ?? []
  }

  private looseNames: Map<string, Array<string>> | undefined

  /**
   * The street names spelt as `name` is but for a doubled letter or a word's last `S` (`ST RAYMONDS` and `ST
   * RAYMOND`, `DOUGLASS` and `DOUGLAS`, `WITHERS` and `WITHER`), apart or joined.
   */
  private looselyAlike(name: string): ReadonlyArray<string> {
    // Names of letters only: a numbered street is never another's spelling (`12` and `122`, `E 2` and `E 22`
    // were read as one street, and `13 W 12th St, New York` charged for 13 W 122nd St: an address audit).
    if (/\d/.test(name)) return []
    const key = (text: string) =>
      text.split(" ").map((word) => word.replace(/([A-Z])\1+/g, "$1").replace(/(?<=..)S$/, "")).join("")
    if (this.looseNames === undefined) {
      this.looseNames = new Map()
      for (const known of this.byName.keys()) {
        if (/\d/.test(known)) continue
        const k = key(known)
        this.looseNames.set(k, [...(this.looseNames.get(k) ?? []), known])
      }
    }
    return this.looseNames.get(key(name)) ?? []
  }

  /**
   * The house at the number on a street of the place spelt as the name sent but for a doubled letter or a
   * word's last `S`, which the records write both ways for one street (`2425 St Raymond Ave, Bronx`, its latest
   * record `ST. RAYMONDS AVENUE`; `103 Douglass St`, recorded `DOUGLAS STREET`; `220 Withers St Apt 2B`,
   * `WITHER STREET`: each refused, as the name sent is a street on record and not corrected, an address audit,
   * 2026-11-29). With a town or ZIP code sent only, one house found only, and said as a correction: where two
   * such streets are two streets, `recorded_address` shows which was taken.
   */
  private onAnotherSpelling(parsed: Parsed, notes: ReadonlyArray<MatchNote>): AddressMatch | undefined {
    // (A name on record only: one no street has is a typing mistake, which the rules for corrections weigh.)
    if (parsed.locality === undefined && parsed.zip === undefined) return undefined
    if (!this.byName.has(parsed.street.name)) return undefined
    // Nor where the name sent has the house number on record in the state: that house may be the one meant, in a
    // town beside the one sent (a review, 2026-12-01: `3 Myrtle St, Williamstown` was found as 3 Myrtles St there,
    // where 3 Myrtle St stands in Williamstown North, of the same ZIP code); the rules for a place say which.
    const states = this.statesOf(parsed, parsed.locality)
    const numberOnName = this.inState(parsed).some(({ parcels }) =>
      parcels.some((parcel) => states === undefined || states.has(parcel.state?.toUpperCase() ?? ""))
    )
    if (numberOnName) return undefined
    const spaced = parsed.street.name.replace(/ /g, "")
    return this.onlyHouseOn(
      parsed,
      notes,
      this.looselyAlike(parsed.street.name).filter((name) => name.replace(/ /g, "") !== spaced),
      (used) => ({ kind: "corrected", part: "street_name", sent: parsed.street.name, used }),
      (match) => this.namedInZip(parsed, match.parcel.zipCode)
    )
  }

  /**
   * Whether a street of the name sent (its type, where one was sent) is on record in the ZIP code: one street
   * the records spell two ways runs through the same ZIP codes under both names, where two streets of such names
   * are apart (`230 St John Ave, Staten Island` charged for 230 St Johns Ave, 10305, St John Ave being in 10314:
   * an address audit, 2026-11-29).
   */
  private namedInZip(parsed: Parsed, zip: string | undefined): boolean {
    return zip !== undefined &&
      (this.byName.get(parsed.street.name) ?? []).some((street) =>
        street.zip === zip && typesAgree(street.parts.type, parsed.street.type) &&
        street.parts.directional === parsed.street.directional
      )
  }

  /**
   * The house at the number on the street the name sent is written apart or joined on (`666 De Graw St` beside
   * `666 DEGRAW ST`): the same street, which the records spell both ways, and where the house's latest record
   * spells it the other way, the address as its earlier deeds wrote it was refused with its neighbours
   * suggested (an address audit, 2026-11-29). Only one house found so: never a choice between them.
   */
  private onAnotherSpacing(parsed: Parsed, notes: ReadonlyArray<MatchNote>): AddressMatch | undefined {
    return this.onlyHouseOn(
      parsed,
      notes,
      this.sameLetters(parsed.street.name),
      (used) => ({ kind: "normalized", part: "street_name", sent: parsed.street.name, used })
    )
  }

  /**
   * The one house at the number on the streets of `names` other than the name sent, in the place sent, each
   * found with the note `noteOf` the name used and kept where `accept` says; undefined unless exactly one.
   */
  private onlyHouseOn(
    parsed: Parsed,
    notes: ReadonlyArray<MatchNote>,
    names: ReadonlyArray<string>,
    noteOf: (used: string) => MatchNote,
    accept: (match: Extract<AddressMatch, { _tag: "Found" }>) => boolean = () => true
  ): AddressMatch | undefined {
    const found = names.filter((name) => name !== parsed.street.name).flatMap((name) => {
      const match = this.onStreet(parsed, name, parsed.locality, [...notes, noteOf(name)])
      return match?._tag === "Found" && accept(match) ? [match] : []
    })
    return found.length === 1 ? found[0] : undefined
  }

  /**
   * The units of the building at the street address sent that are on record under another spelling of its
   * street (`unitUnderAnotherSpelling`), in the place sent.
   */
  private unitsUnderOtherSpellings(building: ReadonlyArray<ParcelRecord>, parsed: Parsed): Array<ParcelRecord> {
    const zips = new Set(building.map((parcel) => parcel.zipCode ?? ""))
    const { directional, type } = parsed.street
    const number = building[0]!.street.split(" ")[0]!
    // The building's number, or the range it begins or ends or the range's first or last number, where the ZIP
    // code does not number its houses Queens-style (`66 ST NICHOLAS AVE` and `66-72 ST NICHOLAS AVE`, one
    // building's units recorded under both: `66 St Nicholas Ave Apt 1G` was told no unit 1G is recorded, an
    // address audit; `87 Smith St Apt 8E`, 8E recorded at `85-87 SMITH STREET` and the building's other units at
    // `87 SMITH ST`, was told so too and offered other flats: an agent's audit, 2026-11-29).
    const sameBuilding = (at: string, zip: string) =>
      at === number || (!this.hyphenatedZips.has(zip) && (
        (at.startsWith(`${number}-`) && /^\d+-\d+$/.test(at)) ||
        (/^\d+-\d+$/.test(number) && at === number.split("-")[0]) ||
        rangeLast(at) === number || rangeLast(number) === at
      ))
    const names = [...new Set([...this.sameLetters(parsed.street.name), ...this.looselyAlike(parsed.street.name)])]
    return names.flatMap((name) =>
      (this.byName.get(name) ?? []).flatMap((street) =>
        street.parts.directional === directional &&
          (street.parts.type === type || street.parts.type === "" || type === "") && zips.has(street.zip)
          ? [...street.numbers].flatMap(([at, parcels]) =>
            sameBuilding(at, street.zip)
              ? parcels.filter((parcel) =>
                !building.includes(parcel) && parcel.unit !== "" && this.parcelIn(parcel, parsed, parsed.locality)
              )
              : []
          )
          : []
      )
    )
  }

  /**
   * The unit sent where its building is on record under another spelling of its street too, and the unit only
   * under that one: the name written apart or joined (`1920 MC GRAW AVENUE` and `1920 MCGRAW AVENUE`), or with
   * its type left out (`1555 ODELL` beside `1555 ODELL ST`, `540 WEST 49` beside `540 W 49TH ST`). The same
   * house number, directional and ZIP code, and one such unit only (an address audit, 2026-11-29:
   * `1920 McGraw Ave Apt 6A, Bronx` was told no unit 6A is recorded, 6A being recorded under `MC GRAW`).
   */
  private unitUnderAnotherSpelling(
    building: ReadonlyArray<ParcelRecord>,
    parsed: Parsed
  ): { readonly parcel: ParcelRecord; readonly note: MatchNote } | undefined {
    const wanted = unitKey(parsed.unit)
    const number = building[0]!.street.split(" ")[0]!
    const named = this.unitsUnderOtherSpellings(building, parsed).filter((parcel) => unitKey(parcel.unit) === wanted)
    if (named.length !== 1) return undefined
    const parcel = named[0]!
    const at = parcel.street.split(" ")[0]!
    // (A name spelt otherwise than apart or joined, `WITHER` for `WITHERS`, is said as a correction.)
    const respelt = this.sameLetters(parsed.street.name).every((name) =>
      parseStreetLine(parcel.street)?.street.name !== name
    )
    return {
      parcel,
      note: at !== number
        ? { kind: "normalized", part: "house_number", sent: parsed.number, used: at }
        : {
          kind: respelt ? "corrected" : "normalized",
          part: "street_name",
          sent: parsed.streetWords.join(" "),
          used: parcel.street.replace(/^\S+\s+/, "")
        }
    }
  }

  /**
   * The flats recorded with the unit sent a few doors from a house in its town (four numbers either side on its own
   * street: `8616 21st Ave`), or at its number on another street of its name (`84 Sterling Pl`). The house's street
   * as recorded, whatever spelling found it (`97 Geston Ave Apt 3A`, corrected to Gelston Ave, valued the house
   * where 98 Gelston Ave's 3A is on record: a review, 2026-11-30).
   */
  private flatsNear(house: ParcelRecord, parsed: Parsed): Array<ParcelRecord> {
    const line = parseStreetLine(house.street)
    if (line === undefined) return []
    const wanted = unitKey(parsed.unit)
    const town = this.townOf(house)
    const flats: Array<ParcelRecord> = []
    for (const street of this.byName.get(line.street.name) ?? []) {
      const first = firstParcelOf(street)
      if (first === undefined || this.townOf(first) !== town) continue
      const own = sameStreetParts(street.parts, line.street)
      for (const [at, parcels] of street.numbers) {
        if (own ? !numbersNear(at, line.number) : houseNumberValue(at) !== houseNumberValue(line.number)) continue
        for (const parcel of parcels) {
          if (parcel.unit !== "" && unitKey(parcel.unit) === wanted) flats.push(parcel)
        }
      }
    }
    return flats
  }

  /** Which of the parcels at one street address the unit names. */
  private byUnit(
    parcels: ReadonlyArray<ParcelRecord>,
    parsed: Parsed,
    notes: Array<MatchNote>
  ): AddressMatch | { readonly _tag: "Found"; readonly parcel: ParcelRecord } {
    const units = parcels.filter((p) => p.unit !== "")
    const whole = parcels.filter((p) => p.unit === "")
    if (parsed.unit !== "") {
      if (units.length === 0) {
        const only = whole.length === 1 ? whole[0]! : undefined
        // A unit on a house of two or three families: its apartments are the house's, one property. Anywhere
        // else the unit names a property of its own that is not on record (a condominium unit recorded
        // without its number beside it, a strata unit built where a house stood: `Unit 1, 70 Bruce St` was the
        // house at 70 Bruce St, an audit found): refused, the address without the unit suggested.
        if (only !== undefined && (only.propertyType === "two_family" || only.propertyType === "three_family")) {
          // Unless the unit is no such house's (a tenth floor, a flat 403), or a flat of that name is on record a
          // few doors away or at the number on the name's other street (`8615 21st Ave Apt 3H`, 3H being 8616's;
          // `84 Sterling St Apt 1`, units 1-4 being 84 Sterling Pl's): an audit typing recorded flats so found 1,300
          // of 1,434 typings answered, and charged, as the house (2026-11-30).
          const flatsNearby = this.flatsNear(only, parsed)
          if (!unitOfSmallHouse(parsed.unit)) {
            return {
              _tag: "Unknown",
              hint: `No unit ${parsed.unit} is recorded at this address, and the property on record there is a ` +
                `house of ${only.propertyType === "two_family" ? "two" : "three"} families, which has no such ` +
                "flat: send the address without the unit if that house is the one meant" +
                (flatsNearby.length > 0 ? ", or the flat of that name nearby that is on record." : "."),
              suggestions: [...flatsNearby.map(parcelDisplayAddress), parcelDisplayAddress(only)].slice(
                0,
                MAX_CANDIDATES
              )
            }
          }
          if (flatsNearby.length > 0) return ambiguous([only, ...flatsNearby], "several")
          notes.push({ kind: "ignored", part: "unit", sent: parsed.unit })
          return { _tag: "Found", parcel: only }
        }
        if (only !== undefined) {
          return {
            _tag: "Unknown",
            hint:
              `No unit ${parsed.unit} is recorded at this address, and the property on record there has no units: ` +
              "send the address without the unit if that property is the one meant.",
            suggestions: [parcelDisplayAddress(only)]
          }
        }
        return ambiguous(whole, "several")
      }
      const wanted = unitKey(parsed.unit)
      const named = units.filter((p) => unitKey(p.unit) === wanted)
      // A dash between digits is read away (`4-A` is 4A), but where the unit with a slash for it is on record too
      // (`2-3B` beside `2/3B` and `23B` at 310 E 53rd St), the dash may be the slash: both are candidates (it was
      // valued as 23B with no word: an address audit, 2026-11-29).
      const slashed = unitKey(parsed.unit.replace(/(\d)-(\d)/, "$1/$2"))
      const withSlash = slashed === wanted ? [] : units.filter((p) => unitKey(p.unit) === slashed)
      if (withSlash.length > 0 && named.length > 0) return ambiguous([...named, ...withSlash], "several")
      // `Fl 1` where units 1 and 1A are on record: the floor, not unit 1 (an audit found #1 for #1A).
      const onFloor = parsed.unitIsFloor && /^\d+$/.test(wanted)
        ? units.filter((p) => new RegExp(`^${wanted}[A-Z]+$`).test(unitKey(p.unit)))
        : []
      if (onFloor.length > 0) return ambiguous([...named, ...onFloor], "unit")
      if (named.length === 1) return { _tag: "Found", parcel: named[0]! }
      if (named.length > 1) return ambiguous(named, "several")
      return {
        _tag: "Unknown",
        hint: `No unit ${parsed.unit} is recorded at this address; the units on record there are suggested.`,
        suggestions: nearestUnitsFirst(units, parsed.unit).map(parcelDisplayAddress).slice(0, MAX_CANDIDATES)
      }
    }
    // Without a unit, a lone record without one is the property only where no units are recorded: beside
    // units it is the building's own record or a unit whose number was not recorded, and either is a guess.
    if (whole.length === 1 && units.length === 0) return { _tag: "Found", parcel: whole[0]! }
    if (units.length === 0) return ambiguous(whole, "several")
    // The record without a unit is no candidate: its address is the one sent, refused again if sent back (`185
    // Moreland Rd, Coburg`, a house sale and its units' sales: an agent's audit saw the loop). It is named by id.
    const candidates = unitsOfBuilding(units)
    return whole.length === 0 ? candidates : { ...candidates, unitlessIds: whole.map((p) => p.id).sort(naturally) }
  }

  /**
   * The addresses of the house number sent (in either Queens form) on the streets of the name with another type
   * than the one sent, in the town sent (the towns of the place; the ZIP code's where none is sent), in the
   * ZIP code sent where one is: a sibling street of the name (`51st Rd` beside `51st Ave`), each a property
   * of its own, never taken for the one sent.
   */
  private sameNumberOtherType(
    parsed: Parsed,
    towns: ReadonlyArray<string> = parsed.locality !== undefined
      ? [...(this.towns.get(parsed.locality) ?? [])]
      : parsed.zip !== undefined
      ? [...this.townsOfZip(parsed.zip)]
      : []
  ): Array<string> {
    const numbers = numberForms(parsed.number)
    const found: Array<ParcelRecord> = []
    for (const street of this.byName.get(parsed.street.name) ?? []) {
      if (street.parts.type === "" || street.parts.type === parsed.street.type) continue
      // (Only the type differs: `100 Main St` is not suggested 100 E Main Ave.)
      if (street.parts.directional !== parsed.street.directional) continue
      if (parsed.zip !== undefined && street.zip !== parsed.zip) continue
      // (The number's other form only where the ZIP code numbers Queens-style: elsewhere 12-14 is two houses.)
      for (const number of this.hyphenatedZips.has(street.zip) ? numbers : [parsed.number]) {
        for (const parcel of street.numbers.get(number) ?? []) {
          if (towns.some((town) => this.parcelIn(parcel, parsed, town))) found.push(parcel)
        }
      }
    }
    return buildingsWithUnitSent(found, parsed.unit).sort(naturally)
  }

  /**
   * The house number on record, in the place sent, on streets of a name close to the one sent: one letter from it
   * (a name of four letters or more) or a longer name ending in it word for word (`BEACH 127` for `127`), with the
   * ZIP code sent where one is.
   */
  private sameNumberOnCloseNames(parsed: Parsed, area: string): Array<string> {
    const byLength = this.names.get(area)
    if (byLength === undefined) return []
    const name = parsed.street.name
    const names = new Set<string>()
    // (Four letters or more, as a name a typo is corrected in: `BAY 8` has three.)
    if (allowedEdits(name) > 0) { for (const close of this.closeNames(area, name, 1)) names.add(close.name) }
    for (const [length, known] of byLength) {
      if (length <= name.length) continue
      for (const longer of known) if (longer.endsWith(` ${name}`)) names.add(longer)
    }
    return this.atNumberOn(parsed, [...names])
  }

  /** The addresses at the house number on the streets `names` in the place sent (the unit sent where on record). */
  private atNumberOn(parsed: Parsed, names: ReadonlyArray<string>): Array<string> {
    const found = names.flatMap((name) => this.parcelsOn(parsed, name, parsed.locality).parcels)
    return buildingsWithUnitSent(found, parsed.unit).sort(naturally)
  }

  /**
   * Addresses on a street with the house numbers nearest to the one asked for: on the streets of the name
   * with the directional and the type sent, where the place has such a street (`E 89th St` is not suggested
   * West 89th's houses, nor `Prospect Pl` Prospect Ave's).
   */
  private nearNumbers(parsed: Parsed, name: string): Array<string> {
    // Nearness along the street (`numberGap`): Queens' `14-45` is 1445, between `14-43` and `14-47`.
    const unit = unitKey(parsed.unit)
    const near: Array<{ parcel: ParcelRecord; withUnit: boolean; gap: number }> = []
    let streets = (this.byName.get(name) ?? []).filter((street) =>
      this.streetIn(street, parsed) && this.streetHasParcelIn(street, parsed, parsed.locality)
    )
    const { directional, type } = parsed.street
    const narrowed = (keep: (street: Street) => boolean) => {
      const kept = streets.filter(keep)
      if (kept.length > 0) streets = kept
    }
    // A street of the name with the directional sent, on record with properties not valued, is the street
    // meant: no other's house is suggested (`3 Sutton Pl S` was offered 1 Sutton Pl, another street).
    if (directional !== "" && this.unscoredDirectionalIn(parsed, name)) {
      streets = streets.filter((street) => street.parts.directional === directional)
    } else if (directional !== "") narrowed((street) => street.parts.directional === directional)
    if (type !== "") narrowed((street) => street.parts.type === type)
    for (const street of streets) {
      for (const [number, parcels] of street.numbers) {
        const here = parcels.filter((p) => this.parcelIn(p, parsed, parsed.locality))
        if (here.length === 0) continue
        // Never another unit than the one sent (sent back, it would value someone else's): the unit sent, else
        // the building or house without a unit, whose answer lists its units.
        const sameUnit = parsed.unit === "" ? undefined : here.find((p) => p.unit !== "" && unitKey(p.unit) === unit)
        const gap = numberGap(number, parsed.number, !this.hyphenatedZips.has(street.zip))
        near.push(
          sameUnit !== undefined
            ? { parcel: sameUnit, withUnit: true, gap }
            : { parcel: here.find((p) => p.unit === "") ?? here[0]!, withUnit: false, gap }
        )
      }
    }
    // Only the nearest are written out, a house once (`212 WARREN ST` and a record of it as `212 WARREN`).
    const addresses = new Set<string>()
    const houses = new Set<string>()
    for (const { parcel, withUnit } of near.sort((a, b) => a.gap - b.gap)) {
      if (addresses.size === MAX_CANDIDATES) break
      const house = `${parseStreetLine(parcel.street)?.number}|${parcel.zipCode ?? parcel.city}|${withUnit}`
      if (houses.has(house)) continue
      houses.add(house)
      addresses.add(parcelDisplayAddress(withUnit ? parcel : { ...parcel, unit: "" }))
    }
    return [...addresses]
  }
}

/** One parcel of a street (a street is kept per town and ZIP code: any of its parcels names its town). */
const firstParcelOf = (street: Street): ParcelRecord | undefined => {
  for (const parcels of street.numbers.values()) if (parcels[0] !== undefined) return parcels[0]
  return undefined
}

const naturally = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true })

/**
 * Units in the order of their nearness to the unit sent: that unit, then the others of its floor (its number
 * with another letter), then by how far their numbers lie from its number, in natural order within each.
 * Offered in sort order alone, `Apt 10C` of a 20-floor building was suggested units 2A to 4A, and a
 * directional left out of `209 14th St Apt 10A` listed five other flats as its candidates, each of which, sent
 * back, values someone else's home (an agent's audit, 2026-11-28).
 */
const nearestUnitsFirst = <A extends { readonly unit: string }>(items: ReadonlyArray<A>, sent: string) => {
  const wanted = unitKey(sent)
  // (Its first number wherever it stands: `C246` is near `246`, as the NYC files write one unit both ways.)
  const numberOf = (key: string) => /\d+/.exec(key)?.[0]
  const wantedNumber = numberOf(wanted)
  const rank = (item: A): [number, number] => {
    const key = unitKey(item.unit)
    if (key === wanted) return [0, 0]
    // A penthouse sent: the building's penthouses first (`2628 Broadway PHF`, its one penthouse on record as
    // PH, was offered the flats of floors 3 to 6).
    if (wanted.startsWith("PH") && key.startsWith("PH")) return [1, 1]
    const number = numberOf(key)
    if (number === undefined || wantedNumber === undefined) return [2, Number.POSITIVE_INFINITY]
    if (number === wantedNumber) return [1, 0]
    return [2, Math.abs(Number(number) - Number(wantedNumber))]
  }
  return [...items].map((item) => ({ item, rank: rank(item) })).sort((a, b) =>
    a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || naturally(a.item.unit, b.item.unit)
  ).map(({ item }) => item)
}

/**
 * The addresses to suggest for properties at other street addresses than the one sent: each building once,
 * as the unit sent where the building has it on record (sent back, it is found), else without a unit (another
 * flat is not suggested for the one sent; the building alone answers with its units). A building suggested
 * beside its own unit was suggested first and, sent back, refused as ambiguous (an agent's audit, 2026-11-28).
 */
const buildingsWithUnitSent = (parcels: ReadonlyArray<ParcelRecord>, unitSent: string): Array<string> => {
  const wanted = unitKey(unitSent)
  const withUnit = new Set(
    parcels.filter((parcel) => unitSent !== "" && parcel.unit !== "" && unitKey(parcel.unit) === wanted)
      .map((parcel) => parcelDisplayAddress({ ...parcel, unit: "" }))
  )
  return [
    ...new Set(
      parcels.map((parcel) => {
        const building = parcelDisplayAddress({ ...parcel, unit: "" })
        if (!withUnit.has(building)) return building
        return unitKey(parcel.unit) === wanted && parcel.unit !== "" ? parcelDisplayAddress(parcel) : undefined
      }).filter((address): address is string => address !== undefined)
    )
  ]
}

/**
 * A building's units asked for without one, with those found under its street's other names (the avenue's,
 * `CO_NAMED_AVENUES`) or spellings (`unitsUnderOtherSpellings`): one building's units are on record under each.
 * The units of the name sent first.
 */
const withUnitsOf = (
  first: Extract<AddressMatch, { readonly _tag: "Ambiguous" }>,
  others: ReadonlyArray<AddressMatch>
): Extract<AddressMatch, { readonly _tag: "Ambiguous" }> => {
  // (Several names may find one street, its name normalized: its units once.)
  const seen = new Set([first.candidates.join("\n")])
  const more = others.flatMap((other) => {
    if (other._tag !== "Ambiguous" || other.reason !== "unit" || seen.has(other.candidates.join("\n"))) return []
    seen.add(other.candidates.join("\n"))
    return [other]
  })
  if (more.length === 0) return first
  // The units each reading found beyond the candidates it listed.
  const unlisted = [first, ...more].reduce(
    (total, match) => total + (match.unitsOnRecord ?? match.candidates.length) - match.candidates.length,
    0
  )
  const candidates = [...new Set([...first.candidates, ...more.flatMap((other) => other.candidates).sort(naturally)])]
  return withUnitCount({ ...first, candidates: candidates.slice(0, MAX_CANDIDATES) }, candidates.length + unlisted)
}

/** The building's count of units on record, where the candidates do not list them all. */
const withUnitCount = (
  match: Extract<AddressMatch, { readonly _tag: "Ambiguous" }>,
  units: number
): Extract<AddressMatch, { readonly _tag: "Ambiguous" }> => {
  const { unitsOnRecord: _, ...rest } = match
  return units > match.candidates.length ? { ...rest, unitsOnRecord: units } : rest
}

/**
 * A building's units asked for without one: at most `MAX_CANDIDATES` of them as candidates, with how many the
 * records name (each address once) where that is more.
 */
const unitsOfBuilding = (units: ReadonlyArray<ParcelRecord>) =>
  withUnitCount(ambiguous(units, "unit"), new Set(units.map(parcelDisplayAddress)).size)

/** A parcel's address as the index reads it: two spellings of one street (`117 ST`, `117TH ST`) are one. */
const addressKey = (parcel: ParcelRecord) => {
  const line = parseStreetLine(parcel.street)
  const street = line === undefined
    ? parcel.street
    : `${line.number}|${line.street.name}|${line.street.type}|${line.street.directional}`
  return `${street}|${unitKey(parcel.unit)}|${parcel.zipCode ?? ""}|${parcel.city ?? parcel.market}`
}

const ambiguous = (
  parcels: ReadonlyArray<ParcelRecord>,
  reason: AmbiguityReason,
  otherTowns?: ReadonlyArray<string>,
  unitSent = ""
): Extract<AddressMatch, { readonly _tag: "Ambiguous" }> => {
  const sorted = [...new Set(parcels.map(parcelDisplayAddress))].sort(naturally)
  // (With a unit sent, the units nearest to it first: the building's first five flats are no candidates for it.
  // And a building with the unit sent on record offers that unit alone: `401 E 60th St Apt 10I`, no borough given,
  // was offered 10I and then four other flats of the building, each of which, sent back, values someone else's.)
  const wanted = unitKey(unitSent)
  const buildingOf = (parcel: ParcelRecord) => parcelDisplayAddress({ ...parcel, unit: "" })
  const withUnitSent = new Set(
    parcels.filter((parcel) => parcel.unit !== "" && unitKey(parcel.unit) === wanted).map(buildingOf)
  )
  const kept = unitSent === "" ?
    parcels :
    parcels.filter((parcel) => !withUnitSent.has(buildingOf(parcel)) || unitKey(parcel.unit) === wanted)
  const candidates = unitSent === ""
    ? sorted
    : [...new Set(nearestUnitsFirst(kept, unitSent).map(parcelDisplayAddress))]
  // Several properties whose records spell one address two ways (`89-32 117 STREET` and `89-32 117TH STREET`,
  // two lots sold the same day) are at one address as much as those spelt alike: offered as two candidates, each
  // sent back was refused the same way (an address audit, 2026-11-30).
  const sameAddress = kept.length > 1 &&
    (candidates.length === 1 || (reason === "several" && new Set(kept.map(addressKey)).size === 1))
  return {
    _tag: "Ambiguous",
    reason,
    candidates: (sameAddress ? candidates.slice(0, 1) : candidates).slice(0, MAX_CANDIDATES),
    ...(otherTowns === undefined ? {} : {
      otherTowns,
      candidateTowns: [...new Set(kept.map((parcel) => parcel.city ?? parcel.market))].sort()
    }),
    ...(sameAddress ? { sameAddressIds: kept.map((parcel) => parcel.id).sort(naturally) } : {})
  }
}

/**
 * Whether a unit may name a flat of a house of two or three families: a number up to 9 alone (`Apt 2`), a floor
 * up to the fourth with a letter (`2F`, `1R`, `3A`), or letters alone; not a flat numbered in the hundreds or a
 * higher floor (`A403`, `10F`, `11A`, `6B` are flats of a taller building).
 */
const unitOfSmallHouse = (unit: string) => {
  const key = unitKey(unit)
  const digits = /\d+/.exec(key)?.[0]
  return digits === undefined || Number(digits) <= (key === digits ? 9 : 4)
}

/**
 * Whether two house numbers are at most four apart, or one and the same; a Queens number on one block (`86-21`
 * and `86-17`), written with its hyphen or without it (`3724` beside `37-27`, as the records write both).
 */
const numbersNear = (a: string, b: string) => {
  if (a === b) return true
  const valueOf = (number: string) => {
    const parts = /^(\d+)(?:-(\d{1,3}))?$/.exec(number)
    if (parts === null) return undefined
    return parts[2] === undefined ? Number(parts[1]) : Number(parts[1]) * 100 + Number(parts[2])
  }
  const [x, y] = [valueOf(a), valueOf(b)]
  if (x === undefined || y === undefined || Math.abs(x - y) > 4) return false
  return !(a.includes("-") || b.includes("-")) || Math.floor(x / 100) === Math.floor(y / 100)
}

/** The match of one parcel, with how it matched. */
const found = (
  parcel: ParcelRecord,
  parsed: Parsed,
  notes: ReadonlyArray<MatchNote>,
  place: Place
): AddressMatch => {
  const current = parseStreetLine(parcel.street)!
  const all = [...notes]
  // Found at an address an earlier row of the parcel recorded (`AddressIndex`): said, with the address now.
  const earlier = earlierLineSent(parcel, current, parsed, notes)
  if (earlier !== undefined) {
    all.push({ kind: "normalized", part: "street_address", sent: earlier.text, used: parcel.street })
  }
  const line = earlier?.line ?? current
  const recorded = line.street
  if (parsed.street.type === "" && recorded.type !== "") {
    all.push({ kind: "normalized", part: "street_type", sent: "", used: recorded.type })
  }
  if (parsed.street.directional === "" && recorded.directional !== "") {
    all.push({ kind: "normalized", part: "directional", sent: "", used: recorded.directional })
  } else if (parsed.street.directional !== "" && recorded.directional === "") {
    all.push({ kind: "ignored", part: "directional", sent: parsed.street.directional })
  } else if (parsed.street.directional !== "" && parsed.street.directionalAfter !== recorded.directionalAfter) {
    all.push({ kind: "normalized", part: "directional", sent: parsed.street.directional, used: recorded.directional })
  }
  // A place other than the property's town (a neighbourhood, `Annadale`; the market, `Melbourne` for a Box Hill
  // house): the town it is in, said (the method was `normalized` with no note saying why: an agent audit).
  if (
    parsed.locality !== undefined && !all.some((note) => note.part === "town") &&
    (!place.own.has(parsed.locality) || (parcel.city !== undefined && parsed.locality !== place.town))
  ) {
    all.push({ kind: "normalized", part: "town", sent: parsed.locality, used: place.town })
  }
  const method: MatchMethod = all.some((note) => note.kind === "corrected")
    ? "corrected"
    : all.length > 0 || !spelledAsRecorded(parsed, parcel, line, place.town)
    ? "normalized"
    : "exact"
  return { _tag: "Found", parcel, method, notes: all }
}

/**
 * The parcel's earlier street line (`ParcelRecord.earlierStreets`) the address sent is, by its house number
 * (either Queens form) and street name (as sent, or as a note corrected it); undefined when none is.
 */
const earlierLineSent = (
  parcel: ParcelRecord,
  current: StreetLine,
  parsed: Parsed,
  notes: ReadonlyArray<MatchNote>
): { readonly text: string; readonly line: StreetLine } | undefined => {
  if (parcel.earlierStreets === undefined) return undefined
  const numbers = numberForms(parsed.number)
  const corrected = notes.find((note) => note.kind === "corrected" && note.part === "street_name")
  const names = [parsed.street.name, ...(corrected?.kind === "corrected" ? [corrected.used] : [])]
  if (numbers.includes(current.number) && names.includes(current.street.name)) return undefined
  for (const text of parcel.earlierStreets) {
    const line = parseStreetLine(text)
    if (line !== undefined && numbers.includes(line.number) && names.includes(line.street.name)) return { text, line }
  }
  return undefined
}

/**
 * Whether every part the address gave is the record's, in one of its usual spellings: case, spacing,
 * punctuation, a type or directional abbreviated or spelt out (`Avenue`, `Av` for `AVE`), an ordinal in words
 * or figures. (It compared the words as typed with the file's, and `12 Oak Street` for `12 OAK ST` was
 * `normalized` with no note saying what had been read another way.)
 */
const spelledAsRecorded = (
  parsed: Parsed,
  parcel: ParcelRecord,
  recorded: NonNullable<ReturnType<typeof parseStreetLine>>,
  town: string
) => {
  if (
    recorded.number !== parsed.number || recorded.street.name !== parsed.street.name ||
    recorded.street.type !== parsed.street.type || recorded.street.directional !== parsed.street.directional ||
    recorded.street.directionalAfter !== parsed.street.directionalAfter
  ) return false
  if (parsed.unit !== "" && unitKey(parsed.unit) !== unitKey(parcel.unit)) return false
  if (parsed.zip !== undefined && parsed.zip !== parcel.zipCode) return false
  if (parsed.locality !== undefined && parcel.city !== undefined && parsed.locality !== town) {
    return false
  }
  return true
}
