/** Apps the account holder connected by signing in (account settings; the Portal's JSON). */
import { Schema } from "effect"

export const Connection = Schema.Struct({
  connection_id: Schema.String.annotations({ description: "The connection's id (what disconnecting takes)." }),
  client_id: Schema.String.annotations({
    description: "The app's client id: registered here, or the URL of its metadata document"
  }),
  client_name: Schema.String.annotations({ description: "The app's name, as it registered." }),
  connected_at: Schema.String.annotations({ description: "When the account holder approved the connection (RFC 3339)" })
}).annotations({ identifier: "Connection", description: "An app connected to the Account by sign-in." })

export const ConnectionList = Schema.Struct({
  connections: Schema.Array(Connection).annotations({ description: "Every connected app, oldest first." })
}).annotations({ identifier: "ConnectionList", description: "The apps connected to the Account." })

export const Disconnected = Schema.Struct({
  ...Connection.fields,
  disconnected: Schema.Literal(true).annotations({ description: "Always true: the app's tokens no longer work." })
}).annotations({ identifier: "Disconnected", description: "The connection that was removed." })
