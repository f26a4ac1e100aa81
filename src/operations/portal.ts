/**
 * The Portal: what an account holder signed in with their email and password can see and do. Every
 * operation takes the signed-in Account's id, from the session, and touches that Account only: an id
 * taken from a page (a key, a connection) is looked up within that Account, so another Account's is
 * "not found", exactly like one that does not exist. The pages (src/http/portal-routes.ts) only translate.
 */
import { Chunk, Clock, Data, Effect, Either, Option, Stream } from "effect"
import { hashSecret } from "../domain/api-key.js"
import { newSessionToken } from "../domain/portal-session.js"
import { Accounts, type AccountView } from "../services/accounts.js"
import { Credentials } from "../services/credentials.js"
import { type DailyTotal, Ledger, type LedgerEntry, utcDay } from "../services/ledger.js"
import { PortalSessions } from "../services/portal-sessions.js"
import { TIER_LIMITS } from "../services/rate-limits.js"
import { revokeApiKey } from "./keys.js"
import { attemptSignIn } from "./sign-in.js"

/** A Portal session lasts this long from sign-in, used or not; signing out ends it at once. */
export const SESSION_LIFETIME_SECONDS = 12 * 3_600
export const USAGE_PAGE_SIZE = 50
/** The CSV export reads the Ledger this many entries at a time. */
export const CSV_BATCH = 1_000
export const CHART_DAYS = 30
export const MAX_KEY_NAME_LENGTH = 60

const DAY_MS = 86_400_000

const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

// ---------------------------------------------------------------------------------------------------------
// Sign-in and sessions

export class PortalSignInRefused extends Data.TaggedError("PortalSignInRefused")<{
  readonly message: string
  /** 400: wrong email or password; 429: too many attempts for this email. */
  readonly status: 400 | 429
}> {}

/** Signs the account holder in: a new session's token (for the cookie) and when it ends. */
export const signIn = (email: string, password: string) =>
  Effect.gen(function*() {
    const attempt = yield* attemptSignIn(email, password)
    if (attempt._tag !== "SignedIn") {
      return yield* new PortalSignInRefused({ message: attempt.message, status: attempt._tag === "Wrong" ? 400 : 429 })
    }
    const started = yield* now
    const expiresAt = new Date(started.getTime() + SESSION_LIFETIME_SECONDS * 1000)
    const token = newSessionToken()
    const sessions = yield* PortalSessions
    yield* sessions.start(hashSecret(token), { accountId: attempt.accountId, expiresAt }, started)
    return { token, expiresAt }
  })

/** The Account a session token signs in as, while its session lasts. */
export const sessionAccount = (token: string) =>
  Effect.gen(function*() {
    const sessions = yield* PortalSessions
    const session = yield* sessions.find(hashSecret(token), yield* now)
    return Option.map(session, (s) => s.accountId)
  })

export const signOut = (token: string) => Effect.flatMap(PortalSessions, (sessions) => sessions.end(hashSecret(token)))

/** The signed-in Account's view (every page shows its name and whether new Terms wait). */
export const signedInAccount = (accountId: string) =>
  Effect.flatMap(Accounts, (accounts) => accounts.show(accountId)).pipe(
    // A session's Account exists: sessions are ended with their Account's login.
    Effect.catchTag("AccountNotFound", Effect.die)
  )

// ---------------------------------------------------------------------------------------------------------
// Overview

export interface Overview {
  readonly account: AccountView
  /** Requests per minute: the Account's own limit, or its tier's. */
  readonly rateLimitPerMinute: number
  readonly rateLimitIsTierDefault: boolean
  /** Credits spent today net of refunds, as the daily spend cap counts them. */
  readonly spentToday: number
  /** This UTC calendar month. */
  readonly month: { readonly label: string; readonly spent: number; readonly refunded: number }
}

const startOfUtcDay = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS)

