/**
 * The Ledger in memory, for the test harness: the same rules as the PostgreSQL Ledger (price book, daily
 * cap on the UTC day of the Effect Clock, no overdraft, refunds never past their spend, the sweep rule over
 * nodes), plus switches that make it fail the way a real Ledger can: unreachable, stalled (until the storage
 * silence limit, on the Effect Clock), failing after the Spend is recorded, or failing only its settles or
 * its refunds.
 */
import { Clock, Context, Effect, Layer, Option, Ref } from "effect"
import { InsufficientCredits, LedgerUnreachable, SpendCapExceeded } from "../../schema/problems.js"
import {
  insufficientCreditsDetail,
  Ledger,
  LEDGER_UNREACHABLE_DETAIL,
  type LedgerEntry,
  type MeteredOperation,
  refundSubjects,
  remainingUnderCap,
  spendCapDetail,
  utcDay
} from "../../src/services/ledger.js"
import { STORAGE_SILENCE_LIMIT } from "../../src/services/storage.js"

/** The members an entry that pays for no call (a grant, a refund) leaves empty. */
const noCall = { operation: null, units: null, subjects: [] } as const

export interface LedgerFaults {
  /** Every call fails with `ledger-unreachable` and records nothing. */
  readonly unreachable: boolean
  /** Every call waits for the storage silence limit, then fails with `ledger-unreachable`. */
  readonly stalled: boolean
  /** A spend is recorded, then the call fails with `ledger-unreachable`: the caller cannot know it was. */
  readonly failAfterSpend: boolean
  /** `settle` fails with `ledger-unreachable` (everything else works). */
  readonly failSettle: boolean
  /** `refund` and `refundRemaining` fail with `ledger-unreachable` (everything else works). */
  readonly failRefund: boolean
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
  /** The Spends still open. */
  readonly openSpends: Effect.Effect<ReadonlyArray<number>>
}>() {}

export const defaultPrices: Record<MeteredOperation, number> = { predict: 1, batch: 1, history: 1 }

const unreachable = () => new LedgerUnreachable({ detail: LEDGER_UNREACHABLE_DETAIL })

interface OpenSpend {
  readonly settleBy: number
  readonly nodeId: string | null
  readonly attemptId: string | null
}

