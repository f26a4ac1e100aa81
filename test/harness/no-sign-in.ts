/**
 * For a server built from fakes with no account store: the Accounts, Connections, client-metadata and
 * Portal-session services the sign-in and Portal routes need, each failing loudly if a test reaches them.
 * Tests of sign-in and of the Portal run on the real services over a test database instead.
 */
import { Effect, Layer } from "effect"
import { ClientMetadataFetcher } from "../../src/oauth/clients.js"
import { Accounts } from "../../src/services/accounts.js"
import { Connections } from "../../src/services/connections.js"
import { PortalSessions } from "../../src/services/portal-sessions.js"

const absent = (service: string) =>
  new Proxy({}, {
    get: (_target, member) => () =>
      Effect.dieMessage(`${service}.${String(member)}: this test server has no account store`)
  })

export const NoSignIn = Layer.mergeAll(
  Layer.succeed(Accounts, absent("Accounts") as Accounts["Type"]),
  Layer.succeed(Connections, absent("Connections") as Connections["Type"]),
  Layer.succeed(ClientMetadataFetcher, absent("ClientMetadataFetcher") as ClientMetadataFetcher["Type"]),
  Layer.succeed(PortalSessions, absent("PortalSessions") as PortalSessions["Type"])
)
