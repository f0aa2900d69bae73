import type { FastifyReply, FastifyRequest } from 'fastify'
import { type CorsSettings, corsPolicy, ownOrigins } from '../../http/cors.ts'
import { forbidden } from '../../lib/errors.ts'
import { SESSION_COOKIE } from './sessions.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

function originOf(value: string | undefined): string | undefined {
  if (!value) return undefined
  try {
    return new URL(value).origin
  } catch {
    return undefined
  }
}

/** The directory's own origins and those CORS_ORIGINS lets call it with the session cookie. */
export function appOrigins(config: CorsSettings): Set<string> {
  return new Set([...ownOrigins(config, 'directory'), ...corsPolicy(config, 'directory').origins])
}

/**
 * Cross-site request forgery guard: a state-changing request that carries the session cookie must come
 * from one of the app's own origins, shown by its Origin header or, failing that, its Referer. `allowed`
 * holds them: APP_URL's origin, on a local instance the same port on localhost, 127.0.0.1 and [::1], and
 * the origins listed in CORS_ORIGINS (a front end on its own domain).
 */
export function createOriginCheck(allowed: Iterable<string>) {
  const origins: ReadonlySet<string> = new Set(allowed)
  return function originCheck(req: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
    if (SAFE_METHODS.has(req.method) || !req.cookies[SESSION_COOKIE]) return done()
    const origin = originOf(req.headers.origin) ?? originOf(req.headers.referer)
    done(
      origin !== undefined && origins.has(origin)
        ? undefined
        : forbidden('Cross-origin request refused', 'CROSS_ORIGIN'),
    )
  }
}
