/**
 * The Ledger on PostgreSQL (or the embedded PGlite). Every change locks the Account's row, appends its
 * entry and moves the balance column in one transaction; the database's check keeps the balance at zero or
 * above, so a race can never overdraw an Account. Every step runs under the storage deadlines
 * (`DatabaseHealth.guard`); any database failure is `ledger-unreachable`.
 */
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option } from "effect"
import { InsufficientCredits, LedgerUnreachable, SpendCapExceeded } from "../../schema/problems.js"
import { DatabaseHealth } from "../../src/db/health.js"
import { pendingTermsVersion, type Tier } from "../../src/services/accounts.js"
import {
  type ConnectedApp,
  type DailyTotal,
  insufficientCreditsDetail,
  Ledger,
  LEDGER_UNREACHABLE_DETAIL,
  type LedgerEntry,
  refundSubjects,
  remainingUnderCap,
  spendCapDetail,
  type SpendRequest
} from "../../src/services/ledger.js"

interface EntryRow {
  readonly id: number
  readonly account_id: string
  readonly kind: LedgerEntry["kind"]
  readonly amount: number
  readonly refund_of: number | null
  readonly trace_id: string | null
  readonly created_at: Date
  readonly operation: LedgerEntry["operation"]
  readonly units: number | null
  readonly detail: string | null
  readonly subjects: ReadonlyArray<string> | null
}

const toEntry = (row: EntryRow): LedgerEntry => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind,
  amount: row.amount,
  refundOf: row.refund_of,
  traceId: row.trace_id,
  createdAt: row.created_at,
  operation: row.operation,
  units: row.units,
  detail: row.detail,
  subjects: row.subjects ?? []
})

const unreachable = (error: unknown) =>
  Effect.zipRight(
    Effect.logWarning("ledger unreachable", error),
    Effect.fail(new LedgerUnreachable({ detail: LEDGER_UNREACHABLE_DETAIL }))
  )

/**
 * A Spend as the common table expressions of one statement (`price`, `today`, `debited`, `entry`,
 * `opened`): the price from the price book, the debit guarded by the balance and the daily cap (judged on
 * the Account row, re-checked by PostgreSQL on the newest row version when Spends race) and by `onlyIf`,
 * the entry, and its open mark. `debited` and `entry` have a row when it was recorded, none when refused.
 * The Ledger's own Spend uses it, and so does a claim made with its Spend in one statement (layers/joint).
 */
export const spendSteps = (sql: SqlClient.SqlClient, request: SpendRequest, onlyIf: Statement.Fragment) =>
  sql`price AS (
      SELECT credits_per_unit * ${request.units}::bigint AS cost FROM price_book WHERE operation = ${request.operation}
    ), today AS (
      SELECT (now() AT TIME ZONE 'UTC')::date AS day
    ), debited AS (
      UPDATE accounts a
      SET balance = a.balance - price.cost,
          spent_on_day = CASE WHEN a.spend_day = today.day THEN a.spent_on_day ELSE 0 END + price.cost,
          spend_day = today.day
      FROM price, today
      WHERE a.id = ${request.accountId} AND a.balance >= price.cost
        AND (a.daily_spend_cap IS NULL
          OR CASE WHEN a.spend_day = today.day THEN a.spent_on_day ELSE 0 END + price.cost <= a.daily_spend_cap)
        AND NOT ${abandonedAttempt(sql, request.attemptId)}
        AND ${onlyIf}
      RETURNING a.balance, price.cost
    ), entry AS (
      INSERT INTO ledger_entries (account_id, kind, amount, operation, units, trace_id, subjects)
      SELECT ${request.accountId}, 'spend', cost, ${request.operation}, ${request.units}, ${request.traceId},
        ${request.subjects}::text[] FROM debited
      RETURNING id, amount
    ), opened AS (
      INSERT INTO open_spends (spend_id, settle_by, node_id, attempt_id)
      SELECT id, ${request.settleBy}, ${request.nodeId}, ${request.attemptId} FROM entry
    )`

/**
 * True when the attempt's caller gave up on it (`Ledger.abandon`): a statement delivered after that, late,
 * records nothing. Read by the Spend and by the idempotency store's claims (layers/idempotency, joint-steps).
 */
export const abandonedAttempt = (sql: SqlClient.SqlClient, attemptId: string) =>
  sql`EXISTS (SELECT 1 FROM abandoned_attempts WHERE attempt_id = ${attemptId})`

/** How long an abandoned attempt is remembered: far longer than any statement is held on the way. */
export const ABANDONED_RETENTION_MILLIS = 24 * 60 * 60 * 1000

