/**
 * The Portal's sign-in sessions: an opaque token in the account holder's cookie, stored as its SHA-256
 * only, naming the Account it signed in as and when it ends.
 */
import { Context, type Effect, type Option } from "effect"
import type { StorageUnavailable } from "./storage.js"

export interface PortalSession {
  readonly accountId: string
  readonly expiresAt: Date
}

export class PortalSessions extends Context.Tag("propscore/PortalSessions")<PortalSessions, {
  /** Starts a session; sessions that ended before `now` are cleared away on the way. */
  readonly start: (
    tokenSha256: Uint8Array,
    session: PortalSession,
    now: Date
  ) => Effect.Effect<void, StorageUnavailable>
  /** The session of a token, while it has not ended at `now`. */
  readonly find: (tokenSha256: Uint8Array, now: Date) => Effect.Effect<Option.Option<PortalSession>, StorageUnavailable>
  /** Ends a session (signing out); ending one that is gone is a no-op. */
  readonly end: (tokenSha256: Uint8Array) => Effect.Effect<void, StorageUnavailable>
}>() {}