/** The overview of the signed-in Account, from its view as the session loaded it. */
export const overview = (account: AccountView) =>
  Effect.gen(function*() {
    const at = yield* now
    const monthStart = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1))
    const tomorrow = new Date(startOfUtcDay(at).getTime() + DAY_MS)
    const ledger = yield* Ledger
    const days = yield* ledger.dailyTotals(account.account_id, monthStart, tomorrow)
    const today = days.find((day) => day.day === utcDay(at))
    return {
      account,
      rateLimitPerMinute: account.rate_limit_per_minute ?? TIER_LIMITS[account.tier],
      rateLimitIsTierDefault: account.rate_limit_per_minute === null,
      spentToday: today ? today.spent - today.refunded : 0,
      month: {
        label: monthStart.toLocaleDateString("en-US", { month: "long", year: "numeric", timeZone: "UTC" }),
        spent: days.reduce((sum, day) => sum + day.spent, 0),
        refunded: days.reduce((sum, day) => sum + day.refunded, 0)
      }
    } satisfies Overview
  })

// ---------------------------------------------------------------------------------------------------------
// API keys

export class InvalidKeyName extends Data.TaggedError("InvalidKeyName")<{ readonly message: string }> {}

/**
 * The issue form was shown beside fewer or more keys than the Account has now: the same form sent again (a
 * reload or Back re-sends it) or a key issued from another tab meanwhile. No key is issued: a Portal audit,
 * 2026-11-30, reloaded the page of a new key and was issued a second live key of the same name.
 */
export class KeyFormStale extends Data.TaggedError("KeyFormStale")<{ readonly message: string }> {}

export const listKeys = (accountId: string) => Effect.flatMap(Accounts, (accounts) => accounts.listKeys(accountId))

/**
 * Issues a key named by the holder (to tell keys apart; optional). The secret is in the answer only. `keysSeen`:
 * how many keys (active and revoked) the form was shown beside; where the Account now has another number, the
 * form is stale and nothing is issued (`KeyFormStale`).
 */
export const issueKey = (accountId: string, name: string, keysSeen?: number) =>
  Effect.gen(function*() {
    const trimmed = name.trim()
    if (trimmed.length > MAX_KEY_NAME_LENGTH) {
      return yield* new InvalidKeyName({ message: `A key's name is at most ${MAX_KEY_NAME_LENGTH} characters.` })
    }
    if (/\p{Cc}/u.test(trimmed)) {
      return yield* new InvalidKeyName({ message: "A key's name cannot hold control characters." })
    }
    const accounts = yield* Accounts
    const issued = yield* accounts.issueKey(accountId, trimmed === "" ? undefined : trimmed, keysSeen).pipe(
      Effect.catchTag("AccountNotFound", Effect.die),
      Effect.catchTag("KeyListChanged", () =>
        new KeyFormStale({
          message: "No key was issued: this form was sent before (a reload, Back or a second click sends it " +
            "again), or a key was issued from another page since it was shown. Every key issued is listed below; " +
            "a key's secret is shown only once, when it is issued. To issue another key, use the form again."
        }))
    )
    return { ...issued, name: trimmed === "" ? null : trimmed }
  })

/** Revokes one of the Account's keys; the next request with it is refused 401. */
export const revokeKey = (accountId: string, keyId: string) => revokeApiKey(keyId, accountId)

/** One of the Account's keys (for the confirmation page); another Account's is none. */
export const findKey = (accountId: string, keyId: string) =>
  Effect.map(listKeys(accountId), (keys) => Option.fromNullable(keys.find((key) => key.key_id === keyId)))

// ---------------------------------------------------------------------------------------------------------
// Usage

export type EntryKind = LedgerEntry["kind"]
export const KINDS: ReadonlyArray<EntryKind> = ["spend", "refund", "grant"]

/** The usage pages' filter, as the holder gave it: whole UTC days, both ends included. */
export interface UsageFilter {
  readonly fromDay?: string | undefined
  readonly toDay?: string | undefined
  readonly kind?: EntryKind | undefined
}

const isDay = (text: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false
  const at = new Date(`${text}T00:00:00Z`)
  return !Number.isNaN(at.getTime()) && utcDay(at) === text
}

/**
 * Reads the usage filter from a page's query (`from`, `to`: YYYY-MM-DD; `kind`; `before`: an entry id);
 * an empty field is no filter. Either the filter or what is wrong with it, field by field.
 */
