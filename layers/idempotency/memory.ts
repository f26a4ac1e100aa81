/** The idempotency store in memory, for the test harness; the same decisions as the PostgreSQL store. */
import { Effect, Layer, Ref } from "effect"
import { type Claim, decideClaim, IdempotencyStore, type KeyRecord, windowEnd } from "../../src/services/idempotency.js"

interface Entry extends KeyRecord {
  readonly accountId: string
  readonly key: string
  readonly spendId: number | null
}

export const IdempotencyMemory = Layer.effect(
  IdempotencyStore,
  Effect.gen(function*() {
    const entries = yield* Ref.make(new Map<string, Entry>())
    let nextClaim = 1
    const slot = (accountId: string, key: string) => JSON.stringify([accountId, key])
    const update = (claimId: string, change: (entry: Entry) => Entry) =>
      Ref.update(entries, (map) => {
        const next = new Map(map)
        for (const [slotKey, entry] of map) if (entry.claimId === claimId) next.set(slotKey, change(entry))
        return next
      })
    return IdempotencyStore.of({
      claim: (request) =>
        Ref.modify(entries, (map): readonly [Claim, Map<string, Entry>] => {
          const at = slot(request.accountId, request.key)
          const decision = decideClaim(map.get(at), request)
          if (typeof decision !== "string") return [decision, map]
          const claimId = `claim-${nextClaim++}`
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
        }),
      complete: (claimId, response, spendId) =>
        Effect.flatMap(
          Effect.clockWith((clock) => clock.currentTimeMillis),
          (now) => update(claimId, (entry) => ({ ...entry, status: "completed", completedAt: now, response, spendId }))
        ),
      release: (claimId) =>
        update(claimId, (entry) => (entry.status === "in_flight" ? { ...entry, status: "released" } : entry)),
      abandoned: (now) =>
        Effect.map(Ref.get(entries), (map) =>
          [...map.values()]
            .filter((entry) => entry.status === "in_flight" && entry.deadline <= now)
            .map((entry) => ({ claimId: entry.claimId, accountId: entry.accountId, key: entry.key }))),
      purge: (before, limit) =>
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
    })
  })
)
