import type { RateLimiter } from '../lib/rate-limiter.ts'
import type { ReadinessCheck } from './app.ts'

/** The rate limiter's part of /readyz: `degraded` while Redis is unreachable and windows are per instance. */
export function rateLimitReadiness(limiter: Pick<RateLimiter, 'health'>) {
  return async (): Promise<ReadinessCheck> => {
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
