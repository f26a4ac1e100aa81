/** The service's configuration, read from the environment variables of CONTRACT.md. */
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

export interface AppConfigShape {
  readonly port: number
  /** `{base_url}` */
  readonly publicBaseUrl: string
  /** `{docs_base}`: every error `type` is `{docs_base}/errors/<slug>`. */
  readonly docsBaseUrl: string
  /** A real PostgreSQL server; none means the embedded PGlite in `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  readonly dataDir: string
  readonly redisUrl: Option.Option<Redacted.Redacted>
  /** How long a claimed request may run before the sweeper presumes it dead (seconds). */
  readonly claimDeadlineSeconds: number
  /**
   * How long a process waits at its start for the `DATABASE_URL` server to answer, trying again with
   * backoff (seconds; 0: fail at the first refusal).
   */
  readonly databaseWaitSeconds: number
  /**
   * Development: the public base URL is a loopback address (the service is not public). Client metadata
   * documents of assistants signing in may then be fetched from loopback and private addresses.
   */
  readonly development: boolean
}

/** Host names (as `URL.hostname` spells them) that reach this machine only. */
export const LOOPBACK_HOSTNAMES: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "[::1]"])

export const isLoopbackUrl = (url: string) => LOOPBACK_HOSTNAMES.has(new URL(url).hostname)

const trimSlash = (url: string) => url.replace(/\/+$/, "")

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  publicBaseUrl: Config.option(Config.nonEmptyString("PUBLIC_BASE_URL")),
  docsBaseUrl: Config.option(Config.nonEmptyString("DOCS_BASE_URL")),
  databaseUrl: Config.option(Config.redacted(Config.nonEmptyString("DATABASE_URL"))),
  dataDir: Config.nonEmptyString("DATA_DIR").pipe(Config.withDefault("./.propscore")),
  redisUrl: Config.option(Config.redacted(Config.nonEmptyString("REDIS_URL"))),
  claimDeadlineSeconds: Config.integer("CLAIM_DEADLINE_SECONDS").pipe(
    Config.validate({ message: "CLAIM_DEADLINE_SECONDS must be at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(60)
  ),
  databaseWaitSeconds: Config.integer("DATABASE_WAIT_SECONDS").pipe(
    Config.validate({ message: "DATABASE_WAIT_SECONDS must be 0 or more", validation: (n) => n >= 0 }),
    Config.withDefault(60)
  )
}).pipe(
  Config.map(({ docsBaseUrl, publicBaseUrl, ...rest }) => {
    const base = trimSlash(Option.getOrElse(publicBaseUrl, () => `http://localhost:${rest.port}`))
    return {
      ...rest,
      development: isLoopbackUrl(base),
      publicBaseUrl: base,
      docsBaseUrl: trimSlash(Option.getOrElse(docsBaseUrl, () => `${base}/docs`))
    }
  })
)

export class AppConfig extends Context.Tag("propscore/AppConfig")<AppConfig, AppConfigShape>() {
  static readonly layer = Layer.effect(AppConfig, appConfig)
  static readonly make = (overrides: Partial<AppConfigShape> & { readonly port: number }): AppConfigShape => {
    const publicBaseUrl = overrides.publicBaseUrl ?? `http://localhost:${overrides.port}`
    return {
      databaseUrl: Option.none(),
      dataDir: "./.propscore",
      redisUrl: Option.none(),
      claimDeadlineSeconds: 60,
      databaseWaitSeconds: 0,
      development: isLoopbackUrl(publicBaseUrl),
      docsBaseUrl: `${publicBaseUrl}/docs`,
      ...overrides,
      publicBaseUrl
    }
  }
}

export const currentConfig = Effect.flatMap(AppConfig, Effect.succeed)
