/**
 * The Melbourne converter (scripts/convert-melbourne.ts): one parcel per address, whatever the case of its
 * letters, with each fact from the latest row that records it (an investor audit of the real file, 2026-11-28:
 * `23a` and `23A The Boulevard` were two parcels, so the address could never be scored; a house recorded at 139
 * m² in 2016 and sold again at 203 m² in 2017 was valued at 139; a vendor's bid with no area left a house sold
 * later with one unvaluable).
 */
import { describe, expect, it } from "@effect/vitest"
import { convertMelbourne } from "../../scripts/convert-melbourne.js"

const header = "Suburb,Address,Rooms,Type,Price,Method,SellerG,Date,Distance,Postcode,Bedroom2,Bathroom,Car," +
  "Landsize,BuildingArea,YearBuilt,CouncilArea,Lattitude,Longtitude,Regionname,Propertycount"
const row = (address: string, method: string, date: string, price: string, area: string, land: string) =>
  `Balwyn North,${address},3,"House, Cottage, Villa, Terrace",${price},${method},X,${date},9,3104,3,2,1,${land},${area},` +
  "1960,Boroondara,-37.79,145.07,Southern Metropolitan,7809"

describe("the Melbourne converter", () => {
  it("makes one parcel of an address however its letters are cased, with each fact from its latest row", () => {
    const { parcels, sales } = convertMelbourne([
      header,
      row("23a The Boulevard", "VB", "27/11/16", "", "", "650"),
      row("23A The Boulevard", "S", "10/12/17", "1920000", "203", "650"),
      row("23A The Boulevard", "PI", "3/3/18", "", "", "309"),
      // Rows out of date order: the earlier one's area never replaces the later one's.
      row("23A The Boulevard", "S", "4/3/16", "1500000", "139", "650")
    ].join("\n"))
    expect(parcels).toHaveLength(1)
    expect(parcels[0]).toMatchObject({
      address: "23a The Boulevard",
      // 203 m² (2017-12-10, the latest with an area), 309 m² of land (2018-03-03, the latest with a lot).
      living_area_square_feet: String(Math.round(203 * 10.7639)),
      lot_size_square_feet: String(Math.round(309 * 10.7639))
    })
    expect(sales.map((sale) => [sale.property_id, sale.sale_date, sale.price])).toEqual([
      ["mel-00001", "2017-12-10", "1920000"],
      ["mel-00001", "2016-03-04", "1500000"]
    ])
  })

  it("numbers every other address as a conversion that told the spellings apart did (imported over it, none moves)", () => {
    const { parcels } = convertMelbourne([
      header,
      row("23a The Boulevard", "VB", "27/11/16", "", "", "650"),
      row("5 Other St", "S", "27/11/16", "900000", "120", "500"),
      row("23A The Boulevard", "S", "10/12/17", "1920000", "203", "650"),
      row("7 Other St", "S", "10/12/17", "950000", "130", "500")
    ].join("\n"))
    expect(parcels.map((parcel) => [parcel.property_id, parcel.address])).toEqual([
      ["mel-00001", "23a The Boulevard"],
      ["mel-00002", "5 Other St"],
      ["mel-00004", "7 Other St"]
    ])
  })
})
