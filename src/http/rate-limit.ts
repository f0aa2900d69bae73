import type { FastifyReply, FastifyRequest } from 'fastify'
import { HttpError } from '../lib/errors.ts'
import { rateLimitDenials } from '../lib/metrics.ts'
import type { RateLimiter, RateLimitRule } from '../lib/rate-limiter.ts'
import { HOUR_MS, MINUTE_MS } from '../lib/time.ts'

/** SPEC.md's limits of signing in and registering, which both services' account routes apply. */
export const ACCOUNT_RATE_LIMITS = {
  signin: { limit: 5, windowMs: 15 * MINUTE_MS },
  register: { limit: 3, windowMs: HOUR_MS },
} as const satisfies Record<string, RateLimitRule>

const LOCALHOST = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

/** What a local caller of an instance not in production is told with its 429. */
export const LOCAL_BYPASS_HINT =
  'For local work, RATE_LIMIT_BYPASS_LOCALHOST=true lets requests from this machine skip the limits ' +
  '(set it in the environment or .env, then restart Curio)'

/** `3 per hour`, `5 per 15 minutes`: a rule as route descriptions state it. */
export function describeRule({ limit, windowMs }: RateLimitRule, per = 'client IP'): string {
  const window =
    windowMs % HOUR_MS === 0
      ? windowMs === HOUR_MS
        ? 'hour'
        : `${windowMs / HOUR_MS} hours`
      : windowMs === MINUTE_MS
        ? 'minute'
        : `${windowMs / MINUTE_MS} minutes`
  return `${limit} per ${window} per ${per}`
}

export interface RateLimitDeps {
  limiter: Pick<RateLimiter, 'check'>
  bypassLocalhost: boolean
  /**
   * Whether a 429 to a caller on this machine says how to lift the limits (RATE_LIMIT_BYPASS_LOCALHOST):
   * on an instance that is not in production, where a developer trying the API is the likely caller.
   */
  explainBypass: boolean
  /** Keeps one service's windows apart from another's on a shared limiter; the metrics' `service` too. */
  scope: 'platform' | 'directory'
}

export type RateLimitHook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>
/** Whose requests count together: the client IP by default, or e.g. the signed-in account. */
export interface RateLimitKey {
  name: string
  of(req: FastifyRequest): string
}

export type RateLimit = (route: string, rule: RateLimitRule, key?: RateLimitKey) => RateLimitHook

/**
 * A hook that counts the request against `rule`, keyed by client IP (as TRUST_PROXY decides it) and route,
 * and answers 429 past the limit, with SPEC.md's headers. The limiter never lets requests through
 * unlimited: without Redis its windows are this instance's own.
 */
export function createRateLimit({
  limiter,
  bypassLocalhost,
  explainBypass,
  scope,
}: RateLimitDeps): RateLimit {
  return function rateLimit(route, rule, key) {
    const denials = rateLimitDenials.labels({ service: scope, route })
    return async (req, reply) => {
      if (bypassLocalhost && LOCALHOST.has(req.ip)) return
      const who = key ? `${key.name}:${key.of(req)}` : `ip:${req.ip}`
      const result = await limiter.check(`${scope}:${who}:${route}`, rule)
      reply.header('X-RateLimit-Limit', String(rule.limit))
      reply.header('X-RateLimit-Remaining', String(result.remaining))
      reply.header('X-RateLimit-Reset', String(Math.ceil(result.resetTime / 1000)))
      if (!result.success) {
        denials.inc()
        reply.header('Retry-After', String(result.retryAfter))
        const wait = `Too many requests; try again in ${result.retryAfter} seconds`
        throw new HttpError(
          429,
          'RATE_LIMITED',
          explainBypass && LOCALHOST.has(req.ip) ? `${wait}. ${LOCAL_BYPASS_HINT}` : wait,
        )
      }
    }
  }
}
