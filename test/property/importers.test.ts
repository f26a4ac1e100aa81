import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PropertyStorePg } from "../../layers/property-store/pg.js"
import { normalizeAddress } from "../../src/property/address.js"
import { DEMO_MARKET, generateDemoCounty } from "../../src/property/demo-county.js"
import { importFiles } from "../../src/property/import-files.js"
import {
  describeBuildingClass,
  parseAmount,
  parseNycDofSales,
  parseUsDate,
  propertyTypeOfBuildingClass,
  withTypeCompleted
} from "../../src/property/nyc-dof.js"
import { parsePropscoreCsv } from "../../src/property/propscore-csv.js"
import { inStoreOrder } from "../../src/property/records.js"
import { AddressIndex, notValuedNamed } from "../../src/scoring/address-index.js"
import { modelSales, salesDigest } from "../../src/scoring/engine.js"
import { scratchStore } from "../../src/scoring/evaluate.js"
import { PropertyStore } from "../../src/services/property-store.js"
import { TestDatabase } from "../harness/database.js"

const fixture = (...parts: Array<string>) => path.resolve("test/fixtures", ...parts)
const read = (...parts: Array<string>) => fs.readFileSync(fixture(...parts))

describe("address normalisation", () => {
  it("one address, many spellings: one key", () => {
    const spellings = [
      "22 Blue Heron Drive",
      "22 BLUE HERON DR",
      "22 blue heron dr.",
      "22  Blue   Heron Drive, Staten Island, NY 10312"
    ]
    expect(new Set(spellings.map((s) => normalizeAddress(s).street))).toEqual(new Set(["22 BLUE HERON DR"]))
    expect(normalizeAddress("55 Fifth Avenue").street).toBe(normalizeAddress("55 5th Ave").street)
    expect(normalizeAddress("1 Saint Marks Place").street).toBe(normalizeAddress("1 St. Marks Pl").street)
    expect(normalizeAddress("100 West 42nd Street").street).toBe("100 W 42ND ST")
  })

  it("a street type is read as the address index reads it: Melbourne's Cr is a Crescent, Creek stays Creek", () => {
    expect(normalizeAddress("132 Templewood Cr").street).toBe("132 TEMPLEWOOD CRES")
    expect(normalizeAddress("132 Templewood Crescent").street).toBe("132 TEMPLEWOOD CRES")
    expect(normalizeAddress("5 Mill Creek").street).toBe("5 MILL CRK")
    expect(normalizeAddress("5 Mill Crk").street).toBe("5 MILL CRK")
    // And the index finds it typed either way.
    const index = new AddressIndex([{
      id: "templewood-132",
      market: "Melbourne",
      street: normalizeAddress("132 Templewood Cr").street,
      unit: "",
      city: "AVONDALE HEIGHTS",
      state: "VIC",
      zipCode: "3034",
      synthetic: false,
      source: "propscore-csv"
    }])
    for (const typed of ["132 Templewood Cr, Avondale Heights", "132 Templewood Crescent 3034"]) {
      expect(index.match(typed), typed).toMatchObject({ _tag: "Found", parcel: { id: "templewood-132" } })
    }
  })

  it("splits unit, city, state and ZIP", () => {
    expect(normalizeAddress("100 W. 42nd St Apt 5B, New York, NY 10036-1234")).toEqual({
      street: "100 W 42ND ST",
      unit: "5B",
      city: "NEW YORK",
      state: "NY",
      zip: "10036"
    })
    expect(normalizeAddress("300 SEAVIEW AVENUE, 4B")).toMatchObject({ street: "300 SEAVIEW AVE", unit: "4B" })
    expect(normalizeAddress("1 Main St #4, Springfield")).toMatchObject({
      street: "1 MAIN ST",
      unit: "4",
      city: "SPRINGFIELD"
    })
    expect(normalizeAddress("21-48 81st Street").street).toBe("21-48 81ST ST")
    expect(normalizeAddress("10 Avenue of the Americas").street).toBe("10 AVENUE OF THE AMERICAS")
    expect(normalizeAddress("4 Oak Ave NY 10312")).toEqual({ street: "4 OAK AVE", unit: "", state: "NY", zip: "10312" })
  })

  it("keeps a house number's letter on the number, never a directional or a street's name (the Melbourne file)", () => {
    expect(normalizeAddress("1E Black St").street).toBe("1E BLACK ST")
    expect(normalizeAddress("2B Creek Pde").street).toBe("2B CREEK PDE")
    expect(normalizeAddress("348A Decatur St, Brooklyn").street).toBe("348A DECATUR ST")
    // Found again as typed, and its neighbours on the street with it (`28 Black St` was ambiguous for a
    // directional, East Black St its one candidate: itself).
    const reservoir = { market: "Melbourne", city: "RESERVOIR", state: "VIC", zipCode: "3073", synthetic: false }
    const index = new AddressIndex([
      { ...reservoir, id: "black-1e", street: normalizeAddress("1E Black St").street, unit: "", source: "t" },
      { ...reservoir, id: "black-28", street: normalizeAddress("28 Black St").street, unit: "", source: "t" }
    ])
    for (const [typed, id] of [["1E Black St, Reservoir", "black-1e"], ["28 Black St, Reservoir VIC", "black-28"]]) {
      const match = index.match(typed!)
      expect({ typed, id: match._tag === "Found" ? match.parcel.id : match._tag }).toEqual({ typed, id })
    }
  })
})

describe("NYC DOF sales files", () => {
  it("reads amounts, dates and building classes as published", () => {
    expect(parseAmount("CA$1,185,000")).toBe(1_185_000)
    expect(parseAmount("$0")).toBe(0)
    expect(parseAmount("1,650,000")).toBe(1_650_000)
    expect(parseAmount(" - ")).toBeUndefined()
    expect(parseUsDate("3/19/18")).toBe("2018-03-19")
    expect(parseUsDate("12/21/2018")).toBe("2018-12-21")
    expect(parseUsDate("13/45/18")).toBeUndefined()
    expect(propertyTypeOfBuildingClass("A5")).toBe("townhouse")
    expect(propertyTypeOfBuildingClass("A1")).toBe("single_family")
    expect(propertyTypeOfBuildingClass("B2")).toBe("two_family")
    expect(propertyTypeOfBuildingClass("C0")).toBe("three_family")
    expect(propertyTypeOfBuildingClass("R4")).toBe("condo")
    // A condominium's rental apartments billed as one lot: the building's, never a flat (345 E 56th St Apt 16E
    // was valued as its 72,456 sq ft billing lot, $114M: an address audit, 2026-11-29).
    expect(propertyTypeOfBuildingClass("RR")).toBeUndefined()
    expect(describeBuildingClass("RR")).toBe(
      "a condominium's rental apartments, billed together as one lot (building class RR)"
    )
    expect(propertyTypeOfBuildingClass("R5")).toBeUndefined()
    expect(propertyTypeOfBuildingClass("K1")).toBeUndefined()
    expect(describeBuildingClass("D4")).toBe("a co-op apartment building (building class D4)")
    expect(describeBuildingClass("S2")).toBe("a house or small building with a shop or office (building class S2)")
    expect(describeBuildingClass("C1")).toBe("a walk-up apartment building (building class C1)")
    expect(describeBuildingClass("R5")).toBe("a commercial condominium unit (building class R5)")
    expect(describeBuildingClass("Z9")).toBe("a property of a class not valued (building class Z9)")
  })

  it("turns rows into parcels and sales, rejecting bad rows by reason", () => {
    const parsed = parseNycDofSales("2018_fixture.csv", read("nyc-dof", "2018_fixture.csv"))
    expect(parsed.rowsRead).toBe(9)
    expect(parsed.rejected).toEqual({ "building class is not a scored property type": 1, "unreadable sale date": 1 })
    // The shop (K1) is not valued, but its street is real: the address index never corrects it away.
    expect(parsed.unscored).toEqual([{
      market: "Staten Island",
      street: "100 HYLAN BLVD",
      city: "STATEN ISLAND",
      state: "NY",
      zipCode: "10305",
      neighborhood: "ARROCHAR",
      recordedAs: "a store building (building class K1)"
    }])
    const heron = parsed.parcels.find((parcel) => parcel.id === "nyc-5-5391-65")!
    expect(heron).toMatchObject({
      market: "Staten Island",
      street: "22 BLUE HERON DR",
      zipCode: "10312",
      neighborhood: "ANNADALE",
      propertyType: "single_family",
      livingAreaSquareFeet: 3_000,
      lotSizeSquareFeet: 8_000,
      yearBuilt: 1987
    })
    // A gross area and year of zero are no value.
    const arrochar = parsed.parcels.find((parcel) => parcel.id === "nyc-5-3100-10")!
    expect(arrochar.livingAreaSquareFeet).toBeUndefined()
    expect(arrochar.yearBuilt).toBeUndefined()
    const byParcel = Object.fromEntries(parsed.sales.map((sale) => [sale.parcelId, sale]))
    expect(byParcel["nyc-5-5391-65"]).toMatchObject({ price: 1_185_000, saleDate: "2018-03-19", armsLength: true })
    // $0 and nominal transfers stay in the chain of title but are never arm's length.
    // Each says which rule judged it (evaluate's --predictions shows it).
    expect(byParcel["nyc-5-6205-65"]).toMatchObject({
      price: 0,
      armsLength: false,
      notArmsLengthBecause: "nominal price (under $10,000)"
    })
    expect(byParcel["nyc-5-5200-20"]).toMatchObject({ price: 5_000, armsLength: false })
    // One price on one day for two parcels of a block is a package sale.
    expect(byParcel["nyc-5-3100-11"]!.armsLength).toBe(false)
    expect(byParcel["nyc-5-3100-11"]!.notArmsLengthBecause).toBe("one deed and price over 2 parcels (a package sale)")
    // Each row of the deed names every parcel on it (a history lists them; a package resold whole is a flip).
    expect(byParcel["nyc-5-3100-11"]!.packageParcelIds).toEqual(["nyc-5-3100-11", "nyc-5-3100-12"])
    expect(byParcel["nyc-5-3100-12"]!.armsLength).toBe(false)
    expect(byParcel["nyc-5-3100-12"]!.packageParcelIds).toEqual(["nyc-5-3100-11", "nyc-5-3100-12"])
    expect(byParcel["nyc-5-3100-10"]!.armsLength).toBe(true)
    expect(byParcel["nyc-5-3100-10"]!.notArmsLengthBecause).toBeUndefined()
    expect(byParcel["nyc-5-3100-10"]).not.toHaveProperty("packageParcelIds")
    expect(byParcel["nyc-5-6205-65"]).not.toHaveProperty("packageParcelIds")
  })

  it("a house's record keeps no apartment: its tax lot is the whole house (a user's audit: it made 177 Luquer St ambiguous)", () => {
    const parsed = parseNycDofSales(
      "2019_brooklyn.csv",
      nycFile(
        `3,CARROLL GARDENS,03 THREE FAMILY DWELLINGS,1,358,39,,C0,"177 LUQUER STREET, 3",,11231,3,0,3,"2,000","3,600",1899,1,C0,"1,950,000",6/3/19`
      )
    )
    expect(parsed.parcels).toMatchObject([{ id: "nyc-3-358-39", street: "177 LUQUER ST", unit: "" }])
    const found = new AddressIndex(parsed.parcels).match("177 Luquer St, Brooklyn, NY")
    expect(found._tag === "Found" && found.parcel.id).toBe("nyc-3-358-39")
  })

  it("reads a condo's unit from the address", () => {
    const parsed = parseNycDofSales("2019_fixture.csv", read("nyc-dof", "2019_fixture.csv"))
    expect(parsed.parcels.find((parcel) => parcel.id === "nyc-5-5300-1001")).toMatchObject({
      street: "300 SEAVIEW AVE",
      unit: "4B",
      propertyType: "condo"
    })
  })
})

