/** The Account as its key holder or a connected app reads it: `GET /v1/account`, the MCP resource `propscore://account`. */
import { Schema } from "effect"

export const AccountSummary = Schema.Struct({
  account_id: Schema.String.annotations({ description: "The Account's id." }),
  balance: Schema.Int.annotations({ description: "Credits left: what paid calls draw on." }),
  tier: Schema.Literal("public", "reseller").annotations({ description: "The Account's tier." }),
  rate_limit_per_minute: Schema.Int.annotations({
    description: "Requests a minute the Account may make (its own limit, or its tier's)."
  }),
  terms_accepted: Schema.Boolean.annotations({
    description: "Whether the Account has accepted the current Terms of Service (paid calls need it)."
  })
}).annotations({
  identifier: "AccountSummary",
  description: "The calling Account: its Balance, tier and rate limit. Free to read."
})
export type AccountSummary = typeof AccountSummary.Type
