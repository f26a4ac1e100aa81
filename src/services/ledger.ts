/**
 * The Ledger: each Account's Credits as append-only entries (grant, spend, refund; a refund names its
 * spend). The cost of a Metered Call is resolved here, from the price book, inside the transaction that
 * records the Spend: callers say what they are doing and how many units, never what it costs (SVC-2).
 */
import { Context, type Effect, type Option } from "effect"
import type { InsufficientCredits, LedgerUnreachable, SpendCapExceeded } from "../../schema/problems.js"
import type { Tier } from "./accounts.js"

/** What a Metered Call is, for the price book. */
export type MeteredOperation = "predict" | "batch" | "history"

export interface SpendRequest {
  readonly accountId: string
  readonly operation: MeteredOperation
  /** Properties scored (1 for predict and history; the batch size for a batch). */
  readonly units: number
  readonly traceId: string
  /**
   * Epoch milliseconds (service clock) by which the call must be settled. A Spend still open after it is
   * presumed to have died with its process, and is refunded by the sweeper (SVC-4), unless the node that
   * holds it says it answered (see `OverdueQuery`).
   */
  readonly settleBy: number
  /** The node (service process) whose call this is; its heartbeats tell other nodes it is alive. */
  readonly nodeId: string
  /** What the call is about, one per unit: each property's address as sent (or its property_id). */
  readonly subjects: ReadonlyArray<string>
  /**
   * This attempt's id, made by the caller. When the caller gives up on the Ledger's answer (503) it names the
   * attempt to `abandon`: a Spend the database recorded late under it is refunded at the sweeper's next round
   * (`OverdueQuery.gaveUp`), and one that arrives after `abandon` is not recorded at all.
   */
  readonly attemptId: string
}

export interface Spend {
  readonly spendId: number
  readonly accountId: string
  /** Credits taken: units × the price book's Credits per unit. */
  readonly amount: number
  readonly balanceAfter: number
  /** The attempt it was recorded under (`SpendRequest.attemptId`). */
  readonly attemptId: string
}

export interface RefundRequest {
  readonly spendId: number
  /** Credits to return; never more than what is left of the spend. */
  readonly amount: number
  readonly reason: string
  readonly traceId: string
  /**
   * The property the refunded Credit was for, when it was one of several (a batch entry). Without it the refund
   * names what its Spend was spent on (the Portal's usage: a refund names the one it refunds).
   */
  readonly subject?: string | undefined
}

/**
 * What a refund without a property of its own names: what its Spend was spent on, less what the Spend's earlier
 * refunds named (one each: a batch's entries refunded one by one, then the rest at a stop, name each address once).
 */
export const refundSubjects = (
  spent: ReadonlyArray<string>,
  refunded: ReadonlyArray<ReadonlyArray<string>>
): Array<string> => {
  const left = [...spent]
  for (const subject of refunded.flat()) {
    const at = left.indexOf(subject)
    if (at >= 0) left.splice(at, 1)
  }
  return left
}

export interface Refund {
  readonly refundId: number
  readonly spendId: number
  readonly amount: number
  readonly balanceAfter: number
}

export interface LedgerEntry {
  readonly id: number
  readonly accountId: string
  readonly kind: "grant" | "spend" | "refund"
  readonly amount: number
  readonly refundOf: number | null
  readonly traceId: string | null
  readonly createdAt: Date
  /** What a Spend paid for: the operation and how many properties; null on grants and refunds. */
  readonly operation: MeteredOperation | null
  readonly units: number | null
  /** A refund's reason (a problem slug, or the sweeper's), a grant's note; null on spends. */
  readonly detail: string | null
  /** What a Spend paid for (each property's address as sent), or the property a refund was for; or none. */
  readonly subjects: ReadonlyArray<string>
}

/** Which of an Account's entries to read, newest first (the Portal's usage pages and CSV export). */
export interface StatementQuery {
  /** Entries made at or after this instant. */
  readonly from?: Date | undefined
  /** Entries made before this instant. */
  readonly until?: Date | undefined
  readonly kind?: LedgerEntry["kind"] | undefined
  /** Keyset paging: only entries with a smaller id than this one (older). */
  readonly beforeId?: number | undefined
  readonly limit: number
}

