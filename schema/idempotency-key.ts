/**
 * The `Idempotency-Key` header (IDEM-10): at most 255 characters, no control characters (tab, CR and LF
 * included), not blank or white space only. A valid key is used exactly as sent, never trimmed.
 */
import { Schema } from "effect"
import { hasControlCharacters } from "./text.js"

/** What the key is for, in the words the reference and the MCP tools show. */
export const idempotencyKeyDescription =
  "Makes retrying this paid call safe: the same key with the same request within 24 hours returns the stored " +
  "answer and is not charged again (a replay); the same key with a different request is refused. Use a new key " +
  "(a UUID, say) for each call you mean, and the same key when retrying it. 1 to 255 characters, no control " +
  "characters; used exactly as sent."

export const IdempotencyKey = Schema.String.pipe(
  Schema.filter((key) => {
    if (key.length === 0 || key.trim().length === 0) return "must not be blank"
    // Characters, not UTF-16 code units: an emoji is one (a review, 2026-11-30: it counted two).
    if (key.length > 255 && [...key].length > 255) return "must be at most 255 characters"
    if (hasControlCharacters(key)) return "must not contain control characters"
    return true
  }),
  Schema.brand("IdempotencyKey"),
  Schema.annotations({ identifier: "IdempotencyKey", description: idempotencyKeyDescription })
)
export type IdempotencyKey = typeof IdempotencyKey.Type
