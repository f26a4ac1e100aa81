/**
 * The Ledger in memory, for the test harness: the same rules as the PostgreSQL Ledger (price book, daily
 * cap on the UTC day of the Effect Clock, no overdraft, refunds never past their spend), plus switches
 * that make it fail the way a real Ledger can: unreachable, stalled, or failing after the Spend is recorded.
 */
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { InsufficientCredits, LedgerUnreachable, SpendCapExceeded } from "../../schema/problems.js"
import { Ledger, type LedgerEntry, type MeteredOperation, utcDay } from "../../src/services/ledger.js"

/** The members an entry that pays for no call (a grant, a refund) leaves empty. */
const noCall = { operation: null, units: null } as const

export interface LedgerFaults {
  /** Every call fails with `ledger-unreachable` and records nothing. */
  readonly unreachable: boolean
  /** Every call waits forever (until interrupted). */
  readonly stalled: boolean
  /** A spend is recorded, then the call fails with `ledger-unreachable`: the caller cannot know it was. */
  readonly failAfterSpend: boolean
}

export interface MemoryAccount {
  readonly balance: number
  readonly dailySpendCap?: number | undefined
}

export class LedgerControl extends Context.Tag("test/LedgerControl")<LedgerControl, {
  readonly setFaults: (faults: Partial<LedgerFaults>) => Effect.Effect<void>
  readonly grant: (accountId: string, amount: number) => Effect.Effect<void>
  /** Every entry of every account. */
  readonly allEntries: Effect.Effect<ReadonlyArray<LedgerEntry>>
}>() {}

export const defaultPrices: Record<MeteredOperation, number> = { predict: 1, batch: 1, history: 1 }

const unreachable = () =>
  new LedgerUnreachable({ detail: "The Ledger did not answer; nothing was charged. Retry later." })

