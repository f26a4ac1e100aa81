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

/** What the operator commands need: the configured, migrated database and the Accounts service. */
export const AdminLive = Layer.merge(AccountsPg, ConnectionsPg).pipe(
  Layer.provideMerge(DatabaseLive),
  Layer.provideMerge(AppConfig.layer)
)

const servicesLive = (services: ReturnType<typeof servicesFromSql>) =>
  Layer.provideMerge(
    Layer.merge(SweeperLive, HousekeepingLive),
    SettlementLive.pipe(Layer.provideMerge(services))
  ).pipe(
    Layer.provideMerge(DatabaseLive),
    Layer.provideMerge(AppConfig.layer)
  )

/** Everything a serving node runs: the services, this node's Settlement, and the background work. */
export const ServicesLive = servicesLive(ServicesFromSql)

/**
 * The same in a worker of `serve --workers N` (each worker is a node of its own): without `REDIS_URL` its
 * rate counts are the primary's, so the limits hold across the workers; the learners are fitted once for
 * all of them.
 */
export const ClusterWorkerServicesLive = servicesLive(
  servicesFromSql(rateLimitsFromConfig(RateLimitsClusterWorker)).pipe(
    Layer.provide(Layer.succeed(LearnerFitting, sharedLearnerFitting))
  )
)

export const DEMO_CREDITS = 1000
