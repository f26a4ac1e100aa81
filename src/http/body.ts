/**
 * Reading a request body, bounded. The platform's own reader destroys the connection the moment a body
 * passes its bound, so a client still uploading (a chunked body has no Content-Length to refuse up front)
 * gets a connection reset instead of our 413. Here the rest of an oversized body is read and dropped while
 * the refusal is answered, up to `DISCARD_LIMIT` more bytes; a client that sends even more than that has
 * its connection closed.
 */
import type { HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Data, Effect } from "effect"

/** How much of an oversized body is read and dropped before the connection is closed instead. */
export const DISCARD_LIMIT = 16 * 1024 * 1024

/** The body is larger than the bound. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly limit: number }> {}

/** The body could not be read: the client went away or sent a broken stream. */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause: unknown }> {}

/** The request body as UTF-8 text, at most `maxBytes`. */
export const readBodyText = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<string, BodyTooLarge | BodyUnreadable> =>
  Effect.async((resume) => {
    const incoming = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let bytes = 0
    let done = false
    const finish = (result: Effect.Effect<string, BodyTooLarge | BodyUnreadable>) => {
      if (done) return
      done = true
      chunks.length = 0
      resume(result)
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (!done && bytes > maxBytes) return finish(Effect.fail(new BodyTooLarge({ limit: maxBytes })))
      if (done) {
        if (bytes > maxBytes + DISCARD_LIMIT) incoming.destroy()
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      if (!done) finish(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    }
    const onError = (cause: unknown) => finish(Effect.fail(new BodyUnreadable({ cause })))
    incoming.on("data", onData).once("end", onEnd).once("error", onError)
    return Effect.sync(() => {
      done = true
      incoming.off("end", onEnd).off("error", onError)
    })
  })