export const parseUsageQuery = (
  params: Readonly<Record<string, string | undefined>>
): Either.Either<{ readonly filter: UsageFilter; readonly beforeId: number | undefined }, ReadonlyArray<string>> => {
  const problems: Array<string> = []
  const field = (name: string) => {
    const value = params[name]?.trim()
    return value === undefined || value === "" ? undefined : value
  }
  const fromDay = field("from")
  const toDay = field("to")
  const kind = field("kind")
  const before = field("before")
  if (fromDay !== undefined && !isDay(fromDay)) problems.push("From must be a date (YYYY-MM-DD).")
  if (toDay !== undefined && !isDay(toDay)) problems.push("To must be a date (YYYY-MM-DD).")
  if (fromDay !== undefined && toDay !== undefined && isDay(fromDay) && isDay(toDay) && toDay < fromDay) {
    problems.push("To is before From.")
  }
  if (kind !== undefined && !KINDS.includes(kind as EntryKind)) problems.push("Kind must be spend, refund or grant.")
  if (before !== undefined && !/^[1-9]\d{0,15}$/.test(before)) problems.push("The page marker is not valid.")
  if (problems.length > 0) return Either.left(problems)
  return Either.right({
    filter: { fromDay, toDay, kind: kind as EntryKind | undefined },
    beforeId: before === undefined ? undefined : Number(before)
  })
}

const statementQuery = (filter: UsageFilter) => ({
  from: filter.fromDay === undefined ? undefined : new Date(`${filter.fromDay}T00:00:00Z`),
  until: filter.toDay === undefined ? undefined : new Date(new Date(`${filter.toDay}T00:00:00Z`).getTime() + DAY_MS),
  kind: filter.kind
})

/** One page of the Account's entries, newest first; `olderThan` marks the next page when there is one. */
export const usagePage = (accountId: string, filter: UsageFilter, beforeId?: number) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const rows = yield* ledger.statement(accountId, { ...statementQuery(filter), beforeId, limit: USAGE_PAGE_SIZE + 1 })
    const entries = rows.slice(0, USAGE_PAGE_SIZE)
    return { entries, olderThan: rows.length > USAGE_PAGE_SIZE ? entries[entries.length - 1]!.id : null }
  })

/** Every entry matching the filter, newest first, read from the Ledger a batch at a time. */
export const usageEntries = (accountId: string, filter: UsageFilter) =>
  Stream.unwrap(
    Effect.map(Ledger, (ledger) =>
      Stream.paginateChunkEffect(undefined as number | undefined, (beforeId) =>
        Effect.map(ledger.statement(accountId, { ...statementQuery(filter), beforeId, limit: CSV_BATCH }), (rows) => [
          Chunk.unsafeFromArray(rows),
          rows.length < CSV_BATCH ? Option.none() : Option.some(rows[rows.length - 1]!.id)
        ])))
  )

/** The last CHART_DAYS UTC days, today included, oldest first: every day, with zeros where nothing happened. */
export const dailySpend = (accountId: string) =>
  Effect.gen(function*() {
    const today = startOfUtcDay(yield* now)
    const from = new Date(today.getTime() - (CHART_DAYS - 1) * DAY_MS)
    const ledger = yield* Ledger
    const totals = new Map(
      (yield* ledger.dailyTotals(accountId, from, new Date(today.getTime() + DAY_MS))).map((t) => [t.day, t])
    )
    return Array.from({ length: CHART_DAYS }, (_, i): DailyTotal => {
      const day = utcDay(new Date(from.getTime() + i * DAY_MS))
      return totals.get(day) ?? { day, spent: 0, refunded: 0, granted: 0 }
    })
  })

// ---------------------------------------------------------------------------------------------------------
// Terms of Service

/** The current Terms version (with its publication time) and what the signed-in Account accepted. */
export const termsStatus = (account: AccountView) =>
  Effect.map(Effect.flatMap(Accounts, (accounts) => accounts.currentTerms), (current) => ({
    current: Option.getOrNull(current),
    accepted_version: account.terms.accepted_version,
    accepted: account.terms.accepted
  }))

/**
 * Accepts the Terms version the holder was shown, if it is still the current one; this node's credentials
 * see it at once (every other node within about a second), so the next call is no longer refused 403.
 */
export const acceptTerms = (accountId: string, version: string) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const accepted = yield* accounts.acceptTerms(accountId, version).pipe(
      Effect.catchTag("AccountNotFound", Effect.die)
    )
    yield* Effect.flatMap(Credentials, (credentials) => credentials.refresh)
    return accepted
  })
