/** The Accounts service on PostgreSQL (or the embedded PGlite): accounts, keys, grants and terms. */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { DatabaseHealth } from "../../src/db/health.js"
import { generateApiKey, newAccountId } from "../../src/domain/api-key.js"
import {
  AccountNotFound,
  Accounts,
  type AccountView,
  type CreateAccountInput,
  EmailTaken,
  KeyListChanged,
  KeyNotFound,
  NoTermsPublished,
  pendingTermsVersion,
  TermsVersionExists,
  TermsVersionNotCurrent,
  type Tier
} from "../../src/services/accounts.js"

interface AccountRow {
  readonly id: string
  readonly name: string
  readonly tier: Tier
  readonly balance: number
  readonly rate_limit_per_minute: number | null
  readonly daily_spend_cap: number | null
  readonly accepted_terms_version: string | null
  readonly current_terms_version: string | null
  readonly created_at: Date
}

const toView = (row: AccountRow): AccountView => ({
  account_id: row.id,
  name: row.name,
  tier: row.tier,
  balance: row.balance,
  rate_limit_per_minute: row.rate_limit_per_minute,
  daily_spend_cap: row.daily_spend_cap,
  terms: {
    current_version: row.current_terms_version,
    accepted_version: row.accepted_terms_version,
    accepted: pendingTermsVersion(row.current_terms_version, row.accepted_terms_version) === null
  },
  created_at: row.created_at.toISOString()
})

const DEMO_LOCK = 0x70726f70 // advisory lock id for the demo-account creation

