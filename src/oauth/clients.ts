/**
 * Who may ask for sign-in: clients registered dynamically (RFC 7591) and clients identified by a Client ID
 * Metadata Document (an https URL whose JSON document describes the client, fetched and cached here).
 * Every client is public (PKCE, no secret): `token_endpoint_auth_method` is `none`.
 */
import { Context, Data, Effect, Layer } from "effect"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { request as httpsRequest } from "node:https"
import { BlockList, isIP } from "node:net"
import { nestsDeeperThan } from "../../schema/decode.js"
import { hasControlCharacters } from "../../schema/text.js"
import { LOOPBACK_HOSTNAMES } from "../config.js"

/** The scopes a client may ask for: the one that reaches the MCP tools. */
export const SCOPES = ["mcp"] as const
export const isSupportedScope = (scope: string) => (SCOPES as ReadonlyArray<string>).includes(scope)

export const SUPPORTED_GRANT_TYPES = ["authorization_code", "refresh_token"] as const

/** A client's metadata refused, with the RFC 7591 error code and what is wrong. */
export class InvalidClientMetadata extends Data.TaggedError("InvalidClientMetadata")<{
  readonly error: "invalid_client_metadata" | "invalid_redirect_uri"
  readonly description: string
}> {}

export interface ValidClientMetadata {
  readonly clientName: string | null
  readonly redirectUris: ReadonlyArray<string>
  /** What the server records and answers: the accepted members, with the server's own choices filled in. */
  readonly metadata: Record<string, unknown>
}

const forbiddenSchemes = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "ftp:",
  "ws:",
  "wss:"
])

/**
 * A redirect URI a client may register: absolute, no fragment; https, http only to a loopback address
 * (native apps, RFC 8252 §7.3), or a private-use scheme of a native app (RFC 8252 §7.1).
 */
export const redirectUriProblem = (uri: unknown): string | undefined => {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 2000) {
    return "a redirect URI must be a non-empty string"
  }
  if (hasControlCharacters(uri)) return "a redirect URI must not contain control characters"
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `${uri} is not an absolute URI`
  }
  if (url.hash !== "" || uri.includes("#")) return `${uri} must not have a fragment`
  if (forbiddenSchemes.has(url.protocol)) return `${uri} uses a scheme that cannot be a redirect`
  if (url.protocol === "http:" && !LOOPBACK_HOSTNAMES.has(url.hostname)) {
    return `${uri} must use https (http only to localhost, 127.0.0.1 or [::1])`
  }
  if ((url.protocol === "https:" || url.protocol === "http:") && (url.username !== "" || url.password !== "")) {
    return `${uri} must not carry credentials`
  }
  return undefined
}

const invalid = (description: string) => new InvalidClientMetadata({ error: "invalid_client_metadata", description })

/**
 * Whether a redirect URI in a request matches a registered one: exactly, except that a loopback IP
 * redirect may use any port (RFC 8252 §7.3, OAuth 2.1 §8.4.2: native apps take a free port each time).
 */
export const redirectUriMatches = (registered: string, requested: string): boolean => {
  if (registered === requested) return true
  try {
    const a = new URL(registered)
    const b = new URL(requested)
    const loopback = (url: URL) => url.protocol === "http:" && LOOPBACK_HOSTNAMES.has(url.hostname)
    return loopback(a) && loopback(b) && a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search
  } catch {
    return false
  }
}

