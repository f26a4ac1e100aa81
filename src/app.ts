/** The running service's Layers: real implementations over the configured database. */
import { Effect, Layer, Option } from "effect"
import { AccountsPg } from "../layers/accounts/pg.js"
import { ConnectionsPg } from "../layers/connections/pg.js"
import { CredentialsPg } from "../layers/credentials/pg.js"
import { IdempotencyPg } from "../layers/idempotency/pg.js"
import { JointStepsPg } from "../layers/joint-steps/pg.js"
import { LedgerPg } from "../layers/ledger/pg.js"
import { PortalSessionsPg } from "../layers/portal-sessions/pg.js"
import { PropertyStorePg } from "../layers/property-store/pg.js"
import { RateLimitsMemory } from "../layers/rate-limits/live.js"
import { RateLimitsRedis } from "../layers/rate-limits/redis.js"
import { ScoringLocalServing } from "../layers/scoring/local.js"
import { AppConfig } from "./config.js"
import { DatabaseLive } from "./db/database.js"
import { ClientMetadataFetcherLive } from "./oauth/clients.js"
import { HousekeepingLive } from "./operations/housekeeping.js"
import { SettlementLive } from "./operations/settlement.js"
import { SweeperLive } from "./operations/sweeper.js"

/** Rate counts in Redis when `REDIS_URL` is set (shared by every node), else in this node's memory. */
export const RateLimitsFromConfig = Layer.unwrapEffect(
  Effect.map(
    AppConfig,
    (config) => Option.match(config.redisUrl, { onNone: () => RateLimitsMemory, onSome: (url) => RateLimitsRedis(url) })
  )
)

/** Client metadata documents of assistants signing in: private addresses only in development. */
export const ClientMetadataFetcherFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => ClientMetadataFetcherLive({ allowPrivateAddresses: config.development }))
)

/** The services over an SQL client (provided separately, so tests can hand in their own database). */
export const ServicesFromSql = Layer.mergeAll(
  AccountsPg,
  CredentialsPg,
  LedgerPg,
  IdempotencyPg,
  JointStepsPg,
  ConnectionsPg,
  PortalSessionsPg,
  RateLimitsFromConfig,
  ClientMetadataFetcherFromConfig
).pipe(
  Layer.provideMerge(ScoringLocalServing.pipe(Layer.provideMerge(PropertyStorePg)))
)

/** What the operator commands need: the configured, migrated database and the Accounts service. */
export const AdminLive = Layer.merge(AccountsPg, ConnectionsPg).pipe(
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.layer)
)

/** Everything a serving node runs: the services, this node's Settlement, and the background work. */
export const ServicesLive = Layer.provideMerge(
  Layer.merge(SweeperLive, HousekeepingLive),
  SettlementLive.pipe(Layer.provideMerge(ServicesFromSql))
).pipe(
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.layer)
)

export const DEMO_CREDITS = 1000
