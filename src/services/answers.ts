/**
 * Finishing an answered call in one step where the idempotency store and the Ledger share one database:
 * its response stored under its claim and its Spend settled together (on PostgreSQL one statement, so one
 * round trip, and both happen or neither). Optional: without it (the in-memory stores, fakes), Settlement
 * stores the answer and then settles, as two steps.
 */
import { Context, type Effect } from "effect"
import type { StoredResponse } from "./idempotency.js"
import type { StorageUnavailable } from "./storage.js"

export class AnsweredCalls extends Context.Tag("propscore/AnsweredCalls")<AnsweredCalls, {
  /** Stores `response` under `claimId` (replays are measured from now) and settles `spendId`, at once. */
  readonly storeAndSettle: (
    spendId: number,
    claimId: string,
    response: StoredResponse
  ) => Effect.Effect<void, StorageUnavailable>
}>() {}
