/**
 * The synthetic demo county: a seeded, deterministic generator of about 20,000 parcels in five towns with a
 * plausible spatial price structure (a smooth price surface with hot spots, town and street effects),
 * repeat sales under a market index, flips with their permits, nominal transfers, listings, parcels lacking
 * a living area or a lot size, and street addresses that exist in two towns. Everything it makes is
 * labelled synthetic: the market is "Demo County (synthetic)" and every parcel carries `synthetic: true`.
 */
import type { PropertyType } from "../../schema/overrides.js"
import { seededRandom } from "../seeded-random.js"
import type { ListingRecord, ParcelRecord, ParsedFile, PermitRecord, SaleRecord } from "./records.js"

export const DEMO_MARKET = "Demo County (synthetic)"
export const DEMO_SEED = 20_261_122
export const DEMO_STATE = "ZZ"

interface Town {
  readonly name: string
  readonly zip: string
  readonly center: readonly [number, number]
  /** Price level relative to the county. */
  readonly level: number
  readonly neighborhoods: ReadonlyArray<string>
}

export const demoTowns: ReadonlyArray<Town> = [
  {
    name: "MAPLE FALLS",
    zip: "99101",
    center: [44.52, -103.42],
    level: 1.25,
    neighborhoods: ["OLD TOWN", "FALLS VIEW", "NORTH MAPLE"]
  },
  {
    name: "CEDAR GROVE",
    zip: "99102",
    center: [44.47, -103.31],
    level: 1.0,
    neighborhoods: ["GROVE PARK", "CEDAR HEIGHTS"]
  },
  {
    name: "RIVERTON",
    zip: "99103",
    center: [44.41, -103.47],
    level: 0.8,
    neighborhoods: ["RIVERSIDE", "MILL DISTRICT", "SOUTH RIVERTON"]
  },
  { name: "OAK HILL", zip: "99104", center: [44.56, -103.28], level: 1.45, neighborhoods: ["HILLTOP", "OAK ESTATES"] },
  { name: "LAKEVIEW", zip: "99105", center: [44.43, -103.22], level: 0.95, neighborhoods: ["SHORE", "LAKE MEADOWS"] }
]

const streetNames = [
  "MAPLE",
  "OAK",
  "CEDAR",
  "PINE",
  "ELM",
  "BIRCH",
  "WALNUT",
  "CHESTNUT",
  "SPRUCE",
  "WILLOW",
  "ASPEN",
  "HICKORY",
  "LINDEN",
  "POPLAR",
  "SYCAMORE",
  "MAGNOLIA",
  "LAUREL",
  "HOLLY",
  "JUNIPER",
  "ALDER",
  "MAIN",
  "CHURCH",
  "MILL",
  "RIVER",
  "LAKE",
  "HILL",
  "PARK",
  "RIDGE",
  "MEADOW",
  "VALLEY",
  "SPRING",
  "FOREST",
  "SUMMIT",
  "HIGHLAND",
  "UNION",
  "WASHINGTON",
  "LINCOLN",
  "JEFFERSON",
  "FRANKLIN",
  "ADAMS"
]
const suffixes = ["ST", "AVE", "RD", "DR", "LN", "CT", "PL", "WAY"]

/** How many street names every town shares. */
const SHARED_STREETS = 3

const typeMix: ReadonlyArray<readonly [PropertyType, number]> = [
  ["single_family", 0.6],
  ["townhouse", 0.14],
  ["two_family", 0.1],
  ["three_family", 0.03],
  ["condo", 0.11],
  ["manufactured", 0.02]
]

const pick = <A>(random: () => number, items: ReadonlyArray<A>) => items[Math.floor(random() * items.length)]!

const normal = (random: () => number) => {
  const u = Math.max(random(), 1e-12)
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random())
}

const isoDay = (day: number) => new Date(Date.UTC(2014, 0, 1) + day * 86_400_000).toISOString().slice(0, 10)

/** Market index: about 4.5% a year with a slow wobble, 1.0 on 2014-01-01. */
export const demoMarketIndex = (day: number) => Math.exp((0.045 * day) / 365 + 0.03 * Math.sin(day / 400))

/** The smooth price surface, dollars per square foot before town and street effects. */
const pricePerSquareFoot = (lat: number, lon: number) => {
  const hotSpots: ReadonlyArray<readonly [number, number, number]> = [[44.55, -103.3, 90], [44.5, -103.44, 60], [
    44.44,
    -103.24,
    45
  ]]
  let value = 230
  for (const [hotLat, hotLon, lift] of hotSpots) {
    const d2 = ((lat - hotLat) / 0.04) ** 2 + ((lon - hotLon) / 0.05) ** 2
    value += lift * Math.exp(-d2)
  }
  return value
}

export interface DemoCounty extends ParsedFile {}