describe("NYC penthouses written into the address (an address audit, 2026-11-29: `250 W 90th St Apt 1E` was valued and charged as the penthouse PH1E)", () => {
  it("REQ-1: PH stays part of the unit's name, so the penthouse and the unit of the same number are two properties, each found as typed", () => {
    expect(normalizeAddress("250 WEST 90TH STREET, PH1E")).toMatchObject({ street: "250 W 90TH ST", unit: "PH1E" })
    expect(normalizeAddress("310 WEST 52ND STREET, PHC").unit).toBe("PHC")
    expect(normalizeAddress("20 WEST STREET, PH-F").unit).toBe("PH-F")
    expect(normalizeAddress("250 WEST 90TH STREET, PH").unit).toBe("PH")
    expect(normalizeAddress("250 WEST 90TH STREET, APT 4B").unit).toBe("4B")
    const parsed = parseNycDofSales(
      "2019_penthouse.csv",
      Buffer.from(nycFile(
        `1,UPPER WEST SIDE (79-96),13 CONDOS - ELEVATOR APARTMENTS,2,1237,1168,,R4,"250 WEST 90TH STREET, PH1E",PH1E,10024,1,0,1,,"1,454",1985,2,R4,"1,875,000",3/10/19`,
        `1,UPPER WEST SIDE (79-96),13 CONDOS - ELEVATOR APARTMENTS,2,1237,1124,,R4,"250 WEST 90TH STREET, 1D",1D,10024,1,0,1,,630,1985,2,R4,"855,000",3/11/19`
      ))
    )
    expect(parsed.parcels.find((parcel) => parcel.id === "nyc-1-1237-1168")?.unit).toBe("PH1E")
    const index = new AddressIndex(parsed.parcels)
    const penthouse = index.match("250 W 90th St Apt PH1E, New York, NY 10024")
    expect(penthouse._tag === "Found" && penthouse.parcel.id).toBe("nyc-1-1237-1168")
    // No unit 1E is on record: refused (free), never the penthouse.
    expect(index.match("250 W 90th St Apt 1E, New York, NY 10024")._tag).not.toBe("Found")
  })
})

/** A 2019-format NYC file of the given data rows (the fixture's header). */
const nycFile = (...rows: Array<string>) =>
  [read("nyc-dof", "2019_fixture.csv").toString("utf8").split("\n").slice(0, 20).join("\n"), ...rows].join("\n")

/** A Throgs Neck bungalow colony: three houses on one tax lot (building class A8), as the Bronx files have them. */
const colony = nycFile(
  `2,THROGS NECK,01 ONE FAMILY DWELLINGS,1D,5506,1,,A8,"12 MAGNOLIA PLACE, 12",,10465,1,0,1,,,1921,1D,A8,"158,600",1/31/19`,
  `2,THROGS NECK,01 ONE FAMILY DWELLINGS,1D,5506,1,,A8,"86 INDIAN TRAIL, 86",,10465,1,0,1,,,1921,1D,A8,"714,800",2/14/19`,
  `2,THROGS NECK,01 ONE FAMILY DWELLINGS,1D,5506,1,,A8,"122 INDIAN TRAIL, 122",,10465,1,0,1,,,1921,1D,A8,"370,000",2/14/19`,
  `2,THROGS NECK,01 ONE FAMILY DWELLINGS,1D,5506,1,,A8,"122 INDIAN TRAIL, 122",,10465,1,0,1,,,1921,1D,A8,"693,600",11/20/19`
)

describe("NYC package sales", () => {
  const house = (block: number, lot: number, street: string, zip: string) =>
    `4,ST. ALBANS,01 ONE FAMILY DWELLINGS,1,${block},${lot},,A1,${street},,${zip},1,0,1,"2,000","1,551",1940,1,A1,"510,000",12/4/19`
  const reasons = (...rows: Array<string>) =>
    parseNycDofSales("f.csv", Buffer.from(nycFile(...rows))).sales.map((sale) => sale.notArmsLengthBecause ?? "market")

  it("HIS-2: two houses of a neighbourhood at one price on one day, on other blocks in other ZIP codes, are two sales, not one deed (an investor's audit: 113-02 203rd St)", () => {
    expect(reasons(house(11010, 1, "113-02 203RD STREET", "11412"), house(12480, 7, "111-73 180TH STREET", "11433")))
      .toEqual(["market", "market"])
    // On one block, or in one ZIP code, one deed over both, as before.
    const package2 = "one deed and price over 2 parcels (a package sale)"
    expect(reasons(house(11010, 1, "113-02 203RD STREET", "11412"), house(11010, 7, "113-10 203RD STREET", "11433")))
      .toEqual([package2, package2])
    expect(reasons(house(11010, 1, "113-02 203RD STREET", "11412"), house(11020, 7, "113-40 204TH STREET", "11412")))
      .toEqual([package2, package2])
    // The same two parcels together on another day's deed too: one holding, each deed a package (960 E 218th St
    // and 959 E 223rd St, Bronx, $60,000, $10,500 and $150,000 on the same days).
    const again = (row: string) => row.replace("\"510,000\",12/4/19", "\"150,000\",9/6/18")
    expect(
      reasons(
        house(11010, 1, "113-02 203RD STREET", "11412"),
        house(12480, 7, "111-73 180TH STREET", "11433"),
        again(house(11010, 1, "113-02 203RD STREET", "11412")),
        again(house(12480, 7, "111-73 180TH STREET", "11433"))
      )
    ).toEqual([package2, package2, package2, package2])
  })

  it("HIS-2: two houses on other blocks of one ZIP code at one price on one day, each at about its neighbourhood's price for its size, are two sales; at the price of two, or on one block, one deed (a valuation audit: 107-57 113th St and 105-28 134th St, $585,000 each)", () => {
    const sold = (block: number, lot: number, street: string, price: string, date: string) =>
      house(block, lot, street, "11412").replace("\"510,000\",12/4/19", `"${price}",${date}`)
    // The neighbourhood's houses sold on their own: about $330 a square foot for 1,551 sq ft.
    const alone = [
      sold(11030, 3, "113-50 205TH STREET", "505,000", "3/1/19"),
      sold(11040, 4, "113-60 206TH STREET", "520,000", "5/1/19"),
      sold(11050, 5, "113-70 207TH STREET", "498,000", "7/1/19")
    ]
    const package2 = "one deed and price over 2 parcels (a package sale)"
    const pair = (price: string, secondBlock: number) =>
      reasons(
        ...alone,
        sold(11010, 1, "113-02 203RD STREET", price, "12/4/19"),
        sold(secondBlock, 7, "113-40 204TH STREET", price, "12/4/19")
      ).slice(3)
    expect(pair("510,000", 11020)).toEqual(["market", "market"])
    expect(pair("1,020,000", 11020)).toEqual([package2, package2])
    expect(pair("510,000", 11010)).toEqual([package2, package2])
  })
})