/** One UTC day's Credits by kind. */
export interface DailyTotal {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string
  readonly spent: number
  readonly refunded: number
  readonly granted: number
}

/**
 * Which open Spends a node's sweeper may refund: those past their settle-by time that no live node answers
 * for. A node answers for its own Spends whose calls produced an answer not yet settled (`answered`: it keeps
 * settling them until the Ledger takes it); another node answers for its own while it is seen alive.
 */
export interface OverdueQuery {
  /** Epoch milliseconds, service clock. */
  readonly now: number
  readonly limit: number
  /** The sweeping node. */
  readonly nodeId: string
  /** This node's answered Spends still being settled: never overdue. */
  readonly answered: ReadonlyArray<number>
  /**
   * Set once the sweeping node has itself been seen alive for a whole lease: another node's Spends are
   * overdue too when that node has not been seen since this time (presumed dead), or never was. Unset, only
   * this node's own Spends are judged (after an outage every node gets a lease to be seen again).
   */
  readonly othersSilentSince: number | undefined
  /**
   * Attempts the sweeping node gave up on (`abandon`): an open Spend recorded under one of them is overdue at
   * once, whatever its settle-by time.
   */
  readonly gaveUp: ReadonlyArray<string>
}

/** An app the account holder connected by signing in (OAuth), as its access token shows it. */
export interface ConnectedApp {
  readonly accountId: string
  readonly connectionId: string
  readonly clientId: string
  /** The token's audience (RFC 8707 resource). */
  readonly resource: string
  readonly expiresAt: Date
  readonly tier: Tier
  readonly rateLimitPerMinute: number | null
  /** The current Terms of Service version when the Account has not accepted it; null when it has. */
  readonly pendingTerms: string | null
}

/**
 * Every step ends in time (`src/services/storage.ts`): with its result, or `LedgerUnreachable` when the
 * Ledger cannot be reached, fails, or does not answer.
 */
/**
 * What `ledger-unreachable` says. A Spend whose statement the database took after all (delivered late, after
 * a stall) is refunded by the sweeper's first round once the database answers again (`abandon`): the answer
 * says so (a Credits audit saw the Balance a Credit lower for a while, after "nothing was charged").
 */
export const LEDGER_UNREACHABLE_DETAIL = "The Ledger did not answer in time, so the call did not run and is not " +
  "charged. Retry later. If the database recorded the Spend after all, it is refunded within seconds of the " +
  "database answering again; until then the Balance shows it."

/**
 * What a 402 says, for every Ledger: the cost and the Balance, that nothing was charged, and what to do next
 * (an agent audit: "costs 4 Credits; the Balance is 3" left it to guess).
 */
export const insufficientCreditsDetail = (cost: number, balance: number) =>
  `The call costs ${cost} Credit${cost === 1 ? "" : "s"}; the Balance is ${balance}. Nothing was charged: ` +
  "add Credits to the Account (its operator grants them)" +
  (cost > 1 && balance > 0 ? `, or send at most ${balance} properties in one batch.` : ".")

/** What a refusal over the Account's daily spend cap says, for every Ledger. */
export const spendCapDetail = (cap: number, remainingToday: number) =>
  `This call would take the Credits spent today (UTC) past the Account's daily cap of ${cap}. Nothing was ` +
  "charged: " +
  (remainingToday > 0
    ? `${remainingToday} Credit${remainingToday === 1 ? " is" : "s are"} left of it today, so send at most ` +
      `${remainingToday} propert${remainingToday === 1 ? "y" : "ies"} in one batch; or retry after midnight UTC, ` +
      "or ask the Account's operator to raise the cap."
    : "retry after midnight UTC, or ask the Account's operator to raise the cap.")

/** What a cap leaves to spend today: never below nothing (a cap lowered below today's spending). */
export const remainingUnderCap = (cap: number, spentToday: number) => Math.max(0, cap - spentToday)

