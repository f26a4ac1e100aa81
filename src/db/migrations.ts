/**
 * The database schema, as `@effect/sql` Migrator migrations (`Migrator.fromRecord`, so they survive
 * bundling). The same migrations run on the embedded PGlite and on a real PostgreSQL server.
 */
import { Migrator, SqlClient } from "@effect/sql"
import { Effect } from "effect"

const accountsAndCredentials = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE accounts (
      id text PRIMARY KEY,
      name text NOT NULL,
      tier text NOT NULL CHECK (tier IN ('public', 'reseller')),
      balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
      rate_limit_per_minute integer CHECK (rate_limit_per_minute > 0),
      daily_spend_cap integer CHECK (daily_spend_cap >= 0),
      accepted_terms_version text,
      accepted_terms_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  // Every change to a key takes a new version, so nodes can refresh their credential cache incrementally.
  yield* sql`CREATE SEQUENCE credential_versions`
  yield* sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      secret_sha256 bytea NOT NULL,
      name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz,
      last_used_at timestamptz,
      version bigint NOT NULL DEFAULT nextval('credential_versions')
    )`
  yield* sql`CREATE INDEX api_keys_account ON api_keys (account_id)`
  yield* sql`CREATE INDEX api_keys_version ON api_keys (version)`
  yield* sql`
    CREATE TABLE terms_versions (
      seq bigserial PRIMARY KEY,
      version text NOT NULL UNIQUE,
      published_at timestamptz NOT NULL DEFAULT now()
    )`
  // Append-only: grants, spends and refunds. The account's balance column is kept equal to their sum in the
  // same transaction that appends an entry, and can never go below zero.
  yield* sql`
    CREATE TABLE ledger_entries (
      id bigserial PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      kind text NOT NULL CHECK (kind IN ('grant', 'spend', 'refund')),
      amount bigint NOT NULL CHECK (amount > 0),
      refund_of bigint REFERENCES ledger_entries (id),
      trace_id text,
      note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'refund') = (refund_of IS NOT NULL))
    )`
  yield* sql`CREATE INDEX ledger_entries_account ON ledger_entries (account_id, created_at)`
})

const propertyStore = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE parcels (
      id text PRIMARY KEY,
      market text NOT NULL,
      street text NOT NULL,
      unit text NOT NULL DEFAULT '',
      city text,
      state text,
      zip_code text,
      neighborhood text,
      block integer,
      lot integer,
      building_class text,
      property_type text,
      bedrooms integer,
      bathrooms integer,
      partial_bathrooms integer,
      living_area_square_feet integer,
      lot_size_square_feet integer,
      year_built integer,
      latitude double precision,
      longitude double precision,
      synthetic boolean NOT NULL DEFAULT false,
      source text NOT NULL
    )`
  yield* sql`CREATE INDEX parcels_street ON parcels (street)`
  yield* sql`
    CREATE TABLE sales (
      id bigserial PRIMARY KEY,
      parcel_id text NOT NULL REFERENCES parcels (id),
      sale_date date NOT NULL,
      price bigint NOT NULL CHECK (price >= 0),
      document_type text NOT NULL,
      grantor text,
      grantee text,
      arms_length boolean NOT NULL,
      source_key text NOT NULL UNIQUE
    )`
  yield* sql`CREATE INDEX sales_parcel ON sales (parcel_id, sale_date)`
  yield* sql`
    CREATE TABLE listings (
      parcel_id text PRIMARY KEY REFERENCES parcels (id),
      status text NOT NULL CHECK (status IN ('active', 'pending', 'off_market', 'unknown')),
      list_price bigint,
      listed_date date
    )`
  yield* sql`
    CREATE TABLE permits (
      id bigserial PRIMARY KEY,
      parcel_id text NOT NULL REFERENCES parcels (id),
      issued_date date NOT NULL,
      permit_type text NOT NULL,
      description text NOT NULL,
      valuation bigint,
      source_key text NOT NULL UNIQUE
    )`
  yield* sql`CREATE INDEX permits_parcel ON permits (parcel_id, issued_date)`
})

const priceBook = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // The price book: Credits per unit of each Metered Call, resolved inside the Spend's transaction.
  yield* sql`
    CREATE TABLE price_book (
      operation text PRIMARY KEY,
      credits_per_unit integer NOT NULL CHECK (credits_per_unit > 0)
    )`
  yield* sql`INSERT INTO price_book (operation, credits_per_unit) VALUES ('predict', 1), ('batch', 1), ('history', 1)`
  yield* sql`ALTER TABLE ledger_entries ADD COLUMN operation text, ADD COLUMN units integer, ADD COLUMN reason text`
  yield* sql`CREATE INDEX ledger_entries_refund_of ON ledger_entries (refund_of)`
})

const idempotencyKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Times are epoch milliseconds of the service's clock, so the window is judged by one clock everywhere.
  yield* sql`
    CREATE TABLE idempotency_keys (
      account_id text NOT NULL REFERENCES accounts (id),
      key text NOT NULL,
      claim_id text NOT NULL UNIQUE,
      fingerprint text NOT NULL,
      status text NOT NULL CHECK (status IN ('in_flight', 'completed', 'released')),
      completed_at bigint,
      deadline bigint NOT NULL,
      response_status integer,
      response_body jsonb,
      spend_id bigint REFERENCES ledger_entries (id),
      PRIMARY KEY (account_id, key)
    )`
  yield* sql`CREATE INDEX idempotency_keys_in_flight ON idempotency_keys (deadline) WHERE status = 'in_flight'`
})

// A replay must be the stored answer byte for byte: jsonb would reorder its keys.
const idempotencyResponseText = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE idempotency_keys ALTER COLUMN response_body TYPE text USING response_body::text`
})

// Every Spend is open until its call is settled (answered, or refunded in full). One the sweeper finds
// still open past `settle_by` died with its process and is refunded: keyed or not (SVC-4).
const openSpends = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE open_spends (
      spend_id bigint PRIMARY KEY REFERENCES ledger_entries (id),
      settle_by bigint NOT NULL
    )`
  yield* sql`CREATE INDEX open_spends_settle_by ON open_spends (settle_by)`
  // Claims in flight at the upgrade keep their deadline.
  yield* sql`
    INSERT INTO open_spends (spend_id, settle_by)
    SELECT spend_id, deadline FROM idempotency_keys WHERE status = 'in_flight' AND spend_id IS NOT NULL`
})

// The Spend is one statement that moves the Account's row: the balance check and the daily cap are judged
// on that row's own columns, so the hot row lock lasts one statement instead of a transaction's round trips.
const spentToday = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE accounts ADD COLUMN spend_day date, ADD COLUMN spent_on_day bigint NOT NULL DEFAULT 0`
  yield* sql`
    UPDATE accounts a SET spend_day = (now() AT TIME ZONE 'UTC')::date, spent_on_day = COALESCE((
      SELECT SUM(CASE e.kind WHEN 'spend' THEN e.amount ELSE -e.amount END) FROM ledger_entries e
      WHERE e.account_id = a.id AND e.kind IN ('spend', 'refund')
        AND e.created_at >= date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0)`
})

// Account sign-in and the OAuth 2.1 authorization server (account sign-in for AI assistants). Secrets are
// never stored: logins keep a memory-hard hash, codes and tokens their SHA-256.
const accountSignIn = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE account_logins (
      account_id text PRIMARY KEY REFERENCES accounts (id),
      email text NOT NULL UNIQUE,
      password_hash text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // Registered clients (RFC 7591) and client metadata documents fetched for an https client id.
  yield* sql`
    CREATE TABLE oauth_clients (
      client_id text PRIMARY KEY,
      source text NOT NULL CHECK (source IN ('registration', 'metadata-document')),
      client_name text,
      redirect_uris jsonb NOT NULL,
      metadata jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      fresh_until timestamptz
    )`
  // An authorization request between the consent page and the account holder's answer.
  yield* sql`
    CREATE TABLE oauth_requests (
      id text PRIMARY KEY,
      client_id text NOT NULL,
      params jsonb NOT NULL,
      expires_at timestamptz NOT NULL,
      failed_attempts integer NOT NULL DEFAULT 0
    )`
  yield* sql`
    CREATE TABLE oauth_connections (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      client_id text NOT NULL,
      client_name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz,
      disconnected_at timestamptz
    )`
  yield* sql`CREATE INDEX oauth_connections_account ON oauth_connections (account_id)`
  yield* sql`
    CREATE TABLE oauth_codes (
      code_sha256 bytea PRIMARY KEY,
      connection_id text NOT NULL REFERENCES oauth_connections (id),
      client_id text NOT NULL,
      redirect_uri text NOT NULL,
      scope text NOT NULL,
      resource text NOT NULL,
      code_challenge text NOT NULL,
      code_challenge_method text NOT NULL,
      expires_at timestamptz NOT NULL
    )`
  // Access and refresh tokens. Tokens issued from one authorization share a grant id: a refresh token
  // presented again after it was rotated revokes the whole grant (OAuth 2.1, refresh token reuse).
  yield* sql`
    CREATE TABLE oauth_tokens (
      token_sha256 bytea PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
      grant_id text NOT NULL,
      connection_id text NOT NULL REFERENCES oauth_connections (id),
      client_id text NOT NULL,
      scope text NOT NULL,
      resource text NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id)`
  yield* sql`CREATE INDEX oauth_tokens_connection ON oauth_tokens (connection_id)`
})

// The Portal's sign-in sessions, by the SHA-256 of the cookie's token.
const portalSessions = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE portal_sessions (
      token_sha256 bytea PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX portal_sessions_expires ON portal_sessions (expires_at)`
})