describe("NYC condominium units of one block at one price on one day (an agent's audit: 250 E 54th St Apt 20B)", () => {
  const unit = (lot: number, apartment: string, price: string, date = "12/19/18") =>
    `1,MIDTOWN EAST,13 CONDOS - ELEVATOR APARTMENTS,2,1327,${lot},,R4,"250 EAST 54TH STREET, ${apartment}",,10022,1,0,1,0,400,1986,2,R4,"${price}",${date}`
  const reasonsOf = (...rows: Array<string>) => {
    const sales = parseNycDofSales("f.csv", Buffer.from(nycFile(...rows))).sales
    return Object.fromEntries(
      sales.filter((sale) => sale.parcelId.startsWith("nyc-1-1327-"))
        .map((sale) => [`${sale.parcelId}@${sale.price}`, sale.notArmsLengthBecause ?? "market"])
    )
  }
  // The building's units sold on their own: a middle price of $582,000.
  const alone = [
    unit(1101, "10B", "582,000", "3/1/18"),
    unit(1102, "11C", "560,000", "5/1/18"),
    unit(1103, "12A", "610,000", "7/1/18")
  ]

  it("HIS-2: each sold on its own at a price like its building's units, not one deed over them; a price like their sum is one deed", () => {
    expect(reasonsOf(...alone, unit(1137, "20B", "590,000"), unit(1140, "20E", "590,000"))).toMatchObject({
      "nyc-1-1327-1137@590000": "market",
      "nyc-1-1327-1140@590000": "market"
    })
    // Two units at the price of two: one deed, as before.
    const package2 = "one deed and price over 2 parcels (a package sale)"
    expect(reasonsOf(...alone, unit(1137, "20B", "1,180,000"), unit(1140, "20E", "1,180,000"))).toMatchObject({
      "nyc-1-1327-1137@1180000": package2,
      "nyc-1-1327-1140@1180000": package2
    })
    // A price far below the building's either way, or a block without three units sold on their own: one deed.
    expect(reasonsOf(...alone, unit(1137, "20B", "150,000"), unit(1140, "20E", "150,000"))).toMatchObject({
      "nyc-1-1327-1137@150000": package2
    })
    expect(reasonsOf(alone[0]!, unit(1137, "20B", "590,000"), unit(1140, "20E", "590,000"))).toMatchObject({
      "nyc-1-1327-1137@590000": package2
    })
  })
})

describe("NYC apartment combinations: one unit's price over two, the other recorded at $0 (an agent's audit: 250 E 54th St Apt 33A)", () => {
  const unit = (lot: number, apartment: string, area: string, price: string, date = "12/14/18") =>
    `1,MIDTOWN EAST,13 CONDOS - ELEVATOR APARTMENTS,2,1327,${lot},,R4,"250 EAST 54TH STREET, ${apartment}",,10022,1,0,1,0,"${area}",1986,2,R4,"${price}",${date}`
  // The block's units sold alone: about $1,300 a square foot.
  const alone = [
    unit(1101, "10B", "1,300", "1,700,000", "3/1/18"),
    unit(1102, "11C", "1,000", "1,290,000", "5/1/18"),
    unit(1103, "12A", "1,300", "1,525,000", "7/1/18")
  ]
  const salesOf = (...rows: Array<string>) =>
    Object.fromEntries(
      parseNycDofSales("f.csv", Buffer.from(nycFile(...rows))).sales.filter((sale) =>
        sale.parcelId.startsWith("nyc-1-1327-")
      )
        .map((sale) => [sale.parcelId, sale])
    )

  it("HIS-2: the priced unit's sale is over both where its price fits both units' areas, not its own; a unit's own price beside an unrelated $0 transfer stays its market sale", () => {
    const combined = salesOf(...alone, unit(1234, "33A", "1,300", "3,850,000"), unit(1270, "33D", "1,647", "0"))
    expect(combined["nyc-1-1327-1234"]).toMatchObject({
      armsLength: false,
      notArmsLengthBecause: "one deed and price over 2 parcels (a package sale)",
      packageParcelIds: ["nyc-1-1327-1234", "nyc-1-1327-1270"]
    })
    expect(combined["nyc-1-1327-1270"]).toMatchObject({ armsLength: false, price: 0 })
    // Its own price a square foot like the block's: its own sale, whatever else sold at $0 that day.
    const own = salesOf(...alone, unit(1234, "33A", "1,300", "1,690,000"), unit(1270, "33D", "1,647", "0"))
    expect(own["nyc-1-1327-1234"]).toMatchObject({ armsLength: true })
    expect(own["nyc-1-1327-1234"]).not.toHaveProperty("packageParcelIds")
  })

  it("HIS-2: a block with too few units sold alone is weighed by its neighbourhood's units' price a square foot (an investor's audit: 515 E 72nd St Apt 12F, $2.27M for 736 sq ft with 12G at $0)", () => {
    // The same units, on a block of their own: the neighbourhood's units sold alone are on the other block.
    const elsewhere = (row: string) => row.replace(",1327,", ",1484,")
    const combination = [unit(1234, "33A", "1,300", "3,850,000"), unit(1270, "33D", "1,647", "0")].map(elsewhere)
    const onBlock = (...rows: Array<string>) =>
      Object.fromEntries(
        parseNycDofSales("f.csv", Buffer.from(nycFile(...rows))).sales.filter((sale) =>
          sale.parcelId.startsWith("nyc-1-1484-")
        ).map((sale) => [sale.parcelId, sale])
      )
    expect(onBlock(...alone, ...combination)["nyc-1-1484-1234"]).toMatchObject({
      armsLength: false,
      packageParcelIds: ["nyc-1-1484-1234", "nyc-1-1484-1270"]
    })
    // No units sold alone in the neighbourhood either: read as before, the unit's own sale.
    expect(onBlock(...combination)["nyc-1-1484-1234"]).toMatchObject({ armsLength: true })
    // And the block's own units, where it has enough, come first: units of the block at $2,900 a square foot
    // make $3.85M for 1,300 sq ft the unit's own price.
    const dearBlock = [
      unit(1101, "10B", "1,300", "3,770,000", "3/1/18"),
      unit(1102, "11C", "1,000", "2,900,000", "5/1/18"),
      unit(1103, "12A", "1,300", "3,770,000", "7/1/18")
    ].map(elsewhere)
    expect(onBlock(...alone, ...dearBlock, ...combination)["nyc-1-1484-1234"]).toMatchObject({ armsLength: true })
  })
})

describe("NYC facts a later row leaves out (an investor's audit: 101 W 78th St Apt 6D, 660 sq ft in 2018, 0 in 2019)", () => {
  const unit6d = (area: string, price: string, date: string) =>
    `1,UPPER WEST SIDE (59-79),13 CONDOS - ELEVATOR APARTMENTS,2,1148,1206,,R4,"101 WEST 78TH STREET, 6D",,10024,1,0,1,0,${area},1920,2,R4,"${price}",${date}`
  const area = (file: string) =>
    parseNycDofSales("f.csv", Buffer.from(file)).parcels.find((parcel) => parcel.id === "nyc-1-1148-1206")
      ?.livingAreaSquareFeet

  it("a row without the living area keeps the one an earlier row recorded, whatever the rows' order", () => {
    expect(area(nycFile(unit6d("660", "681,000", "2/7/19"), unit6d("0", "700,000", "11/7/19")))).toBe(660)
    expect(area(nycFile(unit6d("0", "700,000", "11/7/19"), unit6d("660", "681,000", "2/7/19")))).toBe(660)
    // A later row that records the fact is the record.
    expect(area(nycFile(unit6d("660", "681,000", "2/7/19"), unit6d("700", "700,000", "11/7/19")))).toBe(700)
    expect(area(nycFile(unit6d("700", "700,000", "11/7/19"), unit6d("660", "681,000", "2/7/19")))).toBe(700)
  })

  it("so does a later file, in the scratch store evaluate and the benchmarks read", () => {
    const data = scratchStore([
      parseNycDofSales("2018.csv", Buffer.from(nycFile(unit6d("660", "681,000", "2/7/18")))),
      parseNycDofSales("2019.csv", Buffer.from(nycFile(unit6d("0", "700,000", "11/7/19"))))
    ])
    expect(data.parcels.find((parcel) => parcel.id === "nyc-1-1148-1206")?.livingAreaSquareFeet).toBe(660)
  })
})