export const AccountsPg = Layer.effect(
  Accounts,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** A step of the store under the storage deadlines, its database failures `StorageUnavailable`. */
    const store = (yield* DatabaseHealth).guard("Accounts")

    const accountColumns = sql`
      a.id, a.name, a.tier, a.balance, a.rate_limit_per_minute, a.daily_spend_cap, a.accepted_terms_version,
      a.created_at, (SELECT version FROM terms_versions ORDER BY seq DESC LIMIT 1) AS current_terms_version`

    const findAccount = (accountId: string) =>
      sql<AccountRow>`SELECT ${accountColumns} FROM accounts a WHERE a.id = ${accountId}`.pipe(
        store,
        Effect.flatMap((rows) =>
          rows[0] ? Effect.succeed(toView(rows[0])) : Effect.fail(new AccountNotFound({ accountId }))
        )
      )

    const currentTerms = sql<{ version: string; published_at: Date }>`
      SELECT version, published_at FROM terms_versions ORDER BY seq DESC LIMIT 1`.pipe(
      store,
      Effect.map((rows) =>
        Option.map(
          Option.fromNullable(rows[0]),
          (row) => ({ version: row.version, published_at: row.published_at.toISOString() })
        )
      )
    )

    /** A change to an Account reaches every node's credential snapshot through its keys' versions. */
    const bumpKeys = (accountId: string) =>
      sql`UPDATE api_keys SET version = nextval('credential_versions') WHERE account_id = ${accountId}`

    const grant = (accountId: string, amount: number, note: string) =>
      Effect.gen(function*() {
        const updated = yield* sql<{ balance: number }>`
          UPDATE accounts SET balance = balance + ${amount} WHERE id = ${accountId} RETURNING balance`
        if (!updated[0]) return yield* new AccountNotFound({ accountId })
        yield* sql`
          INSERT INTO ledger_entries (account_id, kind, amount, note) VALUES (${accountId}, 'grant', ${amount}, ${note})`
        return updated[0].balance
      })

    const create = (input: CreateAccountInput) =>
      Effect.gen(function*() {
        const id = newAccountId()
        const rateLimit = input.rateLimitPerMinute ?? null
        yield* input.terms === "accepted"
          // The version current at this very statement: the holder agreed to the Terms as they stand now.
          ? sql`
            INSERT INTO accounts (id, name, tier, rate_limit_per_minute, accepted_terms_version, accepted_terms_at)
            SELECT ${id}, ${input.name}, ${input.tier}, ${rateLimit}, current.version,
                   CASE WHEN current.version IS NULL THEN NULL ELSE now() END
            FROM (SELECT (SELECT version FROM terms_versions ORDER BY seq DESC LIMIT 1) AS version) AS current`
          : sql`
            INSERT INTO accounts (id, name, tier, rate_limit_per_minute)
            VALUES (${id}, ${input.name}, ${input.tier}, ${rateLimit})`
        if (input.credits !== undefined && input.credits > 0) {
          yield* grant(id, input.credits, "initial grant")
        }
        return id
      })

    const issueKey = (accountId: string, name?: string, keysSeen?: number) =>
      Effect.gen(function*() {
        const exists = yield* sql`SELECT 1 FROM accounts WHERE id = ${accountId} FOR UPDATE`
        if (exists.length === 0) return yield* new AccountNotFound({ accountId })
        if (keysSeen !== undefined) {
          const [counted] = yield* sql<{ keys: number }>`
            SELECT count(*)::int AS keys FROM api_keys WHERE account_id = ${accountId}`
          if (counted!.keys !== keysSeen) return yield* new KeyListChanged({ keys: counted!.keys })
        }
        const key = generateApiKey()
        yield* sql`
          INSERT INTO api_keys (id, account_id, secret_sha256, name)
          VALUES (${key.keyId}, ${accountId}, ${key.secretHash}, ${name ?? null})`
        return { key_id: key.keyId, account_id: accountId, api_key: key.apiKey }
      })

    return Accounts.of({
      create: (input) =>
        sql.withTransaction(create(input)).pipe(
          store,
          Effect.flatMap(findAccount),
          // Just created: it is there.
          Effect.catchTag("AccountNotFound", Effect.die),
          store
        ),

      show: findAccount,

      list: sql<AccountRow>`SELECT ${accountColumns} FROM accounts a ORDER BY a.created_at, a.id`.pipe(
        store,
        Effect.map((rows) => rows.map(toView))
      ),

      // The keys' version bump carries the change to every node's credential snapshot.
      update: (accountId, input) =>
        sql.withTransaction(Effect.gen(function*() {
          const updated = yield* sql`
            UPDATE accounts SET
              tier = ${input.tier === undefined ? sql`tier` : input.tier},
              rate_limit_per_minute = ${
            input.rateLimitPerMinute === undefined ? sql`rate_limit_per_minute` : input.rateLimitPerMinute
          },
              daily_spend_cap = ${input.dailySpendCap === undefined ? sql`daily_spend_cap` : input.dailySpendCap}
            WHERE id = ${accountId} RETURNING id`
          if (updated.length === 0) return yield* new AccountNotFound({ accountId })
          yield* bumpKeys(accountId)
        })).pipe(store, Effect.zipRight(findAccount(accountId))),

      issueKey: (accountId, name, keysSeen) => sql.withTransaction(issueKey(accountId, name, keysSeen)).pipe(store),

      listKeys: (accountId) =>
        sql<{ id: string; name: string | null; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>`
          SELECT id, name, created_at, last_used_at, revoked_at FROM api_keys
          WHERE account_id = ${accountId} ORDER BY created_at DESC, id`.pipe(
          store,
          Effect.map((rows) =>
            rows.map((row) => ({
              key_id: row.id,
              name: row.name,
              created_at: row.created_at.toISOString(),
              last_used_at: row.last_used_at?.toISOString() ?? null,
              revoked_at: row.revoked_at?.toISOString() ?? null
            }))
          )
        ),

      revokeKey: (keyId, accountId) =>
        // The row as it was (FROM the same table, read before the update) says whether it was revoked already.
        sql<{ id: string; revoked_at: Date; already_revoked: boolean }>`
          UPDATE api_keys k SET revoked_at = COALESCE(k.revoked_at, now()), version = nextval('credential_versions')
          FROM api_keys before
          WHERE k.id = ${keyId} AND before.id = k.id AND k.account_id = ${accountId ?? sql`k.account_id`}
          RETURNING k.id, k.revoked_at, before.revoked_at IS NOT NULL AS already_revoked`.pipe(
          store,
          Effect.flatMap((rows) =>
            rows[0]
              ? Effect.succeed({
                key_id: rows[0].id,
                revoked_at: rows[0].revoked_at.toISOString(),
                already_revoked: rows[0].already_revoked
              })
              : Effect.fail(new KeyNotFound({ keyId }))
          )
        ),

      grantCredits: (accountId, amount) =>
        sql.withTransaction(grant(accountId, amount, "operator grant")).pipe(
          store,
          Effect.map((balance) => ({ account_id: accountId, granted: amount, balance }))
        ),

      publishTerms: (version) =>
        sql<{ version: string; published_at: Date }>`
          INSERT INTO terms_versions (version) VALUES (${version})
          ON CONFLICT (version) DO NOTHING RETURNING version, published_at`.pipe(
          store,
          Effect.flatMap((rows) =>
            rows[0]
              ? Effect.succeed({ version: rows[0].version, published_at: rows[0].published_at.toISOString() })
              : Effect.fail(new TermsVersionExists({ version }))
          )
        ),

      acceptTerms: (accountId, expected) =>
        Effect.gen(function*() {
          const current = yield* currentTerms
          if (Option.isNone(current)) return yield* new NoTermsPublished()
          const version = current.value.version
          if (expected !== undefined && expected !== version) {
            return yield* new TermsVersionNotCurrent({ version: expected, current: version })
          }
          // Accepted only while it is still the newest version (a publication in between makes it fail).
          const updated = yield* sql.withTransaction(Effect.gen(function*() {
            const rows = yield* sql`
              UPDATE accounts SET accepted_terms_version = ${version}, accepted_terms_at = now()
              WHERE id = ${accountId}
                AND ${version} = (SELECT version FROM terms_versions ORDER BY seq DESC LIMIT 1)
              RETURNING id`
            yield* bumpKeys(accountId)
            return rows
          })).pipe(store)
          if (updated.length === 0) {
            yield* findAccount(accountId)
            const now = yield* currentTerms
            return yield* new TermsVersionNotCurrent({
              version,
              current: Option.getOrElse(Option.map(now, (t) => t.version), () => version)
            })
          }
          return { account_id: accountId, accepted_version: version }
        }),

      currentTerms,

      setLogin: (login) =>
        sql.withTransaction(Effect.gen(function*() {
          const exists = yield* sql`SELECT 1 FROM accounts WHERE id = ${login.accountId}`
          if (exists.length === 0) return yield* new AccountNotFound({ accountId: login.accountId })
          const taken =
            yield* sql`SELECT 1 FROM account_logins WHERE email = ${login.email} AND account_id <> ${login.accountId}`
          if (taken.length > 0) return yield* new EmailTaken({ email: login.email })
          yield* sql`
            INSERT INTO account_logins (account_id, email, password_hash) VALUES (${login.accountId}, ${login.email}, ${login.passwordHash})
            ON CONFLICT (account_id) DO UPDATE SET email = excluded.email, password_hash = excluded.password_hash, updated_at = now()`
          // A new password ends every Portal session signed in with the old one.
          yield* sql`DELETE FROM portal_sessions WHERE account_id = ${login.accountId}`
          return { account_id: login.accountId, email: login.email }
        })).pipe(store),

      findLogin: (email) =>
        sql<{ account_id: string; email: string; password_hash: string }>`
          SELECT account_id, email, password_hash FROM account_logins WHERE email = ${email}`.pipe(
          store,
          Effect.map((rows) =>
            Option.map(
              Option.fromNullable(rows[0]),
              (row) => ({ accountId: row.account_id, email: row.email, passwordHash: row.password_hash })
            )
          )
        ),

      ensureDemoAccount: (credits) =>
        sql.withTransaction(
          Effect.gen(function*() {
            yield* sql`SELECT pg_advisory_xact_lock(${DEMO_LOCK})`
            const any = yield* sql`SELECT 1 FROM accounts LIMIT 1`
            if (any.length > 0) return undefined
            // The demo works at once, even on a database where Terms were published before the first start.
            const id = yield* create({ name: "Demo account", tier: "public", credits, terms: "accepted" })
            return yield* issueKey(id, "demo")
          })
        ).pipe(store, Effect.catchTags({ AccountNotFound: Effect.die, KeyListChanged: Effect.die }))
    })
  })
)