// Keys whose window has ended are purged by the sweeper: this finds them without reading the live ones.
const idempotencyWindowEnd = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE INDEX idempotency_keys_window_end ON idempotency_keys ((COALESCE(completed_at, deadline)))
    WHERE status <> 'in_flight'`
})

// A used authorization code is kept (with the grant it was redeemed for) instead of deleted: presented
// again, it is recognised and the tokens issued for it are revoked (RFC 6749 §4.1.2). A grant revoked
// for good is recorded, so that a token saved for it a moment later (a request racing the revocation) is
// born revoked.
const oauthCodeUse = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE oauth_codes ADD COLUMN used_at timestamptz, ADD COLUMN used_for text`
  yield* sql`CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at)`
  yield* sql`
    CREATE TABLE oauth_revoked_grants (
      grant_id text PRIMARY KEY,
      revoked_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX oauth_revoked_grants_revoked ON oauth_revoked_grants (revoked_at)`
})

// Expired authorization requests and tokens are purged by their expiry (codes: 0011).
const oauthExpiry = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX oauth_requests_expires ON oauth_requests (expires_at)`
  yield* sql`CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at)`
})

// Each open Spend names the node whose call it is, and nodes note that they are alive: a sweeper refunds
// another node's overdue Spends only once that node has gone silent, so an answered call whose settle is
// still being retried by its live node is never refunded.
const spendNodes = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE open_spends ADD COLUMN node_id text`
  yield* sql`
    CREATE TABLE ledger_nodes (
      node_id text PRIMARY KEY,
      seen_at bigint NOT NULL
    )`
})

// The street line as the source file spelt it, for showing a match against the record.
const recordedAddress = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE parcels ADD COLUMN recorded_address text`
})

// What each Spend paid for, as the call named it (an address, or a property_id), for the usage pages.
const spendSubjects = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE ledger_entries ADD COLUMN subjects text[]`
})

// The version of what the scoring engine is built from (parcels and sales): a new random value on every
// statement that changes either table, whatever issues it, in that statement's transaction. The engine is
// rebuilt when it changes, and a start reads the data it kept under the same value instead of the tables.
const propertyDataVersion = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE property_data_version (
      single_row boolean PRIMARY KEY DEFAULT true CHECK (single_row),
      version text NOT NULL
    )`
  yield* sql`INSERT INTO property_data_version (version) VALUES (gen_random_uuid()::text)`
  yield* sql`
    CREATE FUNCTION new_property_data_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE property_data_version SET version = gen_random_uuid()::text;
      RETURN NULL;
    END
    $$`
  for (const table of ["parcels", "sales"]) {
    yield* sql`
      CREATE TRIGGER ${sql(`${table}_new_data_version`)}
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION new_property_data_version()`
  }
})

// Attempts whose caller gave up on the database's answer (a 503 after a stall): the Spend and the claim
// statements record nothing under an attempt named here, and an open Spend recorded under one before it was
// named is found by its attempt and refunded at once, not at its deadline.
const abandonedAttempts = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE abandoned_attempts (
      attempt_id text PRIMARY KEY,
      abandoned_at bigint NOT NULL
    )`
  yield* sql`CREATE INDEX abandoned_attempts_at ON abandoned_attempts (abandoned_at)`
  yield* sql`ALTER TABLE open_spends ADD COLUMN attempt_id text`
  yield* sql`CREATE INDEX open_spends_attempt ON open_spends (attempt_id) WHERE attempt_id IS NOT NULL`
})

