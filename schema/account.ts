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
  }),
  // (An agent learnt of a cap only by meeting `spend-cap-exceeded`: an agent's audit, 2026-11-29.)
  daily_spend_cap: Schema.optionalWith(
    Schema.Struct({
      credits: Schema.Int.annotations({ description: "Credits the Account may spend in one UTC day." }),
      remaining_today: Schema.Int.annotations({
        description: "Credits it may still spend today (UTC): the cap less today's Spends, with today's Refunds " +
          "given back. A call costing more is refused with `spend-cap-exceeded`, free; the count starts again " +
          "at midnight UTC."
      })
    }),
    { exact: true }
  ).annotations({
    description: "The Account's daily spend cap, set by the operator; absent when it has none."
  })
}).annotations({
  identifier: "AccountSummary",
  description: "The calling Account: its Balance, tier, rate limit and daily spend cap. Free to read."
})
export type AccountSummary = typeof AccountSummary.Type