describe("NYC bungalow colonies: many houses on one tax lot (a user's audit: one chain of title of 28 houses)", () => {
  it("each house of a building class A8 lot is its own parcel, without the house number repeated as a unit", () => {
    const parsed = parseNycDofSales("2019_bronx.csv", colony)
    expect(parsed.parcels.map((parcel) => [parcel.id, parcel.street, parcel.unit]).sort()).toEqual([
      ["nyc-2-5506-1-12-MAGNOLIA-PL", "12 MAGNOLIA PL", ""],
      ["nyc-2-5506-1-122-INDIAN-TRL", "122 INDIAN TRL", ""],
      ["nyc-2-5506-1-86-INDIAN-TRL", "86 INDIAN TRL", ""]
    ])
    // Two houses sold on one day at two prices are two sales of their own, not one lot's split deed.
    expect(parsed.sales.every((sale) => sale.armsLength)).toBe(true)
    expect(parsed.sales.filter((sale) => sale.parcelId === "nyc-2-5506-1-122-INDIAN-TRL")).toHaveLength(2)
    expect(parsed.replaces).toEqual(["nyc-2-5506-1"])
    // Found as a house, by its own address.
    const index = new AddressIndex(parsed.parcels)
    const found = index.match("122 Indian Trl, Bronx, NY 10465")
    expect(found._tag === "Found" && found.parcel.id).toBe("nyc-2-5506-1-122-INDIAN-TRL")
  })
})

describe("NYC streets cut at the files' field width", () => {
  it("REQ-1: a street type cut short (FORT HAMILTON PARKWA) is read in full, and the house is found as people type it", () => {
    const parsed = parseNycDofSales(
      "2019_brooklyn.csv",
      nycFile(
        `3,BOROUGH PARK,01 ONE FAMILY DWELLINGS,1,5600,12,,A1,4701 FORT HAMILTON PARKWA,,11219,1,0,1,"2,000","1,800",1920,1,A1,"950,000",5/1/19`,
        `4,SPRINGFIELD GARDENS,01 ONE FAMILY DWELLINGS,1,12500,7,,A1,122-30 SPRINGFIELD BOULEVAR,,11413,1,0,1,"3,000","1,500",1950,1,A1,"600,000",6/1/19`,
        // Shorter than the field: as the address normalisation reads it (STR, a USPS spelling of ST).
        `4,JAMAICA,01 ONE FAMILY DWELLINGS,1,9700,3,,A1,97-11 129TH STR,,11419,1,0,1,"2,000","1,300",1930,1,A1,"500,000",7/1/19`,
        // The files' BL, a boulevard, not a bluff (BLF: an address audit, 2026-11-29).
        `5,GRANT CITY,01 ONE FAMILY DWELLINGS,1,3600,9,,A1,1501 FATHER CAPODANNO BL,,10306,1,0,1,"2,000","1,300",1930,1,A1,"500,000",7/1/19`
      )
    )
    expect(parsed.parcels.map((parcel) => [parcel.street, parcel.recordedAddress]).sort()).toEqual([
      ["122-30 SPRINGFIELD BLVD", "122-30 SPRINGFIELD BOULEVAR"],
      ["1501 FATHER CAPODANNO BLVD", "1501 FATHER CAPODANNO BL"],
      ["4701 FORT HAMILTON PKWY", "4701 FORT HAMILTON PARKWA"],
      ["97-11 129TH ST", "97-11 129TH STR"]
    ])
    const index = new AddressIndex(parsed.parcels)
    for (
      const [typed, id] of [
        ["4701 Fort Hamilton Parkway, Brooklyn, NY 11219", "nyc-3-5600-12"],
        ["4701 Fort Hamilton Pkwy, Brooklyn", "nyc-3-5600-12"],
        ["122-30 Springfield Blvd, Queens, NY 11413", "nyc-4-12500-7"]
      ] as const
    ) {
      const found = index.match(typed)
      expect({ typed, id: found._tag === "Found" && found.parcel.id }).toEqual({ typed, id })
    }
    expect(withTypeCompleted("189A WEST KINGSBRIDGE ROA")).toBe("189A WEST KINGSBRIDGE RD")
    expect(withTypeCompleted("4159 THROGS NECK EXPRESSW")).toBe("4159 THROGS NECK EXPY")
    // A last word no one type begins is as written.
    expect(withTypeCompleted("1234 SAINT JOHNS PLACE EAS")).toBe("1234 SAINT JOHNS PLACE EAS")
  })
})

describe("NYC street types the files misspell (an address audit, 2026-11-29: `836 East 49th Street` was refused, its latest record `836 EAST 49TH STRET`)", () => {
  it("REQ-1: STRET is a street and AVUNUE an avenue, so the house is found as people type it", () => {
    const rows = [
      `3,FLATBUSH-EAST,01 ONE FAMILY DWELLINGS,1,4779,24,,A1,836 EAST 49TH STRET,,11203,1,0,1,"2,000","1,500",1925,1,A1,"420,000",5/31/19`,
      `3,FLATBUSH-EAST,01 ONE FAMILY DWELLINGS,1,4780,10,,A1,12 CHURCH AVUNUE,,11203,1,0,1,"2,000","1,500",1925,1,A1,"520,000",5/31/19`
    ]
    const parcels = parseNycDofSales("f.csv", Buffer.from(nycFile(...rows))).parcels
    expect(parcels.map((parcel) => [parcel.street, parcel.recordedAddress])).toEqual([
      ["836 E 49TH ST", "836 EAST 49TH STRET"],
      ["12 CHURCH AVE", "12 CHURCH AVUNUE"]
    ])
    const index = new AddressIndex(parcels)
    expect(index.match("836 East 49th Street, Brooklyn, NY 11203")).toMatchObject({ _tag: "Found" })
    expect(index.match("12 Church Ave, Brooklyn, NY 11203")).toMatchObject({ _tag: "Found" })
  })
})

describe("NYC half numbers", () => {
  it("a half number the file writes joined (531/2 HIGHVIEW AVENUE) is 53 1/2, found as people type it", () => {
    const parsed = parseNycDofSales(
      "2019_statenisland.csv",
      nycFile(
        `5,WEST NEW BRIGHTON,01 ONE FAMILY DWELLINGS,1,54,32,,A1,531/2 HIGHVIEW AVENUE,,10301,1,0,1,"2,000","1,200",1920,1,A1,"450,000",5/1/19`
      )
    )
    expect(parsed.parcels.map((parcel) => parcel.street)).toEqual(["53 1/2 HIGHVIEW AVENUE"])
    const index = new AddressIndex(parsed.parcels)
    for (const typed of ["53 1/2 Highview Ave, Staten Island, NY 10301", "53½ Highview Avenue, Staten Island NY"]) {
      const found = index.match(typed)
      expect({ typed, id: found._tag === "Found" && found.parcel.id }).toEqual({ typed, id: "nyc-5-54-32" })
    }
  })
})

describe("NYC house numbers written as words", () => {
  it("REQ-1: a building the file names `ONE IRVING PL` is at 1 Irving Pl, found as people type it either way (an address audit, 2026-11-29: no typing found it)", () => {
    const parsed = parseNycDofSales(
      "2019_manhattan.csv",
      nycFile(
        `1,GRAMERCY,13 CONDOS - ELEVATOR APARTMENTS,2,870,1228,,R4,"ONE IRVING PL, G9C",,10003,1,0,1,0,850,1987,2,R4,"1,250,000",5/1/19`
      )
    )
    expect(parsed.parcels.map((parcel) => [parcel.street, parcel.unit, parcel.recordedAddress])).toEqual([
      ["1 IRVING PL", "G9C", "ONE IRVING PL"]
    ])
    const index = new AddressIndex(parsed.parcels)
    for (const typed of ["1 Irving Pl Apt G9C, New York, NY 10003", "One Irving Place #G9C, New York, NY"]) {
      const found = index.match(typed)
      expect({ typed, id: found._tag === "Found" && found.parcel.id }).toEqual({ typed, id: "nyc-1-870-1228" })
    }
  })
})

