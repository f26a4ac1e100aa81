/**
 * Account holders' passwords, stored with scrypt: memory-hard, in Node's own crypto (no native addon to
 * build). Parameters follow OWASP's Password Storage Cheat Sheet for scrypt (N=2^17, r=8, p=1: 128 MiB per
 * hash) and are written into each stored hash, so they can be raised later without invalidating old ones.
 * Stored form: `scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>`.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

const LOG2_N = 17
const R = 8
const P = 1
const KEY_LENGTH = 32

export const MIN_PASSWORD_LENGTH = 12
export const MAX_PASSWORD_LENGTH = 1024

const derive = (password: string, salt: Buffer, log2N: number, r: number, p: number) =>
  new Promise<Buffer>((resolve, reject) => {
    const N = 2 ** log2N
    // scrypt needs 128·N·r bytes; Node's default ceiling (32 MiB) is below OWASP's parameters.
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_LENGTH,
      { N, r, p, maxmem: 256 * N * r },
      (error, key) => error ? reject(error) : resolve(key)
    )
  })

export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16)
  const key = await derive(password, salt, LOG2_N, R, P)
  return `scrypt$${LOG2_N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`
}

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const parts = stored.split("$")
  if (parts.length !== 6 || parts[0] !== "scrypt") return false
  const [log2N, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])]
  const expected = Buffer.from(parts[5]!, "base64")
  const key = await derive(password, Buffer.from(parts[4]!, "base64"), log2N, r, p)
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A hash of nothing anyone knows: verified against when the email is unknown, so timing reveals nothing. */
let decoy: Promise<string> | undefined
export const decoyHash = () => (decoy ??= hashPassword(randomBytes(24).toString("base64")))

/** Why a password cannot be set; undefined when it can. */
export const passwordProblem = (password: string): string | undefined =>
  password.length < MIN_PASSWORD_LENGTH
    ? `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`
    : password.length > MAX_PASSWORD_LENGTH
    ? `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`
    : undefined

/** Emails are compared case-insensitively, as the account holder typed them otherwise. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

export const emailProblem = (email: string): string | undefined =>
  /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim()) && email.length <= 254
    ? undefined
    : `"${email}" is not an email address.`
