/**
 * Address normalisation in the USPS manner: upper case, no punctuation, USPS street suffixes and
 * directionals (by the `@sroussey/parse-address` parser, a port of Geo::StreetAddress::US), ordinal words as
 * numerals, and the unit, city, state and ZIP split off. Two spellings of one address normalise to one key.
 */
import { AddressParser } from "@sroussey/parse-address"
import type { NormalizedAddress } from "./address-format.js"
import { STREET_TYPES } from "./street-address.js"

const parser = new AddressParser()

const ordinalWords: Record<string, string> = {
  FIRST: "1ST",
  SECOND: "2ND",
  THIRD: "3RD",
  FOURTH: "4TH",
  FIFTH: "5TH",
  SIXTH: "6TH",
  SEVENTH: "7TH",
  EIGHTH: "8TH",
  NINTH: "9TH",
  TENTH: "10TH",
  ELEVENTH: "11TH",
  TWELFTH: "12TH",
  THIRTEENTH: "13TH",
  FOURTEENTH: "14TH",
  FIFTEENTH: "15TH",
  SIXTEENTH: "16TH",
  SEVENTEENTH: "17TH",
  EIGHTEENTH: "18TH",
  NINETEENTH: "19TH",
  TWENTIETH: "20TH"
}

const directionals: Record<string, string> = {
  NORTH: "N",
  SOUTH: "S",
  EAST: "E",
  WEST: "W",
  NORTHEAST: "NE",
  NORTHWEST: "NW",
  SOUTHEAST: "SE",
  SOUTHWEST: "SW"
}