// Addresses of recorded properties the service does not value (apartment buildings, shops): their streets
// are real, for the address index. Part of what the engine is built from: its statements change the version.
const unscoredAddresses = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE unscored_addresses (
      key text PRIMARY KEY,
      market text NOT NULL,
      street text NOT NULL,
      city text,
      state text,
      zip_code text,
      neighborhood text
    )`
  yield* sql`
    CREATE TRIGGER unscored_addresses_new_data_version
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON unscored_addresses
    FOR EACH STATEMENT EXECUTE FUNCTION new_property_data_version()`
})

// Why a sale is not arm's-length, in the importer's words, and the parcels of a package sale's deed
// (space-separated ids): a history says why a transfer's price is no market price, and a package bought and
// resold whole is a flip. Null for sales imported before, until their file is imported again.
const saleReasons = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE sales ADD COLUMN not_arms_length_because text`
  yield* sql`ALTER TABLE sales ADD COLUMN package_parcel_ids text`
})

// What the record says a property not valued is, in words (`a co-op apartment building (building class D4)`):
// a refused address names it. Null for addresses imported before, until their file is imported again.
const unscoredRecordedAs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE unscored_addresses ADD COLUMN recorded_as text`
})

// Other street lines earlier rows of a parcel recorded (a corner building's other street, a renamed street), one a
// line: an address typed as an earlier deed wrote it finds the parcel. Null until the parcel's file is imported again.
const earlierStreets = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE parcels ADD COLUMN earlier_streets text`
})

// The stored answers (10 KB a predict, far more a batch) compressed with lz4 where the server has it: writing
// 5,000 demo answers cost PostgreSQL 31 µs an answer with it and 87 with the default method (pglz), reading them
// 17 and 22 (docs/benchmarks.md). PGlite has no lz4: its column keeps the default.
const storedAnswersLz4 = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    DO $$ BEGIN
      ALTER TABLE idempotency_keys ALTER COLUMN response_body SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`
})

const migrationRecord = {
  "0001_accounts_and_credentials": accountsAndCredentials,
  "0002_property_store": propertyStore,
  "0003_price_book": priceBook,
  "0004_idempotency_keys": idempotencyKeys,
  "0005_idempotency_response_text": idempotencyResponseText,
  "0006_open_spends": openSpends,
  "0007_spent_today": spentToday,
  "0008_account_sign_in": accountSignIn,
  "0009_portal_sessions": portalSessions,
  "0010_idempotency_window_end": idempotencyWindowEnd,
  "0011_oauth_code_use": oauthCodeUse,
  "0012_oauth_expiry": oauthExpiry,
  "0013_spend_nodes": spendNodes,
  "0014_spend_subjects": spendSubjects,
  "0015_recorded_address": recordedAddress,
  "0016_property_data_version": propertyDataVersion,
  "0017_abandoned_attempts": abandonedAttempts,
  "0018_unscored_addresses": unscoredAddresses,
  "0019_sale_reasons": saleReasons,
  "0020_unscored_recorded_as": unscoredRecordedAs,
  "0021_earlier_streets": earlierStreets,
  "0022_stored_answers_lz4": storedAnswersLz4
}

export const migrations = Migrator.fromRecord(migrationRecord)

/** Every migration's id and name, in order, as the Migrator reads them from their keys. */
export const migrationIds: ReadonlyArray<readonly [number, string]> = Object.keys(migrationRecord).map((key) => {
  const [, id, name] = /^(\d+)_(.+)$/.exec(key)!
  return [Number(id), name!] as const
})

const MIGRATIONS_TABLE = "propscore_migrations"

/** Applies every pending migration; returns the ones it applied. */
export const migrate = Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })

const newestMigration = Math.max(...Object.keys(migrationRecord).map((key) => Number.parseInt(key, 10)))

/**
 * Applies pending migrations, if any. The Migrator locks its table in a transaction on every run; on the
 * embedded database, shared by every process over one session, that transaction holds the serving
 * process's statements for as long as the process that opened it takes (a command line started on a busy
 * machine). So whether anything is pending is read first, without a lock: nothing is, almost always.
 */
export const migrateIfPending = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const latest = yield* sql<{ latest: number | null }>`
    SELECT max(migration_id) AS latest FROM ${sql(MIGRATIONS_TABLE)}`.pipe(
    Effect.map(([row]) => row?.latest ?? 0),
    // No table yet: a new database.
    Effect.orElseSucceed(() => 0)
  )
  return latest >= newestMigration ? [] : yield* migrate
})
