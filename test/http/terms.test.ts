import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { paths } from "../../src/http/portal-pages.js"
import { PORTAL_TERMS_PATH } from "../../src/operations/metered.js"
import { Accounts } from "../../src/services/accounts.js"
import { Credentials } from "../../src/services/credentials.js"
import { TestDatabase } from "../harness/database.js"
import { fakeScoringLayer } from "../harness/fake-scoring.js"
import { outcome } from "../harness/fixtures.js"
import { reconciles } from "../harness/ledger.js"
import { baseUrl, request, serverWith, TEST_BASE_URL } from "../harness/server.js"

// The real Accounts, credentials, Ledger and idempotency store, with scripted scoring.
const server = serverWith(
  Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, RateLimitsMemory).pipe(
    Layer.provideMerge(TestDatabase),
    Layer.merge(fakeScoringLayer({ "42 Elm St": { answer: { _tag: "Outcome", outcome } } }))
  )
)

const refresh = Effect.flatMap(Credentials, (credentials) => credentials.refresh)
const predict = (key: string) => request("/v1/predict", { key, body: { address: "42 Elm St" } })

/** An account made the way the operator makes one, with its Terms choice, and a key. */
const accountWith = (terms: "accepted" | "pending" | undefined) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const account = yield* accounts.create({
      name: "Terms test",
      tier: "public",
      credits: 5,
      rateLimitPerMinute: 1_000_000,
      ...(terms === undefined ? {} : { terms })
    })
    const key = yield* accounts.issueKey(account.account_id, "test")
    yield* refresh
    return { account, apiKey: key.api_key }
  })

layer(server, { timeout: "120 seconds" })("Terms of Service that say what to do", (it) => {
  it.effect("AUTH-5: the 403 names where to accept: the Portal's Terms page, which the server answers, and the command line", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const version = "detail-1"
      const { account, apiKey } = yield* accountWith("pending")
      yield* accounts.publishTerms(version)
      yield* refresh
      const refused = yield* predict(apiKey)
      expect(refused.status).toBe(403)
      expect(refused.headers.get("content-type")).toContain("application/problem+json")
      expect(refused.body).toMatchObject({
        type: `${TEST_BASE_URL}/docs/errors/terms-not-accepted`,
        status: 403,
        terms_version: version
      })
      expect(refused.body.detail).toContain(`version ${version}`)
      expect(refused.body.detail).toContain("nothing was charged")
      expect(refused.body.detail).toContain(`in the Portal at ${PORTAL_TERMS_PATH}`)
      expect(refused.body.detail).toContain(`propscore terms accept --account ${account.account_id}`)
      // Only the interface's members and the existing extension: nothing new on the wire.
      expect(Object.keys(refused.body).sort()).toEqual([
        "detail",
        "status",
        "terms_version",
        "title",
        "trace_id",
        "type"
      ])
      expect(yield* reconciles(account.account_id)).toBe(5)

      // The path named is the Portal's own Terms page: the server answers it (sending a stranger to sign in).
      expect(PORTAL_TERMS_PATH).toBe(paths.terms)
      const base = yield* baseUrl
      const page = yield* Effect.promise(() => fetch(`${base}${PORTAL_TERMS_PATH}`, { redirect: "manual" }))
      expect([200, 303]).toContain(page.status)

      // Doing what it says works: the acceptance the command records serves the call again.
      yield* accounts.acceptTerms(account.account_id)
      yield* refresh
      expect((yield* predict(apiKey)).status).toBe(200)
    }))

  it.effect("AUTH-5: an account created after a publish with terms accepted is served at once; created pending it is refused until it accepts", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      yield* accounts.publishTerms("creation-1")
      const signedOffline = yield* accountWith("accepted")
      expect(signedOffline.account.terms).toEqual({
        current_version: "creation-1",
        accepted_version: "creation-1",
        accepted: true
      })
      expect((yield* predict(signedOffline.apiKey)).status).toBe(200)

      const selfServe = yield* accountWith("pending")
      expect(selfServe.account.terms).toEqual({
        current_version: "creation-1",
        accepted_version: null,
        accepted: false
      })
      expect((yield* predict(selfServe.apiKey)).status).toBe(403)
      yield* accounts.acceptTerms(selfServe.account.account_id)
      yield* refresh
      expect((yield* predict(selfServe.apiKey)).status).toBe(200)

      // The operation accepts nothing on anyone's behalf unless asked: its own default is pending.
      const unstated = yield* accountWith(undefined)
      expect(unstated.account.terms.accepted).toBe(false)

      // Accepted at creation means the version current then: a later publish is the holder's to accept.
      yield* accounts.publishTerms("creation-2")
      yield* refresh
      const later = yield* predict(signedOffline.apiKey)
      expect(later.status).toBe(403)
      expect(later.body.terms_version).toBe("creation-2")
    }))
})
