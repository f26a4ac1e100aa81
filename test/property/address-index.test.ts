import { describe, expect, it } from "@effect/vitest"
import type { ParcelRecord } from "../../src/property/records.js"
import { AddressIndex } from "../../src/scoring/address-index.js"

const parcel = (id: string, street: string, city: string, zipCode: string, unit = ""): ParcelRecord => ({
  id,
  market: "Test",
  street,
  unit,
  city,
  state: "ZZ",
  zipCode,
  synthetic: true,
  source: "test"
})

const index = new AddressIndex([
  parcel("a", "12 MAPLE ST", "MAPLE FALLS", "99101"),
  parcel("b", "12 MAPLE ST", "RIVERTON", "99103"),
  parcel("c", "4 OAK AVE", "RIVERTON", "99103"),
  parcel("d", "300 SEAVIEW AVE", "RIVERTON", "99103", "4B"),
  parcel("e", "300 SEAVIEW AVE", "RIVERTON", "99103", "5C")
])

describe("address matching", () => {
  it("one property: spelled any way, with or without town or ZIP", () => {
    for (
      const address of ["4 Oak Avenue", "4 OAK AVE, Riverton", "4 Oak Ave., Riverton, ZZ 99103", "4 oak ave 99103"]
    ) {
      const match = index.match(address)
      expect(match._tag, address).toBe("Found")
      if (match._tag === "Found") expect(match.parcel.id).toBe("c")
    }
    const unit = index.match("300 Seaview Avenue Apt 5C, Riverton")
    expect(unit._tag === "Found" && unit.parcel.id).toBe("e")
  })

  it("several properties: ambiguous, with the candidates' addresses", () => {
    const match = index.match("12 Maple Street")
    expect(match).toEqual({
      _tag: "Ambiguous",
      candidates: ["12 MAPLE ST, MAPLE FALLS, ZZ 99101", "12 MAPLE ST, RIVERTON, ZZ 99103"]
    })
    expect(index.match("12 Maple St, Riverton")._tag).toBe("Found")
    expect(index.match("300 Seaview Ave, Riverton")._tag).toBe("Ambiguous")
  })

  it("outside every imported area: outside coverage; inside but unknown: unknown", () => {
    expect(index.match("1 Main St, Springfield, IL 62701")._tag).toBe("OutsideCoverage")
    expect(index.match("1 Main St, Springfield")._tag).toBe("OutsideCoverage")
    expect(index.match("99 Nowhere Rd, Riverton, ZZ 99103")._tag).toBe("Unknown")
    expect(index.match("99 Nowhere Rd")._tag).toBe("Unknown")
  })
})
