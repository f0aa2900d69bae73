import type { ServiceDatabase } from '../db/index.ts'
import type { RateLimiter } from '../lib/rate-limiter.ts'
import type { ReadinessCheck } from './app.ts'

/** What both services' /readyz checks: their database, and their rate limiter's store. */
export function serviceReadiness(
  database: Pick<ServiceDatabase, 'ping'>,
  limiter: Pick<RateLimiter, 'health' | 'status'>,
): Record<string, () => Promise<ReadinessCheck>> {
  return {
    database: async () => {
      await database.ping()
      return { status: 'ok' }
    },
    rateLimits: rateLimitReadiness(limiter),
  }
}

const PROBE = { key: 'readiness-probe', rule: { limit: 1, windowMs: 1000 } }

/**
 * The rate limiter's part of /readyz: a read through the limiter (which reaches Redis, and notices an
 * outage or the end of one), then its state: `degraded` while windows are counted per instance.
 */
export function rateLimitReadiness(limiter: Pick<RateLimiter, 'health' | 'status'>) {
  return async (): Promise<ReadinessCheck> => {
    await limiter.status(PROBE.key, PROBE.rule)
    const health = limiter.health()
    if (health.degradedSince === undefined) {
      return { status: 'ok', detail: health.backend === 'redis' ? 'shared through Redis' : 'per instance' }
    }
    return {
      status: 'degraded',
      detail: `Redis unreachable since ${new Date(health.degradedSince).toISOString()}: limits are counted per instance`,
    }
  }
}
