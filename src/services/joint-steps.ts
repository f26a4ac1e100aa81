/**
 * Steps of a keyed Metered Call that touch both the idempotency store and the Ledger, taken in one step
 * where the two share one database (on PostgreSQL one statement: one round trip, and all of it happens or
 * none of it). Optional: without it (the in-memory stores, fakes), the pipeline takes the same steps one
 * service at a time, with the same outcomes.
 */
import { Context, type Effect } from "effect"
import type { Claim, ClaimRequest, StoredResponse } from "./idempotency.js"
import type { Spend, SpendRequest } from "./ledger.js"
import type { StorageUnavailable } from "./storage.js"

/** What claiming a key together with its Spend came to. */
export type JointClaim =
  /** The key is this request's and its Spend is recorded. */
  | { readonly _tag: "Spent"; readonly claimId: string; readonly spend: Spend }
  /** The key is this request's; the Ledger refused the Spend (recorded again on its own, to say why). */
  | { readonly _tag: "Claimed"; readonly claimId: string }
  /** The key's record decides the request without a Spend: a replay, a conflict, or the same request in flight. */
  | { readonly _tag: "Decided"; readonly claim: Exclude<Claim, { readonly _tag: "Claimed" }> }
  /** The key has a record to take over, or one the step could not see: claim it the usual way. */
  | { readonly _tag: "Undecided" }

export class JointSteps extends Context.Tag("propscore/JointSteps")<JointSteps, {
  /** Claims an unseen key and records its Spend at once (the common case of a keyed call). */
  readonly claimAndSpend: (claim: ClaimRequest, spend: SpendRequest) => Effect.Effect<JointClaim, StorageUnavailable>
  /** Stores `response` under `claimId` (replays are measured from now) and settles `spendId`, at once. */
  readonly storeAndSettle: (
    spendId: number,
    claimId: string,
    response: StoredResponse
  ) => Effect.Effect<void, StorageUnavailable>
}>() {}
