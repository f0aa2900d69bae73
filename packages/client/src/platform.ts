import createClient, { type Client } from 'openapi-fetch'
import type { components, paths } from './generated/platform.ts'

export type { components as PlatformComponents, paths as PlatformPaths } from './generated/platform.ts'

/** The platform's error body, as every route declares it. */
export type PlatformErrorBody = components['schemas']['PlatformError']

/** A token pair the platform answered, as `onTokens` is told it. */
export interface PlatformTokens {
  accessToken: string
  refreshToken: string
  /** Seconds until the access token expires. */
  expiresIn: number
}

interface Common {
  /** The platform's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string
  /** The fetch every request goes through (default: `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>
}

interface NoToken {
  accessToken?: never
  refreshToken?: never
  onTokens?: never
}

export type PlatformClientOptions = Common &
  /** No credentials: for the public routes (register, login, refresh). */
  (
    | ({ apiKey?: never } & NoToken)
    /** An API key (`svc_live_…`), sent as `x-api-key`. */
    | ({ apiKey: string } & NoToken)
    /** An access token, sent as `Authorization: Bearer`. */
    | {
        apiKey?: never
        accessToken: string
        /** With it, an answer 401 renews the tokens once through `POST /api/auth/refresh` and retries. */
        refreshToken?: string
        /** Told each new pair; refresh tokens work once, so keep the last one told. */
        onTokens?: (tokens: PlatformTokens) => void | Promise<void>
      }
  )

export type PlatformClient = Client<paths> & {
  /** The access and refresh tokens the client sends now (after any refresh), or undefined with an API key. */
  tokens(): { accessToken: string; refreshToken: string | undefined } | undefined
}

/**
 * A typed client of the platform API (`openapi-fetch`: `GET`, `POST`, … answer `{ data, error, response }`).
 * Without credentials it calls the public routes only (`POST /api/auth/login` gives the tokens). With an
 * API key it sends `x-api-key`. With an access token it sends `Authorization: Bearer`; given a refresh token
 * too, a 401 renews the pair once (concurrent 401s share that one renewal, since a refresh token works once)
 * and the request is sent again once with the new token.
 */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request))
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const bearer =
    typeof options.accessToken === 'string'
      ? {
          accessToken: options.accessToken,
          refreshToken: options.refreshToken,
          onTokens: options.onTokens,
        }
      : undefined
  const refreshUrl = `${baseUrl}/api/auth/refresh`
  let renewal: Promise<boolean> | undefined

  /** Spends the refresh token for a new pair; false when the platform refuses it (the caller then sees its 401). */
  async function renew(): Promise<boolean> {
    if (!bearer?.refreshToken) return false
    const response = await send(
      new Request(refreshUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ refreshToken: bearer.refreshToken }),
      }),
    )
    if (!response.ok) {
      await response.body?.cancel()
      bearer.refreshToken = undefined
      return false
    }
    const pair = (await response.json()) as PlatformTokens
    bearer.accessToken = pair.accessToken
    bearer.refreshToken = pair.refreshToken
    await bearer.onTokens?.({
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      expiresIn: pair.expiresIn,
    })
    return true
  }

  function authorized(request: Request, accessToken: string | undefined): Request {
    if (typeof options.apiKey === 'string') request.headers.set('x-api-key', options.apiKey)
    else if (accessToken) request.headers.set('authorization', `Bearer ${accessToken}`)
    return request
  }

  async function fetchWithAuth(request: Request): Promise<Response> {
    const sentToken = bearer?.accessToken
    const canRenew = bearer?.refreshToken !== undefined && !request.url.startsWith(refreshUrl)
    // The body can be read once: a copy is kept for the one retry.
    const retry = canRenew ? request.clone() : undefined
    const response = await send(authorized(request, sentToken))
    if (response.status !== 401 || !retry || !bearer) return response
    // Another request may have renewed the pair since this one left: then its token is already new.
    if (bearer.accessToken === sentToken) {
      renewal ??= renew().finally(() => {
        renewal = undefined
      })
      if (!(await renewal)) return response
    }
    await response.body?.cancel()
    return send(authorized(retry, bearer.accessToken))
  }

  const client = createClient<paths>({ baseUrl, fetch: fetchWithAuth })
  return Object.assign(client, {
    tokens: () =>
      bearer ? { accessToken: bearer.accessToken, refreshToken: bearer.refreshToken } : undefined,
  })
}
