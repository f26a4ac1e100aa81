/** Revoking an API key: recorded, and refused by this node from its next request on. */
import { Effect } from "effect"
import { Accounts } from "../services/accounts.js"
import { Credentials } from "../services/credentials.js"

export const revokeApiKey = (keyId: string) =>
  Effect.gen(function*() {
    const revoked = yield* Effect.flatMap(Accounts, (accounts) => accounts.revokeKey(keyId))
    yield* Effect.flatMap(Credentials, (credentials) => credentials.refresh)
    return revoked
  })
