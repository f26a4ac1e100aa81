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

/** Whether `text` parses as a URL whose scheme is one of `schemes` (with the colon: `"https:"`). */
const isUrlOf = (text: string, schemes: ReadonlyArray<string>) => {
  try {
    return schemes.includes(new URL(text).protocol)
  } catch {
    return false
  }
}

/**
 * A setting that must be a URL of one of `schemes`: refused at the start, naming the variable, where a
 * `DATABASE_URL=notaurl` was tried for a minute as if its server were starting (an operator's audit) and a
 * `PUBLIC_BASE_URL` that is no URL failed the start with a stack.
 */
const urlSetting = (name: string, schemes: ReadonlyArray<string>, example: string, orSocketPath = false) =>
  Config.redacted(Config.nonEmptyString(name)).pipe(
    // Validated as a secret (a URL may carry a password): the message names the variable, never its value.
    Config.validate({
      message: `${name} must be a URL beginning ${schemes.map((s) => `${s}//`).join(" or ")} (e.g. ${example})${
        orSocketPath ? ", or a socket directory's path" : ""
      }`,
      validation: (secret) => {
        const text = Redacted.value(secret)
        return isUrlOf(text, schemes) || (orSocketPath && text.startsWith("/"))
      }
    })
  )

export const appConfig: Config.Config<AppConfigShape> = Config.all({
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  publicBaseUrl: Config.option(
    urlSetting("PUBLIC_BASE_URL", ["https:", "http:"], "https://api.example.com").pipe(Config.map(Redacted.value))
  ),
  docsBaseUrl: Config.option(
    urlSetting("DOCS_BASE_URL", ["https:", "http:"], "https://api.example.com/docs").pipe(Config.map(Redacted.value))
  ),
  databaseUrl: Config.option(
    urlSetting("DATABASE_URL", ["postgres:", "postgresql:"], "postgres://user@db.example.com:5432/propscore", true)
  ),
  dataDir: Config.nonEmptyString("DATA_DIR").pipe(Config.withDefault("./.propscore")),
  redisUrl: Config.option(urlSetting("REDIS_URL", ["redis:", "rediss:"], "redis://127.0.0.1:6379")),
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
