import type { FastifyReply, FastifyRequest } from 'fastify'
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

/**
 * Cross-site request forgery guard: a state-changing request that carries the session cookie must come
 * from the app's own origin, shown by its Origin header or, failing that, its Referer.
 */
export function createOriginCheck(appUrl: string) {
  const appOrigin = new URL(appUrl).origin
  return function originCheck(req: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
    if (SAFE_METHODS.has(req.method) || !req.cookies[SESSION_COOKIE]) return done()
    const origin = originOf(req.headers.origin) ?? originOf(req.headers.referer)
    done(origin === appOrigin ? undefined : forbidden('Cross-origin request refused', 'CROSS_ORIGIN'))
  }
}
