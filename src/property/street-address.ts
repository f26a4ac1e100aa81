/**
 * The parts of a street address as people type them, in one spelling: upper case, no punctuation, USPS
 * street types and directionals (the tables of the `@sroussey/parse-address` parser, a port of
 * Geo::StreetAddress::US, with a few common non-US types added), ordinal words as numerals. Nothing here
 * depends on commas: the locality at the end of an address is found by the address index, which knows
 * the localities it covers (`src/scoring/address-index.ts`).
 */
import { streetTypeMap } from "@sroussey/parse-address/dist/maps/us/street-type.js"

/** Street types: every spelling (USPS Publication 28's common and misspelt forms) → its abbreviation. */
export const STREET_TYPES: ReadonlyMap<string, string> = (() => {
  const types = new Map<string, string>()
  for (const [spelling, abbreviation] of Object.entries(streetTypeMap as Record<string, string>)) {
    types.set(spelling.toUpperCase(), abbreviation.toUpperCase())
    types.set(abbreviation.toUpperCase(), abbreviation.toUpperCase())
  }
  // Common outside the USPS list (Australian and British usage) and short forms it lacks.
  const more: Record<string, string> = {
    CLOSE: "CL",
    CL: "CL",
    ESPLANADE: "ESP",
    ESP: "ESP",
    PARADE: "PDE",
    PDE: "PDE",
    CIRCUIT: "CCT",
    CCT: "CCT",
    CR: "CRES",
    GR: "GRV",
    BVD: "BLVD",
    BOULEVARDE: "BLVD",
    TCE: "TER",
    WY: "WAY",
    CONCOURSE: "CNCS",
    RISE: "RISE",
    AV: "AVE",
    // New York's usual short form of an expressway (`218-03 HORACE HARDING EXPWY`: 49 rows of the NYC files), not
    // among the USPS spellings: read as part of the name, such a house was refused when typed `Expy` or
    // `Expressway`, and its street's other houses when typed `Expwy` (an address check, 2026-11-30).
    EXPWY: "EXPY",
    // Australia's short forms of two types (`3 Lilac Mw`, `5 Barmah Gra` in the Melbourne file): typed in full,
    // `Lilac Mews` and `Barmah Grange` were refused (an address audit, 2026-11-29).
    MW: "MEWS",
    GRANGE: "GRA",
    GRA: "GRA",
    // The usual short form of a loop, not among the USPS spellings (`71 Coventry Lp, Staten Island`: 656 of 656
    // such typings of the NYC files' Loop houses were refused with nothing suggested, an address audit, 2026-11-30).
    LP: "LOOP"
  }
  for (const [spelling, abbreviation] of Object.entries(more)) types.set(spelling, abbreviation)
  return types
})()

/**
 * A street type's usual full spelling (`LN` → `LANE`), for showing, for generating variants, and as the
 * spelling a misspelt type is first compared with: the longest spelling (misspellings are rarely the
 * longest) that is not a plural of another (`LANES`).
 */
export const STREET_TYPE_NAMES: ReadonlyMap<string, string> = (() => {
  const names = new Map<string, string>()
  for (const [spelling, abbreviation] of STREET_TYPES) {
    if (spelling.endsWith("S") && STREET_TYPES.get(spelling.slice(0, -1)) === abbreviation) continue
    const known = names.get(abbreviation)
    if (known === undefined || spelling.length > known.length) names.set(abbreviation, spelling)
  }
  return names
})()

/**
 * The street type a word cut short begins (`PARKWA` → `PKWY`, `BOULEVAR` → `BLVD`): the one type whose full name
 * starts with it (a plural's name is its singular's), else undefined; never for a word that is a type already.
 */
export const truncatedStreetType = (word: string): string | undefined => {
  if (word.length < 3 || STREET_TYPES.has(word)) return undefined
  const names = [...STREET_TYPE_NAMES].filter(([, name]) => name.length > word.length && name.startsWith(word))
  const singular = names.filter(([, name]) =>
    !(name.endsWith("S") && names.some(([, other]) => other === name.slice(0, -1)))
  )
  return singular.length === 1 ? singular[0]![0] : undefined
}

