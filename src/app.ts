/** The running service's Layers: real implementations over the configured database. */
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { AccountsPg } from "../layers/accounts/pg.js"
import { ConnectionsPg } from "../layers/connections/pg.js"
import { CredentialsPg } from "../layers/credentials/pg.js"
import { IdempotencyPg } from "../layers/idempotency/pg.js"
import { JointStepsPg } from "../layers/joint-steps/pg.js"
import { KeptModelsFiles } from "../layers/kept-models/files.js"
import { LedgerPg } from "../layers/ledger/pg.js"
import { PortalSessionsPg } from "../layers/portal-sessions/pg.js"
import { PropertyStorePg } from "../layers/property-store/pg.js"
import { RateLimitsClusterWorker } from "../layers/rate-limits/cluster.js"
import { RateLimitsMemory } from "../layers/rate-limits/live.js"
import { RateLimitsRedis } from "../layers/rate-limits/redis.js"
import { ScoringLocalServing } from "../layers/scoring/local.js"
import { sharedLearnerFitting } from "./cluster/learners.js"
import { AppConfig } from "./config.js"
import { DatabaseLive } from "./db/database.js"
import { ClientMetadataFetcherLive } from "./oauth/clients.js"
import { HousekeepingLive } from "./operations/housekeeping.js"
import { SettlementLive } from "./operations/settlement.js"
import { SweeperLive } from "./operations/sweeper.js"
import { LearnerFitting } from "./scoring/learner-thread.js"
import type { RateLimits } from "./services/rate-limits.js"

/** Rate counts in Redis when `REDIS_URL` is set (shared by every node), else in `memory`. */
const rateLimitsFromConfig = (memory: Layer.Layer<RateLimits>) =>
  Layer.unwrapEffect(
    Effect.map(
      AppConfig,
      (config) => Option.match(config.redisUrl, { onNone: () => memory, onSome: (url) => RateLimitsRedis(url) })
    )
  )

/** Rate counts in Redis when `REDIS_URL` is set (shared by every node), else in this node's memory. */
export const RateLimitsFromConfig = rateLimitsFromConfig(RateLimitsMemory)

/** Client metadata documents of assistants signing in: private addresses only in development. */
export const ClientMetadataFetcherFromConfig = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => ClientMetadataFetcherLive({ allowPrivateAddresses: config.development }))
)

const servicesFromSql = (rateLimits: Layer.Layer<RateLimits, never, AppConfig>) =>
  Layer.mergeAll(
    AccountsPg,
    CredentialsPg,
    LedgerPg,
    IdempotencyPg,
    JointStepsPg,
    ConnectionsPg,
    PortalSessionsPg,
    rateLimits,
    ClientMetadataFetcherFromConfig
  ).pipe(
    Layer.provideMerge(ScoringLocalServing.pipe(Layer.provideMerge(PropertyStorePg)))
  )

/** The services over an SQL client (provided separately, so tests can hand in their own database). */
export const ServicesFromSql = servicesFromSql(RateLimitsFromConfig)

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
const servingServices = (services: ReturnType<typeof servicesFromSql>) =>
  Layer.provideMerge(
    Layer.merge(SweeperLive, HousekeepingLive),
    SettlementLive.pipe(Layer.provideMerge(services.pipe(Layer.provide(KeptModelsFromConfig))))
  )

export const ServingServices = servingServices(ServicesFromSql)

/**
 * The same in a worker of `serve --workers N` (each worker is a node of its own): without `REDIS_URL` its
 * rate counts are the primary's, so the limits hold across the workers; the learners are fitted once for
 * all of them.
 */
export const ClusterWorkerServingServices = servingServices(
  servicesFromSql(rateLimitsFromConfig(RateLimitsClusterWorker)).pipe(
    Layer.provide(Layer.succeed(LearnerFitting, sharedLearnerFitting))
  )
)

export const DEMO_CREDITS = 1000
