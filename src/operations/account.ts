/**
 * `GET /v1/account/connections` and `DELETE /v1/account/connections/{id}`: an Account's connected apps, for
 * its own API key only (free). A connection of another Account is as unknown as one that never existed; a
 * database that does not answer means the call did not start (503 `call-not-started`).
 */
import { Effect } from "effect"
import { CallNotStarted, NotFound } from "../../schema/problems.js"
import { hasControlCharacters } from "../../schema/text.js"
import { ConnectionNotFound, Connections } from "../services/connections.js"
import { disconnect } from "./sign-in.js"

const notStarted = () =>
  new CallNotStarted({
    detail: "The account's connections could not be read: the database did not answer. Retry later."
  })

export const accountConnections = (accountId: string) =>
  Effect.flatMap(Connections, (connections) => connections.list(accountId)).pipe(
    Effect.map((connections) => ({ connections })),
    Effect.catchTag("StorageUnavailable", () => Effect.fail(notStarted()))
  )

export const disconnectConnection = (accountId: string, connectionId: string) =>
  // An id with control characters names nothing (and never reaches the database).
  (hasControlCharacters(connectionId)
    ? Effect.fail(new ConnectionNotFound({ connectionId }))
    : disconnect(accountId, connectionId)).pipe(
      Effect.map((gone) => ({ ...gone, disconnected: true as const })),
      Effect.catchTags({
        ConnectionNotFound: () =>
          Effect.fail(new NotFound({ detail: `This account has no connection ${connectionId}.` })),
        StorageUnavailable: () => Effect.fail(notStarted())
      })
    )