export const DIRECTIONALS: ReadonlyMap<string, string> = new Map([
  ["N", "N"],
  ["S", "S"],
  ["E", "E"],
  ["W", "W"],
  ["NE", "NE"],
  ["NW", "NW"],
  ["SE", "SE"],
  ["SW", "SW"],
  ["NORTH", "N"],
  ["SOUTH", "S"],
  ["EAST", "E"],
  ["WEST", "W"],
  ["NORTHEAST", "NE"],
  ["NORTHWEST", "NW"],
  ["SOUTHEAST", "SE"],
  ["SOUTHWEST", "SW"]
])

const ORDINAL_WORDS = [
  "FIRST",
  "SECOND",
  "THIRD",
  "FOURTH",
  "FIFTH",
  "SIXTH",
  "SEVENTH",
  "EIGHTH",
  "NINTH",
  "TENTH",
  "ELEVENTH",
  "TWELFTH",
  "THIRTEENTH",
  "FOURTEENTH",
  "FIFTEENTH",
  "SIXTEENTH",
  "SEVENTEENTH",
  "EIGHTEENTH",
  "NINETEENTH",
  "TWENTIETH"
]
const TENS_ORDINAL_WORDS = ["THIRTIETH", "FORTIETH", "FIFTIETH", "SIXTIETH", "SEVENTIETH", "EIGHTIETH", "NINETIETH"]
/** `FIRST` → `1`, … `TWENTIETH` → `20`, `THIRTIETH` → `30`, … `NINETIETH` → `90`. */
export const ORDINALS: ReadonlyMap<string, string> = new Map([
  ...ORDINAL_WORDS.map((word, i) => [word, String(i + 1)] as const),
  ...TENS_ORDINAL_WORDS.map((word, i) => [word, String(30 + 10 * i)] as const)
])

const UNIT_WORDS = ["ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE"]
const TENS_WORDS = ["TWENTY", "THIRTY", "FORTY", "FIFTY", "SIXTY", "SEVENTY", "EIGHTY", "NINETY"]
const UNITS: ReadonlyMap<string, number> = new Map(UNIT_WORDS.map((word, i) => [word, i + 1]))
const TENS: ReadonlyMap<string, number> = new Map(TENS_WORDS.map((word, i) => [word, 20 + 10 * i]))
const TEEN_WORDS = [
  "TEN",
  "ELEVEN",
  "TWELVE",
  "THIRTEEN",
  "FOURTEEN",
  "FIFTEEN",
  "SIXTEEN",
  "SEVENTEEN",
  "EIGHTEEN",
  "NINETEEN"
]
/** House numbers written as words, as buildings are named (`One Irving Pl`): one to twenty. */
const HOUSE_NUMBER_WORDS: ReadonlyMap<string, string> = new Map(
  [...UNIT_WORDS, ...TEEN_WORDS, TENS_WORDS[0]!].map((word, i) => [word, String(i + 1)])
)
const NUMBER_WORDS: ReadonlySet<string> = new Set([
  ...UNIT_WORDS,
  ...TENS_WORDS,
  ...ORDINALS.keys(),
  "HUNDRED",
  "HUNDREDTH",
  "AND"
])

/**
 * The ordinal a run of number words starting at `at` spells (`TWENTY FIRST` 21, `ONE HUNDRED AND TWENTY
 * SIXTH` 126, `ONE HUNDREDTH` 100), with the words it takes; none for a run of one word (`nameWord` reads
 * those) or one that ends in no ordinal (`SEVEN OAKS`).
 */