export const LedgerMemory = (accounts: Record<string, MemoryAccount>, prices = defaultPrices) =>
  Layer.effectContext(Effect.gen(function*() {
    const state = yield* Ref.make({
      faults: { unreachable: false, stalled: false, failAfterSpend: false } as LedgerFaults,
      caps: new Map(Object.entries(accounts).map(([id, account]) => [id, account.dailySpendCap])),
      entries: [] as Array<LedgerEntry>,
      /** Open spends and their settle-by times. */
      open: new Map<number, number>()
    })
    let nextId = 1
    const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
    const append = (entry: Omit<LedgerEntry, "id" | "createdAt">) =>
      Effect.flatMap(now, (createdAt) =>
        Ref.modify(state, (s) => {
          const full = { ...entry, id: nextId++, createdAt }
          return [full, { ...s, entries: [...s.entries, full] }]
        }))
    const balanceOf = (entries: ReadonlyArray<LedgerEntry>, accountId: string) =>
      entries.filter((e) => e.accountId === accountId).reduce(
        (sum, e) => sum + (e.kind === "spend" ? -e.amount : e.amount),
        0
      )
    const guard = Effect.gen(function*() {
      const { faults } = yield* Ref.get(state)
      if (faults.stalled) return yield* Effect.never
      if (faults.unreachable) return yield* Effect.fail(unreachable())
    })
    for (const [accountId, account] of Object.entries(accounts)) {
      if (account.balance > 0) {
        yield* append({
          ...noCall,
          accountId,
          kind: "grant",
          amount: account.balance,
          refundOf: null,
          traceId: null,
          detail: "initial grant"
        })
      }
    }

    const ledger = Ledger.of({
      spend: (request) =>
        Effect.gen(function*() {
          yield* guard
          const s = yield* Ref.get(state)
          const cost = prices[request.operation] * request.units
          const balance = balanceOf(s.entries, request.accountId)
          const cap = s.caps.get(request.accountId)
          if (cap !== undefined) {
            const dayStart = Math.floor((yield* Clock.currentTimeMillis) / 86_400_000) * 86_400_000
            const today = s.entries
              .filter((e) => e.accountId === request.accountId && e.createdAt.getTime() >= dayStart)
              .reduce((sum, e) => sum + (e.kind === "spend" ? e.amount : e.kind === "refund" ? -e.amount : 0), 0)
            if (today + cost > cap) {
              return yield* new SpendCapExceeded({
                detail: `The daily cap of ${cap} Credits would be passed.`,
                spend_cap: cap
              })
            }
          }
          if (balance < cost) {
            return yield* new InsufficientCredits({
              detail: `The call costs ${cost}; the Balance is ${balance}.`,
              balance,
              required: cost
            })
          }
          const entry = yield* append({
            accountId: request.accountId,
            kind: "spend",
            amount: cost,
            refundOf: null,
            traceId: request.traceId,
            operation: request.operation,
            units: request.units,
            detail: null
          })
          yield* Ref.update(state, (s) => ({ ...s, open: new Map(s.open).set(entry.id, request.settleBy) }))
          if ((yield* Ref.get(state)).faults.failAfterSpend) return yield* Effect.fail(unreachable())
          return { spendId: entry.id, accountId: request.accountId, amount: cost, balanceAfter: balance - cost }
        }),
      refund: (request) =>
        Effect.gen(function*() {
          yield* guard
          const s = yield* Ref.get(state)
          const spent = s.entries.find((e) => e.id === request.spendId && e.kind === "spend")
          if (!spent) return yield* Effect.die(new Error(`refund of unknown spend ${request.spendId}`))
          const refunded = s.entries.filter((e) => e.refundOf === request.spendId).reduce((sum, e) => sum + e.amount, 0)
          if (request.amount <= 0 || refunded + request.amount > spent.amount) {
            return yield* Effect.die(
              new Error(`refund of ${request.amount} exceeds what is left of spend ${request.spendId}`)
            )
          }
          const entry = yield* append({
            ...noCall,
            accountId: spent.accountId,
            kind: "refund",
            amount: request.amount,
            refundOf: request.spendId,
            traceId: request.traceId,
            detail: request.reason
          })
          return {
            refundId: entry.id,
            spendId: request.spendId,
            amount: request.amount,
            balanceAfter: balanceOf((yield* Ref.get(state)).entries, spent.accountId)
          }
        }),
      refundRemaining: (spendId, reason, traceId) =>
        Effect.gen(function*() {
          yield* guard
          const s = yield* Ref.get(state)
          const spent = s.entries.find((e) => e.id === spendId && e.kind === "spend")
          const refunded = s.entries.filter((e) => e.refundOf === spendId).reduce((sum, e) => sum + e.amount, 0)
          const remaining = spent ? spent.amount - refunded : 0
          // Only an open Spend: one settled meanwhile is left alone.
          if (!s.open.has(spendId)) return 0
          yield* ledger.settle(spendId)
          if (remaining > 0) yield* ledger.refund({ spendId, amount: remaining, reason, traceId })
          return Math.max(remaining, 0)
        }),
      settle: (spendId) =>
        Effect.zipRight(
          guard,
          Ref.update(state, (s) => {
            const open = new Map(s.open)
            open.delete(spendId)
            return { ...s, open }
          })
        ),
      overdue: (now, limit) =>
        Effect.zipRight(
          guard,
          Effect.map(Ref.get(state), (s) =>
            [...s.open].filter(([, settleBy]) =>
              settleBy < now
            ).sort((a, b) => a[1] - b[1]).slice(0, limit).map(([id]) =>
              id
            ))
        ),
      // No app is ever connected to the in-memory Ledger: the sign-in flow runs on PostgreSQL only.
      confirmConnection: () => Effect.as(guard, Option.none()),
      balance: (accountId) =>
        Effect.zipRight(guard, Effect.map(Ref.get(state), (s) => balanceOf(s.entries, accountId))),
      entries: (accountId) =>
        Effect.zipRight(guard, Effect.map(Ref.get(state), (s) => s.entries.filter((e) => e.accountId === accountId))),
      statement: (accountId, query) =>
        Effect.zipRight(
          guard,
          Effect.map(Ref.get(state), (s) =>
            s.entries
              .filter((e) =>
                e.accountId === accountId &&
                (query.from === undefined || e.createdAt >= query.from) &&
                (query.until === undefined || e.createdAt < query.until) &&
                (query.kind === undefined || e.kind === query.kind) &&
                (query.beforeId === undefined || e.id < query.beforeId)
              )
              .reverse()
              .slice(0, query.limit))
        ),
      dailyTotals: (accountId, from, until) =>
        Effect.zipRight(
          guard,
          Effect.map(Ref.get(state), (s) => {
            const days = new Map<string, { spent: number; refunded: number; granted: number }>()
            for (const e of s.entries) {
              if (e.accountId !== accountId || e.createdAt < from || e.createdAt >= until) continue
              const key = utcDay(e.createdAt)
              const day = days.get(key) ?? { spent: 0, refunded: 0, granted: 0 }
              days.set(key, {
                spent: day.spent + (e.kind === "spend" ? e.amount : 0),
                refunded: day.refunded + (e.kind === "refund" ? e.amount : 0),
                granted: day.granted + (e.kind === "grant" ? e.amount : 0)
              })
            }
            return [...days].sort(([a], [b]) => a.localeCompare(b)).map(([day, totals]) => ({ day, ...totals }))
          })
        )
    })
    const control = LedgerControl.of({
      setFaults: (faults) => Ref.update(state, (s) => ({ ...s, faults: { ...s.faults, ...faults } })),
      grant: (accountId, amount) =>
        Effect.asVoid(
          append({
            ...noCall,
            accountId,
            kind: "grant",
            amount,
            refundOf: null,
            traceId: null,
            detail: "operator grant"
          })
        ),
      allEntries: Effect.map(Ref.get(state), (s) => s.entries)
    })
    return Context.make(Ledger, ledger).pipe(Context.add(LedgerControl, control))
  }))
