/**
 * The clients of the authorization server: dynamic registration (RFC 7591) and the client of a client id,
 * registered here or described by its Client ID Metadata Document (fetched, validated and cached).
 */
import { Clock, Effect, Option } from "effect"
import { newClientId } from "../domain/oauth-token.js"
import { Connections, type OAuthClient } from "../services/connections.js"
import { ClientMetadataFetcher, isMetadataDocumentClientId, validateClientMetadata } from "./clients.js"
import { UnusableClient } from "./errors.js"

/** The name an account holder sees for a client: its own, or its metadata document's host, or its id. */
export const displayName = (client: OAuthClient) =>
  client.clientName ?? (isMetadataDocumentClientId(client.clientId) ? new URL(client.clientId).host : client.clientId)

const unusable = (reason: string) => new UnusableClient({ reason })

/** The client of a client id: a registered one, or its metadata document (cached, fetched when stale). */
export const resolveClient = (clientId: string) =>
  Effect.gen(function*() {
    const connections = yield* Connections
    const known = yield* connections.findClient(clientId)
    if (!isMetadataDocumentClientId(clientId)) {
      return yield* Option.match(known, {
        onNone: () => Effect.fail(unusable(`No client is registered with the id ${clientId}.`)),
        onSome: (client) => Effect.succeed(client)
      })
    }
    const now = yield* Clock.currentTimeMillis
    if (Option.isSome(known) && known.value.freshUntil !== null && known.value.freshUntil.getTime() > now) {
      return known.value
    }
    const fetcher = yield* ClientMetadataFetcher
    const document = yield* fetcher.fetch(clientId).pipe(
      Effect.mapError(({ reason }) => unusable(`The client's metadata document could not be used: ${reason}.`))
    )
    const body = document.body as Record<string, unknown> | null
    if (typeof body !== "object" || body === null || body["client_id"] !== clientId) {
      return yield* unusable("The client's metadata document does not name its own URL as client_id.")
    }
    const valid = yield* validateClientMetadata(body).pipe(
      Effect.mapError((problem) => unusable(`The client's metadata document is not valid: ${problem.description}`))
    )
    const client: OAuthClient = {
      clientId,
      source: "metadata-document",
      clientName: valid.clientName,
      redirectUris: valid.redirectUris,
      metadata: { client_id: clientId, ...valid.metadata },
      freshUntil: new Date(now + document.maxAgeSeconds * 1000)
    }
    yield* connections.saveClient(client)
    return client
  })

/**
 * Authentication methods a registration may ask for and is given `none` instead (RFC 7591 §3.2.1 lets the
 * server replace requested metadata with what it will use): such a client is registered public, with no
 * secret, and PKCE protects its code. Widely used hosted assistants register asking for
 * `client_secret_post`. Other methods (private_key_jwt, tls_client_auth, …) stay refused.
 */
export const PUBLIC_INSTEAD_OF = ["client_secret_post", "client_secret_basic"] as const

const asPublicClient = (body: unknown): unknown => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body
  const method = (body as Record<string, unknown>)["token_endpoint_auth_method"]
  return (PUBLIC_INSTEAD_OF as ReadonlyArray<unknown>).includes(method)
    ? { ...body, token_endpoint_auth_method: "none" }
    : body
}

/** RFC 7591 dynamic registration of a public client; the answer says `token_endpoint_auth_method: none`. */
export const registerClient = (body: unknown) =>
  Effect.gen(function*() {
    const valid = yield* validateClientMetadata(asPublicClient(body))
    const clientId = newClientId()
    const issuedAt = Math.floor((yield* Clock.currentTimeMillis) / 1000)
    const connections = yield* Connections
    yield* connections.saveClient({
      clientId,
      source: "registration",
      clientName: valid.clientName,
      redirectUris: valid.redirectUris,
      metadata: valid.metadata,
      freshUntil: null
    })
    return { client_id: clientId, client_id_issued_at: issuedAt, ...valid.metadata }
  })