const ordinalRun = (words: ReadonlyArray<string>, at: number): { value: number; length: number } | undefined => {
  let i = at
  let value = 0
  const hundreds = UNITS.get(words[i] ?? "")
  if (hundreds !== undefined && words[i + 1] === "HUNDREDTH") return { value: hundreds * 100, length: 2 }
  if (hundreds !== undefined && words[i + 1] === "HUNDRED") {
    value = hundreds * 100
    i += 2
    if (words[i] === "AND") i++
  }
  const tens = TENS.get(words[i] ?? "")
  if (tens !== undefined) {
    value += tens
    i++
  }
  const ordinal = Number(ORDINALS.get(words[i] ?? "") ?? Number.NaN)
  // After tens only a unit's ordinal (`TWENTY FIRST`, never `TWENTY TWELFTH`).
  if (!Number.isInteger(ordinal) || (tens !== undefined && ordinal > 9)) return undefined
  const length = i + 1 - at
  return length >= 2 ? { value: value + ordinal, length } : undefined
}

/** A street's number words as the number they spell (`One Hundred Twenty-Sixth` → `126`; `Seven Oaks` kept). */
const withOrdinalNumbers = (words: ReadonlyArray<string>): Array<string> => {
  // `TWENTY-SIXTH` as two words, when every part is a number word.
  const split = words.flatMap((word) =>
    word.includes("-") && word.split("-").every((part) => NUMBER_WORDS.has(part)) ? word.split("-") : [word]
  )
  const out: Array<string> = []
  for (let i = 0; i < split.length;) {
    const run = ordinalRun(split, i)
    if (run === undefined) out.push(split[i++]!)
    else {
      out.push(String(run.value))
      i += run.length
    }
  }
  return out
}

/** Designators of a floor, not a unit. */
const FLOOR_DESIGNATORS: ReadonlySet<string> = new Set(["FL", "FLR", "FLOOR"])

/** Designators that name a unit without a value (`Rear`, `Basement`). */
export const VALUELESS_DESIGNATORS: ReadonlySet<string> = new Set([
  "BSMT",
  "BASEMENT",
  "REAR",
  "FRNT",
  "FRONT",
  "LOWR",
  "LOWER",
  "UPPR",
  "UPPER"
])

/** Unit designators (USPS secondary unit designators, and `#`). */
export const UNIT_DESIGNATORS: ReadonlySet<string> = new Set([
  "#",
  "APT",
  "APARTMENT",
  "UNIT",
  "STE",
  "SUITE",
  "FL",
  "FLR",
  "FLOOR",
  "RM",
  "ROOM",
  "PH",
  "PENTHOUSE",
  "NO",
  "BLDG",
  "BUILDING",
  "LOT",
  "SPC",
  "SPACE",
  "DEPT",
  ...VALUELESS_DESIGNATORS
])

/** First words of a cross street typed beside an address (`corner of Avenue J`): a remark, whatever follows. */
const CROSS_STREET_LEADS: ReadonlySet<string> = new Set([
  "CORNER",
  "COR",
  "NEAR",
  "NR",
  "BETWEEN",
  "BTWN",
  "OFF",
  "CROSS"
])

/** Words of a remark about a property rather than of its address (`3 bed 2 bath`, `asking $650k`). */
const REMARK_WORDS = new Set([
  "BED",
  "BEDS",
  "BEDROOM",
  "BEDROOMS",
  "BR",
  "BATH",
  "BATHS",
  "BA",
  "SQ",
  "FT",
  "SQFT",
  "ASKING",
  "PRICE",
  "LISTED",
  "AT"
])

/**
 * Whether text typed beside an address is a remark about the property, none of the address: no word of it may be
 * a part an address is read by — a single letter (`712 (A) Monroe St`: 712A is another house), a half, a
 * directional (`1 Sutton Pl (South)`), a street type alone, a unit designator with its value, or a place or state
 * (`isPlace`: `115 Richmond St (Staten Island)` found Brooklyn's house with the town taken out: an address audit,
 * 2026-11-29); numbers only beside a price or words of rooms and size (`asking $650k`, `3 bed 2 bath`).
 */
