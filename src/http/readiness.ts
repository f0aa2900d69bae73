import type { ServiceDatabase } from '../db/index.ts'
import type { Jobs } from '../jobs/index.ts'
import type { RateLimiter } from '../lib/rate-limiter.ts'

export interface ReadinessCheck {
  status: 'ok' | 'degraded' | 'unavailable'
  detail?: string
}

/** The checks of /readyz by name: the database, the job queue, and Redis when one is configured. */
export interface ReadinessChecks {
  database: () => Promise<ReadinessCheck>
  jobs: () => Promise<ReadinessCheck>
  redis?: () => Promise<ReadinessCheck>
}

/** How long /readyz waits for each check (all run at once): a load balancer must hear within a second. */
export const READINESS_TIMEOUT_MS = 1000

export class ReadinessTimeout extends Error {}

/** A check's answer, or a failure once READINESS_TIMEOUT_MS has passed without one. */
export function withinReadinessTimeout(check: Promise<ReadinessCheck>): Promise<ReadinessCheck> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ReadinessTimeout(`no answer within ${READINESS_TIMEOUT_MS} ms`)),
      READINESS_TIMEOUT_MS,
    )
  })
  return Promise.race([check, deadline]).finally(() => clearTimeout(timer))
}

/**
 * What both services' /readyz checks, by name: `database`, `jobs` (the job queue), and `redis` (the
 * rate limiter's shared store) only when one is configured.
 */
export function serviceReadiness(
  database: Pick<ServiceDatabase, 'ping'>,
  limiter: Pick<RateLimiter, 'health' | 'status'>,
  jobs: Pick<Jobs, 'started' | 'boss'>,
  { redis }: { redis: boolean },
): ReadinessChecks {
  return {
    database: async () => {
      await database.ping()
      return { status: 'ok' }
    },
    jobs: jobsReadiness(jobs),
    ...(redis ? { redis: rateLimitReadiness(limiter) } : {}),
  }
}

/** The job queue's part of /readyz: started, and its tables answer a query. */
export function jobsReadiness(jobs: Pick<Jobs, 'started' | 'boss'>) {
  return async (): Promise<ReadinessCheck> => {
    if (!jobs.started) return { status: 'unavailable', detail: 'job queue not started' }
    if (!(await jobs.boss.isInstalled())) return { status: 'unavailable', detail: 'job queue not installed' }
    return { status: 'ok', detail: 'job queue started' }
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
