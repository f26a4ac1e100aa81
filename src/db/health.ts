/**
 * The storage deadlines of `src/services/storage.ts` for the PostgreSQL Layers: every storage step runs
 * under `guard`, which turns a database failure (`SqlError`) into `StorageUnavailable` and fails a step the
 * database has gone silent on. Provided with the SQL client (`src/db/client.ts`), which knows when the
 * database last answered.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"
import type { StorageUnavailable } from "../services/storage.js"

export class DatabaseHealth extends Context.Tag("propscore/DatabaseHealth")<DatabaseHealth, {
  /**
   * Runs one storage step under the storage deadlines: it fails with `StorageUnavailable` when the
   * database fails it, or answers nothing at all for the silence limit, or keeps it waiting past the step
   * limit. On such a failure the step's statement is abandoned (cancelled in the background), never waited for.
   */
  readonly guard: (
    step: string
  ) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, Exclude<E, SqlError> | StorageUnavailable, R>
}>() {}
