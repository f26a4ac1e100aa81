/**
 * `GET /v1/account` (and the MCP resource `propscore://account`): the calling Account's Balance, tier, rate
 * limit and daily spend cap, for its API key or an app connected to it. `GET /v1/account/connections` and
 * `DELETE /v1/account/connections/{id}`: an Account's connected apps, for its own API key only (free). A
 * connection of another Account is as unknown as one that never existed; a database that does not answer
 * means the call did not start (503 `call-not-started`).
 */
import { Effect } from "effect"
import type { AccountSummary } from "../../schema/account.js"
import { CallNotStarted, NotFound } from "../../schema/problems.js"
import { hasControlCharacters } from "../../schema/text.js"
import { ConnectionNotFound, Connections } from "../services/connections.js"
import type { Caller } from "../services/credentials.js"
import { Ledger } from "../services/ledger.js"
import { TIER_LIMITS } from "../services/rate-limits.js"
import { disconnect } from "./sign-in.js"

const notStarted = () =>
  new CallNotStarted({
    detail: "The account's connections could not be read: the database did not answer. Retry later."
  })

/**
 * The caller's Account (spec: a connected app reads account details such as the Balance): one Ledger read;
 * the rest is what the caller's credential already says.
 */
export const accountSummary = (caller: Caller) =>
  Effect.flatMap(Ledger, (ledger) => ledger.standing(caller.accountId)).pipe(
    Effect.map(({ balance, dailySpendCap, spentToday }): AccountSummary => ({
      account_id: caller.accountId,
      balance,
      tier: caller.tier,
      rate_limit_per_minute: caller.rateLimitPerMinute ?? TIER_LIMITS[caller.tier],
      terms_accepted: caller.pendingTerms === null,
      ...(dailySpendCap === null ? {} : {
        daily_spend_cap: { credits: dailySpendCap, remaining_today: Math.max(0, dailySpendCap - spentToday) }
      })
    })),
    Effect.catchTag("LedgerUnreachable", () =>
      Effect.fail(
        new CallNotStarted({ detail: "The Balance could not be read: the database did not answer. Retry later." })
      ))
  )

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
