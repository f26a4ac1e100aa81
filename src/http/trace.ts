/**
 * The trace id of a request (SVC-7): 32 lowercase hex digits, taken from a valid incoming W3C
 * `traceparent` header, else random. It is the `trace-id` header of every response and the `trace_id` of
 * every Problem Detail.
 */
import { FiberRef } from "effect"
import { randomFillSync } from "node:crypto"

const hex = (length: number) => new RegExp(`^[0-9a-f]{${length}}$`)
const versionPattern = hex(2)
const traceIdPattern = hex(32)
const parentIdPattern = hex(16)
const allZero = /^0+$/

/** The trace id of a W3C `traceparent` value, when it is valid (W3C Trace Context, level 1 §3.2). */
export const traceIdFromTraceparent = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const parts = header.trim().split("-")
  if (parts.length < 4) return undefined
  const [version, traceId, parentId, flags] = parts as [string, string, string, string]
  if (!versionPattern.test(version) || version === "ff") return undefined
  // Version 00 has exactly four fields; later versions may append more.
  if (version === "00" && parts.length !== 4) return undefined
  if (!traceIdPattern.test(traceId) || allZero.test(traceId)) return undefined
  if (!parentIdPattern.test(parentId) || allZero.test(parentId)) return undefined
  if (!versionPattern.test(flags)) return undefined
  return traceId
}

/** Random bytes drawn 4 KiB at a time (one system call per 256 trace ids, not one per request). */
const pool = Buffer.alloc(16 * 256)
let drawn = pool.length

export const newTraceId = (): string => {
  if (drawn === pool.length) {
    randomFillSync(pool)
    drawn = 0
  }
  drawn += 16
  return pool.toString("hex", drawn - 16, drawn)
}

export const traceIdFor = (traceparent: string | undefined): string =>
  traceIdFromTraceparent(traceparent) ?? newTraceId()

/** The current request's trace id, set by the front door for the life of the request. */
export const CurrentTraceId = FiberRef.unsafeMake<string>("")
