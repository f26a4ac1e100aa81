/**
 * The idempotency store: what happened to each (Account, Idempotency-Key) pair, for the States table of
 * the interface. A request claims its key before it spends; it ends either by storing its successful
 * response (replayable for 24 hours from that request) or by releasing the key (refunded, or ended
 * without a stored response), after which the key can be taken over.
 */
import { Context, type Effect } from "effect"
import type { StorageUnavailable } from "./storage.js"

export const REPLAY_WINDOW_MILLIS = 24 * 60 * 60 * 1000

export interface StoredResponse {
  readonly status: number
  readonly body: unknown
  /**
   * The body as the JSON text sent or stored, when it is at hand: REST sends it as it is (a replay is
   * never parsed and written again), and a store keeps it without encoding the body a second time.
   */
  readonly json?: string
  /**
   * Every Credit of the call was refunded (a batch whose every entry failed for a covered reason): answered, but
   * as a refunded call its key is freed, not stored (IDEM-5). Never stored itself.
   */
  readonly refundedInFull?: boolean
}

/** The response with its body's JSON text, written once for both the store and the wire. */
export const withJson = (response: StoredResponse): StoredResponse =>
  response.json !== undefined ? response : { ...response, json: JSON.stringify(response.body) }

/** A stored response read back as JSON text: the body is parsed only if something asks for it (MCP). */
export const fromStoredJson = (status: number, json: string): StoredResponse => {
  let parsed: { readonly value: unknown } | undefined
  return {
    status,
    json,
    get body() {
      parsed ??= { value: JSON.parse(json) }
      return parsed.value
    }
  }
}

/** The outcome of claiming a key. */
export type Claim =
  /** The key is this request's: it runs (and spends). */
  | { readonly _tag: "Claimed"; readonly claimId: string }
  /** A stored success for the same request within the window: answer it again, charge nothing. */
  | { readonly _tag: "Replay"; readonly response: StoredResponse; readonly storedAt: number }
  /** The key belongs to a different request (another body or endpoint) still inside its window. */
  | { readonly _tag: "Conflict" }
  /**
   * The same request is still being processed, or was cut off without an answer (its process stopped): in that
   * case its claim is presumed dead at `deadline` (epoch milliseconds), refunded and released by a sweeper.
   */
  | { readonly _tag: "InFlight"; readonly deadline: number }

export interface ClaimRequest {
  readonly accountId: string
  readonly key: string
  /** The endpoint and the canonical body: two requests are "the same" when these are equal. */
  readonly fingerprint: string
  /** Now, in epoch milliseconds (from the Effect Clock). */
  readonly now: number
  /** When a claim still in flight is presumed dead (its request crashed), in epoch milliseconds. */
  readonly deadline: number
  /**
   * The claim's id if it takes the key, made by the caller (one per call): a claim the store took after the
   * caller gave up on it (its statement delivered late, after a stall) is named by it and undone (`abandoned`).
   */
  readonly claimId: string
}

export interface KeyRecord {
  readonly claimId: string
  readonly fingerprint: string
  readonly status: "in_flight" | "completed" | "released"
  readonly completedAt: number | null
  readonly deadline: number
  readonly response: StoredResponse | null
}

/**
 * The States table as one pure decision: what claiming a key means given its current record. An abandoned
 * claim (in flight past its deadline) stays in flight until the sweeper has refunded it and released it.
 */
export const decideClaim = (
  existing: KeyRecord | undefined,
  request: Pick<ClaimRequest, "fingerprint" | "now">
): "claim" | "take-over" | Exclude<Claim, { _tag: "Claimed" }> => {
  if (existing === undefined) return "claim"
  switch (existing.status) {
    case "released":
      return "take-over"
    case "completed":
      if (request.now - existing.completedAt! >= REPLAY_WINDOW_MILLIS) return "take-over"
      return existing.fingerprint === request.fingerprint
        ? { _tag: "Replay", response: existing.response!, storedAt: existing.completedAt! }
        : { _tag: "Conflict" }
    case "in_flight":
      return existing.fingerprint === request.fingerprint
        ? { _tag: "InFlight", deadline: existing.deadline }
        : { _tag: "Conflict" }
  }
}

export interface AbandonedClaim {
  readonly claimId: string
  readonly accountId: string
  readonly key: string
}

/**
 * Every step ends in time (`src/services/storage.ts`): with its result, or `StorageUnavailable` when the
 * store cannot be reached, fails, or does not answer.
 */
export class IdempotencyStore extends Context.Tag("propscore/IdempotencyStore")<IdempotencyStore, {
  readonly claim: (request: ClaimRequest) => Effect.Effect<Claim, StorageUnavailable>
  /** Stores the success of a claimed request and the Spend that paid for it; replays are measured from now. */
  readonly complete: (
    claimId: string,
    response: StoredResponse,
    spendId: number | null
  ) => Effect.Effect<void, StorageUnavailable>
  /**
   * Ends a claimed request without a stored response (refunded, failed or interrupted): the key can be
   * taken over. A claim whose response was stored stays stored.
   */
  readonly release: (claimId: string) => Effect.Effect<void, StorageUnavailable>
  /**
   * Claims still in flight past their deadline: their request died after claiming. The sweeper releases
   * them (their Spend, still open in the Ledger past the same deadline, is refunded by the Ledger's sweep).
   * Also, whatever their deadline, the claims in flight among `gaveUp`: claims whose caller gave up on the
   * store's answer and answered 503 (the store took them late).
   */
  readonly abandoned: (
    now: number,
    gaveUp: ReadonlyArray<string>
  ) => Effect.Effect<ReadonlyArray<AbandonedClaim>, StorageUnavailable>
  /**
   * Deletes up to `limit` keys whose window ended at or before `before`: a stored success from then or
   * earlier, or a key released with a deadline then or earlier. A claim would take such a key over anyway,
   * so without its record it answers exactly as before (as an unseen key). A claim in flight is never
   * deleted. Returns how many keys were deleted.
   */
  readonly purge: (before: number, limit: number) => Effect.Effect<number, StorageUnavailable>
}>() {}

/** The moment a key's record stops mattering: its stored success, or the deadline of a released claim. */
export const windowEnd = (record: Pick<KeyRecord, "status" | "completedAt" | "deadline">): number | undefined =>
  record.status === "completed" ? record.completedAt! : record.status === "released" ? record.deadline : undefined
