/**
 * The sign-in flow's opaque secrets: access tokens (`psat_…`), refresh tokens (`psrt_…`), authorization
 * codes and client ids. 256 random bits each; only their SHA-256 is stored (`hashSecret`, as for API keys).
 */
import { randomBytes } from "node:crypto"

export const ACCESS_TOKEN_PREFIX = "psat_"
export const REFRESH_TOKEN_PREFIX = "psrt_"

const random = (bytes = 32) => randomBytes(bytes).toString("base64url")

export const newAccessToken = () => `${ACCESS_TOKEN_PREFIX}${random()}`
export const newRefreshToken = () => `${REFRESH_TOKEN_PREFIX}${random()}`
export const newAuthorizationCode = () => random()
export const newClientId = () => `client_${random(12)}`
export const newConnectionId = () => `conn_${random(12)}`
export const newGrantId = () => `grant_${random(12)}`
export const newRequestId = () => random(24)

export const isAccessToken = (token: string) => token.startsWith(ACCESS_TOKEN_PREFIX)