const unitDesignators = /^(?:APT|APARTMENT|UNIT|STE|SUITE|FL|FLOOR|RM|ROOM|#)\s*#?\s*(\S+)$/
/**
 * A penthouse is part of its unit's name (`PH1E` beside `1E` in one building), never a designator dropped
 * before it: `250 WEST 90TH STREET, PH1E` was stored as unit 1E, and `250 W 90th St Apt 1E` found and valued
 * the penthouse (an address audit, 2026-11-29). The typed address keeps it too (`street-address.ts`).
 */
const penthouse = /^(?:PH|PENTHOUSE)(?=$|[\s#-]|\d|[A-Z]{1,2}$)\s*#?\s*(\S*)$/

const clean = (text: string) =>
  text.toUpperCase().replace(/[.'’]/g, "").replace(/[^A-Z0-9#\-/ ]+/g, " ").replace(/\s+/g, " ").trim()

/** Street-name words in one spelling: ordinal words as numerals, SAINT as ST. */
const streetName = (name: string) =>
  name.split(" ").map((word) => ordinalWords[word] ?? (word === "SAINT" ? "ST" : word)).join(" ")

/**
 * The street type as the address index reads it (`src/property/street-address.ts`), where the USPS table the
 * parser uses reads it otherwise: `Cr` is a Crescent, as the Melbourne file writes it, not the USPS Creek
 * (`CRK`, which the index still reads from `Creek` and `Crk`). Both sides must read a type alike, or an
 * address typed as recorded is not found.
 */
const streetType = (parsedType: string, line: string) => {
  const type = clean(parsedType)
  return type === "CRK" && clean(line).split(" ").includes("CR") ? "CRES" : type
}

const parseStreetLine = (line: string): { readonly street: string; readonly unit: string } => {
  // A house number with its letter joined (`1E Black St`, `2B Creek Pde`): the parser splits the letter off as a
  // directional or a street's name (stored as `1 E BLACK ST`, East Black St, and `2 B CRK`, neither found
  // again as typed: an audit of the Melbourne file); read without it, and the letter kept on the number.
  const lettered = /^(\d+)([A-Za-z])\s+(\S.*)$/.exec(line.trim())
  if (lettered !== null) {
    const inner = parseStreetLine(`${lettered[1]} ${lettered[3]}`)
    const [number, ...words] = inner.street.split(" ")
    if (number === lettered[1]) {
      return { street: [`${number}${lettered[2]!.toUpperCase()}`, ...words].join(" "), unit: inner.unit }
    }
  }
  const parsed = parser.parseLocation(line) as Record<string, string | undefined> | null
  const inputWords = clean(line).split(" ").length
  // A street named by a directional word, its type the only other word (`11 South Tce`, `76 East Esplanade`):
  // the parser reads a prefix and a street named by the type, stored `11 S TCE` (a street S of type Tce, never
  // found as typed: an audit of the Melbourne file). The word is the name.
  if (parsed && parsed.number && parsed.prefix && parsed.street && !parsed.type && !parsed.sec_unit_num) {
    const word = Object.keys(directionals).find((name) => directionals[name] === clean(parsed.prefix!))
    const typeWord = clean(parsed.street)
    if (word !== undefined && STREET_TYPES.has(typeWord) && inputWords === 3) {
      return { street: `${parsed.number} ${word} ${typeWord}`, unit: "" }
    }
  }
  if (parsed && parsed.number && parsed.street) {
    const parts = [
      parsed.number,
      parsed.prefix ? clean(parsed.prefix) : undefined,
      streetName(clean(parsed.street)),
      parsed.type ? streetType(parsed.type, line) : undefined,
      parsed.suffix ? clean(parsed.suffix) : undefined
    ].filter((part): part is string => part !== undefined && part !== "")
    const unitWords = parsed.sec_unit_num ? (parsed.sec_unit_type === "#" ? 1 : 2) : 0
    // The parser drops words it cannot place ("10 Avenue of the Americas"): then keep them all instead.
    if (parts.join(" ").split(" ").length >= inputWords - unitWords) {
      return { street: parts.join(" "), unit: parsed.sec_unit_num ? clean(parsed.sec_unit_num) : "" }
    }
  }
  // The parser could not read it: keep the words, with directionals and ordinals in one spelling.
  const words = clean(line).split(" ").map((word) => directionals[word] ?? word)
  return { street: streetName(words.join(" ")), unit: "" }
}

const zipPattern = /^(\d{5})(?:-\d{4})?$/
const statePattern = /^[A-Z]{2}$/

/** Normalises a free-form US street address. */
export const normalizeAddress = (raw: string): NormalizedAddress => {
  const segments = raw.split(",").map((segment) => segment.trim()).filter((segment) => segment !== "")
  const [firstSegment = "", ...rest] = segments
  // "4 Oak Ave 99103" or "4 Oak Ave NY 10312": a trailing ZIP (and state) without a comma.
  const trailing = /^(.*?\S)\s+(?:([A-Za-z]{2})\s+)?(\d{5}(?:-\d{4})?)$/.exec(firstSegment)
  const first = trailing && /\d/.test(trailing[1]!) ? trailing[1]! : firstSegment
  if (trailing && first !== firstSegment) rest.push([trailing[2], trailing[3]].filter(Boolean).join(" "))
  const line = parseStreetLine(first)
  let unit = line.unit
  let city: string | undefined
  let state: string | undefined
  let zip: string | undefined
  for (const segment of rest) {
    const text = clean(segment)
    const designated = unitDesignators.exec(text)
    const inPenthouse = penthouse.exec(text)
    if (unit === "" && inPenthouse) {
      unit = `PH${inPenthouse[1]!}`
      continue
    }
    if (unit === "" && (designated || (/\d/.test(text) && !/\s/.test(text) && !zipPattern.test(text)))) {
      unit = designated ? designated[1]! : text.replace(/^#/, "")
      continue
    }
    // "NY 10312", "IL", "10312", "STATEN ISLAND NY 10312"
    const words = text.split(" ")
    const last = words[words.length - 1]!
    const hadZip = zipPattern.test(last)
    if (hadZip) {
      zip = zipPattern.exec(last)![1]
      words.pop()
    }
    const maybeState = words[words.length - 1]
    if (
      maybeState !== undefined && statePattern.test(maybeState) && (words.length > 1 || city !== undefined || hadZip)
    ) {
      state = maybeState
      words.pop()
    }
    if (words.length > 0 && city === undefined) city = words.join(" ")
  }
  return { street: line.street, unit, city, state, zip }
}
