/**
 * The `Idempotency-Key` header (IDEM-10): at most 255 characters, no control characters (tab, CR and LF
 * included), not blank or white space only. A valid key is used exactly as sent, never trimmed.
 */
import { Schema } from "effect"
import { hasControlCharacters } from "./text.js"

export const IdempotencyKey = Schema.String.pipe(
  Schema.filter((key) => {
    if (key.length === 0 || key.trim().length === 0) return "must not be blank"
    if (key.length > 255) return "must be at most 255 characters"
    if (hasControlCharacters(key)) return "must not contain control characters"
    return true
  }),
  Schema.brand("IdempotencyKey"),
  Schema.annotations({ identifier: "IdempotencyKey" })
)
export type IdempotencyKey = typeof IdempotencyKey.Type
