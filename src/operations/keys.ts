/** Revoking an API key: recorded, and refused by this node from its next request on. */
import { Effect } from "effect"
import { Accounts } from "../services/accounts.js"
import { Credentials } from "../services/credentials.js"

/** Revokes a key; with `accountId`, only a key of that Account (another's is `KeyNotFound`). */
export const revokeApiKey = (keyId: string, accountId?: string) =>
  Effect.gen(function*() {
    const revoked = yield* Effect.flatMap(Accounts, (accounts) => accounts.revokeKey(keyId, accountId))
    yield* Effect.flatMap(Credentials, (credentials) => credentials.refresh)
    return revoked
  })
