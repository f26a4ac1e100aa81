/**
 * What every storage service promises its callers: each step ends, in time, with its result or a typed
 * failure. A step fails when the database refuses or drops the connection, fails the statement, or gives no
 * answer for `STORAGE_SILENCE_LIMIT`; a busy database that keeps answering other statements is waited for
 * up to `STORAGE_STEP_LIMIT`. What a failure means is the caller's to say (503 `call-not-started` before
 * the Ledger is reached, `ledger-unreachable` when a Spend could not be recorded, a sign-in error page).
 */
import { Data, Duration } from "effect"

/** How long a storage step may go without the database answering anything before it fails. */
export const STORAGE_SILENCE_LIMIT = Duration.seconds(5)

/** The longest a storage step may take, however busy the database is. */
export const STORAGE_STEP_LIMIT = Duration.seconds(20)

/** A storage step that could not complete. */
export class StorageUnavailable extends Data.TaggedError("StorageUnavailable")<{
  /** The step, e.g. `IdempotencyStore.claim`. */
  readonly step: string
  readonly cause?: unknown
  /** The database did not answer in time (silent, or past the step limit), rather than failing the step. */
  readonly timedOut?: boolean
}> {
  override get message() {
    return `${this.step}: the database did not complete the step`
  }
}
