/**
 * The Ledger on PostgreSQL (or the embedded PGlite). Every change locks the Account's row, appends its
 * entry and moves the balance column in one transaction; the database's check keeps the balance at zero or
 * above, so a race can never overdraw an Account. Any database failure is `ledger-unreachable`.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { InsufficientCredits, LedgerUnreachable, SpendCapExceeded } from "../../schema/problems.js"
import { Ledger, type LedgerEntry } from "../../src/services/ledger.js"

const unreachable = (error: unknown) =>
  Effect.zipRight(
    Effect.logWarning("ledger unreachable", error),
    Effect.fail(new LedgerUnreachable({ detail: "The Ledger did not answer; nothing was charged. Retry later." }))
  )

export const LedgerPg = Layer.effect(
  Ledger,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const spend = Effect.fn("Ledger.spend")(function*(request: Parameters<Ledger["Type"]["spend"]>[0]) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [account] = yield* sql<{ balance: number; daily_spend_cap: number | null }>`
          SELECT balance, daily_spend_cap FROM accounts WHERE id = ${request.accountId} FOR UPDATE`
        if (!account) return yield* Effect.die(new Error(`spend for unknown account ${request.accountId}`))
        const [price] = yield* sql<{ credits_per_unit: number }>`
          SELECT credits_per_unit FROM price_book WHERE operation = ${request.operation}`
        if (!price) return yield* Effect.die(new Error(`no price for ${request.operation}`))
        const cost = price.credits_per_unit * request.units
        if (account.daily_spend_cap !== null) {
          const [today] = yield* sql<{ spent: number }>`
            SELECT COALESCE(SUM(CASE kind WHEN 'spend' THEN amount ELSE -amount END), 0) AS spent
            FROM ledger_entries
            WHERE account_id = ${request.accountId} AND kind IN ('spend', 'refund')
              AND created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`
          if (today!.spent + cost > account.daily_spend_cap) {
            return yield* new SpendCapExceeded({
              detail: `This call would take the Credits spent today (UTC) past the Account's daily cap of ${account.daily_spend_cap}.`,
              spend_cap: account.daily_spend_cap
            })
          }
        }
        if (account.balance < cost) {
          return yield* new InsufficientCredits({
            detail: `The call costs ${cost} Credit${cost === 1 ? "" : "s"}; the Balance is ${account.balance}.`,
            balance: account.balance,
            required: cost
          })
        }
        const [entry] = yield* sql<{ id: number }>`
          INSERT INTO ledger_entries (account_id, kind, amount, operation, units, trace_id)
          VALUES (${request.accountId}, 'spend', ${cost}, ${request.operation}, ${request.units}, ${request.traceId})
          RETURNING id`
        const [updated] = yield* sql<{ balance: number }>`
          UPDATE accounts SET balance = balance - ${cost} WHERE id = ${request.accountId} RETURNING balance`
        yield* sql`INSERT INTO open_spends (spend_id, settle_by) VALUES (${entry!.id}, ${request.settleBy})`
        return { spendId: entry!.id, accountId: request.accountId, amount: cost, balanceAfter: updated!.balance }
      })).pipe(Effect.catchTag("SqlError", unreachable))
    })

    /** Locks the spend's Account and returns the spend with what is left of it; inside a transaction. */
    const lockSpend = (spendId: number) =>
      Effect.gen(function*() {
        const [spent] = yield* sql<{ account_id: string; amount: number }>`
          SELECT account_id, amount FROM ledger_entries WHERE id = ${spendId} AND kind = 'spend'`
        if (!spent) return yield* Effect.die(new Error(`refund of unknown spend ${spendId}`))
        yield* sql`SELECT 1 FROM accounts WHERE id = ${spent.account_id} FOR UPDATE`
        const [refunded] = yield* sql<{ total: number }>`
          SELECT COALESCE(SUM(amount), 0) AS total FROM ledger_entries WHERE refund_of = ${spendId}`
        return { accountId: spent.account_id, left: spent.amount - refunded!.total }
      })

    const appendRefund = (request: Parameters<Ledger["Type"]["refund"]>[0], accountId: string) =>
      Effect.gen(function*() {
        const [entry] = yield* sql<{ id: number }>`
          INSERT INTO ledger_entries (account_id, kind, amount, refund_of, trace_id, reason)
          VALUES (${accountId}, 'refund', ${request.amount}, ${request.spendId}, ${request.traceId}, ${request.reason})
          RETURNING id`
        const [updated] = yield* sql<{ balance: number }>`
          UPDATE accounts SET balance = balance + ${request.amount} WHERE id = ${accountId} RETURNING balance`
        return { refundId: entry!.id, spendId: request.spendId, amount: request.amount, balanceAfter: updated!.balance }
      })

    const refund = Effect.fn("Ledger.refund")(function*(request: Parameters<Ledger["Type"]["refund"]>[0]) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const spent = yield* lockSpend(request.spendId)
        if (request.amount <= 0 || request.amount > spent.left) {
          return yield* Effect.die(new Error(
            `refund of ${request.amount} exceeds what is left of spend ${request.spendId} (${spent.left})`
          ))
        }
        return yield* appendRefund(request, spent.accountId)
      })).pipe(Effect.catchTag("SqlError", unreachable))
    })

    const refundRemaining = Effect.fn("Ledger.refundRemaining")(function*(spendId: number, reason: string, traceId: string) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const spent = yield* lockSpend(spendId)
        if (spent.left > 0) yield* appendRefund({ spendId, amount: spent.left, reason, traceId }, spent.accountId)
        yield* sql`DELETE FROM open_spends WHERE spend_id = ${spendId}`
        return Math.max(spent.left, 0)
      })).pipe(Effect.catchTag("SqlError", unreachable))
    })

    return Ledger.of({
      spend,
      refund,
      refundRemaining,
      settle: (spendId) =>
        sql`DELETE FROM open_spends WHERE spend_id = ${spendId}`.pipe(Effect.asVoid, Effect.catchTag("SqlError", unreachable)),
      overdue: (now, limit) =>
        sql<{ spend_id: number }>`
          SELECT spend_id FROM open_spends WHERE settle_by < ${now} ORDER BY settle_by LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((row) => row.spend_id)),
          Effect.catchTag("SqlError", unreachable)
        ),
      balance: (accountId) =>
        sql<{ balance: number }>`SELECT balance FROM accounts WHERE id = ${accountId}`.pipe(
          Effect.map((rows) => rows[0]?.balance ?? 0),
          Effect.catchTag("SqlError", unreachable)
        ),
      entries: (accountId) =>
        sql<{ id: number; account_id: string; kind: LedgerEntry["kind"]; amount: number; refund_of: number | null; trace_id: string | null; created_at: Date }>`
          SELECT id, account_id, kind, amount, refund_of, trace_id, created_at
          FROM ledger_entries WHERE account_id = ${accountId} ORDER BY id`.pipe(
          Effect.map((rows) =>
            rows.map((row) => ({
              id: row.id,
              accountId: row.account_id,
              kind: row.kind,
              amount: row.amount,
              refundOf: row.refund_of,
              traceId: row.trace_id,
              createdAt: row.created_at
            }))
          ),
          Effect.catchTag("SqlError", unreachable)
        )
    })
  })
)