export const isRemark = (text: string, isPlace: (phrase: string) => boolean): boolean => {
  const words = tokenize(text).filter((word) => word !== ",")
  if (words.length === 0) return false
  // A cross street (`corner of Avenue J`, `near Main St`, `between 5th and 6th Ave`): where the property is, in
  // words the address is not read by (`… NY 11234 (corner of Avenue P)` was `outside-coverage`, "P" read as a
  // town: a wrong-parcel audit, 2026-11-30).
  if (words.length >= 2 && CROSS_STREET_LEADS.has(words[0]!)) return true
  const priced = text.includes("$") || words.some((word) => REMARK_WORDS.has(word))
  for (const [i, word] of words.entries()) {
    if (/\d/.test(word) && !priced) return false
    if (/^[A-Z]$/.test(word) || word.includes("/") || DIRECTIONALS.has(word)) return false
    // (A type alone, `(Ct)`; among other words, `corner lot`, a word of the remark.)
    if (STREET_TYPES.has(word) && words.length === 1) return false
    if (UNIT_DESIGNATORS.has(word) && words[i + 1] !== undefined && /\d/.test(words[i + 1]!)) return false
    for (let n = 1; n <= 3 && i + n <= words.length; n++) if (isPlace(words.slice(i, i + n).join(" "))) return false
  }
  return true
}

/**
 * An address as typed with the remarks people add to it taken out (an agent's audit, 2026-11-29: `11 Gilbert Place,
 * Staten Island, NY 10309 (corner lot)` was refused as outside coverage, and an agent told its user Staten Island
 * was not covered): text in parentheses or brackets after a space (a unit in them is the unit's: `(Apt 4B)`; joined
 * to a word, as a recorded unit `4(2E)`, they are part of it), text after a ZIP code or postcode and a dash,
 * semicolon, colon or bar (`… NY 10309 - corner lot`, `…; 3 bed 2 bath`), and words before the house number that
 * say what the address is (`Property at 11 Gilbert Place`, `Address: …`). Only what `isRemark` finds to be none of
 * an address is taken out; anything else in parentheses is read as if they were not there. Each remark taken out is
 * returned as typed, so that the answer can say it was not read.
 */
export const withoutRemarks = (
  raw: string,
  isPlace: (phrase: string) => boolean = () => false
): { readonly address: string; readonly remarks: ReadonlyArray<string> } => {
  const remarks: Array<string> = []
  // The NYC records' neighbourhoods of Manhattan's sides name their streets' range (`Upper West Side (59-79)`):
  // copied from the records, the range was read as a house number and the address refused (a wrong-parcel audit,
  // 2026-11-30: 231 of 231 such typings).
  const sides = raw.replace(/(\bSIDE)\s*\((\d{2,3}\s*-\s*\d{2,3})\)/gi, (_, side: string, range: string) => {
    remarks.push(`(${range})`)
    return side
  })
  let address = sides.replace(/(^|\s)[([]([^()[\]]*)[)\]]/g, (_, before: string, inside: string) => {
    const text = inside.trim()
    if (text === "") return before
    if (!isRemark(text, isPlace)) return `${before}${text} `
    remarks.push(text)
    return `${before} `
  })
  // After a ZIP code (five digits, or four after an Australian state's code or name) that follows a word: the end of
  // the address's place.
  const tail = /^(.*?[A-Za-z][A-Za-z.]*,?\s+(?:\d{5}(?:-\d{4})?|\d{4}))\s*(?:[-\u2013\u2014;:|]|\s-\s)\s*(\S.*)$/s.exec(
    address
  )
  // Not after a unit's number (`Apt 1234 - rear, Riverton ZZ 99103`, `Unit 1001 - 12 Collins St`).
  const wordBefore = tail === null ? undefined : tokenize(tail[1]!).at(-2)
  if (
    tail !== null && isRemark(tail[2]!, isPlace) && !(wordBefore !== undefined && UNIT_DESIGNATORS.has(wordBefore))
  ) {
    remarks.push(tail[2]!.trim())
    address = tail[1]!
  }
  const lead =
    /^\s*((?:the\s+)?(?:property|house|home|building|condo|apartment|flat|townhouse)\s+(?:located\s+)?at|address\s*:)\s*(?=\d)/i
      .exec(address)
  if (lead !== null) {
    remarks.push(lead[1]!)
    address = address.slice(lead[0].length)
  }
  // A place after `on` or `in`, as a sentence writes it (`116 Elm St on Staten Island`, `12 Smith St in Richmond`):
  // the word stands for the comma, where the words after it begin with a place the index knows. (Refused as no
  // such street address in a covered area: an agent's audit, 2026-11-30, would have told its user the house was
  // not on record.) The last such word, never the first: a street's own words come before its place.
  const sentence = /^(\s*\d.*\S)\s+(?:on|in)\s+([^,]+)(,.*)?$/is.exec(address)
  if (sentence !== null) {
    const words = tokenize(sentence[2]!)
    if (words.some((_, n) => isPlace(words.slice(0, n + 1).join(" ")))) {
      address = `${sentence[1]}, ${sentence[2]}${sentence[3] ?? ""}`
    }
  }
  return { address: address === raw ? raw : address.replace(/\s+/g, " ").replace(/ ,/g, ",").trim(), remarks }
}