export class Ledger extends Context.Tag("propscore/Ledger")<Ledger, {
  /**
   * Records a Spend, or refuses it with nothing recorded: `InsufficientCredits` when the Balance cannot
   * cover the cost, `SpendCapExceeded` when the Account's daily cap would be passed, `LedgerUnreachable`
   * when the Ledger does not answer.
   */
  readonly spend: (
    request: SpendRequest
  ) => Effect.Effect<Spend, InsufficientCredits | SpendCapExceeded | LedgerUnreachable>
  /** Returns Credits of a recorded Spend. */
  readonly refund: (request: RefundRequest) => Effect.Effect<Refund, LedgerUnreachable>
  /**
   * Returns whatever of an open Spend has not been refunded yet, and settles it; the amount returned (0
   * when nothing is left or the Spend was already settled: answered, or refunded by another node). Safe
   * to repeat and to race: it is decided under the Account's lock.
   */
  readonly refundRemaining: (
    spendId: number,
    reason: string,
    traceId: string
  ) => Effect.Effect<number, LedgerUnreachable>
  /** Marks a Spend's call as answered: the sweeper leaves it alone. Idempotent. */
  readonly settle: (spendId: number) => Effect.Effect<void, LedgerUnreachable>
  /**
   * Records attempts (`SpendRequest.attemptId`, `ClaimRequest.claimId`) whose callers gave up on the
   * database's answer: a Spend or a claim that arrives under one of them afterwards is not recorded (where
   * the idempotency store shares the Ledger's database, it reads the same record). Records older than a day
   * are forgotten on the way: by then any statement has long arrived or been cut.
   */
  readonly abandon: (attemptIds: ReadonlyArray<string>, now: number) => Effect.Effect<void, LedgerUnreachable>
  /** Open Spends a sweeper may refund now (`OverdueQuery`), oldest first, at most `limit`. */
  readonly overdue: (query: OverdueQuery) => Effect.Effect<ReadonlyArray<number>, LedgerUnreachable>
  /** Notes that a node is alive at `now` (epoch milliseconds, its service clock). */
  readonly heartbeat: (nodeId: string, now: number) => Effect.Effect<void, LedgerUnreachable>
  /** Forgets nodes not seen since `before` that hold no open Spend; returns how many. */
  readonly forgetNodes: (before: number) => Effect.Effect<number, LedgerUnreachable>
  /**
   * The one Ledger read a connected app's call makes to confirm its approval (VAL-3): the access token
   * (by its SHA-256) with its connection, when neither is revoked or disconnected; none otherwise. Expiry
   * is the caller's to judge, on its own clock.
   */
  readonly confirmConnection: (
    accessTokenSha256: Uint8Array
  ) => Effect.Effect<Option.Option<ConnectedApp>, LedgerUnreachable>
  readonly balance: (accountId: string) => Effect.Effect<number, LedgerUnreachable>
  /** An Account's Balance with its daily spend cap and what counts against it today (UTC), in one read. */
  readonly standing: (accountId: string) => Effect.Effect<AccountStanding, LedgerUnreachable>
  readonly entries: (accountId: string) => Effect.Effect<ReadonlyArray<LedgerEntry>, LedgerUnreachable>
  /** An Account's entries matching `query`, newest first, at most `query.limit`. */
  readonly statement: (
    accountId: string,
    query: StatementQuery
  ) => Effect.Effect<ReadonlyArray<LedgerEntry>, LedgerUnreachable>
  /** An Account's Credits per UTC day in [from, until), for the days that have entries, oldest first. */
  readonly dailyTotals: (
    accountId: string,
    from: Date,
    until: Date
  ) => Effect.Effect<ReadonlyArray<DailyTotal>, LedgerUnreachable>
}>() {}

/** What an Account may still spend: its Balance, and its daily spend cap with today's use of it. */
export interface AccountStanding {
  readonly balance: number
  /** Credits per UTC day, null when the Account has no cap. */
  readonly dailySpendCap: number | null
  /**
   * What counts against the cap today (UTC): the day's Spends less the Refunds made today (a Refund today of a
   * Spend of yesterday gives room back today, so this may be below zero).
   */
  readonly spentToday: number
}

/** The UTC day (`YYYY-MM-DD`) of an instant. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10)
