/** `POST /v1/history`: the request (exactly one of `address` or `property_id`, HIS-1) and its answer. */
import { Schema } from "effect"
import { AddressMatch } from "./address-match.js"
import { Address } from "./scored-call.js"

export const PropertyId = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(100, { message: () => "must be at most 100 characters" })
).annotations({ identifier: "PropertyId" })

export const HistoryRequest = Schema.Struct({
  address: Schema.optionalWith(Address, { exact: true }),
  property_id: Schema.optionalWith(PropertyId, { exact: true })
}).pipe(
  Schema.filter((request) =>
    (request.address === undefined) !== (request.property_id === undefined) ||
    "must carry exactly one of address or property_id"
  ),
  Schema.annotations({
    identifier: "HistoryRequest",
    description: "Exactly one of `address` or `property_id`.",
    parseOptions: { onExcessProperty: "error" }
  })
)
export type HistoryRequest = typeof HistoryRequest.Type

const IsoDate = Schema.String.annotations({ description: "Calendar date, YYYY-MM-DD." })

export const TitleTransfer = Schema.Struct({
  recorded_date: IsoDate,
  document_type: Schema.String,
  price: Schema.Int,
  grantor: Schema.optionalWith(Schema.String, { exact: true }),
  grantee: Schema.optionalWith(Schema.String, { exact: true })
})

export const Flip = Schema.Struct({
  bought: Schema.Struct({ date: IsoDate, price: Schema.Int }),
  sold: Schema.Struct({ date: IsoDate, price: Schema.Int }),
  holding_days: Schema.Int,
  gross_gain: Schema.Int
})

export const Listing = Schema.Struct({
  status: Schema.Literal("active", "pending", "off_market", "unknown"),
  list_price: Schema.optionalWith(Schema.Int, { exact: true }),
  listed_date: Schema.optionalWith(IsoDate, { exact: true })
})

export const Permit = Schema.Struct({
  issued_date: IsoDate,
  permit_type: Schema.String,
  description: Schema.String,
  valuation: Schema.optionalWith(Schema.Int, { exact: true })
})

export const HistoryAnswer = Schema.Struct({
  property_id: Schema.String,
  address: Schema.String,
  chain_of_title: Schema.Array(TitleTransfer),
  flips: Schema.Array(Flip),
  listing: Listing,
  permits: Schema.Array(Permit),
  match: Schema.optionalWith(AddressMatch, { exact: true })
}).annotations({ identifier: "HistoryAnswer" })
export type HistoryAnswer = typeof HistoryAnswer.Type