/** Upper case, accents and punctuation gone, `#` its own token; commas kept as tokens of their own. */
export const tokenize = (raw: string): Array<string> =>
  raw
    // `334½`: the half apart from the number, as `334 1/2` (NFKD makes it `3341⁄2`, then `3341 2`: another number).
    .replace(/\s*½/g, " 1/2")
    // Invisible characters a paste carries inside a word (a soft hyphen, zero-width joiners, a byte-order mark)
    // are not there: as a space, `Broa\u00addway` was two words and refused (an address audit, 2026-11-30).
    .replace(/\u00ad|\u200c|\u200d|\u2060|\ufeff/g, "")
    // (A zero-width space is a word break, as a space.)
    .replace(/\u200b/g, " ")
    .replace(/\u2044/g, "/")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    // Dashes as typed or pasted (`104–42`, an en dash) are the hyphen.
    .replace(/[\u2010-\u2015\u2212]/g, "-")
    // A number a spreadsheet wrote as a decimal (`7.0`, a ZIP code's `10457.0`) is the whole number; any other
    // point between digits (`7.5`) stays, and the number is read as no number: dropped, `7.0 Somers St` was 70
    // Somers St, someone else's house (an address audit, 2026-11-30). Every other point and apostrophe goes.
    .replace(/(\d)\.0+(?![\d.])/g, "$1")
    .replace(/(?<!\d)['’`.]|['’`.](?!\d)/g, "")
    // A unit the NYC files write with its other number in parentheses (`4(2E)`, `7(8)A`): one unit, as `4/2E`
    // (read as unit 4 and a word 2E, the address sent back as an ambiguity's candidate was refused: an address
    // audit, 2026-11-29).
    .replace(/(\d)\((\d[A-Z0-9]*)\)/g, "$1/$2")
    .replace(/#/g, " # ")
    .replace(/,/g, " , ")
    // (A point left is one between digits: it stays, so that `7.5` is one token and no number.)
    .replace(/[^A-Z0-9#,\-/. ]+/g, " ")
    .split(/\s+/)
    .filter((token) => token !== "" && token !== "-")

/**
 * A street line whose house number is written as a word (`ONE IRVING PL`, as the NYC files and people name
 * buildings) with its figure (`1 IRVING PL`); any other line as it is.
 */
export const withNumberInFigures = (line: string): string => {
  const [first, second] = line.trim().split(/\s+/)
  const figure = HOUSE_NUMBER_WORDS.get(first?.toUpperCase() ?? "")
  if (figure === undefined || second === undefined || /^\d/.test(second)) return line
  return line.trim().replace(/^\S+/, figure)
}

/** A house number: `12`, `12A`, `12-14` and Queens' `123-45`, `12 1/2` (the fraction kept with it). */
export const HOUSE_NUMBER = /^\d+[A-Z]?(?:-\d+[A-Z]?)?$/

/**
 * Words of names that records spell both ways (NYC's: `FORT HAMILTON` and `FT HAMILTON`, `AVENUE J` and `AVE
 * J`, `MOUNT` and `MT`; `BCH` for `BEACH`), in one spelling: the whole word, where a typo in it stays one edit
 * from it; `SAINT` as `ST`, as before.
 */
const NAME_WORDS = new Map([
  ["SAINT", "ST"],
  ["FT", "FORT"],
  ["MT", "MOUNT"],
  ["AVE", "AVENUE"],
  // And USPS's other abbreviation (`6611 Av N, Brooklyn` was refused with nothing suggested: an address audit,
  // 2026-11-29).
  ["AV", "AVENUE"],
  // USPS's abbreviation of Beach: Rockaway's `BCH 114 ST` is BEACH 114 STREET (refused: an address audit, 2026-11-29).
  ["BCH", "BEACH"],
  // New York's short forms of Broadway (`532 Bway Apt 1A`, `B'way`: 1,400 of 1,400 such typings were refused and
  // offered Bay Ave's houses, an address audit, 2026-11-30).
  ["BWAY", "BROADWAY"],
  ["BDWY", "BROADWAY"]
])

