/** Reading an HTML form's body (`application/x-www-form-urlencoded`), bounded, one value per name. */
import type { HttpServerRequest } from "@effect/platform"
import { Data, Effect } from "effect"
import { hasControlCharacters } from "../../schema/text.js"
import { readBodyText } from "./body.js"

export const MAX_FORM_BYTES = 64 * 1024

export class FormRefused extends Data.TaggedError("FormRefused")<{ readonly message: string }> {}

/** The raw body, at most MAX_FORM_BYTES. */
export const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  readBodyText(request, MAX_FORM_BYTES).pipe(
    Effect.mapError(() => new FormRefused({ message: `The body could not be read (at most ${MAX_FORM_BYTES} bytes).` }))
  )

const isForm = (request: HttpServerRequest.HttpServerRequest) =>
  /^application\/x-www-form-urlencoded\b/i.test(request.headers["content-type"] ?? "")

/** A form body as single values; a parameter sent twice is refused (as RFC 6749 §3.1 asks of OAuth). */
export const readForm = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!isForm(request)) {
      return yield* new FormRefused({ message: "Send the body as application/x-www-form-urlencoded." })
    }
    const params = new URLSearchParams(yield* readBody(request))
    const form: Record<string, string> = {}
    for (const [name, value] of params) {
      if (name in form) return yield* new FormRefused({ message: `${name} is sent more than once.` })
      if (hasControlCharacters(name) || hasControlCharacters(value)) {
        return yield* new FormRefused({ message: `${name} must not contain control characters.` })
      }
      form[name] = value
    }
    return form
  })
