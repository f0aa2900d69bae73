import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Config } from '../config.ts'

/** Which browser pages may call a service, and whether they may send its cookie. */
export interface CorsPolicy {
  /** Exact origins (`scheme://host[:port]`) answered with CORS headers; any other gets none. */
  origins: readonly string[]
  /** `Access-Control-Allow-Credentials: true`: the directory's session cookie may come along. */
  credentials: boolean
}

/** The settings a service's CORS policy is made from. */
export type CorsSettings = Pick<
  Config,
  'corsOrigins' | 'isProduction' | 'appUrl' | 'platformPort' | 'directoryPort'
>

/** The request headers the routes read: a browser may send these cross-origin. */
export const CORS_REQUEST_HEADERS = ['content-type', 'authorization', 'x-api-key', 'x-request-id'] as const

/** The answer headers a browser script may read: the request id, the rate-limit headers, a download's name. */
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
  'content-disposition',
] as const

const CORS_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const

/** How long a browser may reuse a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const

/** The port of a URL, the scheme's default when it names none. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80')
}

/** `http://localhost:3001` and the same port on 127.0.0.1 and [::1] (the default port left out, as browsers do). */
function loopbackOrigins(protocol: string, port: string): string[] {
  return LOOPBACK_HOSTS.map((host) => new URL(`${protocol}//${host}:${port}`).origin)
}

/**
 * The origins that are the service itself: its public URL (the directory's `APP_URL`, the platform's
 * `http://localhost:<PLATFORM_PORT>`), and on a local instance the same port on localhost, 127.0.0.1 and
 * [::1], plus the port it listens on, so the reference at /docs works whichever of those the browser used.
 */
export function ownOrigins(config: CorsSettings, service: 'platform' | 'directory'): string[] {
  const listenPort = service === 'platform' ? config.platformPort : config.directoryPort
  const url = new URL(service === 'platform' ? `http://localhost:${listenPort}` : config.appUrl)
  const origins = new Set([url.origin])
  if (!config.isProduction) {
    for (const origin of loopbackOrigins(url.protocol, portOf(url))) origins.add(origin)
    if (listenPort !== 0)
      for (const origin of loopbackOrigins('http:', String(listenPort))) origins.add(origin)
  }
  return [...origins]
}

/**
 * A service's CORS policy: `CORS_ORIGINS` when set, else the service's own origins on a local instance and
 * none in production. The directory lets those origins send the session cookie; the platform, whose
 * callers present bearer tokens, never does.
 */
export function corsPolicy(config: CorsSettings, service: 'platform' | 'directory'): CorsPolicy {
  return {
    origins: config.corsOrigins ?? (config.isProduction ? [] : ownOrigins(config, service)),
    credentials: service === 'directory',
  }
}

/** `Vary: Origin` on an answer, kept with whatever else it already varies on. */
function varyOnOrigin(reply: FastifyReply) {
  const current = reply.getHeader('vary')
  if (current === undefined || current === '') {
    reply.header('vary', 'Origin')
    return
  }
  const value = Array.isArray(current) ? current.join(', ') : String(current)
  const names = value.split(',').map((name) => name.trim().toLowerCase())
  if (!names.includes('*') && !names.includes('origin')) reply.header('vary', `${value}, Origin`)
}

/**
 * CORS in one hook, its header values made once. Every answer varies on `Origin`. A listed origin gets the
 * headers on every answer, and its preflight (`OPTIONS`) is answered 204 in `onRequest`, for any path and
 * before any guard (a browser sends no credentials with a preflight). An unlisted origin, or a request with
 * no `Origin`, gets no CORS header at all (not even Allow-Credentials), and its `OPTIONS` goes on to the
 * not-found handler.
 */
export async function registerCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  const allowed = new Set(policy.origins)
  const methods = CORS_METHODS.join(', ')
  const requestHeaders = CORS_REQUEST_HEADERS.join(', ')
  const exposedHeaders = CORS_EXPOSED_HEADERS.join(', ')
  const maxAge = String(PREFLIGHT_MAX_AGE_S)
  app.addHook('onRequest', (req, reply, done) => {
    // Caches must not hand one origin's answer to another.
    varyOnOrigin(reply)
    const origin = req.headers.origin
    if (origin === undefined || !allowed.has(origin)) return done()
    reply.header('access-control-allow-origin', origin)
    if (policy.credentials) reply.header('access-control-allow-credentials', 'true')
    reply.header('access-control-expose-headers', exposedHeaders)
    if (req.method !== 'OPTIONS') return done()
    // A preflight, or a bare OPTIONS, from a listed origin: answered here, 204 with an empty body.
    reply
      .header('access-control-allow-methods', methods)
      .header('access-control-allow-headers', requestHeaders)
      .header('access-control-max-age', maxAge)
      .code(204)
      .header('content-length', '0')
      .send()
  })
  // Every path takes OPTIONS, so a preflight reaches the hook above whatever the path; any other OPTIONS
  // is the not-found handler's (405 naming the path's methods, or 404).
  app.options('*', { schema: { hide: true } }, (_req, reply) => {
    reply.callNotFound()
  })
}