/** A street name word in one spelling: numeric ordinals as numbers (`67TH` → `67`), `FT` → `FORT` and the like. */
const nameWord = (word: string) => {
  const numeric = /^(\d+)(?:ST|ND|RD|TH)$/.exec(word)
  if (numeric) return numeric[1]!
  return ORDINALS.get(word) ?? NAME_WORDS.get(word) ?? word
}

/** A street in its parts: the key it is known by is `name` (with `type` and directionals apart). */
export interface StreetParts {
  /** The name's words in one spelling (`DRUMGOOLE`, `67`, `ST MARKS`). */
  readonly name: string
  /** The street type's abbreviation (`RD`), or "" when none was given. */
  readonly type: string
  /** The directional (`W`), before or after the name; "" when none. */
  readonly directional: string
  readonly directionalAfter: boolean
}

/**
 * The parts of a street's words (after the house number, without unit or locality). The type is the last
 * word that is a street type, the directionals the first and last words; a name left empty by that (`North
 * Ave`, Brooklyn's `Avenue N`) keeps those words instead.
 */
export const streetParts = (typed: ReadonlyArray<string>): StreetParts => {
  const words = withOrdinalNumbers(typed)
  let rest = [...words]
  let directional = ""
  let directionalAfter = false
  let type = ""
  const last = rest.at(-1)
  if (rest.length >= 2 && last !== undefined && DIRECTIONALS.has(last)) {
    directional = DIRECTIONALS.get(last)!
    directionalAfter = true
    rest = rest.slice(0, -1)
  }
  const typeWord = rest.at(-1)
  if (rest.length >= 2 && typeWord !== undefined && STREET_TYPES.has(typeWord)) {
    type = STREET_TYPES.get(typeWord)!
    rest = rest.slice(0, -1)
  }
  const first = rest[0]
  if (directional === "" && rest.length >= 2 && first !== undefined && DIRECTIONALS.has(first)) {
    directional = DIRECTIONALS.get(first)!
    rest = rest.slice(1)
  }
  if (rest.length === 0) {
    return { name: words.map(nameWord).join(" "), type: "", directional: "", directionalAfter: false }
  }
  // `O GORMAN` is `O'GORMAN` (the apostrophe is dropped: OGORMAN), as a record or a person may write it.
  if (rest.length >= 2 && IRISH_PREFIXES.has(rest[0]!)) rest = [`${rest[0]}${rest[1]}`, ...rest.slice(2)]
  return { name: rest.map(nameWord).join(" "), type, directional, directionalAfter }
}

/**
 * The one letter of a name written with an apostrophe (`O'GORMAN`, `O'BRIEN`), which people and some records
 * write apart (`O GORMAN`): read joined to the word after it, never as a house number's letter (`16 O Gorman
 * Ave` had been read as 16O on Gorman Ave and refused; the NYC files write 325's latest row `325 O GORMAN AVE`
 * and its earlier one `325 O'GORMAN AVENUE`, which read as two streets).
 */
const IRISH_PREFIXES: ReadonlySet<string> = new Set(["O"])

/**
 * A house number's letter written apart from it (`2805 A CRESTON AVE`, as some records and people write it)
 * is the number's (`2805A`): when the letter is not a directional and a name word follows it, not the street's
 * type (`12 A St` is A Street). A type word followed by another type is the name's (`55 A PARK ST` is 55A Park
 * Street: read as A Park Street, Melbourne's record could not be found as `55a Park St`).
 */
