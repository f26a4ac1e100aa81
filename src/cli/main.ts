/**
 * `propscore`, the operator's command line (CONTRACT.md): serve, migrate, accounts, keys, credits, terms.
 * Every subcommand takes `--json`, and then prints exactly one JSON object on stdout (logs go to stderr).
 * It reads the server's configuration and works while the server runs, on the embedded database too.
 */
import {
  Args,
  CliConfig,
  Command,
  CommandDescriptor as Descriptor,
  HelpDoc,
  Options,
  Prompt,
  ValidationError
} from "@effect/cli"
import {
  Cause,
  Console,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  HashMap,
  identity,
  Layer,
  Option,
  Redacted,
  Schema
} from "effect"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { stripVTControlCharacters } from "node:util"
import { embeddedDatabaseServed, isNewEmbeddedDatabase } from "../../layers/database/embedded.js"
import { PropertyStorePg } from "../../layers/property-store/pg.js"
import { answerRateCounts } from "../../layers/rate-limits/cluster.js"
import { EngineHeadStart, headStartFromKept, ScoringLocal } from "../../layers/scoring/local.js"
import { problemBody } from "../../schema/problem-detail.js"
import { isProblem } from "../../schema/problems.js"
import {
  AdminLive,
  AdminServices,
  ClusterWorkerServingServices,
  DatabaseFromConfig,
  DEMO_CREDITS,
  KeptModelsFromConfig,
  ServingServices
} from "../app.js"
import { shareLearners } from "../cluster/learners.js"
import { AppConfig, type AppConfigShape } from "../config.js"
import { DatabaseClientLive, openEmbeddedForServe } from "../db/database.js"
import { migrate } from "../db/migrations.js"
import { parseApiKey } from "../domain/api-key.js"
import { hashPassword } from "../domain/password.js"
import { HttpServerLive } from "../http/server.js"
import { acceptScoredCall } from "../operations/accept.js"
import { ClaimDeadline } from "../operations/metered.js"
import { disconnect, listConnections, setLogin } from "../operations/sign-in.js"
import { generateDemoCounty } from "../property/demo-county.js"
import { loadDemoCounty } from "../property/import.js"
import { AddressIndex } from "../scoring/address-index.js"
import { modelSales, salesDigest } from "../scoring/engine.js"
import { evaluate, formatEvaluation, predictionsCsv, scratchStore } from "../scoring/evaluate.js"
import { fitDemoCountyCompsOnWorker } from "../scoring/learner-thread.js"
import { Accounts, type AccountView } from "../services/accounts.js"
import { KeptModels } from "../services/kept-models.js"
import { PropertyStore } from "../services/property-store.js"
import { TIER_LIMITS } from "../services/rate-limits.js"
import { Scoring } from "../services/scoring.js"
import { scoredAnswer } from "../valuation/answer.js"
import { isIsoDate } from "../valuation/dates.js"
import { dismissEarlyWorker, MAX_WORKERS } from "./serve-early.js"
import { type CommandNode, group, leaf, plainText, stopsAtGroup, UsageError, usageMessage } from "./usage.js"
import { awaitStartPrepared, isServeWorker, runWorkers, stopWithPrimary, tellPrimaryReady } from "./workers.js"

const json = Options.boolean("json").pipe(
  Options.withDescription("Print exactly one JSON object on stdout and nothing else there (logs go to stderr)")
)

const accountArgument = Args.text({ name: "ACCOUNT_ID" }).pipe(Args.withDescription("The account's id (acct_…)"))
const accountOption = (what: string) => someText("account").pipe(Options.withDescription(what))

/** A command's result: the JSON object, or a human line. */
const report = (asJson: boolean, value: object, human: string) => Console.log(asJson ? JSON.stringify(value) : human)

/** An operator error: printed (as `{"error": …}` with --json) and the process exits 1. */
export class CliFailure extends Error {
  constructor(readonly code: string, message: string) {
    super(message)
  }
}

/** Whole numbers at least `min`, refused by the command line itself (a usage error) before anything runs. */
const atLeast = (name: string, min: number) =>
  Options.integer(name).pipe(Options.withSchema(Schema.Int.pipe(Schema.between(min, MAX_DATABASE_INTEGER, {
    message: () => `--${name} must be a whole number from ${min} to ${MAX_DATABASE_INTEGER}`
  }))))

/**
 * A text option that must hold something besides spaces: `accounts create --name ""` made a nameless account and
 * `terms publish --version ""` a nameless version (an operator's audit). A usage error, exit 2.
 */
const someText = (name: string) =>
  Options.text(name).pipe(Options.withSchema(Schema.String.pipe(Schema.filter((text) => text.trim() !== "", {
    message: () => `--${name} must not be empty`
  }))))