describe("generic CSV files", () => {
  it("parcels: rejects unknown types, unreadable numbers and missing addresses by reason", () => {
    const parsed = parsePropscoreCsv("parcels.csv", read("propscore-csv", "parcels.csv"))
    expect(parsed.parcels.map((parcel) => parcel.id)).toEqual(["sac-1", "sac-2"])
    expect(parsed.rejected).toEqual({ "unknown property_type": 1, "unreadable bedrooms": 1, "missing address": 1 })
    expect(parsed.parcels[0]).toMatchObject({
      street: "3526 HIGH ST",
      city: "SACRAMENTO",
      state: "CA",
      zipCode: "95838",
      bedrooms: 2,
      bathrooms: 1,
      partialBathrooms: 0,
      latitude: 38.631913,
      longitude: -121.434879
    })
    expect(parsed.parcels[1]!.lotSizeSquareFeet).toBeUndefined()
  })

  it("parcels: a bathroom count with a fraction, as county files write a half or three-quarter bath, is full bathrooms and one partial (a generality audit: every such parcel was refused with its sales)", () => {
    const parsed = parsePropscoreCsv(
      "parcels.csv",
      [
        "property_id,market,address,bathrooms,partial_bathrooms",
        "k-1,King,1 A St,2.5,",
        "k-2,King,2 A St,1.75,",
        "k-3,King,3 A St,3.25,2",
        "k-4,King,4 A St,2,",
        "k-5,King,5 A St,-0.5,",
        "k-6,King,6 A St,2.5 baths,"
      ].join("\n")
    )
    expect(parsed.parcels.map((parcel) => [parcel.id, parcel.bathrooms, parcel.partialBathrooms])).toEqual([
      ["k-1", 2, 1],
      ["k-2", 1, 1],
      ["k-3", 3, 2],
      ["k-4", 2, undefined]
    ])
    expect(parsed.rejected).toEqual({ "unreadable bathrooms": 2 })
  })

  it("sales: arm's length from the column, else from the price; invalid dates rejected", () => {
    const parsed = parsePropscoreCsv("sales.csv", read("propscore-csv", "sales.csv"))
    expect(parsed.rejected).toEqual({ "unreadable sale_date": 1 })
    expect(parsed.sales.map((sale) => [sale.parcelId, sale.price, sale.armsLength])).toEqual([
      ["sac-1", 59_222, true],
      ["sac-1", 41_000, true],
      ["sac-1", 100, false],
      ["sac-2", 68_212, true],
      ["sac-9", 99_000, true]
    ])
  })

  it("sales: several prices of a parcel on one day are not arm's length where the file does not say (as NYC's)", () => {
    const csv = [
      "property_id,sale_date,price,arms_length",
      "sac-393,2008-05-19,155435,",
      "sac-393,2008-05-19,155500,",
      "sac-393,2008-06-02,160000,",
      // Stated by the file: kept as stated.
      "sac-7,2008-05-19,90000,true",
      "sac-7,2008-05-19,91000,true"
    ].join("\n")
    const parsed = parsePropscoreCsv("sales.csv", Buffer.from(csv))
    expect(parsed.sales.map((sale) => [sale.parcelId, sale.price, sale.armsLength, sale.notArmsLengthBecause])).toEqual(
      [
        [
          "sac-393",
          155_435,
          false,
          "several prices recorded for the parcel on one day (split deeds or partial interests)"
        ],
        [
          "sac-393",
          155_500,
          false,
          "several prices recorded for the parcel on one day (split deeds or partial interests)"
        ],
        ["sac-393", 160_000, true, undefined],
        ["sac-7", 90_000, true, undefined],
        ["sac-7", 91_000, true, undefined]
      ]
    )
  })
})

