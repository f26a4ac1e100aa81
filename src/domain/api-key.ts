/**
 * API key format and hashing. A key reads `ps_<key id>_<secret>`: the key id is public (it is what the
 * operator revokes and what the service looks a key up by), the secret is stored only as its SHA-256.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

const base32Alphabet = "abcdefghijklmnopqrstuvwxyz234567"

const randomBase32 = (length: number): string => {
  const bytes = randomBytes(length)
  let out = ""
  for (let i = 0; i < length; i++) out += base32Alphabet[bytes[i]! & 31]
  return out
}

export const KEY_ID_LENGTH = 12
export const SECRET_LENGTH = 40

const keyPattern = new RegExp(`^ps_([a-z2-7]{${KEY_ID_LENGTH}})_([a-z2-7]{${SECRET_LENGTH}})$`)

export interface ParsedApiKey {
  readonly keyId: string
  readonly secret: string
}

export const parseApiKey = (token: string): ParsedApiKey | undefined => {
  const match = keyPattern.exec(token)
  return match ? { keyId: match[1]!, secret: match[2]! } : undefined
}

export const hashSecret = (secret: string): Buffer => createHash("sha256").update(secret, "utf8").digest()

/** Constant-time comparison of a presented secret with a stored hash. */
export const secretMatches = (secret: string, storedHash: Uint8Array): boolean => {
  const presented = hashSecret(secret)
  return storedHash.length === presented.length && timingSafeEqual(presented, storedHash)
}

export interface NewApiKey {
  readonly keyId: string
  readonly apiKey: string
  readonly secretHash: Buffer
}

export const generateApiKey = (): NewApiKey => {
  const keyId = randomBase32(KEY_ID_LENGTH)
  const secret = randomBase32(SECRET_LENGTH)
  return { keyId, apiKey: `ps_${keyId}_${secret}`, secretHash: hashSecret(secret) }
}

export const newAccountId = (): string => `acct_${randomBase32(16)}`
