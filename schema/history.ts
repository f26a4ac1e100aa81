/** `POST /v1/history`: the request (exactly one of `address` or `property_id`, HIS-1) and its answer. */
import { Schema } from "effect"
import { AddressMatch } from "./address-match.js"
import { Currency } from "./scored-answer.js"
import { Address } from "./scored-call.js"

export const PropertyId = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(100, { message: () => "must be at most 100 characters" })
).annotations({
  identifier: "PropertyId",
  description: "The property's id, as `subject_property.property_id` of a Scored answer or `property_id` of a " +
    "comparable sale gives it. Send this or `address`, not both.",
  examples: ["demo-008004"]
})

/** The history's address: the same rules as a Scored Call's, and the one-of rule said where it applies. */
const HistoryAddress = Schema.String.annotations({
  description: "The property's street address, as for scoring. Send this or `property_id`, not both.",
  examples: ["3 Pine Dr, Maple Falls"]
}).pipe(Schema.compose(Address))

export const HistoryRequest = Schema.Struct({
  address: Schema.optionalWith(HistoryAddress, { exact: true }),
  property_id: Schema.optionalWith(PropertyId, { exact: true })
}).pipe(
  Schema.filter((request) =>
    (request.address === undefined) !== (request.property_id === undefined) ||
    (request.address === undefined
      ? "must carry one of `address` or `property_id`: neither was sent"
      : "must carry exactly one of `address` or `property_id`, not both"), {
    jsonSchema: { minProperties: 1, maxProperties: 1 }
  }),
  Schema.annotations({
    identifier: "HistoryRequest",
    description: "The property whose recorded history to read: exactly one of `address` or `property_id` " +
      "(both, or neither, is refused with 400 before any Credit is spent).",
    parseOptions: { onExcessProperty: "error" }
  })
)
export type HistoryRequest = typeof HistoryRequest.Type

const date = (description: string) => Schema.String.annotations({ description: `${description} (YYYY-MM-DD).` })
const dollars = (description: string) => Schema.Int.annotations({ description: `${description}, whole dollars.` })

export const TitleTransfer = Schema.Struct({
  recorded_date: date("When the transfer was recorded"),
  document_type: Schema.String.annotations({ description: "The recorded document: `deed`, `quitclaim`, …" }),
  price: dollars("The price recorded; 0 for a transfer without consideration"),
  arms_length: Schema.Boolean.annotations({
    description: "Whether the transfer is a market sale: false for a transfer without consideration or at a " +
      "nominal price, one deed and price over several properties, or one of several prices recorded for the " +
      "property on one day (shares of it), or a price far outside its neighbourhood's (beyond three " +
      "interquartile ranges of their price per square foot, or of their price where no area is recorded: a " +
      "$10,000 deed on a house). Its price is then no " +
      "market price: the valuation does not use it, and no flip is counted from it but a package sale's " +
      "(a package bought and resold whole); `not_arms_length_reason` says why."
  }),
  not_arms_length_reason: Schema.optionalWith(
    Schema.String.annotations({
      description: "Why the transfer is not a market sale, in words (present exactly when `arms_length` is " +
        "false): the importer's rule (`one deed and price over 2 parcels (a package sale)`, `nominal price (under " +
        "$10,000)`, …), no price recorded, or a price far outside its neighbourhood's."
    }),
    { exact: true }
  ),
  package_property_ids: Schema.optionalWith(
    Schema.Array(Schema.String).annotations({
      description: "For one deed and price over several properties (a package sale), every property on the " +
        "deed, this one included: `price` is the package's. Some may not be properties the service values " +
        "(a vacant lot sold with a house), and so have no history of their own."
    }),
    { exact: true }
  ),
  grantor: Schema.optionalWith(Schema.String.annotations({ description: "The seller, when recorded." }), {
    exact: true
  }),
  grantee: Schema.optionalWith(Schema.String.annotations({ description: "The buyer, when recorded." }), {
    exact: true
  })
}).annotations({ description: "One recorded transfer of the property." })

const FlipSide = (side: string) =>
  Schema.Struct({
    date: date(`When it was ${side}`),
    price: dollars(`The price it was ${side} for`)
  }).annotations({ description: `The ${side === "bought" ? "purchase" : "resale"}.` })

export const Flip = Schema.Struct({
  bought: FlipSide("bought"),
  sold: FlipSide("sold"),
  holding_days: Schema.Int.annotations({ description: "Days between the purchase and the resale." }),
  gross_gain: dollars("The resale price less the purchase price"),
  package_property_ids: Schema.optionalWith(
    Schema.Array(Schema.String).annotations({
      description: "Present when the property was bought and resold in one package with the same other " +
        "properties (one deed and price over them all, both times): the prices are the package's, and these " +
        "are its properties, this one included."
    }),
    { exact: true }
  )
}).annotations({
  description: "A resale within 365 days of a purchase at 10% or more above its price: both market sales, or " +
    "both the same package sale."
})

export const Listing = Schema.Struct({
  status: Schema.Literal("active", "pending", "off_market", "unknown").annotations({
    description: "`active`, `pending`, `off_market`, or `unknown` when no listing is on record, also where the " +
      "market's listings have not been loaded (sales files such as the NYC, Melbourne and Sacramento ones carry " +
      "none): `unknown` is no sign that the property is or is not for sale."
  }),
  list_price: Schema.optionalWith(dollars("The asking price"), { exact: true }),
  listed_date: Schema.optionalWith(date("When it was listed"), { exact: true })
}).annotations({ description: "The property's current listing state." })

export const Permit = Schema.Struct({
  issued_date: date("When the permit was issued"),
  permit_type: Schema.String.annotations({ description: "The kind of work, e.g. `alteration`, `new_building`." }),
  description: Schema.String.annotations({ description: "The work, as recorded." }),
  valuation: Schema.optionalWith(dollars("The declared cost of the work"), { exact: true })
}).annotations({ description: "Recorded permit work." })

export const HistoryAnswer = Schema.Struct({
  property_id: Schema.String.annotations({ description: "The property's id." }),
  address: Schema.String.annotations({ description: "The property's normalised address." }),
  chain_of_title: Schema.Array(TitleTransfer).annotations({
    description: "Every recorded transfer, oldest first."
  }),
  flips: Schema.Array(Flip).annotations({ description: "The quick resales found in the chain of title." }),
  listing: Listing,
  permits: Schema.Array(Permit).annotations({
    description: "Recorded permit work, oldest first. Empty when none is on record, also where the market's " +
      "permit records have not been loaded (the NYC sales files carry none): no sign that no work was done."
  }),
  currency: Schema.optionalWith(Currency, { exact: true }),
  records_from: Schema.optionalWith(
    date(
      "The earliest transfer on record in the property's market: the chain of title and the flips cover the " +
        "records from about this date to `records_through`, and say nothing of earlier years (an empty chain of " +
        "title, or no flips, means none since then, not never)"
    ),
    { exact: true }
  ),
  records_through: Schema.optionalWith(
    date(
      "The latest sale on record in the property's market: the chain of title runs to about this date, and later transfers are not on record yet"
    ),
    { exact: true }
  ),
  match: Schema.optionalWith(AddressMatch, { exact: true })
}).annotations({
  identifier: "HistoryAnswer",
  description: "The property's recorded story: chain of title, flips, listing state and permit work."
})
export type HistoryAnswer = typeof HistoryAnswer.Type