export const withNumberLetter = (
  number: string,
  words: ReadonlyArray<string>
): { readonly number: string; readonly words: ReadonlyArray<string> } => {
  const [letter, next, after] = words
  return letter !== undefined && next !== undefined && /^[A-Z]$/.test(letter) && !DIRECTIONALS.has(letter) &&
      !IRISH_PREFIXES.has(letter) &&
      /^\d+(?:-\d+)?$/.test(number) && (!STREET_TYPES.has(next) || (after !== undefined && STREET_TYPES.has(after)))
    ? { number: `${number}${letter}`, words: words.slice(1) }
    : { number, words }
}

/** A street line split into its house number and street parts; undefined when it has no house number. */
export const parseStreetLine = (
  line: string
): { readonly number: string; readonly street: StreetParts } | undefined => {
  const tokens = tokenize(line).filter((token) => token !== ",")
  const [first, ...rest] = tokens
  if (first === undefined || !HOUSE_NUMBER.test(first) || rest.length === 0) return undefined
  // A half number (`2661 1/2 BRIGGS AVENUE`) as a query reads it: the fraction is the number's, not the street's.
  if (/^\d+\/\d+$/.test(rest[0]!) && rest.length >= 2) {
    return { number: `${first} ${rest[0]}`, street: streetParts(rest.slice(1)) }
  }
  const { number, words } = withNumberLetter(first, rest)
  return { number, street: streetParts(words) }
}

/** The words of a penthouse, which name a unit with the value after them (`PH E`, `Penthouse 2`). */
export const PENTHOUSE: ReadonlySet<string> = new Set(["PH", "PENTHOUSE"])

/** A unit's value in one spelling: `#5B`, `Apt 5B`, `5-B` → `5B`; leading zeros of a number dropped. */
export const unitKey = (unit: string) =>
  tokenize(unit)
    .filter((token) => !UNIT_DESIGNATORS.has(token) || VALUELESS_DESIGNATORS.has(token) || PENTHOUSE.has(token))
    // A penthouse is part of its unit's name: `PH E` is not unit E (`93 Greene St Apt E` found and valued the
    // penthouse, an exact match: an audit, 2026-11-28).
    .map((token) => (PENTHOUSE.has(token) ? "PH" : token))
    .join("")
    // A slash between digits stays: `2/3B` is a duplex on floors 2 and 3, not floor 23's `23B` (both on record at
    // 310 E 53rd St, each typed exactly was refused as ambiguous between them: an address audit, 2026-11-29).
    .replace(/-|(?<!\d)\/|\/(?!\d)/g, "")
    .replace(/^0+(?=\d)/, "")

/** The floor an ordinal names (`2ND`, `SECOND` → `2`), or undefined. */
const floorOrdinal = (word: string): string | undefined =>
  /^(\d{1,3})(?:ST|ND|RD|TH)$/.exec(word)?.[1] ?? ORDINALS.get(word)

/**
 * Takes the unit out of a street's words: a designator and its value (`APT 2`, `# 2`, `FL 3`, `REAR`)
 * wherever it stands after the first word. Returns the words left and the unit (or "").
 */