/**
 * Two synthetic parcels on which the local scoring engine rehearses its upstream failures, so that every
 * covered reason can be reached by address in the demo: scoring `1 FAULT DRILL WAY` fails
 * (`upstream-unavailable`), scoring `2 FAULT DRILL WAY` does not answer within the deadline
 * (`upstream-timeout`). They exist only in the synthetic county.
 */
export const FAULT_DRILL_SOURCE = "demo-fault-drill"
export const faultDrillParcels: ReadonlyArray<ParcelRecord> = [
  { id: "demo-fault-unavailable", street: "1 FAULT DRILL WAY" },
  { id: "demo-fault-timeout", street: "2 FAULT DRILL WAY" }
].map(({ id, street }) => ({
  id,
  market: DEMO_MARKET,
  street,
  unit: "",
  city: "CEDAR GROVE",
  state: DEMO_STATE,
  zipCode: "99102",
  neighborhood: "GROVE PARK",
  propertyType: "single_family",
  livingAreaSquareFeet: 1_600,
  lotSizeSquareFeet: 5_000,
  yearBuilt: 1990,
  latitude: 44.47,
  longitude: -103.31,
  synthetic: true,
  source: FAULT_DRILL_SOURCE
}))

export const DEMO_LAST_DAY = Math.round((Date.UTC(2026, 9, 31) - Date.UTC(2014, 0, 1)) / 86_400_000)