/** `1 row`, `2 rows`. */
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`

/** The largest value the database's integer columns hold. */
const MAX_DATABASE_INTEGER = 2_147_483_647

const tierOption = (what: string) => Options.choice("tier", ["public", "reseller"]).pipe(Options.withDescription(what))

const failWith = (asJson: boolean) =>
(
  error: { readonly _tag: string; readonly message: string; readonly problem?: object | undefined }
) =>
  Effect.zipRight(
    // With --json the one JSON object on stdout; without, the error line on stderr, where a shell's `2>` and a
    // script reading stdout expect it (it was printed on stdout: an operator's audit, 2026-11-28).
    asJson
      ? report(true, {
        error: { code: error._tag, message: error.message, ...(error.problem ? { problem: error.problem } : {}) }
      }, "")
      : Console.error(`error: ${error.message}`),
    Effect.fail(new CliFailure(error._tag, error.message))
  )

const describeAccount = (account: AccountView) =>
  [
    `account ${account.account_id} (${account.name})`,
    `  tier: ${account.tier}`,
    `  balance: ${account.balance} Credits`,
    // (The tier's own number where the account has none of its own: "tier default" alone hid it.)
    `  rate limit: ${account.rate_limit_per_minute ?? TIER_LIMITS[account.tier]} per minute${
      account.rate_limit_per_minute === null ? " (the tier's default)" : ""
    }`,
    `  daily spend cap: ${account.daily_spend_cap ?? "none"}`,
    `  terms: ${
      account.terms.current_version === null
        ? "none published"
        : `current ${account.terms.current_version}, accepted ${account.terms.accepted_version ?? "none"}${
          account.terms.accepted ? "" : " (NOT ACCEPTED)"
        }`
    }`
  ].join("\n")

/**
 * Stores the demo county while a worker thread fits its comps model on the sales as the store will give them
 * back, and keeps the fit with the data the store now holds, for the scoring engine to restore (it does only
 * if those are the sales it reads, at the version they were kept at) instead of reading and fitting them after
 * the load. `npm run build` keeps the result as the first start's template (`data demo` on an empty folder).
 */
const loadDemoCountyAndFit = Effect.gen(function*() {
  const fit = yield* Effect.acquireRelease(
    Effect.sync(() => fitDemoCountyCompsOnWorker()),
    (fit) => Effect.sync(fit.cancel)
  )
  const [took, loaded] = yield* Effect.timed(loadDemoCounty(generateDemoCounty()))
  yield* Effect.logInfo(
    `Loaded the synthetic demo county: ${loaded.parcels} parcels in ${Math.round(Duration.toMillis(took))} ms`
  )
  yield* Effect.tryPromise(() => fit.result).pipe(
    Effect.flatMap((comps) =>
      Effect.gen(function*() {
        const store = yield* PropertyStore
        // Read before the data: a change in between makes the engine read the store again, never the reverse.
        const version = yield* store.version
        const data = yield* store.loadAll
        const digest = salesDigest(modelSales(data))
        // Its address index too: the engine restores it instead of building it (built here, it is built once).
        const addressIndex = new AddressIndex(data.parcels, data.unscored).toData()
        yield* Effect.flatMap(
          KeptModels,
          (kept) => kept.keep({ comps, data: { version, ...data, salesDigest: digest, addressIndex } })
        )
      })
    ),
    Effect.catchAll((error) => Effect.logWarning("the demo county's comps model could not be fitted ahead", error))
  )
  return loaded
}).pipe(Effect.scoped)

/** The file importers, loaded by the commands that read files (./property/import-files.ts says why). */
const fileImporters = Effect.promise(() => import("../property/import-files.js"))

/** On a first start (an empty store): the demo county, before the scoring engine reads the store. */
const prepareDemoCounty = Effect.gen(function*() {
  const store = yield* PropertyStore
  if ((yield* store.parcelCount) === 0) yield* loadDemoCountyAndFit
}).pipe(Effect.provide(Layer.merge(PropertyStorePg, KeptModelsFromConfig)))

/**
 * On a first start (no demo account yet): the demo account, its API key and its login, each shown once. Made
 * once the port answers, right before they are printed: made while the services started, a start killed in
 * those seconds left an account whose key and password nobody saw, and later starts show none (a Credits
 * audit, 2026-11-30; the operator then had to issue a key and set a login).
 */
const prepareDemoAccount = (ahead: DemoLoginAhead | undefined) =>
  Effect.gen(function*() {
    const demo = yield* Effect.flatMap(Accounts, (accounts) => accounts.ensureDemoAccount(DEMO_CREDITS))
    if (!demo) return undefined
    // The demo holder can also sign in (an assistant connecting over /mcp); the password is shown once.
    const password = ahead?.password ?? randomBytes(12).toString("base64url")
    yield* setLogin(demo.account_id, DEMO_EMAIL, password, ahead?.hash).pipe(Effect.orDie)
    return { ...demo, login: { email: DEMO_EMAIL, password } }
  }).pipe(Effect.provide(AdminServices))

/** The demo login's password, and its memory-hard hash under way on libuv's threads. */
interface DemoLoginAhead {
  readonly password: string
  readonly hash: Promise<string>
}

/**
 * On what will be a first start (the embedded database's folder holds none yet), the demo login's password
 * is hashed from the start of `serve` (a few tenths of a second of one thread), so that "listening" and the
 * login are printed when the port answers, not after the hash. Elsewhere (a restart, a server database)
 * nothing is hashed ahead: the demo account most likely exists.
 */
const demoLoginAhead = (config: AppConfigShape): DemoLoginAhead | undefined => {
  if (Option.isSome(config.databaseUrl) || !isNewEmbeddedDatabase(config.dataDir)) return undefined
  const password = randomBytes(12).toString("base64url")
  const hash = hashPassword(password)
  // Awaited only if the demo account is made here; a failure then is that call's.
  hash.catch(() => undefined)
  return { password, hash }
}

const DEMO_EMAIL = "demo@propscore.local"

const workersOption = Options.integer("workers").pipe(
  Options.withSchema(Schema.Int.pipe(Schema.between(1, MAX_WORKERS, {
    message: () => `--workers must be a whole number from 1 to ${MAX_WORKERS}`
  }))),
  Options.withDefault(os.availableParallelism()),
  Options.withDescription(
    `Serving processes behind the one port (default: the number of cores, ${os.availableParallelism()} here); ` +
      "1 serves in this process alone"
  )
)

/** The configured database, opened for the scope's life: the first-start preparation and the services share it. */
const openDatabase = Effect.map(Layer.build(DatabaseFromConfig), Layer.succeedContext)

/** The HTTP server over `services` and `database`, built for the scope's life: the port answers once this returns. */
const servingOver = (
  config: AppConfigShape,
  services: typeof ServingServices | typeof ClusterWorkerServingServices,
  database: Layer.Layer<Layer.Layer.Success<typeof DatabaseFromConfig>>
) =>
  Layer.build(
    HttpServerLive(config.port).pipe(
      Layer.provide(services),
      Layer.provide(database),
      Layer.provide(Layer.succeed(ClaimDeadline, Duration.seconds(config.claimDeadlineSeconds)))
    )
  )

type FirstStart = Effect.Effect.Success<ReturnType<typeof prepareDemoAccount>>

/** "listening", printed once the port answers (the scoring engine is fitted by then), with the demo key once. */
const reportListening = (asJson: boolean, config: AppConfigShape, demo: FirstStart) => {
  const listening = `${config.publicBaseUrl}`
  return report(
    asJson,
    { listening, port: config.port, demo_account: demo ?? null },
    [
      `propscore listening on port ${config.port} (${listening})`,
      ...(demo
        ? [
          `Created the demo account ${demo.account_id} with ${DEMO_CREDITS} Credits. Its API key, shown once:`,
          ``,
          `  ${demo.api_key}`,
          ``,
          // (The Portal's sign-in too: a Portal audit, 2026-11-30, read it as the assistants' only.)
          `The Portal (${listening}/portal) and assistants connecting to ${listening}/mcp sign in as ` +
          `${demo.login.email}, password (shown once):`,
          ``,
          `  ${demo.login.password}`,
          ``
        ]
        : [])
    ].join("\n")
  )
}

/** One process serves: the first-start preparation, the services and the port, all here. */
const serveAlone = (asJson: boolean, config: AppConfigShape) =>
  Effect.gen(function*() {
    const ahead = demoLoginAhead(config)
    if (Option.isNone(config.databaseUrl)) yield* openEmbeddedForServe(config.dataDir).pipe(Effect.orDie)
    const database = yield* openDatabase
    yield* prepareDemoCounty.pipe(Effect.provide(database))
    // The demo login's password is hashed (memory-hard, on libuv's threads) while the services start.
    yield* servingOver(config, ServingServices, database)
    yield* reportListening(asJson, config, yield* prepareDemoAccount(ahead).pipe(Effect.provide(database)))
  })

/**
 * The primary of `serve --workers N`: it holds the embedded database (the workers and the operator's commands
 * share it through its socket) and the rate counts when there is no Redis, forks the first worker at once (it
 * loads its modules meanwhile) and prepares the first start once; then that worker builds its services, and
 * the others follow once it answers. "listening" once the first worker answers.
 */
const servePrimary = (asJson: boolean, config: AppConfigShape, workers: number) =>
  Effect.gen(function*() {
    const ahead = demoLoginAhead(config)
    if (Option.isNone(config.redisUrl)) yield* answerRateCounts
    const learners = shareLearners()
    const running = yield* runWorkers(workers, learners.answerers, learners.workerGone)
    if (Option.isNone(config.databaseUrl)) yield* openEmbeddedForServe(config.dataDir).pipe(Effect.orDie)
    // The workers stop before the database closes: each settles its answered calls and refunds its stopped
    // ones there first (a graceful stop refunded 100 answered properties of a batch, their stored answers lost).
    yield* Effect.addFinalizer(() => running.stop)
    yield* Effect.scoped(Effect.gen(function*() {
      const database = yield* openDatabase
      yield* prepareDemoCounty.pipe(Effect.provide(database))
      yield* running.startServing
    }))
    // As in one process: the demo login's password is hashed while the workers build their services.
    yield* running.firstAnswering.pipe(Effect.catchAll(failWith(asJson)))
    const demo = yield* Effect.scoped(
      Effect.flatMap(openDatabase, (database) => prepareDemoAccount(ahead).pipe(Effect.provide(database)))
    )
    yield* reportListening(asJson, config, demo)
  })

/** A worker of `serve --workers N`: the services and the port once the primary prepared the start (it prints). */
const serveAsWorker = (config: AppConfigShape) =>
  Effect.gen(function*() {
    yield* stopWithPrimary
    // While the primary prepares the start: the engine from what is kept (on a restart), if it still fits then.
    const headStart = yield* Effect.fork(headStartFromKept.pipe(Effect.provide(KeptModelsFromConfig)))
    yield* awaitStartPrepared
    const services = Option.match(yield* Fiber.join(headStart), {
      onNone: () => ClusterWorkerServingServices,
      onSome: (engine) => Layer.provide(ClusterWorkerServingServices, Layer.succeed(EngineHeadStart, engine))
    })
    yield* servingOver(config, services, yield* openDatabase)
    yield* tellPrimaryReady
  }).pipe(Effect.annotateLogs("worker", String(process.pid)))

/** Whether the port can be listened on (the HTTP server listens on every interface). */
const portFree = (port: number) =>
  Effect.async<boolean>((resume) => {
    const probe = net.createServer()
    probe.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code !== "EADDRINUSE")))
    probe.listen({ port, exclusive: true }, () => probe.close(() => resume(Effect.succeed(true))))
  })

const serve = Command.make(
  "serve",
  { json, workers: workersOption },
  ({ json: asJson, workers }) =>
    Effect.gen(function*() {
      const config = yield* AppConfig
      // Before anything is made: a first start on a port another process holds created the demo account,
      // failed with a stack trace, and the next start had no key to show (an operator's audit, 2026-11-28).
      if (!isServeWorker() && !(yield* portFree(config.port))) {
        return yield* failWith(asJson)({
          _tag: "PortInUse",
          message: `port ${config.port} is already in use (EADDRINUSE): stop what holds it, or set PORT to a free port`
        })
      }
      // One server a DATA_DIR: the embedded database lets commands share it through its socket, but a second
      // server joined the first's and served on, unhealthy, once the first stopped (an operator's audit).
      if (!isServeWorker() && Option.isNone(config.databaseUrl) && (yield* embeddedDatabaseServed(config.dataDir))) {
        return yield* failWith(asJson)({
          _tag: "DataDirInUse",
          message:
            `DATA_DIR ${
              path.resolve(config.dataDir)
            } is in use: another propscore process serves its embedded database (a server, or a command run while ` +
            "none was). Stop that server first, or give this one another DATA_DIR (or a DATABASE_URL)"
        })
      }
      yield* isServeWorker()
        ? serveAsWorker(config)
        : workers === 1
        ? Effect.zipRight(Effect.sync(dismissEarlyWorker), serveAlone(asJson, config))
        : servePrimary(asJson, config, workers)
      return yield* Effect.never
    }).pipe(Effect.scoped, Effect.provide(AppConfig.layer))
).pipe(
  Command.withDescription(
    "Serve the HTTP API, in --workers processes behind one port (first start: loads the demo county and " +
      "creates the demo account)"
  )
)

const migrateCommand = Command.make("migrate", { json }, ({ json: asJson }) =>
  migrate.pipe(
    Effect.flatMap((applied) =>
      report(
        asJson,
        { applied: applied.map(([id, name]) => ({ id, name })) },
        applied.length === 0
          ? "The database is up to date."
          : applied.map(([id, name]) => `applied ${id} ${name}`).join("\n")
      )
    ),
    Effect.orDie,
    Effect.provide(DatabaseClientLive.pipe(Layer.provide(AppConfig.layer)))
  )).pipe(Command.withDescription("Apply pending database migrations"))

const accountsCreate = Command.make(
  "create",
  {
    json,
    name: someText("name").pipe(Options.withDescription("The account holder's name (a person or a company)")),
    tier: tierOption("The price tier: its default rate limit is 60 (public) or 300 (reseller) requests a minute"),
    credits: atLeast("credits", 0).pipe(Options.optional, Options.withDescription("Credits granted at once")),
    rateLimit: atLeast("rate-limit", 1).pipe(
      Options.optional,
      Options.withDescription("Requests per minute for this Account, instead of its tier's default")
    ),
    terms: Options.choice("terms", ["accepted", "pending"]).pipe(
      Options.withDefault("accepted" as const),
      Options.withDescription(
        "Whether the Terms of Service current now count as accepted by the holder (accepted: they agreed to " +
          "them with you, e.g. signed offline; the default) or the holder accepts them in the Portal first (pending)"
      )
    )
  },
  ({ credits, json: asJson, name, rateLimit, terms, tier }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const account = yield* accounts.create({
        name,
        tier,
        credits: Option.getOrUndefined(credits),
        rateLimitPerMinute: Option.getOrUndefined(rateLimit),
        terms
      })
      yield* report(asJson, account, describeAccount(account))
    })
).pipe(Command.withDescription("Create an account; prints its account_id"))

const accountsShow = Command.make(
  "show",
  { json, accountId: accountArgument },
  ({ accountId, json: asJson }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const account = yield* accounts.show(accountId).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(asJson, account, describeAccount(account))
    })
).pipe(Command.withDescription("Show an account: balance, tier, rate limit, daily spend cap, terms"))

const accountsList = Command.make(
  "list",
  { json },
  ({ json: asJson }) =>
    Effect.gen(function*() {
      const accounts = yield* Effect.flatMap(Accounts, (accounts) => accounts.list).pipe(
        Effect.catchAll(failWith(asJson))
      )
      const human = accounts.length === 0
        ? "No accounts."
        : accounts.map((account) =>
          `${account.account_id}  ${account.name}  ${account.tier}  ${account.balance} Credits  created ${account.created_at}${
            account.terms.accepted ? "" : "  (terms NOT ACCEPTED)"
          }`
        ).join("\n")
      yield* report(asJson, { accounts }, human)
    })
).pipe(Command.withDescription("List every account, oldest first: id, name, tier, balance, when created"))

const accountsUpdate = Command.make(
  "update",
  {
    json,
    accountId: accountArgument,
    tier: tierOption("The new price tier").pipe(Options.optional),
    rateLimit: atLeast("rate-limit", 1).pipe(
      Options.optional,
      Options.withDescription("Requests per minute for this Account, instead of its tier's default")
    ),
    tierRateLimit: Options.boolean("tier-rate-limit").pipe(
      Options.withDescription("Back to the tier's default rate limit")
    ),
    spendCap: atLeast("daily-spend-cap", 0).pipe(Options.optional, Options.withDescription("Credits per UTC day")),
    noSpendCap: Options.boolean("no-daily-spend-cap").pipe(Options.withDescription("Remove the daily spend cap"))
  },
  ({ accountId, json: asJson, noSpendCap, rateLimit, spendCap, tier, tierRateLimit }) =>
    Effect.gen(function*() {
      // Two options that ask for opposite things: neither wins silently (--tier-rate-limit did: an operator's audit).
      const contradiction = Option.isSome(rateLimit) && tierRateLimit
        ? "--rate-limit and --tier-rate-limit"
        : Option.isSome(spendCap) && noSpendCap
        ? "--daily-spend-cap and --no-daily-spend-cap"
        : undefined
      if (contradiction !== undefined) {
        return yield* usageFailure(
          asJson,
          `propscore accounts update: ${contradiction} contradict each other: give one. Run propscore accounts update --help.`
        )
      }
      const accounts = yield* Accounts
      const account = yield* accounts.update(accountId, {
        tier: Option.getOrUndefined(tier),
        rateLimitPerMinute: tierRateLimit ? null : Option.getOrUndefined(rateLimit),
        dailySpendCap: noSpendCap ? null : Option.getOrUndefined(spendCap)
      }).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(asJson, account, describeAccount(account))
    })
).pipe(Command.withDescription("Change an Account's tier, rate limit or daily spend cap"))

/** The first line of standard input (a password piped in, never an argument a process list would show). */
const readStdinLine = Effect.promise(async () => {
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? ""
})

const accountsSetLogin = Command.make(
  "set-login",
  {
    json,
    accountId: accountArgument,
    email: someText("email").pipe(Options.withDescription("The email the holder signs in with")),
    passwordStdin: Options.boolean("password-stdin").pipe(
      Options.withDescription(
        "Read the password from standard input: its first line when piped, asked for without echo on a terminal"
      )
    )
  },
  ({ accountId, email, json: asJson, passwordStdin }) =>
    Effect.gen(function*() {
      if (!passwordStdin) {
        return yield* failWith(asJson)({
          _tag: "InvalidLogin",
          message: "Pass the password on standard input with --password-stdin."
        })
      }
      // On a terminal, asked for without echo (it was echoed and waited for Ctrl-D: an operator's audit); piped
      // in, its first line.
      const password = process.stdin.isTTY
        ? Redacted.value(yield* Prompt.password({ message: `Password for ${email}` }))
        : yield* readStdinLine
      const login = yield* setLogin(accountId, email, password).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(asJson, login, `${login.account_id} now signs in as ${login.email}.`)
    })
).pipe(
  Command.withDescription("Set the email and password the account holder signs in with (assistant sign-in, the Portal)")
)

const accountsSubcommands = [accountsCreate, accountsList, accountsShow, accountsUpdate, accountsSetLogin] as const

const accountsCommand = Command.make("accounts").pipe(
  Command.withSubcommands(accountsSubcommands),
  Command.withDescription("Create, list, show and change accounts")
)

const keysIssue = Command.make(
  "issue",
  {
    json,
    accountId: accountOption("The account the key is for"),
    name: someText("name").pipe(Options.optional, Options.withDescription("A label for the key"))
  },
  ({ accountId, json: asJson, name }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const key = yield* accounts.issueKey(accountId, Option.getOrUndefined(name)).pipe(
        Effect.catchAll(failWith(asJson))
      )
      yield* report(asJson, key, `Issued key ${key.key_id} for ${key.account_id}. Shown once:\n\n  ${key.api_key}\n`)
    })
).pipe(Command.withDescription("Issue an API key; prints key_id and api_key (the key is shown once)"))

const keysRevoke = Command.make(
  "revoke",
  {
    json,
    keyId: Args.text({ name: "KEY_ID" }).pipe(
      Args.withDescription("The key's id (as keys issue and keys list print it), or the whole key")
    )
  },
  ({ json: asJson, keyId }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      // The whole key (ps_<id>_<secret>) names its id too: an operator revoking a leaked key has the key.
      const id = parseApiKey(keyId.trim())?.keyId ?? keyId.trim()
      const revoked = yield* accounts.revokeKey(id).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(
        asJson,
        revoked,
        revoked.already_revoked
          ? `Key ${revoked.key_id} was already revoked, at ${revoked.revoked_at}; nothing changed.`
          : `Revoked key ${revoked.key_id} at ${revoked.revoked_at}.`
      )
    })
).pipe(Command.withDescription("Revoke an API key; running servers refuse it within about a second"))

const keysList = Command.make(
  "list",
  { json, accountId: accountArgument },
  ({ accountId, json: asJson }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      // An id no account has is said (an empty list would read as an account without keys).
      yield* accounts.show(accountId).pipe(Effect.catchAll(failWith(asJson)))
      const keys = yield* accounts.listKeys(accountId).pipe(Effect.catchAll(failWith(asJson)))
      const human = keys.length === 0
        ? `${accountId} has no API keys.`
        : keys.map((key) =>
          [
            key.key_id,
            key.name ?? "(no name)",
            `created ${key.created_at}`,
            key.last_used_at === null ? "never used" : `last used ${key.last_used_at}`,
            key.revoked_at === null ? "active" : `REVOKED ${key.revoked_at}`
          ].join("  ")
        ).join("\n")
      yield* report(asJson, { account_id: accountId, keys }, human)
    })
).pipe(
  Command.withDescription(
    "List an account's API keys, newest first: id, name, created, last used, revoked (never the key itself)"
  )
)

const keysSubcommands = [keysIssue, keysList, keysRevoke] as const

const keysCommand = Command.make("keys").pipe(
  Command.withSubcommands(keysSubcommands),
  Command.withDescription("Issue, list and revoke API keys")
)

const connectionsList = Command.make(
  "list",
  { json, accountId: accountArgument },
  ({ accountId, json: asJson }) =>
    Effect.gen(function*() {
      const connections = yield* listConnections(accountId).pipe(Effect.catchAll(failWith(asJson)))
      const human = connections.length === 0
        ? `${accountId} has no connected apps.`
        : connections.map((c) => `${c.connection_id}  ${c.client_name}  connected ${c.connected_at}`).join("\n")
      yield* report(asJson, { account_id: accountId, connections }, human)
    })
).pipe(Command.withDescription("List the apps connected to an Account by sign-in, with their connection dates"))

const connectionsDisconnect = Command.make(
  "disconnect",
  {
    json,
    accountId: accountArgument,
    connectionId: Args.text({ name: "CONNECTION_ID" }).pipe(
      Args.withDescription("The connection's id (as connections list prints it)")
    )
  },
  ({ accountId, connectionId, json: asJson }) =>
    Effect.gen(function*() {
      const gone = yield* disconnect(accountId, connectionId).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(
        asJson,
        { ...gone, disconnected: true },
        `Disconnected ${gone.client_name} (${gone.connection_id}).`
      )
    })
).pipe(Command.withDescription("Disconnect an app: its next call fails 401, with no spend"))

const connectionsSubcommands = [connectionsList, connectionsDisconnect] as const

const connectionsCommand = Command.make("connections").pipe(
  Command.withSubcommands(connectionsSubcommands),
  Command.withDescription("Apps connected to accounts by sign-in")
)

const creditsGrant = Command.make(
  "grant",
  {
    json,
    accountId: accountOption("The account to credit"),
    amount: atLeast("amount", 1).pipe(Options.withDescription("How many Credits to add"))
  },
  ({ accountId, amount, json: asJson }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const granted = yield* accounts.grantCredits(accountId, amount).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(asJson, granted, `Granted ${amount} Credits to ${accountId}; balance ${granted.balance}.`)
    })
).pipe(Command.withDescription("Grant Credits to an account (appended to its Ledger)"))

const creditsSubcommands = [creditsGrant] as const

const creditsCommand = Command.make("credits").pipe(
  Command.withSubcommands(creditsSubcommands),
  Command.withDescription("Grant Credits")
)

const termsPublish = Command.make("publish", {
  json,
  version: someText("terms-version").pipe(
    Options.withDescription(
      "The new version's name, e.g. 2026-11. Written --version V as well: under terms publish, --version is " +
        "this option, not the program's version"
    )
  )
}, ({ json: asJson, version }) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const published = yield* accounts.publishTerms(version).pipe(Effect.catchAll(failWith(asJson)))
    yield* report(asJson, published, `Published Terms of Service ${published.version} (a material change).`)
  })).pipe(
    Command.withDescription(
      "Publish a Terms of Service version (a material change): accounts that have not accepted it get 403 " +
        "terms-not-accepted on Metered Calls"
    )
  )

const termsAccept = Command.make(
  "accept",
  { json, accountId: accountOption("The account that accepts") },
  ({ accountId, json: asJson }) =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const accepted = yield* accounts.acceptTerms(accountId).pipe(Effect.catchAll(failWith(asJson)))
      yield* report(asJson, accepted, `${accepted.account_id} accepted Terms of Service ${accepted.accepted_version}.`)
    })
).pipe(
  Command.withDescription(
    "Record an account's acceptance of the current Terms version (the holder can also accept in the Portal)"
  )
)

const termsSubcommands = [termsPublish, termsAccept] as const

const termsCommand = Command.make("terms").pipe(
  Command.withSubcommands(termsSubcommands),
  Command.withDescription("Publish and accept Terms of Service versions")
)

const dataImport = Command.make(
  "import",
  {
    json,
    format: Options.choice("format", ["nyc-dof", "propscore-csv"]).pipe(
      Options.withDescription("The files' format: NYC Department of Finance sales, or docs/data-format.md")
    ),
    files: Args.text({ name: "PATH" }).pipe(Args.atLeast(1), Args.withDescription("The files to import"))
  },
  ({ files, format, json: asJson }) =>
    Effect.gen(function*() {
      const { importFiles } = yield* fileImporters
      const reports = yield* importFiles(format, files).pipe(
        Effect.catchTags({ UnreadableFile: failWith(asJson), UnparsableFile: failWith(asJson) })
      )
      yield* report(
        asJson,
        { reports },
        reports.map((r) =>
          [
            // "accepted" counts every row not rejected, those already stored among them (it read as if they were
            // not: an operator's audit). A parcel's row is stored or updated: never counted as already stored.
            `${r.file} (${r.format}): ${plural(r.rows_read, "row")} read; ${r.accepted} accepted, ${r.duplicates} ` +
            `of them already stored or repeated in the file; ${r.rows_read - r.accepted} rejected`,
            ...Object.entries(r.rejected).map(([reason, count]) => `  rejected ${count}: ${reason}`)
          ].join("\n")
        ).join("\n")
      )
    }).pipe(Effect.provide(PropertyStorePg))
).pipe(Command.withDescription("Import property data files into the store (idempotent)"))

const dataDemo = Command.make("demo", { json }, ({ json: asJson }) =>
  Effect.gen(function*() {
    // Its comps model fitted meanwhile and kept with the data, as a first start does (the next start restores it).
    const imported = yield* loadDemoCountyAndFit.pipe(Effect.provide(KeptModelsFromConfig))
    yield* report(
      asJson,
      imported,
      `Loaded the synthetic demo county: ${imported.parcels} parcels, ${imported.report.rows_read} records ` +
        `(${imported.report.duplicates} already stored).`
    )
  }).pipe(Effect.provide(PropertyStorePg))).pipe(
    Command.withDescription(
      "Load the synthetic demo county (deterministic; labelled synthetic) and keep its comps model for the next start"
    )
  )

const dataSubcommands = [dataImport, dataDemo] as const

const dataCommand = Command.make("data").pipe(
  Command.withSubcommands(dataSubcommands),
  Command.withDescription("Import property data")
)

const evaluateCommand = Command.make(
  "evaluate",
  {
    json,
    splitDate: Options.text("split-date").pipe(
      Options.withDefault("2019-01-01"),
      Options.withDescription(
        "YYYY-MM-DD: fit on the sales before it, value the sales on or after it (default 2019-01-01)"
      )
    ),
    predictions: Options.file("predictions").pipe(
      Options.optional,
      Options.withDescription("Also write a CSV row per test sale to this file")
    ),
    format: Options.choice("format", ["nyc-dof", "propscore-csv"]).pipe(
      Options.withDefault("nyc-dof" as const),
      Options.withDescription("The files' format (default nyc-dof)")
    ),
    files: Args.text({ name: "FILE" }).pipe(Args.atLeast(1), Args.withDescription("The sales files to evaluate on"))
  },
  ({ files, format, json: asJson, predictions, splitDate }) =>
    Effect.gen(function*() {
      // A calendar date: 2019-13-45 was taken (and split nothing as the operator meant; an operator's audit).
      if (!isIsoDate(splitDate)) {
        return yield* failWith(asJson)({
          _tag: "InvalidSplitDate",
          message: `--split-date must be a calendar date, YYYY-MM-DD (not ${JSON.stringify(splitDate)})`
        })
      }
      // Where the predictions go is checked before the fit, which takes minutes on real files.
      if (Option.isSome(predictions)) {
        const directory = path.dirname(path.resolve(predictions.value))
        const writable = yield* Effect.sync(() => {
          try {
            fs.accessSync(directory, fs.constants.W_OK)
            return fs.statSync(directory).isDirectory()
          } catch {
            return false
          }
        })
        if (!writable) {
          return yield* failWith(asJson)({
            _tag: "UnwritableFile",
            message: `--predictions ${predictions.value}: ${directory} is no folder this process can write in`
          })
        }
      }
      const { readAndParse } = yield* fileImporters
      const parsed = yield* Effect.forEach(files, (file) => readAndParse(format, file)).pipe(
        Effect.catchTags({ UnreadableFile: failWith(asJson), UnparsableFile: failWith(asJson) })
      )
      const { predictions: rows, report: evaluation } = evaluate(scratchStore(parsed), splitDate)
      if (Option.isSome(predictions)) {
        const file = predictions.value
        yield* Effect.try({
          try: () => fs.writeFileSync(file, predictionsCsv(rows)),
          catch: (error) => ({
            _tag: "UnwritableFile",
            message: `--predictions ${file}: ${error instanceof Error ? error.message : String(error)}`
          })
        }).pipe(Effect.catchAll(failWith(asJson)))
      }
      yield* report(asJson, evaluation, formatEvaluation(evaluation))
    })
).pipe(
  Command.withDescription("Fit on sales before the split date, value the sales after it, report accuracy per market")
)

/** The `score` option (or argument) a request member's JSON pointer came from. */
const optionOfPointer = (pointer: string): string => {
  const [member, fact] = pointer.split("/").slice(1)
  if (member === "overrides" && fact !== undefined) return `--override ${fact}=…:`
  if (member === "address") return "ADDRESS:"
  if (member === "overrides") return "--override:"
  return member === undefined || member === "" ? "the request:" : `--${member.replaceAll("_", "-")}:`
}

const scoreCommand = Command.make(
  "score",
  {
    json,
    address: Args.text({ name: "ADDRESS" }).pipe(Args.withDescription("The street address, as a caller would send it")),
    condition: Options.choice("condition", ["turn_key", "light_rehab", "moderate_rehab", "major_rehab", "tear_down"])
      .pipe(Options.optional, Options.withDescription("The repair bracket (omitted: turn_key)")),
    rehabBudget: Options.integer("rehab-budget").pipe(
      Options.optional,
      Options.withDescription("The repair budget in whole dollars (wins over --condition)")
    ),
    targetMargin: Options.float("target-margin").pipe(
      Options.optional,
      Options.withDescription("The margin the offer is solved at, a fraction (default 0.2)")
    ),
    // The request's `overrides` (a Sacramento house needs its lot size: without this the command line could
    // not value one, an operator's audit found).
    overrides: Options.keyValueMap("override").pipe(
      Options.optional,
      Options.withDescription(
        "A fact to use instead of the record's, FACT=VALUE, repeatable: living_area_square_feet, " +
          "lot_size_square_feet, year_built, bedrooms, bathrooms, property_type"
      )
    )
  },
  ({ address, condition, json: asJson, overrides, rehabBudget, targetMargin }) =>
    Effect.gen(function*() {
      const facts = Option.map(overrides, (map) =>
        Object.fromEntries(
          [...HashMap.entries(map)].map((
            [fact, value]
          ) => [fact, /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value])
        ))
      const body = {
        address,
        ...(Option.isSome(condition) ? { condition: condition.value } : {}),
        ...(Option.isSome(rehabBudget) ? { rehab_budget: rehabBudget.value } : {}),
        ...(Option.isSome(targetMargin) ? { target_margin: targetMargin.value } : {}),
        ...(Option.isSome(facts) ? { overrides: facts.value } : {})
      }
      // A bad value is the command line's own mistake: a usage error naming the option, exit 2 (it was exit 1
      // with the request's JSON pointers: an operator's audit).
      const call = yield* acceptScoredCall(body).pipe(
        Effect.catchTag("InvalidRequest", (invalid) => {
          const problems = (invalid.errors ?? [{ pointer: "", detail: invalid.detail }]).map(({ detail, pointer }) =>
            `${optionOfPointer(pointer)} ${detail}`
          )
          return usageFailure(asJson, `propscore score: ${problems.join("; ")}. Run propscore score --help.`)
        })
      )
      const scoring = yield* Scoring
      const outcome = yield* scoring.score(call.address, call.overrides)
      const answer = scoredAnswer(outcome, call)
      yield* Console.log(asJson ? JSON.stringify(answer) : JSON.stringify(answer, null, 2))
    }).pipe(
      // The Problem Detail in full (an ambiguous address's candidates, a refusal's suggestions): inside the
      // error object with --json, on stderr before the error line without (it was chained after the failure
      // and never printed: an operator's audit, 2026-11-28).
      Effect.catchIf((error) => !(error instanceof UsageError) && isProblem(error), (refusal) => {
        const problem = refusal as Exclude<typeof refusal, UsageError>
        const body = problemBody(problem, { traceId: "", docsBaseUrl: "" })
        return Effect.zipRight(
          asJson ? Effect.void : Console.error(JSON.stringify(body, null, 2)),
          failWith(asJson)({ _tag: problem._tag, message: problem.detail, ...(asJson ? { problem: body } : {}) })
        )
      }),
      // The models the server keeps in DATA_DIR/kept are restored, not fitted again (and kept, if fitted).
      Effect.provide(ScoringLocal.pipe(Layer.provide(Layer.merge(PropertyStorePg, KeptModelsFromConfig))))
    )
).pipe(Command.withDescription("Score one address with the local engine and print the Scored answer (not metered)"))

const adminCommands = Command.make("propscore").pipe(
  Command.withSubcommands([
    serve,
    migrateCommand,
    accountsCommand.pipe(Command.provide(AdminLive)),
    keysCommand.pipe(Command.provide(AdminLive)),
    connectionsCommand.pipe(Command.provide(AdminLive)),
    creditsCommand.pipe(Command.provide(AdminLive)),
    termsCommand.pipe(Command.provide(AdminLive)),
    dataCommand.pipe(Command.provide(AdminLive)),
    evaluateCommand,
    scoreCommand.pipe(Command.provide(AdminLive))
  ]),
  Command.withDescription(
    "The operator's command line: serve the API; manage accounts, API keys, Credits and Terms of Service; " +
      "import property data; score and evaluate with the local engine"
  )
)

/** The same commands as a tree, for the hints of usage errors. */
const commandTree: CommandNode = group(adminCommands, [
  leaf(serve),
  leaf(migrateCommand),
  group(accountsCommand, accountsSubcommands.map(leaf)),
  group(keysCommand, keysSubcommands.map(leaf)),
  group(connectionsCommand, connectionsSubcommands.map(leaf)),
  group(creditsCommand, creditsSubcommands.map(leaf)),
  group(termsCommand, termsSubcommands.map(leaf)),
  group(dataCommand, dataSubcommands.map(leaf)),
  leaf(evaluateCommand),
  leaf(scoreCommand)
])

/** The command tree, for tests that every command and option is described. */
export { commandTree }

const run = Command.run(adminCommands, { name: "propscore", version: "0.1.0" })

/**
 * CONTRACT.md spells `terms publish --version V`, but @effect/cli reserves `--version` for the program's
 * own version wherever it appears; under `terms publish` it is read as `--terms-version`.
 */
export const normalizeArgs = (argv: ReadonlyArray<string>): Array<string> => {
  const [node, script, ...args] = argv
  if (args[0] !== "terms" || args[1] !== "publish") return [...argv]
  return [
    node!,
    script!,
    ...args.map((arg) =>
      arg === "--version" ? "--terms-version" : arg.startsWith("--version=") ? `--terms-version=${arg.slice(10)}` : arg
    )
  ]
}

/** Whether help may be styled: standard output is a terminal and NO_COLOR is unset or empty (no-color.org). */
export const colorWanted = () => process.stdout.isTTY === true && !process.env["NO_COLOR"]

/** The same console, with ANSI escape sequences taken out of what it logs (@effect/cli styles its help). */
const withoutAnsi = (console: Console.Console): Console.Console =>
  Object.assign(Object.create(console) as Console.Console, {
    log: (...args: ReadonlyArray<unknown>) =>
      console.log(...args.map((arg) => (typeof arg === "string" ? stripVTControlCharacters(arg) : arg)))
  })

/** A usage error: said in plain words on stderr, or as `{"error": {"code": "usage", …}}` with --json; exit 2. */
const usageFailure = (asJson: boolean, message: string) =>
  Effect.zipRight(
    asJson ? Console.log(JSON.stringify({ error: { code: "usage", message } })) : Console.error(message),
    Effect.fail(new UsageError(message))
  )

/**
 * The command line. The words are parsed once first, so that a usage error is answered here in plain words
 * (@effect/cli would print its own styled text and fail with its internal error); then @effect/cli runs
 * them, its help unstyled unless `color` (default: `colorWanted()`). A command's own output never holds
 * escape sequences (JSON escapes them), so taking them out of what is logged only ever touches the help.
 */
export const cli = (argv: ReadonlyArray<string>, options: { readonly color?: boolean } = {}) => {
  const args = normalizeArgs(argv)
  const words = args.slice(2)
  const asJson = words.includes("--json")
  return Effect.gen(function*() {
    // @effect/cli's --wizard asks its questions on a terminal; without one it waited forever (an operator's audit).
    if (words.includes("--wizard") && process.stdin.isTTY !== true) {
      return yield* usageFailure(
        asJson,
        "propscore: --wizard asks its questions on a terminal, and standard input is none: give the command's " +
          "options instead. Run propscore --help."
      )
    }
    const parsed = yield* Effect.either(
      Descriptor.parse(adminCommands.descriptor, [commandTree.name, ...words], CliConfig.defaultConfig)
    )
    if (Either.isLeft(parsed)) return yield* usageFailure(asJson, usageMessage(commandTree, words, parsed.left))
    const directive = parsed.right
    if (directive._tag === "UserDefined" && directive.leftover.length > 0) {
      const unknown = ValidationError.invalidValue(HelpDoc.p(`Received unknown argument: '${directive.leftover[0]}'`))
      return yield* usageFailure(asJson, usageMessage(commandTree, words, unknown))
    }
    // A command that only groups others (or none at all) does nothing: say which ones it has.
    if (directive._tag === "UserDefined" && stopsAtGroup(commandTree, words)) {
      return yield* usageFailure(asJson, usageMessage(commandTree, words))
    }
    const console = yield* Effect.console
    return yield* run(args).pipe(
      (options.color ?? colorWanted()) ? identity : Effect.withConsole(withoutAnsi(console)),
      // Anything @effect/cli still refuses has been printed by it; it is a usage error all the same.
      Effect.catchIf(ValidationError.isValidationError, (error) => Effect.fail(new UsageError(plainText(error.error))))
    )
  })
}

/** The process's exit code: 0 on success (or an interruption), 2 for a usage error, 1 for any other failure. */
export const exitCode = (exit: Exit.Exit<unknown, unknown>): number => {
  if (Exit.isSuccess(exit) || Cause.isInterruptedOnly(exit.cause)) return 0
  const failure = Cause.failureOption(exit.cause)
  return Option.isSome(failure) && failure.value instanceof UsageError ? 2 : 1
}
