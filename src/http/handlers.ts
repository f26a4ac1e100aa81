/** Handlers: each translates a request into its operation and the operation's answer back. */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { validate } from "../operations/validate.js"
import { Api } from "./api.js"
import { AuthenticationLive, JsonBodyLive, RequestBody } from "./middleware.js"

export const ValidateHandlers = HttpApiBuilder.group(
  Api,
  "validate",
  (handlers) => handlers.handle("validate", () => Effect.flatMap(RequestBody, validate))
)

export const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(ValidateHandlers),
  Layer.provide([AuthenticationLive, JsonBodyLive])
)
