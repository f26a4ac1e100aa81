import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { migrate } from "../../src/db/migrations.js"
import { Accounts } from "../../src/services/accounts.js"
import { Credentials } from "../../src/services/credentials.js"
import { TestDatabase } from "../harness/database.js"

const Services = Layer.mergeAll(AccountsPg, CredentialsPg).pipe(Layer.provideMerge(TestDatabase))

layer(Services, { timeout: "120 seconds" })("accounts and credentials in PostgreSQL", (it) => {
  it.effect("migrations run once: a second run applies nothing", () =>
    Effect.gen(function*() {
      expect(yield* migrate).toEqual([])
    }))

  it.effect("an account is created with its tier, Credits (as a grant entry) and optional rate limit", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const created = yield* accounts.create({ name: "Acme", tier: "reseller", credits: 250, rateLimitPerMinute: 900 })
      expect(created).toMatchObject({ name: "Acme", tier: "reseller", balance: 250, rate_limit_per_minute: 900 })
      const sql = yield* SqlClient.SqlClient
      const entries = yield* sql<{ kind: string; amount: number }>`
        SELECT kind, amount FROM ledger_entries WHERE account_id = ${created.account_id}`
      expect(entries).toEqual([{ kind: "grant", amount: 250 }])
      expect(yield* accounts.show(created.account_id)).toEqual(created)
    }))

  it.effect("granting Credits appends a grant and keeps balance = Σ entries", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account_id } = yield* accounts.create({ name: "Grants", tier: "public" })
      yield* accounts.grantCredits(account_id, 40)
      const granted = yield* accounts.grantCredits(account_id, 2)
      expect(granted.balance).toBe(42)
      const sql = yield* SqlClient.SqlClient
      const [sum] = yield* sql<{ total: number }>`
        SELECT COALESCE(SUM(CASE kind WHEN 'spend' THEN -amount ELSE amount END), 0) AS total
        FROM ledger_entries WHERE account_id = ${account_id}`
      expect(sum!.total).toBe(42)
      const missing = yield* Effect.exit(accounts.grantCredits("acct_nope", 5))
      expect(Exit.isFailure(missing)).toBe(true)
    }))

  it.effect("the database refuses a negative balance", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account_id } = yield* accounts.create({ name: "Floor", tier: "public", credits: 1 })
      const sql = yield* SqlClient.SqlClient
      const result = yield* Effect.exit(sql`UPDATE accounts SET balance = balance - 2 WHERE id = ${account_id}`)
      expect(Exit.isFailure(result)).toBe(true)
    }))

  it.effect("AUTH-1: keys are stored only as a SHA-256 hash; issued keys authenticate, revoked ones do not", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const credentials = yield* Credentials
      const { account_id } = yield* accounts.create({ name: "Keys", tier: "public" })
      const key = yield* accounts.issueKey(account_id, "laptop")
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<
        { row: string }
      >`SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = ${key.key_id}`
      const secret = key.api_key.split("_")[2]!
      expect(stored[0]!.row).not.toContain(secret)
      expect(yield* credentials.authenticate(key.api_key)).toEqual({
        accountId: account_id,
        tier: "public",
        keyId: key.key_id,
        connectionId: null,
        rateLimitPerMinute: null,
        pendingTerms: null
      })
      yield* accounts.revokeKey(key.key_id)
      yield* credentials.refresh
      const revoked = yield* Effect.flip(credentials.authenticate(key.api_key))
      expect(revoked._tag).toBe("InvalidKey")
      const tampered = yield* Effect.flip(credentials.authenticate(key.api_key.slice(0, -1) + "a"))
      expect(tampered._tag).toBe("InvalidKey")
    }))

  it.effect("terms: publishing a version makes it current; accepting records it on the account", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account_id } = yield* accounts.create({ name: "Terms", tier: "public" })
      yield* accounts.publishTerms(`t-${account_id}`)
      expect((yield* accounts.show(account_id)).terms).toEqual({
        current_version: `t-${account_id}`,
        accepted_version: null,
        accepted: false
      })
      expect((yield* Effect.flip(accounts.publishTerms(`t-${account_id}`)))._tag).toBe("TermsVersionExists")
      yield* accounts.acceptTerms(account_id)
      expect((yield* accounts.show(account_id)).terms.accepted).toBe(true)
    }))
})

layer(AccountsPg.pipe(Layer.provideMerge(TestDatabase)), { timeout: "120 seconds" })("the demo account", (it) => {
  it.effect("is created once on an empty database, however many processes ask at once", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const results = yield* Effect.all(Array.from({ length: 5 }, () => accounts.ensureDemoAccount(1000)), {
        concurrency: "unbounded"
      })
      const created = results.filter((result) => result !== undefined)
      expect(created).toHaveLength(1)
      expect((yield* accounts.show(created[0]!.account_id)).balance).toBe(1000)
      expect(yield* accounts.ensureDemoAccount(1000)).toBeUndefined()
    }))
})

layer(AccountsPg.pipe(Layer.provideMerge(TestDatabase)), { timeout: "120 seconds" })(
  "the demo account after a Terms publish",
  (it) => {
    it.effect("AUTH-5: on a database where Terms were published before the first start, the demo account has accepted them", () =>
      Effect.gen(function*() {
        const accounts = yield* Accounts
        yield* accounts.publishTerms("before-first-start")
        const demo = yield* accounts.ensureDemoAccount(1000)
        expect((yield* accounts.show(demo!.account_id)).terms).toEqual({
          current_version: "before-first-start",
          accepted_version: "before-first-start",
          accepted: true
        })
      }))
  }
)