layer(PropertyStorePg.pipe(Layer.provideMerge(TestDatabase)), { timeout: "120 seconds" })(
  "importing into the store",
  (it) => {
    it.effect("NYC files: repeated rows across files are one sale, and importing again changes nothing", () =>
      Effect.gen(function*() {
        const files = [fixture("nyc-dof", "2018_fixture.csv"), fixture("nyc-dof", "2019_fixture.csv")]
        const first = yield* importFiles("nyc-dof", files)
        expect(first.map((r) => [r.rows_read, r.accepted, r.duplicates])).toEqual([[9, 7, 0], [4, 4, 1]])
        const sql = yield* SqlClient.SqlClient
        const count = () =>
          sql<{ parcels: number; sales: number }>`
        SELECT (SELECT count(*)::int FROM parcels) AS parcels, (SELECT count(*)::int FROM sales) AS sales`
        const before = yield* count()
        const again = yield* importFiles("nyc-dof", files)
        expect(again.map((r) => r.duplicates)).toEqual([7, 4])
        expect(yield* count()).toEqual(before)
        expect(before[0]).toEqual({ parcels: 8, sales: 10 })
        // The shop's address is kept once, for the address index, with what the record says it is; importing
        // the file again fills that in for an address stored before it was kept (migration 0020).
        const store = yield* PropertyStore
        const shop = expect.objectContaining({
          street: "100 HYLAN BLVD",
          zipCode: "10305",
          neighborhood: "ARROCHAR",
          recordedAs: "a store building (building class K1)"
        })
        expect((yield* store.loadAll).unscored).toEqual([shop])
        yield* sql`UPDATE unscored_addresses SET recorded_as = NULL`
        expect((yield* store.loadAll).unscored).toEqual([expect.objectContaining({ recordedAs: undefined })])
        yield* importFiles("nyc-dof", files)
        expect((yield* store.loadAll).unscored).toEqual([shop])
      }))

    it.effect("an address with properties of several kinds not valued keeps every kind, in a file and across files (345 E 56th St was told only of its last)", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const row = (lot: number, buildingClass: string, apartment: string) =>
          `1,MIDTOWN EAST,17 CONDO COOPS,2,1349,${lot},,${buildingClass},"345 EAST 56TH STREET, ${apartment}",,10022,1,0,1,0,0,1960,2,${buildingClass},"1,075,000",3/1/18`
        const rk = "a commercial condominium unit (building class RK)"
        const r9 = "a co-op unit in a condominium (building class R9)"
        const rr = "a condominium's rental apartments, billed together as one lot (building class RR)"
        const first = parseNycDofSales("2018.csv", Buffer.from(nycFile(row(1004, "R9", "PHC"), row(1202, "RR", "16E"))))
        const mine = (parsed: typeof first) =>
          parsed.unscored!.filter((address) => address.street === "345 E 56TH ST").map((address) => address.recordedAs)
        expect(mine(first)).toEqual([[r9, rr].sort().join("; ")])
        yield* store.importParsed(first, "nyc-dof")
        yield* store.importParsed(parseNycDofSales("2019.csv", Buffer.from(nycFile(row(1300, "RK", "C1")))), "nyc-dof")
        const stored = () =>
          store.loadAll.pipe(
            Effect.map(({ unscored }) =>
              (unscored ?? []).filter((address) => address.street === "345 E 56TH ST").map((address) =>
                address.recordedAs
              )
            )
          )
        expect(yield* stored()).toEqual([[r9, rr, rk].sort().join("; ")])
        // Importing a file again adds nothing.
        yield* store.importParsed(first, "nyc-dof")
        expect(yield* stored()).toEqual([[r9, rr, rk].sort().join("; ")])
        // Said in words: every kind.
        expect(notValuedNamed({ address: "345 E 56TH ST, NEW YORK, NY 10022", recordedAs: [rk, r9].join("; ") }))
          .toBe(`345 E 56TH ST, NEW YORK, NY 10022 (its records: ${rk} and ${r9})`)
        expect(notValuedNamed({ address: "X", recordedAs: rk })).toBe(`X, ${rk}`)
      }))

    it.effect("an NYC file whose row leaves out a living area keeps the one stored before; a later row with one replaces it", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const row = (area: string, date: string) =>
          `1,UPPER WEST SIDE (59-79),13 CONDOS - ELEVATOR APARTMENTS,2,1148,1206,,R4,"101 WEST 78TH STREET, 6D",,10024,1,0,1,0,${area},1920,2,R4,"681,000",${date}`
        const stored = () =>
          store.loadAll.pipe(
            Effect.map(({ parcels }) => parcels.find((parcel) => parcel.id === "nyc-1-1148-1206")?.livingAreaSquareFeet)
          )
        yield* store.importParsed(parseNycDofSales("2018.csv", Buffer.from(nycFile(row("660", "2/7/18")))), "nyc-dof")
        yield* store.importParsed(parseNycDofSales("2019.csv", Buffer.from(nycFile(row("0", "11/7/19")))), "nyc-dof")
        expect(yield* stored()).toBe(660)
        yield* store.importParsed(parseNycDofSales("2019.csv", Buffer.from(nycFile(row("700", "12/7/19")))), "nyc-dof")
        expect(yield* stored()).toBe(700)
      }))

    it.effect("a Queens house number a later row writes without its hyphen keeps it, in one file and across files (an agent's audit: 213-07 110th Ave answered as 21307)", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const row = (address: string, date: string) =>
          `4,QUEENS VILLAGE,01 ONE FAMILY DWELLINGS,1,11130,40,,A1,${address},,11429,1,0,1,"4,000","1,400",1935,1,A1,"520,000",${date}`
        const street = (file: string) =>
          parseNycDofSales("f.csv", Buffer.from(file)).parcels.find((p) => p.id === "nyc-4-11130-40")?.street
        expect(street(nycFile(row("213-07 110 AVENUE", "2/7/18"), row("21307 110 AVENUE", "11/7/18"))))
          .toBe("213-07 110 AVE")
        expect(street(nycFile(row("21307 110 AVENUE", "11/7/18"), row("213-07 110 AVENUE", "2/7/18"))))
          .toBe("213-07 110 AVE")
        const stored = () =>
          store.loadAll.pipe(Effect.map(({ parcels }) => parcels.find((p) => p.id === "nyc-4-11130-40")))
        yield* store.importParsed(
          parseNycDofSales("2018.csv", Buffer.from(nycFile(row("213-07 110 AVENUE", "2/7/18")))),
          "nyc-dof"
        )
        yield* store.importParsed(
          parseNycDofSales("2019.csv", Buffer.from(nycFile(row("21307 110 AVENUE", "3/7/19")))),
          "nyc-dof"
        )
        expect(yield* stored()).toMatchObject({ street: "213-07 110 AVE", recordedAddress: "213-07 110 AVENUE" })
        // Another number is another line: taken.
        yield* store.importParsed(
          parseNycDofSales("2019.csv", Buffer.from(nycFile(row("213-09 110 AVENUE", "4/7/19")))),
          "nyc-dof"
        )
        expect(yield* stored()).toMatchObject({ street: "213-09 110 AVE" })
      }))

    it.effect("REQ-1: an address an earlier row of the parcel recorded is kept beside its latest, in one file and across files in either order (a known refusal: 225 Hopkinson Ave, later 225 Thomas S Boyland St)", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const row = (address: string, date: string) =>
          `3,OCEAN HILL,01 ONE FAMILY DWELLINGS,1,1565,4,,A1,${address},,11233,1,0,1,"2,000","1,800",1899,1,A1,"720,000",${date}`
        const parsed = (file: string) =>
          parseNycDofSales("f.csv", Buffer.from(file)).parcels.find((p) => p.id === "nyc-3-1565-4")
        const renamed = { street: "225 THOMAS S BOYLAND ST", earlierStreets: ["225 HOPKINSON AVE"] }
        expect(parsed(nycFile(row("225 HOPKINSON AVE", "2/7/18"), row("225 THOMAS S BOYLAND STREET", "11/7/18"))))
          .toMatchObject(renamed)
        expect(parsed(nycFile(row("225 THOMAS S BOYLAND STREET", "11/7/18"), row("225 HOPKINSON AVE", "2/7/18"))))
          .toMatchObject(renamed)
        // Another spelling of the same line is no other address.
        const respelt = parsed(nycFile(row("225 HOPKINSON AVE", "2/7/18"), row("225 HOPKINSON AVENUE", "11/7/18")))
        expect([respelt?.street, respelt?.earlierStreets]).toEqual(["225 HOPKINSON AVE", undefined])
        const stored = () =>
          store.loadAll.pipe(Effect.map(({ parcels }) => parcels.find((p) => p.id === "nyc-3-1565-4")))
        const importRow = (address: string, date: string) =>
          store.importParsed(parseNycDofSales("f.csv", Buffer.from(nycFile(row(address, date)))), "nyc-dof")
        yield* importRow("225 HOPKINSON AVE", "2/7/18")
        expect((yield* stored())?.earlierStreets).toBeUndefined()
        yield* importRow("225 THOMAS S BOYLAND STREET", "3/7/19")
        expect(yield* stored()).toMatchObject(renamed)
        // Imported again, or a third line: each line once, the latest the street.
        yield* importRow("225 THOMAS S BOYLAND STREET", "3/7/19")
        expect(yield* stored()).toMatchObject(renamed)
        yield* importRow("227 THOMAS S BOYLAND STREET", "4/7/19")
        expect(yield* stored()).toMatchObject({
          street: "227 THOMAS S BOYLAND ST",
          earlierStreets: ["225 HOPKINSON AVE", "225 THOMAS S BOYLAND ST"]
        })
        // A row of another building on the lot (split, or built again: its year, lot or area unlike) keeps none of
        // the old building's lines (`52 Stafford Ave` found the townhouse built in 2019 on a third of its lot).
        const rebuilt = (address: string, date: string, land: string, year: string) =>
          `3,OCEAN HILL,01 ONE FAMILY DWELLINGS,1,1565,4,,A1,${address},,11233,1,0,1,"${land}","1,800",${year},1,A1,"720,000",${date}`
        yield* store.importParsed(
          parseNycDofSales(
            "f.csv",
            Buffer.from(nycFile(rebuilt("229 THOMAS S BOYLAND STREET", "5/7/19", "700", "2019")))
          ),
          "nyc-dof"
        )
        const after = yield* stored()
        expect([after?.street, after?.earlierStreets]).toEqual(["229 THOMAS S BOYLAND ST", undefined])
        const split = parsed(
          nycFile(row("225 HOPKINSON AVE", "2/7/18"), rebuilt("229 THOMAS S BOYLAND STREET", "11/7/19", "700", "2019"))
        )
        expect([split?.street, split?.earlierStreets]).toEqual(["229 THOMAS S BOYLAND ST", undefined])
        // The scratch store evaluate and the benchmarks read merges them the same way.
        const data = scratchStore([
          parseNycDofSales("2018.csv", Buffer.from(nycFile(row("225 HOPKINSON AVE", "2/7/18")))),
          parseNycDofSales("2019.csv", Buffer.from(nycFile(row("225 THOMAS S BOYLAND STREET", "3/7/19"))))
        ])
        expect(data.parcels.find((p) => p.id === "nyc-3-1565-4")).toMatchObject(renamed)
      }))

    it.effect("HIS-2: a sale's reason for not being arm's-length and a package's parcels are stored; importing the file again fills them in for sales stored before", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const sql = yield* SqlClient.SqlClient
        const files = [fixture("nyc-dof", "2018_fixture.csv"), fixture("nyc-dof", "2019_fixture.csv")]
        yield* importFiles("nyc-dof", files)
        const packaged = () => store.history("nyc-5-3100-11").pipe(Effect.map((history) => history!.sales))
        const expected = {
          armsLength: false,
          notArmsLengthBecause: "one deed and price over 2 parcels (a package sale)",
          packageParcelIds: ["nyc-5-3100-11", "nyc-5-3100-12"]
        }
        expect(yield* packaged()).toEqual([expect.objectContaining(expected)])
        expect((yield* store.loadAll).sales.filter((sale) => sale.parcelId === "nyc-5-3100-11")).toEqual([
          expect.objectContaining(expected)
        ])
        // A market sale carries neither.
        const [market] = (yield* store.history("nyc-5-3100-10"))!.sales
        expect(market).not.toHaveProperty("notArmsLengthBecause")
        expect(market).not.toHaveProperty("packageParcelIds")
        // As a store migrated from before 0019 holds its sales: the judgement without its words.
        yield* sql`UPDATE sales SET not_arms_length_because = NULL, package_parcel_ids = NULL`
        const [stale] = yield* packaged()
        expect(stale).toMatchObject({ armsLength: false })
        expect(stale).not.toHaveProperty("notArmsLengthBecause")
        const versionBefore = yield* store.version
        const reports = yield* importFiles("nyc-dof", files)
        expect(yield* packaged()).toEqual([expect.objectContaining(expected)])
        // The rows filled in are counted as stored, not as duplicates, and the engine's data changed.
        expect(reports.reduce((sum, report) => sum + report.duplicates, 0)).toBeLessThan(11)
        expect(yield* store.version).not.toBe(versionBefore)
      }))

    it.effect("a bungalow colony's lot stored as one parcel by an earlier import is replaced by its houses", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const sql = yield* SqlClient.SqlClient
        const parsed = parseNycDofSales("2019_bronx.csv", colony)
        // As imports before 2026-11-24 stored it: the lot as one parcel holding every house's deeds.
        const lot = { ...parsed.parcels[0]!, id: "nyc-2-5506-1", unit: "122" }
        yield* store.importParsed({
          ...parsed,
          parcels: [lot],
          sales: parsed.sales.map((sale) => ({ ...sale, parcelId: lot.id, sourceKey: `old:${sale.sourceKey}` })),
          replaces: []
        }, "nyc-dof")
        // A lot of another class under a replaced key is not a colony's: it stays.
        yield* store.importParsed({
          ...parsed,
          parcels: [{ ...parsed.parcels[0]!, id: "nyc-2-9999-1", buildingClass: "A1" }],
          sales: [],
          replaces: []
        }, "nyc-dof")
        yield* store.importParsed({ ...parsed, replaces: [...parsed.replaces!, "nyc-2-9999-1"] }, "nyc-dof")
        const rows = yield* sql<{ parcel_id: string; sales: number }>`
          SELECT p.id AS parcel_id, count(s.id)::int AS sales FROM parcels p LEFT JOIN sales s ON s.parcel_id = p.id
          WHERE p.id LIKE 'nyc-2-%' GROUP BY p.id ORDER BY p.id`
        expect(rows).toEqual([
          { parcel_id: "nyc-2-5506-1-12-MAGNOLIA-PL", sales: 1 },
          { parcel_id: "nyc-2-5506-1-122-INDIAN-TRL", sales: 2 },
          { parcel_id: "nyc-2-5506-1-86-INDIAN-TRL", sales: 1 },
          { parcel_id: "nyc-2-9999-1", sales: 0 }
        ])
      }))

    it.effect("a condominium's billing lot (class RR) an earlier import stored as a unit is removed when its file is imported again (345 E 56th St Apt 16E valued as the building's lot)", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const sql = yield* SqlClient.SqlClient
        const row =
          `1,MIDTOWN EAST,11 SPECIAL CONDO BILLING LOTS,2,1349,1202,,RR,"345 EAST 56TH STREET, 16E",RES,10022,0,0,0,0,"72,456",1960,2,RR,"1,140,000",3/1/19`
        const parsed = parseNycDofSales("2019_manhattan.csv", Buffer.from(nycFile(row)))
        expect(parsed.parcels.map((parcel) => parcel.id)).not.toContain("nyc-1-1349-1202")
        expect(parsed.replaces).toEqual(["nyc-1-1349-1202"])
        // As imports before 2026-11-29 stored it: a condominium unit 16E of 72,456 sq ft, with its sale.
        const template = parseNycDofSales("f.csv", Buffer.from(nycFile(row.replace(/,RR,/g, ",R4,")))).parcels
          .find((parcel) => parcel.id === "nyc-1-1349-1202")!
        const billing = { ...template, buildingClass: "RR" }
        yield* store.importParsed({
          ...parsed,
          parcels: [billing],
          sales: [{
            parcelId: billing.id,
            saleDate: "2019-03-01",
            price: 1_140_000,
            documentType: "deed",
            armsLength: true,
            sourceKey: "old:rr"
          }],
          replaces: []
        }, "nyc-dof")
        const stored = () => sql<{ id: string }>`SELECT id FROM parcels WHERE id = 'nyc-1-1349-1202'`
        expect(yield* stored()).toHaveLength(1)
        yield* store.importParsed(parsed, "nyc-dof")
        expect(yield* stored()).toEqual([])
        expect(yield* sql`SELECT id FROM sales WHERE parcel_id = 'nyc-1-1349-1202'`).toEqual([])
      }))

    it.effect("HIS-1: a house's lot sold later as vacant land keeps that sale, not arm's-length and saying so; vacant land never a parcel stores nothing (an investor's audit: 532 Clinton Ave)", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const houseRow =
          `3,CLINTON HILL,01 ONE FAMILY DWELLINGS,1,2010,53,,A1,532 CLINTON AVENUE,,11238,1,0,1,"2,000","3,754",1899,1,A1,"3,694,444",7/27/18`
        const landRow =
          `3,CLINTON HILL,05 TAX CLASS 1 VACANT LAND,1B,2010,53,,V0,532 CLINTON AVENUE,,11238,0,0,0,"2,000",0,1899,1,V0,"6,500,000",12/5/19`
        const otherLand =
          `3,CLINTON HILL,05 TAX CLASS 1 VACANT LAND,1B,2010,60,,V0,540 CLINTON AVENUE,,11238,0,0,0,"2,000",0,0,1,V0,"900,000",12/5/19`
        yield* store.importParsed(parseNycDofSales("2018_brooklyn.csv", Buffer.from(nycFile(houseRow))), "nyc-dof")
        const later = yield* store.importParsed(
          parseNycDofSales("2019_brooklyn.csv", Buffer.from(nycFile(landRow, otherLand))),
          "nyc-dof"
        )
        // Both rows are counted once, as rows of a kind not valued, and neither as a sale of an unknown property.
        expect(later.rejected).toEqual({ "building class is not a scored property type": 2 })
        // (The store holds the layer's other tests' records too.)
        const onBlock = <A>(records: ReadonlyArray<A>, id: (record: A) => string) =>
          records.filter((record) => id(record).startsWith("nyc-3-2010-"))
        const stored = yield* store.loadAll
        const sales = onBlock(stored.sales, (sale) => sale.parcelId)
        expect(onBlock(stored.parcels, (parcel) => parcel.id).map((parcel) => parcel.id)).toEqual(["nyc-3-2010-53"])
        expect(
          sales.map((sale) => [sale.parcelId, sale.saleDate, sale.price, sale.armsLength, sale.notArmsLengthBecause])
        )
          .toEqual([
            ["nyc-3-2010-53", "2018-07-27", 3_694_444, true, undefined],
            [
              "nyc-3-2010-53",
              "2019-12-05",
              6_500_000,
              false,
              "recorded at this sale as vacant land (building class V0), a kind of property not valued: not a sale " +
              "of the property its other sales were of"
            ]
          ])
        // Importing it again stores it once, and counts no duplicate among the rows accepted.
        const again = yield* store.importParsed(
          parseNycDofSales("2019_brooklyn.csv", Buffer.from(nycFile(landRow, otherLand))),
          "nyc-dof"
        )
        expect(again.duplicates).toBe(0)
        expect(onBlock((yield* store.loadAll).sales, (sale) => sale.parcelId)).toHaveLength(2)
        // The scratch store evaluate reads keeps it the same way.
        expect(
          scratchStore([
            parseNycDofSales("2018_brooklyn.csv", Buffer.from(nycFile(houseRow))),
            parseNycDofSales("2019_brooklyn.csv", Buffer.from(nycFile(landRow, otherLand)))
          ]).sales.map((sale) => [sale.parcelId, sale.saleDate])
        ).toEqual([["nyc-3-2010-53", "2018-07-27"], ["nyc-3-2010-53", "2019-12-05"]])
      }))

    it.effect("HIS-2: a lot of a kind not valued in one file and a house in a later one keeps its earlier sale when the files are imported in one call (a history audit, 2026-11-30: 202 Washington Ave's $850,000 sale as a walk-up was missing)", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const walkUp =
          `3,CLINTON HILL,07 RENTALS - WALKUP APARTMENTS,2,1903,39,,C2,202 WASHINGTON AVENUE,,11205,6,0,6,"2,000","4,200",1899,2,C2,"850,000",4/20/18`
        const house =
          `3,CLINTON HILL,02 TWO FAMILY DWELLINGS,1,1903,39,,B2,202 WASHINGTON AVENUE,,11205,2,0,2,"2,000","3,100",1899,1,B2,0,8/13/19`
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "propscore-import-"))
        const files = [path.join(dir, "2018_brooklyn.csv"), path.join(dir, "2019_brooklyn.csv")]
        fs.writeFileSync(files[0]!, nycFile(walkUp))
        fs.writeFileSync(files[1]!, nycFile(house))
        yield* importFiles("nyc-dof", files)
        fs.rmSync(dir, { recursive: true })
        const history = yield* store.history("nyc-3-1903-39")
        expect(history?.sales.map((sale) => [sale.saleDate, sale.price, sale.armsLength, sale.notArmsLengthBecause]))
          .toEqual([
            [
              "2018-04-20",
              850_000,
              false,
              "recorded at this sale as a walk-up apartment building (building class C2), a kind of property not " +
              "valued: not a sale of the property its other sales were of"
            ],
            ["2019-08-13", 0, false, expect.any(String)]
          ])
      }))

    it.effect("generic CSV: parcels first, sales for unknown parcels rejected, listings and permits stored", () =>
      Effect.gen(function*() {
        const dir = fixture("propscore-csv")
        const reports = yield* importFiles(
          "propscore-csv",
          ["permits.csv", "sales.csv", "listings.csv", "parcels.csv"].map((f) => path.join(dir, f))
        )
        expect(reports.map((r) => path.basename(r.file))).toEqual([
          "parcels.csv",
          "sales.csv",
          "listings.csv",
          "permits.csv"
        ])
        expect(reports[1]!.rejected).toEqual({ "unreadable sale_date": 1, "unknown property_id": 1 })
        expect(reports[2]!.rejected).toEqual({ "unknown listing status": 1 })
        const store = yield* PropertyStore
        const history = (yield* store.history("sac-1"))!
        expect(history.sales.map((sale) => sale.saleDate)).toEqual(["2007-06-15", "2007-09-01", "2008-05-21"])
        expect(history.permits).toHaveLength(2)
        expect((yield* store.history("sac-2"))!.listing).toMatchObject({
          status: "active",
          listPrice: 72_000,
          listedDate: "2008-06-01"
        })
        expect(yield* store.history("nope")).toBeUndefined()
      }))

    it.effect("a sale a file repeats is stored once and counted as a duplicate", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        yield* store.importParsed(
          parsePropscoreCsv("parcels.csv", "property_id,market,address\nrep-1,Test,1 Repeat St\n"),
          "propscore-csv"
        )
        const report = yield* store.importParsed(
          parsePropscoreCsv(
            "sales.csv",
            "property_id,sale_date,price\nrep-1,2020-01-02,300000\nrep-1,2020-01-02,300000\n"
          ),
          "propscore-csv"
        )
        expect(report).toMatchObject({ rows_read: 2, accepted: 2, duplicates: 1 })
        expect((yield* store.history("rep-1"))!.sales).toHaveLength(1)
      }))

    it.effect("a bulk load stores every record as read: the store gives the demo county back exactly", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const county = generateDemoCounty({ parcels: 1_500, seed: 7 })
        const report = yield* store.importParsed(county, "demo-county")
        expect(report).toEqual({
          file: county.file,
          format: "demo-county",
          rows_read: county.rowsRead,
          accepted: county.rowsRead,
          duplicates: 0,
          rejected: {}
        })
        const demo = <A extends { readonly market?: string; readonly parcelId?: string }>(records: ReadonlyArray<A>) =>
          records.filter((record) => record.market === DEMO_MARKET || record.parcelId?.startsWith("demo-"))
        const stored = yield* store.loadAll
        // loadAll's order: parcels by id, sales by date and then in the order they were imported.
        expect(demo(stored.parcels)).toEqual([...county.parcels].sort((a, b) => (a.id < b.id ? -1 : 1)))
        expect(demo(stored.sales)).toEqual([...county.sales].sort((a, b) => a.saleDate.localeCompare(b.saleDate)))
        for (const parcel of county.parcels.filter((_, i) => i % 50 === 0)) {
          const history = (yield* store.history(parcel.id))!
          expect(history.listing).toEqual(county.listings.find((listing) => listing.parcelId === parcel.id))
          expect(history.permits).toEqual(
            county.permits.filter((permit) => permit.parcelId === parcel.id)
              .sort((a, b) => a.issuedDate.localeCompare(b.issuedDate))
          )
        }
        // What a first start fits the comps model on while the county goes in (the same sales, by value).
        const storedDemo = { parcels: demo(stored.parcels), sales: demo(stored.sales) }
        expect(salesDigest(modelSales(storedDemo))).toBe(salesDigest(modelSales(inStoreOrder(county))))
        // Loaded again: every sale and permit is a duplicate, and nothing changes.
        const again = yield* store.importParsed(county, "demo-county")
        expect(again.duplicates).toBe(county.sales.length + county.permits.length)
        expect(demo((yield* store.loadAll).sales)).toEqual(demo(stored.sales))
      }))

    it.effect("the store's version changes with every change to its parcels or sales, and with nothing else", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        const sql = yield* SqlClient.SqlClient
        const importCsv = (file: string, content: string) =>
          store.importParsed(parsePropscoreCsv(file, content), "propscore-csv")
        const changes = <A, E, R>(change: Effect.Effect<A, E, R>) =>
          Effect.gen(function*() {
            const before = yield* store.version
            yield* change
            return (yield* store.version) !== before
          })
        expect(yield* changes(importCsv("parcels.csv", "property_id,market,address\nver-1,Test,1 Version St\n")))
          .toBe(true)
        expect(yield* changes(importCsv("sales.csv", "property_id,sale_date,price\nver-1,2021-03-04,250000\n")))
          .toBe(true)
        expect(yield* changes(sql`UPDATE sales SET price = price + 1 WHERE parcel_id = 'ver-1'`)).toBe(true)
        expect(yield* changes(sql`UPDATE parcels SET bedrooms = 4 WHERE id = 'ver-1'`)).toBe(true)
        expect(yield* changes(importCsv("listings.csv", "property_id,status\nver-1,active\n"))).toBe(false)
        expect(yield* changes(sql`DELETE FROM sales WHERE parcel_id = 'ver-1'`)).toBe(true)
        expect(yield* changes(sql`SELECT count(*) FROM parcels`)).toBe(false)
      }))

    it.effect("a file naming a parcel or its listing twice keeps the last record, as separate imports would", () =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        yield* store.importParsed(
          parsePropscoreCsv(
            "parcels.csv",
            "property_id,market,address,bedrooms\ntwice-1,Test,1 Twice St,2\ntwice-1,Test,1 Twice St,3\n"
          ),
          "propscore-csv"
        )
        yield* store.importParsed(
          parsePropscoreCsv(
            "listings.csv",
            "property_id,status,list_price\ntwice-1,active,300000\ntwice-1,pending,290000\n"
          ),
          "propscore-csv"
        )
        const history = (yield* store.history("twice-1"))!
        expect(history.parcel.bedrooms).toBe(3)
        expect(history.listing).toMatchObject({ status: "pending", listPrice: 290_000 })
      }))
  }
)

