import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Logger } from 'pino'
import { HttpError } from '../lib/errors.ts'
import type { RateLimiter, RateLimitRule } from '../lib/rate-limiter.ts'

const MINUTE = 60_000

/** SPEC.md's per-route limits of the directory, defined once. */
export const RATE_LIMITS = {
  signin: { limit: 5, windowMs: 15 * MINUTE },
  register: { limit: 3, windowMs: 60 * MINUTE },
  comments: { limit: 10, windowMs: MINUTE },
  items: { limit: 100, windowMs: MINUTE },
  submit: { limit: 5, windowMs: 10 * MINUTE },
  contact: { limit: 3, windowMs: 60 * MINUTE },
  webhook: { limit: 1000, windowMs: MINUTE },
} as const satisfies Record<string, RateLimitRule>

const LOCALHOST = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1'])

export interface RateLimitDeps {
  limiter: RateLimiter
  bypassLocalhost: boolean
  log: Logger
}

export type RateLimitHook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>

/**
 * A preHandler that counts the request against `rule`, keyed by client IP (as TRUST_PROXY decides it) and
 * route, and answers 429 past the limit. A failing shared store lets requests through rather than
 * taking sign-in down with it; the failure is logged.
 */
export function createRateLimit({ limiter, bypassLocalhost, log }: RateLimitDeps) {
  return function rateLimit(route: string, rule: RateLimitRule): RateLimitHook {
    return async (req, reply) => {
      if (bypassLocalhost && LOCALHOST.has(req.ip)) return
      let result: Awaited<ReturnType<RateLimiter['check']>>
      try {
        result = await limiter.check(`ip:${req.ip}:${route}`, rule)
      } catch (error) {
        log.error({ err: error, route }, 'rate limiter unavailable; request let through')
        return
      }
      reply.header('X-RateLimit-Limit', String(rule.limit))
      reply.header('X-RateLimit-Remaining', String(result.remaining))
      reply.header('X-RateLimit-Reset', String(Math.ceil(result.resetTime / 1000)))
      if (!result.success) {
        reply.header('Retry-After', String(result.retryAfter))
        throw new HttpError(
          429,
          'RATE_LIMITED',
          `Too many requests; try again in ${result.retryAfter} seconds`,
        )
      }
    }
  }
}
