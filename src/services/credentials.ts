/** Who is calling: the API key of a request resolved to its Account. */
import { Context, type Effect } from "effect"
import type { CallNotStarted, InvalidKey } from "../../schema/problems.js"
import type { Tier } from "./accounts.js"

export interface Caller {
  readonly accountId: string
  readonly tier: Tier
  /** The key the request presented; for a connected app, its connection id. */
  readonly keyId: string
  /** The connection of an app signed in as the Account (OAuth); null for an API key. */
  readonly connectionId: string | null
  /** The operator's per-Account rate limit (requests per minute); null: the tier's default. */
  readonly rateLimitPerMinute: number | null
  /** The current Terms of Service version when the Account has not accepted it; null when it has. */
  readonly pendingTerms: string | null
}

export class Credentials extends Context.Tag("propscore/Credentials")<Credentials, {
  /**
   * Resolves a bearer token. An unknown, malformed or revoked key is `InvalidKey`; a key that cannot be
   * checked because the credential store is unreachable is `CallNotStarted`.
   */
  readonly authenticate: (token: string) => Effect.Effect<Caller, InvalidKey | CallNotStarted>
  /**
   * Brings this node's view of the keys up to date now. Other nodes (and a server, after the operator's
   * command line changed a key) catch up on their own within about a second.
   */
  readonly refresh: Effect.Effect<void>
}>() {}

/** The authenticated caller of the current request, provided by the HTTP authentication middleware. */
export class CurrentCaller extends Context.Tag("propscore/CurrentCaller")<CurrentCaller, Caller>() {}
