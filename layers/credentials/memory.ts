/** Credentials held in memory, for tests that need callers but no database. */
import { Effect, Layer } from "effect"
import { InvalidKey } from "../../schema/problems.js"
import { generateApiKey, parseApiKey, secretMatches } from "../../src/domain/api-key.js"
import type { Tier } from "../../src/services/accounts.js"
import { type Caller, Credentials } from "../../src/services/credentials.js"

export interface MemoryKey {
  readonly apiKey: string
  readonly caller: Caller
}

/**
 * A Credentials layer knowing exactly the given callers; returns their freshly generated keys. A caller's
 * rate limit is lifted unless given (`null`: the tier's default), since a test's clock may stand still.
 */
export const makeCredentialsMemory = (
  callers: ReadonlyArray<{
    readonly accountId: string
    readonly tier: Tier
    readonly rateLimitPerMinute?: number | null | undefined
    readonly pendingTerms?: string | undefined
  }>
) => {
  const keys = callers.map(({ accountId, pendingTerms, rateLimitPerMinute, tier }) => {
    const key = generateApiKey()
    const caller: Caller = {
      accountId,
      tier,
      keyId: key.keyId,
      connectionId: null,
      rateLimitPerMinute: rateLimitPerMinute === undefined ? 1_000_000 : rateLimitPerMinute,
      pendingTerms: pendingTerms ?? null
    }
    return { apiKey: key.apiKey, secretHash: key.secretHash, caller }
  })
  const layer = Layer.succeed(
    Credentials,
    Credentials.of({
      authenticate: (token) => {
        const parsed = parseApiKey(token)
        const known = parsed && keys.find((key) => key.caller.keyId === parsed.keyId)
        return known && parsed && secretMatches(parsed.secret, known.secretHash)
          ? Effect.succeed(known.caller)
          : Effect.fail(new InvalidKey({ detail: "The API key is not known." }))
      },
      refresh: Effect.void
    })
  )
  return { layer, keys: keys.map(({ apiKey, caller }): MemoryKey => ({ apiKey, caller })) }
}
