/** balance = Σ entries: the invariant every test that moves Credits ends on. Returns the balance. */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { Ledger } from "../../src/services/ledger.js"

export const reconciles = (accountId: string) =>
  Effect.gen(function*() {
    const ledger = yield* Ledger
    const entries = yield* ledger.entries(accountId)
    const sum = entries.reduce((total, e) => total + (e.kind === "spend" ? -e.amount : e.amount), 0)
    expect(yield* ledger.balance(accountId)).toBe(sum)
    return sum
  })