/** Validates client metadata, from a registration request or a metadata document. */
export const validateClientMetadata = (body: unknown): Effect.Effect<ValidClientMetadata, InvalidClientMetadata> =>
  Effect.gen(function*() {
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return yield* invalid("The metadata must be a JSON object.")
    }
    const input = body as Record<string, unknown>
    // Nothing with control characters is stored (PostgreSQL refuses NUL), and nothing nested deeply.
    if (nestsDeeperThan(input, 4)) return yield* invalid("The metadata nests arrays and objects too deeply.")
    for (const [member, value] of Object.entries(input)) {
      if (member === "redirect_uris" || member === "client_name") continue // judged below, more strictly
      const texts = typeof value === "string" ? [value] : Array.isArray(value) ? value : []
      if (
        hasControlCharacters(member) || texts.some((text) => typeof text === "string" && hasControlCharacters(text))
      ) {
        return yield* invalid(`${member} must not contain control characters.`)
      }
    }
    const redirectUris = input["redirect_uris"]
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > 20) {
      return yield* new InvalidClientMetadata({
        error: "invalid_redirect_uri",
        description: "redirect_uris must list 1 to 20 URIs."
      })
    }
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri)
      if (problem) return yield* new InvalidClientMetadata({ error: "invalid_redirect_uri", description: problem })
    }
    const method = input["token_endpoint_auth_method"] ?? "none"
    if (method !== "none") {
      return yield* invalid(
        "Only public clients are supported: token_endpoint_auth_method must be \"none\" (PKCE protects the code)."
      )
    }
    const grantTypes = input["grant_types"] ?? [...SUPPORTED_GRANT_TYPES]
    if (
      !Array.isArray(grantTypes) ||
      !grantTypes.every((g) => (SUPPORTED_GRANT_TYPES as ReadonlyArray<unknown>).includes(g))
    ) {
      return yield* invalid(`grant_types may only list ${SUPPORTED_GRANT_TYPES.join(" and ")}.`)
    }
    if (!grantTypes.includes("authorization_code")) {
      return yield* invalid("grant_types must include authorization_code.")
    }
    const responseTypes = input["response_types"] ?? ["code"]
    if (!Array.isArray(responseTypes) || responseTypes.some((r) => r !== "code")) {
      return yield* invalid("response_types may only list code.")
    }
    const name = input["client_name"]
    if (name !== undefined && (typeof name !== "string" || name.trim().length === 0 || name.length > 200)) {
      return yield* invalid("client_name must be a non-empty string of at most 200 characters.")
    }
    // Control and format characters (terminal escapes, right-to-left overrides) could disguise the name on
    // the consent page or in the operator's terminal.
    if (typeof name === "string" && /[\p{Cc}\p{Cf}]/u.test(name)) {
      return yield* invalid("client_name must not contain control or formatting characters.")
    }
    const optionalUrls = ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const
    const extras: Record<string, unknown> = {}
    for (const member of optionalUrls) {
      const value = input[member]
      if (value === undefined) continue
      if (typeof value !== "string" || !/^https:\/\//.test(value) || value.length > 2000) {
        return yield* invalid(`${member} must be an https URL.`)
      }
      extras[member] = value
    }
    const requestedScope = input["scope"]
    if (requestedScope !== undefined && typeof requestedScope !== "string") {
      return yield* invalid("scope must be a string.")
    }
    // Registered as the scopes this server offers (RFC 7591 §2 lets the server replace a requested value, and
    // the answer shows what was registered): a client that registered `mcp openid` and asked for it was
    // refused at the sign-in page (an agent audit).
    const offered = typeof requestedScope === "string"
      ? requestedScope.split(" ").filter((s) => s !== "" && isSupportedScope(s))
      : []
    const scope = typeof requestedScope === "string"
      ? (offered.length > 0 ? offered : [...SCOPES]).join(" ")
      : undefined
    return {
      clientName: typeof name === "string" ? name.trim() : null,
      redirectUris: redirectUris as ReadonlyArray<string>,
      metadata: {
        ...(typeof name === "string" ? { client_name: name.trim() } : {}),
        redirect_uris: redirectUris,
        grant_types: grantTypes,
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        ...(typeof scope === "string" ? { scope } : {}),
        ...extras
      }
    }
  })

// ---------------------------------------------------------------------------------------------------------
// Client ID Metadata Documents

/** A client id that names a metadata document: an https URL with a path, no fragment and no credentials. */
export const isMetadataDocumentClientId = (clientId: string): boolean => {
  if (!clientId.startsWith("https://")) return false
  try {
    const url = new URL(clientId)
    return url.pathname !== "/" && url.hash === "" && !clientId.includes("#") && url.username === "" &&
      url.password === "" &&
      !url.pathname.split("/").some((segment) => segment === "." || segment === "..")
  } catch {
    return false
  }
}

export class ClientMetadataUnavailable
  extends Data.TaggedError("ClientMetadataUnavailable")<{ readonly reason: string }>
{}

export interface FetchedDocument {
  readonly body: unknown
  /** How long the document may be cached, from its Cache-Control (bounded by the fetcher). */
  readonly maxAgeSeconds: number
}

export class ClientMetadataFetcher extends Context.Tag("propscore/ClientMetadataFetcher")<ClientMetadataFetcher, {
  readonly fetch: (url: string) => Effect.Effect<FetchedDocument, ClientMetadataUnavailable>
}>() {}

export const MAX_DOCUMENT_BYTES = 64 * 1024
export const FETCH_TIMEOUT_MS = 5_000
export const MIN_CACHE_SECONDS = 300
export const MAX_CACHE_SECONDS = 86_400
export const DEFAULT_CACHE_SECONDS = 3_600

/** Addresses a client metadata URL must not reach outside development: loopback, private, link-local, … */
const privateRanges = (() => {
  const list = new BlockList()
  for (
    const [net, prefix] of [
      ["0.0.0.0", 8],
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["172.16.0.0", 12],
      ["192.0.0.0", 24],
      ["192.168.0.0", 16],
      ["198.18.0.0", 15],
      ["224.0.0.0", 4],
      ["240.0.0.0", 4]
    ] as const
  ) list.addSubnet(net, prefix, "ipv4")
  // IPv6: loopback, unspecified, IPv4-compatible and -translated forms, NAT64 (well-known and local), 6to4
  // (which embeds an IPv4 address), unique-local, site-local, link-local and multicast.
  for (
    const [net, prefix] of [
      ["::", 96],
      ["::1", 128],
      ["::ffff:0:0:0", 96],
      ["64:ff9b::", 96],
      ["64:ff9b:1::", 48],
      ["2002::", 16],
      ["fc00::", 7],
      ["fec0::", 10],
      ["fe80::", 10],
      ["ff00::", 8]
    ] as const
  ) {
    list.addSubnet(net, prefix, "ipv6")
  }
  return list
})()

