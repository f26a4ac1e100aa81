/** The running service's Layers: real implementations over the configured database. */
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { AccountsPg } from "../layers/accounts/pg.js"
import { ConnectionsPg } from "../layers/connections/pg.js"
import { CredentialsPg } from "../layers/credentials/pg.js"
import { IdempotencyPg } from "../layers/idempotency/pg.js"
import { KeptModelsFiles } from "../layers/kept-models/files.js"
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
  ConnectionsPg,
  PortalSessionsPg,
  RateLimitsFromConfig,
  ClientMetadataFetcherFromConfig
).pipe(
  Layer.provideMerge(ScoringLocalServing.pipe(Layer.provideMerge(PropertyStorePg)))
)

/** The configuration and the configured, migrated database. */
export const DatabaseFromConfig = DatabaseLive.pipe(Layer.provideMerge(AppConfig.layer))

/** The Accounts service and the connections of assistants, over a database provided separately. */
export const AdminServices = Layer.merge(AccountsPg, ConnectionsPg)

/** What the operator commands need: the configured, migrated database and the Accounts service. */
export const AdminLive = AdminServices.pipe(Layer.provideMerge(DatabaseFromConfig))

/** The scoring engine's fitted models, kept in `DATA_DIR/kept` between starts. */
export const KeptModelsFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => KeptModelsFiles(path.join(config.dataDir, "kept")))
)

/**
 * Everything a serving node runs over a database provided separately (`serve` opens it once, for its
 * first-start preparation and these): the services, with the scoring engine's models kept between starts,
 * this node's Settlement, and the background work.
 */
export const ServingServices = Layer.provideMerge(
  Layer.merge(SweeperLive, HousekeepingLive),
  SettlementLive.pipe(Layer.provideMerge(ServicesFromSql.pipe(Layer.provide(KeptModelsFromConfig))))
)

export const DEMO_CREDITS = 1000
