/**
 * Credentials on PostgreSQL, served from memory. Every node keeps a snapshot of all API keys (key id, the
 * secret's SHA-256, account, tier, revocation) and refreshes it incrementally every second by the keys'
 * version numbers, with each key's Account settings (tier, rate limit, accepted terms) and the current
 * Terms of Service version. Requests never wait on the database for a key the snapshot knows, so validate answers
 * with an API key during a database outage (VAL-2); a revocation reaches every node within about a second.
 * A key the snapshot does not know yet (issued a moment ago) is looked up directly; if the database cannot
 * answer that look-up, the call did not start (503 `call-not-started`), since the key can be neither
 * accepted nor refused.
 */
import { SqlClient } from "@effect/sql"
import { Duration, Effect, Layer, Schedule } from "effect"
import { CallNotStarted, InvalidKey } from "../../schema/problems.js"
import { DatabaseHealth } from "../../src/db/health.js"
import { parseApiKey, secretMatches } from "../../src/domain/api-key.js"
import { pendingTermsVersion, type Tier } from "../../src/services/accounts.js"
import { type Caller, Credentials } from "../../src/services/credentials.js"

interface KeyRow {
  readonly id: string
  readonly account_id: string
  readonly tier: Tier
  readonly secret_sha256: Uint8Array
  readonly revoked: boolean
  readonly version: number
  readonly rate_limit_per_minute: number | null
  readonly accepted_terms_version: string | null
}

export const REFRESH_INTERVAL = Duration.seconds(1)
/** How often the keys' last-used times are written (the Portal shows them this fresh). */
export const LAST_USED_INTERVAL = Duration.seconds(2)
/** Every this many refreshes the whole snapshot is read again (see `refresh`). */
export const FULL_RELOAD_EVERY = 30

const invalidKey = (detail: string) => new InvalidKey({ detail })

export const CredentialsPg = Layer.scoped(
  Credentials,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { guard } = yield* DatabaseHealth
    const snapshot = new Map<string, KeyRow>()
    const keyColumns = sql.literal(
      "k.id, k.account_id, a.tier, k.secret_sha256, (k.revoked_at IS NOT NULL) AS revoked, k.version, " +
        "a.rate_limit_per_minute, a.accepted_terms_version"
    )
    let seenVersion = 0
    let refreshes = 0

    /** Keeps rows in the snapshot; only a refresh moves `seenVersion` (a single look-up must not skip others). */
    const remember = (rows: ReadonlyArray<KeyRow>, advance: boolean) => {
      for (const row of rows) {
        snapshot.set(row.id, row)
        if (advance && row.version > seenVersion) seenVersion = row.version
      }
    }

    let currentTerms: string | null = null

    // Changes to an Account (tier, rate limit, accepted terms) reach the snapshot through a version bump
    // of its keys, done in the same statement as the change (layers/accounts/pg.ts). Each second reads the
    // versions above the newest seen; every FULL_RELOAD_EVERY-th reads them all, since a version taken from
    // the sequence by a transaction that commits late can land below one already seen.
    const refresh = Effect.suspend(() => {
      const since = refreshes++ % FULL_RELOAD_EVERY === 0 ? 0 : seenVersion
      return Effect.zipWith(
        sql<KeyRow>`
          SELECT ${keyColumns} FROM api_keys k JOIN accounts a ON a.id = k.account_id
          WHERE k.version > ${since}`,
        sql<{ version: string }>`SELECT version FROM terms_versions ORDER BY seq DESC LIMIT 1`,
        (rows, terms) => {
          remember(rows, true)
          currentTerms = terms[0]?.version ?? null
        }
      )
    })

    // When each key was last used, written in the background (a request never waits for it): the keys
    // used since the last write, with their newest time. A failed write keeps them for the next one.
    const used = new Map<string, number>()
    const recordUse = Effect.suspend(() => {
      if (used.size === 0) return Effect.void
      const batch = [...used]
      used.clear()
      return Effect.forEach(
        batch,
        ([keyId, at]) =>
          sql`UPDATE api_keys SET last_used_at = GREATEST(last_used_at, ${new Date(at)}) WHERE id = ${keyId}`,
        { discard: true }
      ).pipe(
        Effect.tapError(() =>
          Effect.sync(() => {
            for (const [keyId, at] of batch) if (!used.has(keyId)) used.set(keyId, at)
          })
        )
      )
    })

    yield* refresh.pipe(Effect.orDie)
    yield* refresh.pipe(
      Effect.catchAll((error) => Effect.logWarning("credential refresh failed; serving the last snapshot", error)),
      Effect.repeat(Schedule.spaced(REFRESH_INTERVAL)),
      Effect.forkScoped
    )
    yield* recordUse.pipe(
      Effect.catchAll((error) => Effect.logWarning("recording when keys were last used failed; retrying", error)),
      Effect.repeat(Schedule.spaced(LAST_USED_INTERVAL)),
      Effect.forkScoped
    )
    // What the last interval saw is written on the way down too.
    yield* Effect.addFinalizer(() => recordUse.pipe(Effect.ignore))

    const lookUp = (keyId: string) =>
      sql<KeyRow>`
        SELECT ${keyColumns} FROM api_keys k JOIN accounts a ON a.id = k.account_id
        WHERE k.id = ${keyId}`.pipe(
        Effect.map((rows) => {
          remember(rows, false)
          return rows[0]
        }),
        guard("Credentials.lookUp"),
        Effect.mapError(() =>
          new CallNotStarted({
            detail: "The API key could not be checked because the credential store is unreachable."
          })
        )
      )

    const authenticate = (token: string): Effect.Effect<Caller, InvalidKey | CallNotStarted> =>
      Effect.gen(function*() {
        const parsed = parseApiKey(token)
        if (!parsed) return yield* invalidKey("The bearer token is not a propscore API key.")
        const row = snapshot.get(parsed.keyId) ?? (yield* lookUp(parsed.keyId))
        if (!row || !secretMatches(parsed.secret, row.secret_sha256)) {
          return yield* invalidKey("The API key is not known.")
        }
        if (row.revoked) return yield* invalidKey("The API key has been revoked.")
        used.set(row.id, Date.now())
        return {
          accountId: row.account_id,
          tier: row.tier,
          keyId: row.id,
          connectionId: null,
          rateLimitPerMinute: row.rate_limit_per_minute,
          pendingTerms: pendingTermsVersion(currentTerms, row.accepted_terms_version)
        }
      })

    return Credentials.of({
      authenticate,
      refresh: refresh.pipe(
        Effect.catchAll((error) => Effect.logWarning("credential refresh failed", error))
      )
    })
  })
)
