/**
 * Address matching over the imported parcels. The outcome is typed: one property; several (with up to five
 * candidate addresses); an address outside every imported area; or inside the covered area but unknown.
 */
import { formatAddress, normalizeAddress } from "../property/address.js"
import type { ParcelRecord } from "../property/records.js"

export type AddressMatch =
  | { readonly _tag: "Found"; readonly parcel: ParcelRecord }
  | { readonly _tag: "Ambiguous"; readonly candidates: ReadonlyArray<string> }
  | { readonly _tag: "OutsideCoverage" }
  | { readonly _tag: "Unknown"; readonly hint: string }

export const MAX_CANDIDATES = 5

export const parcelDisplayAddress = (parcel: ParcelRecord) =>
  formatAddress({
    street: parcel.street,
    unit: parcel.unit,
    city: parcel.city,
    state: parcel.state,
    zip: parcel.zipCode
  })

export class AddressIndex {
  private readonly byStreet = new Map<string, Array<ParcelRecord>>()
  private readonly zips = new Set<string>()
  private readonly cities = new Set<string>()

  constructor(parcels: Iterable<ParcelRecord>) {
    for (const parcel of parcels) {
      const list = this.byStreet.get(parcel.street)
      if (list) list.push(parcel)
      else this.byStreet.set(parcel.street, [parcel])
      if (parcel.zipCode) this.zips.add(parcel.zipCode)
      if (parcel.city) this.cities.add(parcel.city)
    }
  }

  match(raw: string): AddressMatch {
    const address = normalizeAddress(raw)
    let candidates = this.byStreet.get(address.street) ?? []
    if (address.zip) candidates = candidates.filter((p) => p.zipCode === undefined || p.zipCode === address.zip)
    if (address.city) candidates = candidates.filter((p) => p.city === undefined || p.city === address.city)
    if (address.state) candidates = candidates.filter((p) => p.state === undefined || p.state === address.state)
    if (address.unit) candidates = candidates.filter((p) => p.unit === address.unit)
    else if (candidates.some((p) => p.unit === "")) candidates = candidates.filter((p) => p.unit === "")

    if (candidates.length === 1) return { _tag: "Found", parcel: candidates[0]! }
    if (candidates.length > 1) {
      return {
        _tag: "Ambiguous",
        candidates: candidates.map(parcelDisplayAddress).sort().slice(0, MAX_CANDIDATES)
      }
    }
    const covered = address.zip ? this.zips.has(address.zip) : address.city ? this.cities.has(address.city) : undefined
    if (covered === false) return { _tag: "OutsideCoverage" }
    return {
      _tag: "Unknown",
      hint: covered === undefined
        ? "No covered property has this street address; add the town or ZIP code if it is in a covered area."
        : "The address is in a covered area, but no property with this street address was found there."
    }
  }
}
