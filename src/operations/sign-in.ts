/**
 * Account holders' sign-in: their logins (email and password, set by the operator) and the apps they
 * connected by signing in (listed and disconnected from the command line and the Portal). The password
 * check is shared by the consent page of the authorization server (src/oauth/) and the Portal.
 */
import { Data, Effect, Option } from "effect"
import {
  decoyHash,
  emailProblem,
  hashPassword,
  normalizeEmail,
  passwordProblem,
  verifyPassword
} from "../domain/password.js"
import { Accounts } from "../services/accounts.js"
import { Connections } from "../services/connections.js"
import { RateLimits } from "../services/rate-limits.js"

/**
 * Password hashes at once on this node: each takes 128 MiB and a thread of libuv's small pool (shared with
 * DNS and file I/O), so a flood of sign-ins queues here instead of starving everything else.
 */
const hashing = Effect.unsafeMakeSemaphore(2)

/** The account holder's sign-in: the Account of an email and password, or none (in constant-ish time). */
export const verifyLogin = (email: string, password: string) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const login = yield* accounts.findLogin(normalizeEmail(email))
    const stored = Option.isSome(login) ? login.value.passwordHash : yield* Effect.promise(decoyHash)
    const matches = yield* hashing.withPermits(1)(Effect.promise(() => verifyPassword(password, stored)))
    return Option.isSome(login) && matches ? Option.some(login.value.accountId) : Option.none<string>()
  })

export type SignInAttempt =
  | { readonly _tag: "SignedIn"; readonly accountId: string }
  | { readonly _tag: "Wrong"; readonly message: string }
  | { readonly _tag: "Throttled"; readonly message: string }

/**
 * One password attempt of the account holder, on the consent page or the Portal. Attempts are bounded per
 * email across both (SIGN_IN_ATTEMPTS_PER_MINUTE) before any hash is computed: past the bound the attempt is
 * refused unchecked, even with the right password, until the window has room again.
 */
export const attemptSignIn = (email: string, password: string) =>
  Effect.gen(function*() {
    const limits = yield* RateLimits
    const throttled = yield* limits.count({ _tag: "SignIn", email: normalizeEmail(email) }).pipe(
      Effect.as(undefined),
      Effect.catchAll(({ problem }) => Effect.succeed(problem.detail))
    )
    if (throttled !== undefined) {
      return { _tag: "Throttled", message: throttled } satisfies SignInAttempt as SignInAttempt
    }
    return Option.match(yield* verifyLogin(email, password), {
      onNone: (): SignInAttempt => ({ _tag: "Wrong", message: "The email or password is not right." }),
      onSome: (accountId): SignInAttempt => ({ _tag: "SignedIn", accountId })
    })
  })

export class InvalidLogin extends Data.TaggedError("InvalidLogin")<{ readonly reason: string }> {
  override get message() {
    return this.reason
  }
}

/**
 * Stores the holder's sign-in. `hashedAhead`: the password's hash (`hashPassword(password)`) where the caller
 * started it earlier (a first start hashes the demo login's while the database opens), else it is made here.
 */
export const setLogin = (accountId: string, email: string, password: string, hashedAhead?: Promise<string>) =>
  Effect.gen(function*() {
    const problem = emailProblem(email) ?? passwordProblem(password)
    if (problem) return yield* new InvalidLogin({ reason: problem })
    const passwordHash = yield* (hashedAhead !== undefined
      ? Effect.promise(() => hashedAhead)
      : hashing.withPermits(1)(Effect.promise(() => hashPassword(password))))
    const accounts = yield* Accounts
    return yield* accounts.setLogin({ accountId, email: normalizeEmail(email), passwordHash })
  })

export const listConnections = (accountId: string) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    yield* accounts.show(accountId)
    const connections = yield* Connections
    return yield* connections.list(accountId)
  })

export const disconnect = (accountId: string, connectionId: string) =>
  Effect.flatMap(Connections, (connections) => connections.disconnect(accountId, connectionId))
