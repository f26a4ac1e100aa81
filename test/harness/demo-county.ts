/**
 * The real application's services over the synthetic demo county: the real scoring engine (address index,
 * comps model, learner) on a generated county held in memory, with the real Accounts, Credentials, Ledger and
 * idempotency store on the test database.
 */
import { Effect, Layer } from "effect"
import { AccountsPg } from "../../layers/accounts/pg.js"
import { CredentialsPg } from "../../layers/credentials/pg.js"
import { IdempotencyPg } from "../../layers/idempotency/pg.js"
import { LedgerPg } from "../../layers/ledger/pg.js"
import { RateLimitsMemory } from "../../layers/rate-limits/live.js"
import { ScoringLocal } from "../../layers/scoring/local.js"
import { generateDemoCounty } from "../../src/property/demo-county.js"
import type { SaleRecord } from "../../src/property/records.js"
import { type PropertyData, PropertyStore } from "../../src/services/property-store.js"
import { TestDatabase } from "./database.js"

export interface DemoCountyOptions {
  /** How many parcels (the default is the county every first start loads). */
  readonly parcels?: number
  /** Rewrites the county's recorded sales (e.g. to end them earlier or move them in time). */
  readonly sales?: (sales: ReadonlyArray<SaleRecord>) => ReadonlyArray<SaleRecord>
}

/** A property store holding `data` in memory, read-only: what the scoring engine reads (no history). */
export const dataStore = (data: PropertyData) =>
  Layer.succeed(
    PropertyStore,
    PropertyStore.of({
      importParsed: () => Effect.die("not used"),
      loadAll: Effect.succeed(data),
      history: () => Effect.succeed(undefined),
      parcelCount: Effect.succeed(data.parcels.length),
      version: Effect.succeed("1")
    })
  )

/** A property store over the demo county. */
export const demoCountyStore = (options: DemoCountyOptions = {}) => {
  const generated = generateDemoCounty(options.parcels === undefined ? {} : { parcels: options.parcels })
  const county = options.sales === undefined ? generated : { ...generated, sales: options.sales(generated.sales) }
  return Layer.succeed(
    PropertyStore,
    PropertyStore.of({
      importParsed: () => Effect.die("not used"),
      loadAll: Effect.succeed({ parcels: county.parcels, sales: county.sales }),
      history: (parcelId) =>
        Effect.succeed({
          parcel: county.parcels.find((parcel) => parcel.id === parcelId)!,
          sales: county.sales.filter((sale) => sale.parcelId === parcelId),
          listing: county.listings.find((listing) => listing.parcelId === parcelId),
          permits: county.permits.filter((permit) => permit.parcelId === parcelId)
        }),
      parcelCount: Effect.succeed(county.parcels.length),
      version: Effect.succeed("1")
    })
  )
}

/** The services a server needs, with the real scoring engine over the demo county. */
export const demoCountyServices = (options: DemoCountyOptions = {}) =>
  Layer.mergeAll(AccountsPg, CredentialsPg, LedgerPg, IdempotencyPg, RateLimitsMemory).pipe(
    Layer.provideMerge(TestDatabase),
    Layer.merge(ScoringLocal.pipe(Layer.provide(demoCountyStore(options))))
  )