export const takeUnit = (
  words: ReadonlyArray<string>
): { readonly words: Array<string>; readonly unit: string; readonly floor?: true } => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!
    // A penthouse written joined, last (`20 West St PHF`, `PH1E`, `PH-F`): its unit, as the records write it
    // (read as part of the street, the house was not found: an address audit, 2026-11-29); after a street of one
    // word too (`2628 Broadway PHF` was a dead end, nothing suggested, where `Apt PHF` is told the building's
    // units).
    if (i === words.length - 1 && /^PH-?(?:\d[A-Z0-9]*|[A-Z]{1,2})$/.test(word)) {
      return { words: words.slice(0, i), unit: word }
    }
    // A building's one penthouse (`Apt PH`), named alone last: `PH`, after a street of one word too (`2628
    // Broadway PH`, its unit on record as PH, was refused with nothing suggested: an address audit, 2026-11-29).
    if (i === words.length - 1 && PENTHOUSE.has(word)) return { words: words.slice(0, i), unit: "PH" }
    if (!UNIT_DESIGNATORS.has(word)) continue
    // A floor written as people say it, its ordinal before the word (`2nd Fl`, `Second Floor`): floor 2, as
    // `Fl 2` (it was read as part of the street, and the house not found). Not the street's own words.
    const ordinal = i >= 3 && FLOOR_DESIGNATORS.has(word) ? floorOrdinal(words[i - 1]!) : undefined
    if (ordinal !== undefined) {
      return { words: [...words.slice(0, i - 1), ...words.slice(i + 1)], unit: ordinal, floor: true }
    }
    const value = words[i + 1]
    // `Rear`, `Front`, `Upper` are also words of names (`E Front St`): a unit only as the last word.
    if (VALUELESS_DESIGNATORS.has(word)) {
      if (i === words.length - 1) return { words: words.slice(0, i), unit: word }
      continue
    }
    // `Apt #4B`: the designator and `#` name one unit, `4B`.
    if (value === "#" && word !== "#" && words[i + 2] !== undefined) {
      return { words: [...words.slice(0, i), ...words.slice(i + 3)], unit: words[i + 2]! }
    }
    // `No` and `Lot` are also words of names: designators only when a number follows.
    if (value === undefined || ((word === "NO" || word === "LOT") && !/\d/.test(value))) continue
    // A unit's letter written apart as the last word (`Apt 4 E`) is the unit's (`4E`), not a directional; so is
    // the wing of a unit the records write apart (`UNIT 4A N`, `UNIT PH E`: the service's own suggestions, sent
    // back, were refused as unit 4A, an agent looping on them: an audit, 2026-11-28).
    const letter = words[i + 2]
    if (/^[A-Z0-9]+$/.test(value) && letter !== undefined && /^[A-Z]$/.test(letter) && i + 2 === words.length - 1) {
      return { words: words.slice(0, i), unit: /^\d+$/.test(value) ? `${value}${letter}` : `${value} ${letter}` }
    }
    // A penthouse's name written apart after the designator (`Apt PH 2`, `Unit PH 1C`, as the records and the
    // service's own candidates write them), and a letter then the flat's number (`Apt B 1` for `B-1`): one unit
    // (the number was left in the street, and the house not found: an address audit, 2026-11-29).
    if (letter !== undefined && i + 2 === words.length - 1) {
      if (PENTHOUSE.has(value) && /^[A-Z0-9]+$/.test(letter)) return { words: words.slice(0, i), unit: `PH ${letter}` }
      if (/^[A-Z]$/.test(value) && /^\d+$/.test(letter)) return { words: words.slice(0, i), unit: `${value}${letter}` }
    }
    // A floor and then the flat's letter on it (`Fl 11 Apt D`, `Floor 3 Unit K`): the unit `11D` (read as floor
    // 11, its letter left in the street, the house was not found: an address audit, 2026-11-29).
    const flat = words[i + 3]
    if (
      FLOOR_DESIGNATORS.has(word) && /^\d{1,3}$/.test(value) && flat !== undefined && /^[A-Z]{1,2}$/.test(flat) &&
      UNIT_DESIGNATORS.has(words[i + 2]!) && !FLOOR_DESIGNATORS.has(words[i + 2]!) &&
      !VALUELESS_DESIGNATORS.has(words[i + 2]!)
    ) {
      return { words: [...words.slice(0, i), ...words.slice(i + 4)], unit: `${value}${flat}` }
    }
    // A floor (`Fl 3`) is named as a unit is, and said to be one: a building's units on it may be `3A`, `3C`.
    return {
      words: [...words.slice(0, i), ...words.slice(i + 2)],
      unit: PENTHOUSE.has(word) ? `PH ${value}` : value,
      ...(FLOOR_DESIGNATORS.has(word) ? { floor: true as const } : {})
    }
  }
  return { words: [...words], unit: "" }
}
