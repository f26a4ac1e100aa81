/**
 * The Portal's browser secrets: the session token in the account holder's cookie (256 random bits; only
 * its SHA-256 is stored) and the CSRF token every form carries. A signed-in form's CSRF token is derived
 * from the session token, which a page of another site can neither read (HttpOnly) nor guess; the sign-in
 * form, before any session, uses a random value sent both as a cookie and in the form (double submit).
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

export const SESSION_TOKEN_PREFIX = "pss_"

export const newSessionToken = () => `${SESSION_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`

/** A random value for the sign-in form's double-submit CSRF check. */
export const newFormNonce = () => randomBytes(24).toString("base64url")

/** The CSRF token of a session's forms. */
export const csrfTokenFor = (sessionToken: string) =>
  createHash("sha256").update(`propscore portal csrf\0${sessionToken}`, "utf8").digest("base64url")

/** Compares two secrets in time independent of where they differ. */
export const sameSecret = (expected: string, presented: string) => {
  const a = Buffer.from(expected, "utf8")
  const b = Buffer.from(presented, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}
