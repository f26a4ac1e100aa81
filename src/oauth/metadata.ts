/**
 * What this service publishes about sign-in: its endpoints, the authorization server metadata (RFC 8414)
 * and the protected-resource metadata (RFC 9728) of `/mcp` and of the service root, and the one audience
 * its access tokens carry.
 */
import { buildOAuthProtectedResourceMetadata } from "@modelcontextprotocol/server"
import { SCOPES, SUPPORTED_GRANT_TYPES } from "./clients.js"

export { isSupportedScope, SCOPES } from "./clients.js"

/** The sign-in endpoints, from the public base URL. */
export const oauthEndpoints = (base: string) => ({
  issuer: base,
  authorization: `${base}/oauth/authorize`,
  token: `${base}/oauth/token`,
  registration: `${base}/oauth/register`,
  revocation: `${base}/oauth/revoke`,
  /** The one protected resource tokens are issued for. */
  resource: `${base}/mcp`
})

const sameResource = (a: string, b: string) => a.replace(/\/$/, "") === b.replace(/\/$/, "")

/**
 * The audience of the tokens a `resource` parameter asks for (RFC 8707): `<base>/mcp`, the one resource
 * that takes them, when it names `<base>/mcp` or the service root (what a client that discovered sign-in
 * from the root's protected-resource document asks for); none when it names anything else.
 */
export const tokenAudience = (base: string, requested: string): string | undefined => {
  const { resource } = oauthEndpoints(base)
  return sameResource(requested, resource) || sameResource(requested, base) ? resource : undefined
}

/** RFC 8414 authorization server metadata. */
export const authorizationServerMetadata = (base: string) => {
  const endpoints = oauthEndpoints(base)
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    scopes_supported: [...SCOPES],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...SUPPORTED_GRANT_TYPES],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${base}/docs`
  }
}

/** RFC 9728 metadata of `/mcp`: it takes API keys and access tokens from this authorization server. */
export const mcpResourceMetadata = (base: string) => ({
  ...buildOAuthProtectedResourceMetadata({
    oauthMetadata: authorizationServerMetadata(base),
    resourceServerUrl: new URL(oauthEndpoints(base).resource),
    resourceName: "propscore MCP tools",
    scopesSupported: [...SCOPES],
    serviceDocumentationUrl: new URL(`${base}/docs`),
    // The SDK insists on an https issuer outside localhost; an operator serving plain http has chosen to.
    dangerouslyAllowInsecureIssuerUrl: base.startsWith("http://")
  }),
  // As the root's document says (the SDK's builder leaves it out): tokens go in the Authorization header.
  bearer_methods_supported: ["header"]
})

/**
 * RFC 9728 metadata of the service root, where the API's 401 points and where a client falls back when it
 * finds no document for `/mcp`. It names this authorization server so such a client can sign in; the
 * tokens it gets are for `/mcp` (tokenAudience), and `/v1` keeps taking API keys only.
 */
export const rootResourceMetadata = (base: string) => ({
  resource: base,
  authorization_servers: [oauthEndpoints(base).issuer],
  scopes_supported: [...SCOPES],
  bearer_methods_supported: ["header"],
  resource_name: "propscore",
  resource_documentation: `${base}/docs`
})
