/**
 * The idempotency store in memory, for the test harness; the same decisions as the PostgreSQL store, and
 * switches (`IdempotencyControl`) that make it fail the way a real store can: unreachable, or stalled until
 * the storage silence limit (on the Effect Clock, so tests move it with TestClock).
 */
import { Context, Effect, Layer, Ref } from "effect"
import { type Claim, decideClaim, IdempotencyStore, type KeyRecord, windowEnd } from "../../src/services/idempotency.js"
import { STORAGE_SILENCE_LIMIT, StorageUnavailable } from "../../src/services/storage.js"

interface Entry extends KeyRecord {
  readonly accountId: string
  readonly key: string
  readonly spendId: number | null
}

export interface IdempotencyFaults {
  /** Every step fails at once with `StorageUnavailable`. */
  readonly unreachable: boolean
  /** Every step waits for the silence limit, then fails with `StorageUnavailable`. */
  readonly stalled: boolean
}

export class IdempotencyControl extends Context.Tag("test/IdempotencyControl")<IdempotencyControl, {
  readonly setFaults: (faults: Partial<IdempotencyFaults>) => Effect.Effect<void>
}>() {}

export const IdempotencyMemory = Layer.effectContext(Effect.gen(function*() {
  const entries = yield* Ref.make(new Map<string, Entry>())
  const faults = yield* Ref.make<IdempotencyFaults>({ unreachable: false, stalled: false })
  const slot = (accountId: string, key: string) => JSON.stringify([accountId, key])
  /** A step of the store, failing or stalling as the switches say. */
  const step = <A>(name: string, effect: Effect.Effect<A>) =>
    Effect.flatMap(Ref.get(faults), (current): Effect.Effect<A, StorageUnavailable> =>
      current.unreachable
        ? Effect.fail(new StorageUnavailable({ step: name }))
        : current.stalled
        ? Effect.zipRight(Effect.sleep(STORAGE_SILENCE_LIMIT), Effect.fail(new StorageUnavailable({ step: name })))
        : effect)
  const update = (claimId: string, change: (entry: Entry) => Entry) =>
    Ref.update(entries, (map) => {
      const next = new Map(map)
      for (const [slotKey, entry] of map) if (entry.claimId === claimId) next.set(slotKey, change(entry))
      return next
    })
  const store = IdempotencyStore.of({
    claim: (request) =>
      step(
        "IdempotencyStore.claim",
        Ref.modify(entries, (map): readonly [Claim, Map<string, Entry>] => {
          const at = slot(request.accountId, request.key)
          const decision = decideClaim(map.get(at), request)
          if (typeof decision !== "string") return [decision, map]
          const claimId = request.claimId
          const next = new Map(map)
          next.set(at, {
            claimId,
            accountId: request.accountId,
            key: request.key,
            fingerprint: request.fingerprint,
            status: "in_flight",
            completedAt: null,
            deadline: request.deadline,
            response: null,
            spendId: null
          })
          return [{ _tag: "Claimed" as const, claimId }, next]
        })
      ),
    complete: (claimId, response, spendId) =>
      step(
        "IdempotencyStore.complete",
        Effect.flatMap(
          Effect.clockWith((clock) => clock.currentTimeMillis),
          (now) => update(claimId, (entry) => ({ ...entry, status: "completed", completedAt: now, response, spendId }))
        )
      ),
    release: (claimId) =>
      step(
        "IdempotencyStore.release",
        update(claimId, (entry) => (entry.status === "in_flight" ? { ...entry, status: "released" } : entry))
      ),
    abandoned: (now, gaveUp) =>
      step(
        "IdempotencyStore.abandoned",
        Effect.map(Ref.get(entries), (map) =>
          [...map.values()]
            .filter((entry) =>
              entry.status === "in_flight" && (entry.deadline <= now || gaveUp.includes(entry.claimId))
            )
            .map((entry) => ({ claimId: entry.claimId, accountId: entry.accountId, key: entry.key })))
      ),
    purge: (before, limit) =>
      step(
        "IdempotencyStore.purge",
        Ref.modify(entries, (map): readonly [number, Map<string, Entry>] => {
          const next = new Map(map)
          let deleted = 0
          for (const [at, entry] of map) {
            if (deleted === limit) break
            const end = windowEnd(entry)
            if (end !== undefined && end <= before) {
              next.delete(at)
              deleted++
            }
          }
          return [deleted, next]
        })
      )
  })
  return Context.make(IdempotencyStore, store).pipe(
    Context.add(
      IdempotencyControl,
      IdempotencyControl.of({ setFaults: (change) => Ref.update(faults, (current) => ({ ...current, ...change })) })
    )
  )
}))