export const generateDemoCounty = (options: { readonly parcels?: number; readonly seed?: number } = {}): DemoCounty => {
  const random = seededRandom(options.seed ?? DEMO_SEED)
  const target = options.parcels ?? 20_000
  const parcels: Array<ParcelRecord> = []
  const sales: Array<SaleRecord> = []
  const listings: Array<ListingRecord> = []
  const permits: Array<PermitRecord> = []
  const perTown = Math.ceil(target / demoTowns.length)

  demoTowns.forEach((town, townIndex) => {
    // The first streets carry the same name in every town, so a number on MAPLE ST exists in several towns.
    const streets = streetNames.map((name, i) => ({
      name: `${name} ${suffixes[(i + (i < SHARED_STREETS ? 0 : townIndex)) % suffixes.length]}`,
      effect: Math.exp(0.06 * normal(random)),
      heading: random() * Math.PI,
      start: [town.center[0] + (random() - 0.5) * 0.06, town.center[1] + (random() - 0.5) * 0.08] as const,
      neighborhood: town.neighborhoods[i % town.neighborhoods.length]!
    }))
    for (let n = 0; n < perTown && parcels.length < target; n++) {
      const street = streets[n % streets.length]!
      const position = Math.floor(n / streets.length)
      const houseNumber = 2 + position * 2 + (n % 2 === 0 ? 0 : 1)
      const lat = street.start[0] + Math.cos(street.heading) * position * 0.0004
      const lon = street.start[1] + Math.sin(street.heading) * position * 0.0005
      const roll = random()
      let cumulative = 0
      const propertyType = typeMix.find(([, share]) => (cumulative += share) >= roll)?.[0] ?? "single_family"
      const baseArea = {
        single_family: 1_800,
        townhouse: 1_450,
        two_family: 2_400,
        three_family: 3_200,
        condo: 1_000,
        manufactured: 1_100
      }[propertyType]
      const livingArea = Math.max(450, Math.round((baseArea * Math.exp(0.28 * normal(random))) / 10) * 10)
      const bedrooms = Math.max(1, Math.min(8, Math.round(livingArea / 600 + normal(random) * 0.6)))
      const bathrooms = Math.max(1, Math.min(5, Math.round(livingArea / 1_100 + normal(random) * 0.4)))
      const partialBathrooms = random() < 0.4 ? 1 : 0
      const lotSize = propertyType === "condo" ? undefined : Math.round(livingArea * (2 + 3 * random()) / 50) * 50
      const yearBuilt = Math.min(2024, Math.max(1890, Math.round(1965 + 28 * normal(random))))
      const id = `demo-${String(parcels.length + 1).padStart(6, "0")}`
      const unit = propertyType === "condo" ? `${1 + Math.floor(random() * 6)}${"ABCD"[Math.floor(random() * 4)]}` : ""
      const lacksArea = random() < 0.015
      const lacksLot = lotSize !== undefined && random() < 0.015
      parcels.push({
        id,
        market: DEMO_MARKET,
        street: `${houseNumber} ${street.name}`,
        unit,
        city: town.name,
        state: DEMO_STATE,
        zipCode: town.zip,
        neighborhood: street.neighborhood,
        propertyType,
        bedrooms,
        bathrooms,
        partialBathrooms,
        livingAreaSquareFeet: lacksArea ? undefined : livingArea,
        lotSizeSquareFeet: lacksLot ? undefined : lotSize,
        yearBuilt,
        latitude: Math.round(lat * 1e6) / 1e6,
        longitude: Math.round(lon * 1e6) / 1e6,
        synthetic: true,
        source: "demo-county"
      })

      // The parcel's value today (as-is, good condition), in dollars.
      const typeFactor = {
        single_family: 1,
        townhouse: 0.92,
        two_family: 0.85,
        three_family: 0.8,
        condo: 1.05,
        manufactured: 0.55
      }[propertyType]
      const ageFactor = 1 - Math.min(0.25, Math.max(0, (2024 - yearBuilt) / 400))
      const lotFactor = lotSize ? Math.pow(lotSize / (livingArea * 3), 0.08) : 1
      const value = pricePerSquareFoot(lat, lon) * town.level * street.effect * typeFactor * ageFactor * lotFactor *
        Math.pow(livingArea, 0.88) * Math.pow(1_500, 0.12)

      // Recorded sales: 0 to 4, each at the value under the index with a little noise.
      let day = Math.floor(random() * 900)
      const saleCount = Math.floor(random() * 4.6)
      let owner = `OWNER ${id.slice(5)}-0`
      for (let s = 0; s < saleCount && day < DEMO_LAST_DAY; s++) {
        const flip = random() < 0.06
        const price = Math.round(
          (value * demoMarketIndex(day) / demoMarketIndex(DEMO_LAST_DAY) * Math.exp(0.07 * normal(random)) *
            (flip ? 0.72 : 1)) / 500
        ) * 500
        const buyer = flip ? `FLIP CAPITAL ${1 + Math.floor(random() * 9)} LLC` : `OWNER ${id.slice(5)}-${s + 1}`
        sales.push({
          parcelId: id,
          saleDate: isoDay(day),
          price,
          documentType: "deed",
          grantor: owner,
          grantee: buyer,
          armsLength: true,
          sourceKey: `demo:${id}:${s}`
        })
        owner = buyer
        if (flip) {
          const permitDay = day + 20 + Math.floor(random() * 40)
          permits.push({
            parcelId: id,
            issuedDate: isoDay(permitDay),
            permitType: "alteration",
            description: "Interior renovation: kitchen, baths, flooring",
            valuation: Math.round(livingArea * (35 + random() * 30) / 100) * 100,
            sourceKey: `demo:${id}:permit:${s}`
          })
          const resaleDay = day + 120 + Math.floor(random() * 200)
          if (resaleDay < DEMO_LAST_DAY) {
            const resale = Math.round(
              (value * demoMarketIndex(resaleDay) / demoMarketIndex(DEMO_LAST_DAY) *
                Math.exp(0.05 * normal(random))) / 500
            ) * 500
            const next = `OWNER ${id.slice(5)}-${s + 1}R`
            sales.push({
              parcelId: id,
              saleDate: isoDay(resaleDay),
              price: resale,
              documentType: "deed",
              grantor: owner,
              grantee: next,
              armsLength: true,
              sourceKey: `demo:${id}:${s}:resale`
            })
            owner = next
            day = resaleDay
          }
        }
        if (random() < 0.05) {
          const transferDay = day + 30 + Math.floor(random() * 300)
          if (transferDay < DEMO_LAST_DAY) {
            sales.push({
              parcelId: id,
              saleDate: isoDay(transferDay),
              price: 0,
              documentType: "quitclaim",
              grantor: owner,
              grantee: `${owner} FAMILY TRUST`,
              armsLength: false,
              sourceKey: `demo:${id}:${s}:transfer`
            })
            owner = `${owner} FAMILY TRUST`
            day = transferDay
          }
        }
        day += 400 + Math.floor(random() * 1_500)
      }
      if (random() < 0.05) {
        permits.push({
          parcelId: id,
          issuedDate: isoDay(Math.floor(random() * DEMO_LAST_DAY)),
          permitType: pick(random, ["roof", "electrical", "plumbing", "addition", "deck"]),
          description: "Recorded permit work",
          valuation: Math.round(2_000 + random() * 40_000),
          sourceKey: `demo:${id}:permit:misc`
        })
      }
      const listingRoll = random()
      if (listingRoll < 0.03) {
        listings.push({
          parcelId: id,
          status: "active",
          listPrice: Math.round(value * (1.02 + random() * 0.08) / 1_000) * 1_000,
          listedDate: isoDay(DEMO_LAST_DAY - Math.floor(random() * 90))
        })
      } else if (listingRoll < 0.04) {
        listings.push({
          parcelId: id,
          status: "pending",
          listPrice: Math.round(value / 1_000) * 1_000,
          listedDate: isoDay(DEMO_LAST_DAY - Math.floor(random() * 120))
        })
      } else if (listingRoll < 0.2) {
        listings.push({ parcelId: id, status: "off_market" })
      }
    }
  })
  for (const parcel of faultDrillParcels) parcels.push(parcel)
  return {
    file: "demo-county (synthetic)",
    rowsRead: parcels.length + sales.length + listings.length + permits.length,
    parcels,
    sales,
    listings,
    permits,
    duplicateRows: 0,
    rejected: {}
  }
}