export const LedgerPg = Layer.effect(
  Ledger,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { guard } = yield* DatabaseHealth
    /** One step of the Ledger: under the storage deadlines, its database failures `ledger-unreachable`. */
    const step = (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      guard(name)(effect).pipe(
        Effect.catchIf(
          (error): error is Extract<typeof error, { readonly _tag: "StorageUnavailable" }> =>
            (error as { readonly _tag?: unknown })._tag === "StorageUnavailable",
          unreachable
        )
      )
    const entryColumns = sql.literal(
      "id, account_id, kind, amount, refund_of, trace_id, created_at, operation, units, COALESCE(reason, note) AS detail, " +
        "subjects"
    )

    // One statement, one round trip (see `spendSteps`). No Spend: refused, and nothing was recorded; or the
    // statement arrived after its caller gave up on it (`abandon`), and nobody waits for this answer.
    const spendOrRefuse = Effect.fnUntraced(function*(request: SpendRequest) {
      const [spent] = yield* sql<
        { id: number | null; amount: number | null; balance: number | null; abandoned: boolean }
      >`
        WITH ${spendSteps(sql, request, sql`TRUE`)}
        SELECT (SELECT id FROM entry) AS id, (SELECT amount FROM entry) AS amount,
               (SELECT balance FROM debited) AS balance,
               ${abandonedAttempt(sql, request.attemptId)} AS abandoned`
      if (spent!.id !== null) {
        return {
          spendId: spent!.id,
          accountId: request.accountId,
          amount: spent!.amount!,
          balanceAfter: spent!.balance!,
          attemptId: request.attemptId
        }
      }
      if (spent!.abandoned) return yield* new LedgerUnreachable({ detail: LEDGER_UNREACHABLE_DETAIL })
      return yield* refusal(request)
    })

    /** Why a Spend was refused (read after the fact: the figures are for the message only). */
    const refusal = (request: SpendRequest) =>
      Effect.gen(function*() {
        const [account] = yield* sql<
          { balance: number; daily_spend_cap: number | null; spent_today: number; cost: number | null }
        >`
          SELECT a.balance, a.daily_spend_cap,
            CASE WHEN a.spend_day = (now() AT TIME ZONE 'UTC')::date THEN a.spent_on_day ELSE 0 END AS spent_today,
            (SELECT credits_per_unit * ${request.units}::bigint FROM price_book WHERE operation = ${request.operation}) AS cost
          FROM accounts a WHERE a.id = ${request.accountId}`
        if (!account) return yield* Effect.die(new Error(`spend for unknown account ${request.accountId}`))
        if (account.cost === null) return yield* Effect.die(new Error(`no price for ${request.operation}`))
        const cost = account.cost
        if (account.daily_spend_cap !== null && account.spent_today + cost > account.daily_spend_cap) {
          const remaining = remainingUnderCap(account.daily_spend_cap, account.spent_today)
          return yield* new SpendCapExceeded({
            detail: spendCapDetail(account.daily_spend_cap, remaining),
            spend_cap: account.daily_spend_cap,
            remaining_today: remaining
          })
        }
        return yield* new InsufficientCredits({
          detail: insufficientCreditsDetail(cost, account.balance),
          balance: account.balance,
          required: cost
        })
      })

    /**
     * Locks the spend's Account and returns the spend with what is left of it, and what a refund without a
     * property of its own names (`refundSubjects`); inside a transaction.
     */
    const lockSpend = (spendId: number) =>
      Effect.gen(function*() {
        const [spent] = yield* sql<{ account_id: string; amount: number; subjects: ReadonlyArray<string> | null }>`
          SELECT account_id, amount, subjects FROM ledger_entries WHERE id = ${spendId} AND kind = 'spend'`
        if (!spent) return yield* Effect.die(new Error(`refund of unknown spend ${spendId}`))
        yield* sql`SELECT 1 FROM accounts WHERE id = ${spent.account_id} FOR UPDATE`
        const refunds = yield* sql<{ amount: number; subjects: ReadonlyArray<string> | null }>`
          SELECT amount, subjects FROM ledger_entries WHERE refund_of = ${spendId}`
        return {
          accountId: spent.account_id,
          left: spent.amount - refunds.reduce((total, refund) => total + refund.amount, 0),
          unrefunded: refundSubjects(spent.subjects ?? [], refunds.map((refund) => refund.subjects ?? []))
        }
      })

    const appendRefund = (
      request: Parameters<Ledger["Type"]["refund"]>[0],
      spent: { readonly accountId: string; readonly unrefunded: ReadonlyArray<string> }
    ) =>
      Effect.gen(function*() {
        const accountId = spent.accountId
        const subjects = request.subject === undefined ? spent.unrefunded : [request.subject]
        const [entry] = yield* sql<{ id: number }>`
          INSERT INTO ledger_entries (account_id, kind, amount, refund_of, trace_id, reason, subjects)
          VALUES (${accountId}, 'refund', ${request.amount}, ${request.spendId}, ${request.traceId}, ${request.reason},
            ${subjects}::text[])
          RETURNING id`
        // A refund gives room back under the daily cap on the day it is made.
        const [updated] = yield* sql<{ balance: number }>`
          UPDATE accounts
          SET balance = balance + ${request.amount},
              spent_on_day = CASE WHEN spend_day = (now() AT TIME ZONE 'UTC')::date THEN spent_on_day ELSE 0 END - ${request.amount},
              spend_day = (now() AT TIME ZONE 'UTC')::date
          WHERE id = ${accountId} RETURNING balance`
        return { refundId: entry!.id, spendId: request.spendId, amount: request.amount, balanceAfter: updated!.balance }
      })

    const refundOnce = Effect.fnUntraced(function*(request: Parameters<Ledger["Type"]["refund"]>[0]) {
      return yield* sql.withTransaction(Effect.gen(function*() {
        const spent = yield* lockSpend(request.spendId)
        if (request.amount <= 0 || request.amount > spent.left) {
          return yield* Effect.die(
            new Error(
              `refund of ${request.amount} exceeds what is left of spend ${request.spendId} (${spent.left})`
            )
          )
        }
        return yield* appendRefund(request, spent)
      }))
    })

    // Only an open Spend: one settled meanwhile (answered, or refunded by another node) is left alone.
    const refundWhatIsLeft = Effect.fnUntraced(
      function*(spendId: number, reason: string, traceId: string) {
        return yield* sql.withTransaction(Effect.gen(function*() {
          const spent = yield* lockSpend(spendId)
          const settled = yield* sql`DELETE FROM open_spends WHERE spend_id = ${spendId} RETURNING spend_id`
          if (settled.length === 0 || spent.left <= 0) return 0
          yield* appendRefund({ spendId, amount: spent.left, reason, traceId }, spent)
          return spent.left
        }))
      }
    )

    return Ledger.of({
      spend: (request) => spendOrRefuse(request).pipe(step("Ledger.spend")),
      refund: (request) => refundOnce(request).pipe(step("Ledger.refund")),
      refundRemaining: (spendId, reason, traceId) =>
        refundWhatIsLeft(spendId, reason, traceId).pipe(step("Ledger.refundRemaining")),
      settle: (spendId) =>
        sql`DELETE FROM open_spends WHERE spend_id = ${spendId}`.pipe(Effect.asVoid, step("Ledger.settle")),
      abandon: (attemptIds, now) =>
        sql`
          WITH forgotten AS (
            DELETE FROM abandoned_attempts WHERE abandoned_at < ${now - ABANDONED_RETENTION_MILLIS}
          )
          INSERT INTO abandoned_attempts (attempt_id, abandoned_at)
          SELECT unnest(${attemptIds}::text[]), ${now}
          ON CONFLICT (attempt_id) DO NOTHING`.pipe(Effect.asVoid, step("Ledger.abandon")),
      // A node's own Spends, unless it answered them; another node's once it has gone silent (or never
      // said it was alive: Spends recorded before 0013 have no node). A Spend of an attempt the node gave up
      // on at once.
      overdue: (query) =>
        sql<{ spend_id: number }>`
          SELECT o.spend_id FROM open_spends o LEFT JOIN ledger_nodes n ON n.node_id = o.node_id
          WHERE (o.settle_by < ${query.now}
            AND CASE
              WHEN o.node_id = ${query.nodeId} THEN NOT (o.spend_id = ANY (${query.answered}::bigint[]))
              ELSE ${query.othersSilentSince ?? null}::bigint IS NOT NULL
                AND (n.seen_at IS NULL OR n.seen_at < ${query.othersSilentSince ?? null}::bigint)
            END)
            OR o.attempt_id = ANY (${query.gaveUp}::text[])
          ORDER BY o.settle_by LIMIT ${query.limit}`.pipe(
          Effect.map((rows) => rows.map((row) => row.spend_id)),
          step("Ledger.overdue")
        ),
      heartbeat: (nodeId, now) =>
        sql`
          INSERT INTO ledger_nodes (node_id, seen_at) VALUES (${nodeId}, ${now})
          ON CONFLICT (node_id) DO UPDATE SET seen_at = GREATEST(ledger_nodes.seen_at, EXCLUDED.seen_at)`.pipe(
          Effect.asVoid,
          step("Ledger.heartbeat")
        ),
      forgetNodes: (before) =>
        sql`
          DELETE FROM ledger_nodes n WHERE n.seen_at < ${before}
            AND NOT EXISTS (SELECT 1 FROM open_spends o WHERE o.node_id = n.node_id)
          RETURNING 1`.pipe(Effect.map((rows) => rows.length), step("Ledger.forgetNodes")),
      confirmConnection: (accessTokenSha256) =>
        sql<{
          account_id: string
          connection_id: string
          client_id: string
          resource: string
          expires_at: Date
          tier: Tier
          rate_limit_per_minute: number | null
          accepted_terms_version: string | null
          current_terms_version: string | null
        }>`
          SELECT c.account_id, t.connection_id, t.client_id, t.resource, t.expires_at, a.tier,
                 a.rate_limit_per_minute, a.accepted_terms_version,
                 (SELECT version FROM terms_versions ORDER BY seq DESC LIMIT 1) AS current_terms_version
          FROM oauth_tokens t
          JOIN oauth_connections c ON c.id = t.connection_id
          JOIN accounts a ON a.id = c.account_id
          WHERE t.token_sha256 = ${accessTokenSha256} AND t.kind = 'access'
            AND t.revoked_at IS NULL AND c.disconnected_at IS NULL`.pipe(
          Effect.map((rows) =>
            Option.map(Option.fromNullable(rows[0]), (row): ConnectedApp => ({
              accountId: row.account_id,
              connectionId: row.connection_id,
              clientId: row.client_id,
              resource: row.resource,
              expiresAt: row.expires_at,
              tier: row.tier,
              rateLimitPerMinute: row.rate_limit_per_minute,
              pendingTerms: pendingTermsVersion(row.current_terms_version, row.accepted_terms_version)
            }))
          ),
          step("Ledger.confirmConnection")
        ),
      balance: (accountId) =>
        sql<{ balance: number }>`SELECT balance FROM accounts WHERE id = ${accountId}`.pipe(
          Effect.map((rows) => rows[0]?.balance ?? 0),
          step("Ledger.balance")
        ),
      standing: (accountId) =>
        sql<{ balance: number; daily_spend_cap: number | null; spent_today: number }>`
          SELECT balance, daily_spend_cap,
            CASE WHEN spend_day = (now() AT TIME ZONE 'UTC')::date THEN spent_on_day ELSE 0 END AS spent_today
          FROM accounts WHERE id = ${accountId}`.pipe(
          Effect.map((rows) => ({
            balance: rows[0]?.balance ?? 0,
            dailySpendCap: rows[0]?.daily_spend_cap ?? null,
            spentToday: Number(rows[0]?.spent_today ?? 0)
          })),
          step("Ledger.standing")
        ),
      entries: (accountId) =>
        sql<EntryRow>`
          SELECT ${entryColumns} FROM ledger_entries WHERE account_id = ${accountId} ORDER BY id`.pipe(
          Effect.map((rows) => rows.map(toEntry)),
          step("Ledger.entries")
        ),
      statement: (accountId, query) =>
        sql<EntryRow>`
          SELECT ${entryColumns} FROM ledger_entries
          WHERE ${
          sql.and([
            sql`account_id = ${accountId}`,
            ...(query.from ? [sql`created_at >= ${query.from}`] : []),
            ...(query.until ? [sql`created_at < ${query.until}`] : []),
            ...(query.kind ? [sql`kind = ${query.kind}`] : []),
            ...(query.beforeId !== undefined ? [sql`id < ${query.beforeId}`] : [])
          ])
        }
          ORDER BY id DESC LIMIT ${query.limit}`.pipe(
          Effect.map((rows) => rows.map(toEntry)),
          step("Ledger.statement")
        ),
      dailyTotals: (accountId, from, until) =>
        sql<DailyTotal>`
          SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
                 COALESCE(SUM(amount) FILTER (WHERE kind = 'spend'), 0)::bigint AS spent,
                 COALESCE(SUM(amount) FILTER (WHERE kind = 'refund'), 0)::bigint AS refunded,
                 COALESCE(SUM(amount) FILTER (WHERE kind = 'grant'), 0)::bigint AS granted
          FROM ledger_entries
          WHERE account_id = ${accountId} AND created_at >= ${from} AND created_at < ${until}
          GROUP BY 1 ORDER BY 1`.pipe(step("Ledger.dailyTotals"))
    })
  })
)
