/**
 * Accounts, API keys, Credit grants and Terms of Service: what the operator's command line (and later the
 * Portal) manages. Answers are plain data in the command line's JSON shapes.
 */
import { Context, Data, type Effect, type Option } from "effect"
import type { StorageUnavailable } from "./storage.js"

export type Tier = "public" | "reseller"

/**
 * The Terms of Service version an Account still has to accept: the current one when it differs from the
 * accepted one, null when there is none to accept (AUTH-5).
 */
export const pendingTermsVersion = (current: string | null, accepted: string | null): string | null =>
  current !== null && current !== accepted ? current : null

export class AccountNotFound extends Data.TaggedError("AccountNotFound")<{ readonly accountId: string }> {
  override get message() {
    return `No account has the id ${this.accountId}`
  }
}

export class KeyNotFound extends Data.TaggedError("KeyNotFound")<{ readonly keyId: string }> {
  override get message() {
    return `No API key has the id ${this.keyId}`
  }
}

export class TermsVersionExists extends Data.TaggedError("TermsVersionExists")<{ readonly version: string }> {
  override get message() {
    return `Terms version ${this.version} was already published`
  }
}

export class NoTermsPublished extends Data.TaggedError("NoTermsPublished")<{}> {
  override get message() {
    return "No Terms of Service version has been published"
  }
}

export class TermsVersionNotCurrent extends Data.TaggedError("TermsVersionNotCurrent")<{
  readonly version: string
  readonly current: string
}> {
  override get message() {
    return `Terms version ${this.version} is no longer the current one; version ${this.current} is`
  }
}

/** The Account has another number of keys (active and revoked) than the one an issue was asked beside. */
export class KeyListChanged extends Data.TaggedError("KeyListChanged")<{ readonly keys: number }> {}

export class EmailTaken extends Data.TaggedError("EmailTaken")<{ readonly email: string }> {
  override get message() {
    return `Another account already signs in with ${this.email}`
  }
}

/** An account holder's sign-in: the normalized email and the password's memory-hard hash. */
export interface Login {
  readonly accountId: string
  readonly email: string
  readonly passwordHash: string
}

export interface AccountView {
  readonly account_id: string
  readonly name: string
  readonly tier: Tier
  readonly balance: number
  readonly rate_limit_per_minute: number | null
  readonly daily_spend_cap: number | null
  readonly terms: {
    readonly current_version: string | null
    readonly accepted_version: string | null
    readonly accepted: boolean
  }
  readonly created_at: string
}

export interface IssuedKey {
  readonly key_id: string
  readonly account_id: string
  /** The whole key. It is shown once and never stored. */
  readonly api_key: string
}

export interface CreateAccountInput {
  readonly name: string
  readonly tier: Tier
  readonly credits?: number | undefined
  readonly rateLimitPerMinute?: number | undefined
  /**
   * Whether the Terms of Service version current at creation counts as accepted by the holder (`accepted`:
   * they agreed to it with the operator) or is still theirs to accept (`pending`, the default: nothing is
   * accepted on anyone's behalf unless the caller says so). With no version published it changes nothing.
   */
  readonly terms?: "accepted" | "pending" | undefined
}

/** What the operator can change on an Account; a member left out stays as it is, null clears it. */
export interface UpdateAccountInput {
  readonly tier?: Tier | undefined
  readonly rateLimitPerMinute?: number | null | undefined
  readonly dailySpendCap?: number | null | undefined
}

/** An API key as its Account sees it: never its secret. */
export interface KeyView {
  readonly key_id: string
  readonly name: string | null
  readonly created_at: string
  /** When a request last authenticated with it (recorded within a few seconds); null if never. */
  readonly last_used_at: string | null
  readonly revoked_at: string | null
}

export interface TermsVersion {
  readonly version: string
  readonly published_at: string
}

export class Accounts extends Context.Tag("propscore/Accounts")<Accounts, {
  readonly create: (input: CreateAccountInput) => Effect.Effect<AccountView, StorageUnavailable>
  readonly show: (accountId: string) => Effect.Effect<AccountView, AccountNotFound | StorageUnavailable>
  /** Every Account, oldest first (the operator's `accounts list`). */
  readonly list: Effect.Effect<ReadonlyArray<AccountView>, StorageUnavailable>
  /**
   * Issues a key. With `keysSeen`, only while the Account has exactly that many keys (active and revoked), checked
   * in the issuing transaction with the Account locked (`KeyListChanged` otherwise): two sends of one form, a
   * double click, issue one key.
   */
  readonly issueKey: (
    accountId: string,
    name?: string,
    keysSeen?: number
  ) => Effect.Effect<IssuedKey, AccountNotFound | KeyListChanged | StorageUnavailable>
  /** Every key of the Account, newest first. */
  readonly listKeys: (accountId: string) => Effect.Effect<ReadonlyArray<KeyView>, StorageUnavailable>
  /**
   * Revokes a key (again is a no-op keeping the first time). With `accountId`, only that Account's key:
   * another Account's is `KeyNotFound`, exactly like a key that does not exist.
   */
  readonly revokeKey: (
    keyId: string,
    accountId?: string
  ) => Effect.Effect<
    {
      readonly key_id: string
      /** When it was revoked: the first time, when it already was. */
      readonly revoked_at: string
      /** It was revoked before this call. */
      readonly already_revoked: boolean
    },
    KeyNotFound | StorageUnavailable
  >
  readonly grantCredits: (
    accountId: string,
    amount: number
  ) => Effect.Effect<
    { readonly account_id: string; readonly granted: number; readonly balance: number },
    AccountNotFound | StorageUnavailable
  >
  /** Changes tier, rate limit or daily spend cap; every node sees it within about a second. */
  readonly update: (
    accountId: string,
    input: UpdateAccountInput
  ) => Effect.Effect<AccountView, AccountNotFound | StorageUnavailable>
  readonly publishTerms: (version: string) => Effect.Effect<TermsVersion, TermsVersionExists | StorageUnavailable>
  /** Accepts the current version; with `version`, only if that is still the current one. */
  readonly acceptTerms: (
    accountId: string,
    version?: string
  ) => Effect.Effect<
    { readonly account_id: string; readonly accepted_version: string },
    AccountNotFound | NoTermsPublished | TermsVersionNotCurrent | StorageUnavailable
  >
  /** The current Terms of Service version with its publication time; none before the first. */
  readonly currentTerms: Effect.Effect<Option.Option<TermsVersion>, StorageUnavailable>
  /** Sets (or replaces) the account holder's sign-in, ending their Portal sessions. The password arrives hashed. */
  readonly setLogin: (
    login: Login
  ) => Effect.Effect<
    { readonly account_id: string; readonly email: string },
    AccountNotFound | EmailTaken | StorageUnavailable
  >
  readonly findLogin: (email: string) => Effect.Effect<Option.Option<Login>, StorageUnavailable>
  /**
   * On a database with no account at all, creates the demo Account with its Credits and one key, and
   * returns them; otherwise returns undefined. Safe to call from several processes at once.
   */
  readonly ensureDemoAccount: (credits: number) => Effect.Effect<IssuedKey | undefined, StorageUnavailable>
}>() {}