export const isPrivateAddress = (address: string): boolean => {
  const family = isIP(address)
  if (family === 0) return true
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return privateRanges.check(mapped[1]!, "ipv4")
  return privateRanges.check(address, family === 4 ? "ipv4" : "ipv6")
}

export interface FetcherOptions {
  /** Development only: let client metadata URLs reach loopback and private addresses. */
  readonly allowPrivateAddresses: boolean
  /** Extra trusted certificate authorities (PEM), for a development or test server. */
  readonly ca?: string | undefined
}

const cacheSeconds = (cacheControl: string | undefined): number => {
  if (!cacheControl) return DEFAULT_CACHE_SECONDS
  if (/\bno-store\b|\bno-cache\b/i.test(cacheControl)) return MIN_CACHE_SECONDS
  const maxAge = /\bmax-age=(\d+)/i.exec(cacheControl)
  const seconds = maxAge ? Number(maxAge[1]) : DEFAULT_CACHE_SECONDS
  return Math.min(MAX_CACHE_SECONDS, Math.max(MIN_CACHE_SECONDS, seconds))
}

/**
 * Fetches a metadata document over https only: no redirects, at most 64 KiB, 5 s in all. The address is
 * checked after the name is resolved, on the connection itself, so a name that resolves to a private
 * address (or changes its answer between a check and the fetch) is refused outside development.
 */
export const fetchMetadataDocument = (url: string, options: FetcherOptions) =>
  Effect.async<FetchedDocument, ClientMetadataUnavailable>((resume) => {
    const fail = (reason: string) => resume(Effect.fail(new ClientMetadataUnavailable({ reason })))
    const target = new URL(url)
    if (target.protocol !== "https:") return fail("the client id is not an https URL")
    const literal = target.hostname.replace(/^\[|\]$/g, "")
    if (isIP(literal) !== 0 && !options.allowPrivateAddresses && isPrivateAddress(literal)) {
      return fail("the client id's host is a private or loopback address")
    }
    const guardedLookup = (
      hostname: string,
      lookupOptions: { all?: boolean },
      callback: (
        error: NodeJS.ErrnoException | null,
        address: string | ReadonlyArray<LookupAddress>,
        family?: number
      ) => void
    ) => {
      dnsLookup(hostname, { all: true }, (error, addresses) => {
        if (error) return callback(error, "")
        const allowed = options.allowPrivateAddresses
          ? addresses
          : addresses.filter((a) => !isPrivateAddress(a.address))
        if (allowed.length === 0) {
          const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves only to private or loopback addresses`)
          refused.code = "EPRIVATEADDRESS"
          return callback(refused, "")
        }
        if (lookupOptions.all) return callback(null, allowed)
        return callback(null, allowed[0]!.address, allowed[0]!.family)
      })
    }
    let settled = false
    const request = httpsRequest(target, {
      method: "GET",
      headers: { accept: "application/json", "user-agent": "propscore-authorization-server" },
      lookup: guardedLookup as never,
      agent: false,
      ...(options.ca ? { ca: options.ca } : {})
    }, (response) => {
      // A refused answer is not read at all: its body could be endless.
      if (response.statusCode !== 200) {
        settled = true
        request.destroy()
        return fail(`the document answered HTTP ${response.statusCode}`)
      }
      const contentType = response.headers["content-type"] ?? ""
      if (!/^application\/([\w.+-]+\+)?json\b/i.test(contentType)) {
        settled = true
        request.destroy()
        return fail(`the document is ${contentType || "untyped"}, not JSON`)
      }
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > MAX_DOCUMENT_BYTES) {
          settled = true
          request.destroy()
          fail(`the document is larger than ${MAX_DOCUMENT_BYTES} bytes`)
        } else chunks.push(chunk)
      })
      response.on("end", () => {
        if (settled) return
        settled = true
        try {
          resume(Effect.succeed({
            body: JSON.parse(Buffer.concat(chunks).toString("utf8")),
            maxAgeSeconds: cacheSeconds(response.headers["cache-control"])
          }))
        } catch {
          fail("the document is not valid JSON")
        }
      })
      response.on("error", (error) => {
        if (!settled) {
          settled = true
          fail(error.message)
        }
      })
    })
    const timer = setTimeout(() => {
      if (!settled) {
        settled = true
        request.destroy()
        fail(`the document did not arrive within ${FETCH_TIMEOUT_MS} ms`)
      }
    }, FETCH_TIMEOUT_MS)
    request.on("close", () => clearTimeout(timer))
    request.on("error", (error) => {
      if (!settled) {
        settled = true
        fail(error.message)
      }
    })
    request.end()
    return Effect.sync(() => {
      clearTimeout(timer)
      request.destroy()
    })
  })

export const ClientMetadataFetcherLive = (options: FetcherOptions) =>
  Layer.succeed(
    ClientMetadataFetcher,
    ClientMetadataFetcher.of({ fetch: (url) => fetchMetadataDocument(url, options) })
  )
