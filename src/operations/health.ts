/**
 * The service's health, for `GET /health` and the front page: whether the Ledger answers, since every
 * Metered Call needs it (validate with an API Key does not, VAL-2). The read runs under the storage
 * deadlines like any Ledger step (`src/db/health.ts`), so a silent database makes it unavailable within
 * them, never a hang.
 */
import { Effect } from "effect"
import { Ledger } from "../services/ledger.js"

export interface Health {
  readonly status: "ok" | "unavailable"
  readonly checks: { readonly database: "ok" | "unreachable" }
}

/** No account has this id (ids are `acct_…`): the read touches one index and finds nothing. */
const PROBE_ACCOUNT = "health-probe"

export const serviceHealth: Effect.Effect<Health, never, Ledger> = Effect.flatMap(
  Ledger,
  (ledger) => ledger.balance(PROBE_ACCOUNT)
).pipe(
  Effect.as<Health>({ status: "ok", checks: { database: "ok" } }),
  Effect.catchTag(
    "LedgerUnreachable",
    () => Effect.succeed<Health>({ status: "unavailable", checks: { database: "unreachable" } })
  )
)