export const LedgerMemory = (accounts: Record<string, MemoryAccount>, prices = defaultPrices) =>
  Layer.effectContext(Effect.gen(function*() {
    const state = yield* Ref.make({
      faults: {
        unreachable: false,
        stalled: false,
        failAfterSpend: false,
        failSettle: false,
        failRefund: false
      } as LedgerFaults,
      caps: new Map(Object.entries(accounts).map(([id, account]) => [id, account.dailySpendCap])),
      entries: [] as Array<LedgerEntry>,
      open: new Map<number, OpenSpend>(),
      /** When each node was last seen alive. */
      nodes: new Map<string, number>(),
      /** Attempts whose callers gave up on them (`abandon`). */
      abandoned: new Set<string>()
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
    /** The switches every call passes first; `only` names the fault that fails just this kind of call. */
    const guard = (only?: "failSettle" | "failRefund") =>
      Effect.gen(function*() {
        const { faults } = yield* Ref.get(state)
        if (faults.stalled) {
          yield* Effect.sleep(STORAGE_SILENCE_LIMIT)
          return yield* Effect.fail(unreachable())
        }
        if (faults.unreachable || (only !== undefined && faults[only])) return yield* Effect.fail(unreachable())
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

    const leftOf = (spendId: number) =>
      Effect.map(Ref.get(state), (s) => {
        const spent = s.entries.find((e) => e.id === spendId && e.kind === "spend")
        const refunds = s.entries.filter((e) => e.refundOf === spendId)
        return {
          spent,
          left: spent ? spent.amount - refunds.reduce((sum, e) => sum + e.amount, 0) : 0,
          // What a refund without a property of its own names (`refundSubjects`).
          unrefunded: spent ? refundSubjects(spent.subjects, refunds.map((e) => e.subjects)) : []
        }
      })

    const appendRefund = (spendId: number, amount: number, reason: string, traceId: string, subject?: string) =>
      Effect.gen(function*() {
        const { left, spent, unrefunded } = yield* leftOf(spendId)
        if (!spent) return yield* Effect.die(new Error(`refund of unknown spend ${spendId}`))
        if (amount <= 0 || amount > left) {
          return yield* Effect.die(new Error(`refund of ${amount} exceeds what is left of spend ${spendId}`))
        }
        const entry = yield* append({
          ...noCall,
          accountId: spent.accountId,
          kind: "refund",
          amount,
          refundOf: spendId,
          traceId,
          detail: reason,
          subjects: subject === undefined ? unrefunded : [subject]
        })
        return {
          refundId: entry.id,
          spendId,
          amount,
          balanceAfter: balanceOf((yield* Ref.get(state)).entries, spent.accountId)
        }
      })

    /** Takes the open mark away; true when the Spend was still open. */
    const close = (spendId: number) =>
      Ref.modify(state, (s) => {
        if (!s.open.has(spendId)) return [false, s]
        const open = new Map(s.open)
        open.delete(spendId)
        return [true, { ...s, open }]
      })

    /** Spends less Refunds made since the UTC day of `now` began (what the daily cap counts). */
    const spentToday = (entries: ReadonlyArray<LedgerEntry>, accountId: string, now: number) => {
      const dayStart = Math.floor(now / 86_400_000) * 86_400_000
      return entries
        .filter((e) => e.accountId === accountId && e.createdAt.getTime() >= dayStart)
        .reduce((sum, e) => sum + (e.kind === "spend" ? e.amount : e.kind === "refund" ? -e.amount : 0), 0)
    }

    const ledger = Ledger.of({
      spend: (request) =>
        Effect.gen(function*() {
          yield* guard()
          const s = yield* Ref.get(state)
          // Arrived after its caller gave up on it: recorded nothing, and nobody waits for the answer.
          if (s.abandoned.has(request.attemptId)) return yield* Effect.fail(unreachable())
          const cost = prices[request.operation] * request.units
          const balance = balanceOf(s.entries, request.accountId)
          const cap = s.caps.get(request.accountId)
          if (cap !== undefined) {
            const today = spentToday(s.entries, request.accountId, yield* Clock.currentTimeMillis)
            if (today + cost > cap) {
              const remaining = remainingUnderCap(cap, today)
              return yield* new SpendCapExceeded({
                detail: spendCapDetail(cap, remaining),
                spend_cap: cap,
                remaining_today: remaining
              })
            }
          }
          if (balance < cost) {
            return yield* new InsufficientCredits({
              detail: insufficientCreditsDetail(cost, balance),
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
            detail: null,
            subjects: request.subjects
          })
          yield* Ref.update(state, (s) => ({
            ...s,
            open: new Map(s.open).set(entry.id, {
              settleBy: request.settleBy,
              nodeId: request.nodeId,
              attemptId: request.attemptId
            })
          }))
          if ((yield* Ref.get(state)).faults.failAfterSpend) return yield* Effect.fail(unreachable())
          return {
            spendId: entry.id,
            accountId: request.accountId,
            amount: cost,
            balanceAfter: balance - cost,
            attemptId: request.attemptId
          }
        }),
      refund: (request) =>
        Effect.zipRight(
          guard("failRefund"),
          appendRefund(request.spendId, request.amount, request.reason, request.traceId, request.subject)
        ),
      refundRemaining: (spendId, reason, traceId) =>
        Effect.gen(function*() {
          yield* guard("failRefund")
          // Only an open Spend: one settled meanwhile is left alone.
          if (!(yield* close(spendId))) return 0
          const { left } = yield* leftOf(spendId)
          if (left > 0) yield* appendRefund(spendId, left, reason, traceId)
          return Math.max(left, 0)
        }),
      settle: (spendId) => Effect.zipRight(guard("failSettle"), Effect.asVoid(close(spendId))),
      abandon: (attemptIds) =>
        Effect.zipRight(
          guard(),
          Ref.update(state, (s) => ({ ...s, abandoned: new Set([...s.abandoned, ...attemptIds]) }))
        ),
      overdue: (query) =>
        Effect.zipRight(
          guard(),
          Effect.map(Ref.get(state), (s) =>
            [...s.open]
              .filter(([spendId, { attemptId, nodeId, settleBy }]) => {
                if (attemptId !== null && query.gaveUp.includes(attemptId)) return true
                if (settleBy >= query.now) return false
                if (nodeId === query.nodeId) return !query.answered.includes(spendId)
                if (query.othersSilentSince === undefined) return false
                const seen = nodeId === null ? undefined : s.nodes.get(nodeId)
                return seen === undefined || seen < query.othersSilentSince
              })
              .sort(([, a], [, b]) => a.settleBy - b.settleBy)
              .slice(0, query.limit)
              .map(([spendId]) => spendId))
        ),
      heartbeat: (nodeId, at) =>
        Effect.zipRight(
          guard(),
          Ref.update(
            state,
            (s) => ({ ...s, nodes: new Map(s.nodes).set(nodeId, Math.max(at, s.nodes.get(nodeId) ?? 0)) })
          )
        ),
      forgetNodes: (before) =>
        Effect.zipRight(
          guard(),
          Ref.modify(state, (s) => {
            const holding = new Set([...s.open.values()].map((spend) => spend.nodeId))
            const nodes = new Map([...s.nodes].filter(([nodeId, seen]) => seen >= before || holding.has(nodeId)))
            return [s.nodes.size - nodes.size, { ...s, nodes }]
          })
        ),
      // No app is ever connected to the in-memory Ledger: the sign-in flow runs on PostgreSQL only.
      confirmConnection: () => Effect.as(guard(), Option.none()),
      balance: (accountId) =>
        Effect.zipRight(guard(), Effect.map(Ref.get(state), (s) => balanceOf(s.entries, accountId))),
      standing: (accountId) =>
        Effect.zipRight(
          guard(),
          Effect.zipWith(Ref.get(state), Clock.currentTimeMillis, (s, now) => ({
            balance: balanceOf(s.entries, accountId),
            dailySpendCap: s.caps.get(accountId) ?? null,
            spentToday: spentToday(s.entries, accountId, now)
          }))
        ),
      entries: (accountId) =>
        Effect.zipRight(
          guard(),
          Effect.map(Ref.get(state), (s) => s.entries.filter((e) => e.accountId === accountId))
        ),
      statement: (accountId, query) =>
        Effect.zipRight(
          guard(),
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
          guard(),
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
      allEntries: Effect.map(Ref.get(state), (s) => s.entries),
      openSpends: Effect.map(Ref.get(state), (s) => [...s.open.keys()])
    })
    return Context.make(Ledger, ledger).pipe(Context.add(LedgerControl, control))
  }))