describe("NYC portfolio deeds (an investor's audit, 2026-11-29: 162 Vernon Ave, one of 26 parcels sold for $14,187,500)", () => {
  const parcel = (neighborhood: string, block: number, lot: number, street: string, zip: string, price: string) =>
    `3,${neighborhood},02 TWO FAMILY DWELLINGS,1,${block},${lot},,B1,${street},,${zip},2,0,2,"2,000","2,400",1910,1,B1,"${price}",12/20/19`
  const packagesOf = (...rows: Array<string>) =>
    Object.fromEntries(
      parseNycDofSales("f.csv", Buffer.from(nycFile(...rows))).sales.map((sale) => [
        sale.parcelId,
        sale.packageParcelIds?.length ?? 0
      ])
    )

  it("HIS-2: four or more parcels of a neighbourhood at one price on one day are one deed across ZIP codes, and the borough's neighbourhoods' such groups one deed over all; two or three stay split by ZIP code", () => {
    const bedStuy = [
      parcel("BEDFORD STUYVESANT", 1760, 16, "162 VERNON AVENUE", "11206", "14,187,500"),
      parcel("BEDFORD STUYVESANT", 1594, 39, "340 HART STREET", "11206", "14,187,500"),
      parcel("BEDFORD STUYVESANT", 1606, 74, "903 LAFAYETTE AVENUE", "11221", "14,187,500"),
      parcel("BEDFORD STUYVESANT", 1607, 67, "983 LAFAYETTE AVENUE", "11221", "14,187,500")
    ]
    const oceanHill = [
      parcel("OCEAN HILL", 1486, 25, "1074 PUTNAM AVENUE", "11221", "14,187,500"),
      parcel("OCEAN HILL", 1484, 1, "914 MADISON STREET", "11221", "14,187,500"),
      parcel("OCEAN HILL", 1484, 15, "1434 BROADWAY", "11221", "14,187,500"),
      parcel("OCEAN HILL", 1501, 26, "706 MAC DONOUGH STREET", "11233", "14,187,500")
    ]
    // Each of the eight on one deed over all eight (was: its ZIP code's part of its neighbourhood's four, or none).
    expect(Object.values(packagesOf(...bedStuy, ...oceanHill))).toEqual(Array(8).fill(8))
    // One neighbourhood's four alone: one deed over its four, across its two ZIP codes.
    expect(Object.values(packagesOf(...bedStuy))).toEqual(Array(4).fill(4))
    // Three of a neighbourhood in two ZIP codes and on other blocks: split by ZIP code, as two houses are.
    expect(packagesOf(...bedStuy.slice(1))).toEqual({
      "nyc-3-1594-39": 0,
      "nyc-3-1606-74": 2,
      "nyc-3-1607-67": 2
    })
    // Two neighbourhoods' groups of fewer than four at one price on one day: not joined.
    expect(Object.values(packagesOf(...bedStuy.slice(0, 3), ...oceanHill.slice(0, 3)))).not.toContain(6)
  })
})
