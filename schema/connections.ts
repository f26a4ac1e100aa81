/** Apps the account holder connected by signing in (account settings; the Portal's JSON). */
import { Schema } from "effect"

export const Connection = Schema.Struct({
  connection_id: Schema.String,
  client_id: Schema.String.annotations({
    description: "The app's client id: registered here, or the URL of its metadata document"
  }),
  client_name: Schema.String,
  connected_at: Schema.String.annotations({ description: "When the account holder approved the connection (RFC 3339)" })
}).annotations({ identifier: "Connection" })

export const ConnectionList = Schema.Struct({ connections: Schema.Array(Connection) }).annotations({
  identifier: "ConnectionList"
})

export const Disconnected = Schema.Struct({ ...Connection.fields, disconnected: Schema.Literal(true) }).annotations({
  identifier: "Disconnected"
})
