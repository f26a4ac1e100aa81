/**
 * How a typed address was matched to the property on record: an additive member of the Scored answer's
 * `subject_property` and of the history answer, present whenever the property was found by its address.
 */
import { Schema } from "effect"

/** One thing done to the address to match it. */
export const MatchNote = Schema.Struct({
  kind: Schema.Literal("corrected", "normalized", "ignored").annotations({
    description: "`corrected`: a misspelling fixed; `normalized`: another spelling or order of the same " +
      "thing, or a part taken from the record; `ignored`: a part the property does not have (a unit on a house), " +
      "or a remark typed with the address."
  }),
  part: Schema.Literal(
    "street_name",
    "street_type",
    "directional",
    "town",
    "zip_code",
    "unit",
    "house_number",
    "remark",
    "street_address"
  ).annotations({
    description: "Which part of the address (`house_number`: a Queens-style number read with or without its " +
      "hyphen, as the record has it; `remark`: text typed with the address that is not part of one, not read: " +
      "words in parentheses, after the ZIP code and a dash or semicolon, or before the house number such as " +
      "`Property at`, and symbols no address holds, an emoji or a character that was not UTF-8; `street_address`: the house number and street as an earlier record of the property wrote " +
      "them, a corner building's other street or a street since renamed, with `used` its address on record now)."
  }),
  sent: Schema.String.annotations({ description: "What the address said (\"\" when it left the part out)." }),
  used: Schema.optionalWith(Schema.String, { exact: true }).annotations({ description: "What the record says." })
}).annotations({ identifier: "MatchNote", description: "One thing done to the address to match it." })
export type MatchNote = typeof MatchNote.Type

export const AddressMatch = Schema.Struct({
  method: Schema.Literal("exact", "normalized", "corrected").annotations({
    description: "`exact`: every part the address gives is the record's, in one of its usual spellings (a town " +
      "or ZIP code left out does not count: the street address names the property); `normalized`: a part was " +
      "read another way, taken from the record or ignored; `corrected`: a misspelling was fixed (see `notes`)."
  }),
  address_sent: Schema.String.annotations({ description: "The address as the request sent it." }),
  recorded_address: Schema.String.annotations({ description: "The property's address as its record spells it." }),
  notes: Schema.Array(MatchNote).annotations({ description: "What was corrected, normalised or ignored." })
}).annotations({
  identifier: "AddressMatch",
  description: "How the address sent was matched to the property on record. When `method` is `corrected`, " +
    "check `recorded_address` is the property meant."
})
export type AddressMatch = typeof AddressMatch.Type
