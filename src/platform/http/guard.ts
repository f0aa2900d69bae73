import type { FastifyRequest } from 'fastify'
import { forbidden, unauthorized } from '../../lib/errors.ts'

/** What marks an API key (`svc_live_` and 64 hex digits) wherever a credential is presented. */
export const API_KEY_PREFIX = 'svc_live_'

/** Checks an access token (auth's JWTs): whose it is, or null for any token that is not valid now. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<{ userId: string } | null>
}

/** Checks an API key (the api-keys service): the key and whose it is, or null for any key not valid now. */
export interface ApiKeyAuthenticator {
  authenticate(key: string): Promise<{ id: string; userId: string } | null>
}

/** Who a platform request acts for. */
export interface AuthContext {
  userId: string
  method: 'jwt' | 'api_key'
  /** The key the request authenticated with, when `method` is `api_key`. */
  apiKeyId?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the platform's auth guard. */
    auth: AuthContext | null
  }
}

/**
 * `Bearer <token>` exactly: the scheme in any case, one space, one token of RFC 6750's characters, nothing
 * after it. Any other form presents no usable credential (401).
 */
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i

/** The token of a strict `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization
  return header ? BEARER.exec(header)?.[1] : undefined
}

/**
 * The API key a request presents, from `x-api-key` or a Bearer value starting with `svc_live_`. An
 * `x-api-key` header counts even when empty or repeated: it then presents an invalid key, never no key.
 */
export function presentedApiKey(req: FastifyRequest): string | undefined {
  const header = req.headers['x-api-key']
  if (header !== undefined) return Array.isArray(header) ? '' : header
  const token = bearerToken(req)
  return token?.startsWith(API_KEY_PREFIX) ? token : undefined
}

export type AuthGuard = (req: FastifyRequest) => Promise<void>

async function jwtAuth(req: FastifyRequest, accessTokens: AccessTokenVerifier): Promise<AuthContext> {
  const token = bearerToken(req)
  if (!token) {
    throw unauthorized(
      req.headers.authorization === undefined
        ? 'Authentication required: send Authorization: Bearer <access token>'
        : 'The Authorization header is not in the form Bearer <access token>',
    )
  }
  const claims = await accessTokens.verify(token)
  if (!claims) throw unauthorized('Invalid or expired access token', 'INVALID_TOKEN')
  return { userId: claims.userId, method: 'jwt' }
}

/**
 * The guard of platform routes open to scripts: an API key, else an access token, or 401. A presented key
 * must be valid on its own; a bad one is never rescued by a token sent beside it.
 */
export function createRequireAuth({
  accessTokens,
  apiKeys,
}: {
  accessTokens: AccessTokenVerifier
  apiKeys: ApiKeyAuthenticator
}): AuthGuard {
  return async function requireAuth(req) {
    const key = presentedApiKey(req)
    if (key === undefined) {
      req.auth = await jwtAuth(req, accessTokens)
      return
    }
    const authenticated = await apiKeys.authenticate(key)
    if (!authenticated) throw unauthorized('Invalid, expired or revoked API key', 'INVALID_API_KEY')
    req.auth = { userId: authenticated.userId, method: 'api_key', apiKeyId: authenticated.id }
  }
}

/** What an API key meets on a route for access tokens only (and on the MCP tools that act through one). */
export const apiKeyNotAllowed = () =>
  forbidden(
    'API keys cannot manage API keys, passwords, plugins, notifications or deployments: use an access token',
    'API_KEY_NOT_ALLOWED',
  )

/**
 * The guard of routes only a signed-in person may use (API keys, password, plugins, notifications, deploy):
 * an access token, or 401/403.
 */
export function createRequireJwt({ accessTokens }: { accessTokens: AccessTokenVerifier }): AuthGuard {
  return async function requireJwt(req) {
    if (presentedApiKey(req) !== undefined) throw apiKeyNotAllowed()
    req.auth = await jwtAuth(req, accessTokens)
  }
}

/**
 * The guard of the MCP endpoint, which machines call with a key: an API key (`x-api-key` or `Bearer
 * svc_live_…`), or 401, an access token included.
 */
export function createRequireApiKey({ apiKeys }: { apiKeys: ApiKeyAuthenticator }): AuthGuard {
  return async function requireApiKey(req) {
    const key = presentedApiKey(req)
    if (key === undefined) {
      throw unauthorized(
        'An API key is required: send x-api-key: svc_live_… or Authorization: Bearer svc_live_…',
      )
    }
    const authenticated = await apiKeys.authenticate(key)
    if (!authenticated) throw unauthorized('Invalid, expired or revoked API key', 'INVALID_API_KEY')
    req.auth = { userId: authenticated.userId, method: 'api_key', apiKeyId: authenticated.id }
  }
}

/** The caller of a route behind the guard. */
export function authOf(req: FastifyRequest): AuthContext {
  if (!req.auth) throw unauthorized()
  return req.auth
}
