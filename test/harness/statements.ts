/** What a test needs to watch the statements an operation sends, and a caller to send them as. */
import { Statement } from "@effect/sql"
import { Effect } from "effect"
import type { Caller } from "../../src/services/credentials.js"

/** Runs `effect` and returns its result with the texts of the statements it sent to the database. */
export const counted = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const statements: Array<string> = []
    const result = yield* effect.pipe(
      Statement.withTransformer((statement) =>
        Effect.sync(() => {
          statements.push(statement.compile()[0])
          return statement
        })
      )
    )
    return { result, statements }
  })

/** An API-key caller of `accountId` with its Terms accepted. */
export const callerOf = (accountId: string): Caller => ({
  accountId,
  tier: "public",
  keyId: "key",
  connectionId: null,
  rateLimitPerMinute: null,
  pendingTerms: null
})
