import { ACCOUNT_RATE_LIMITS } from '../http/rate-limit.ts'
import type { RateLimitRule } from '../lib/rate-limiter.ts'
import { HOUR_MS, MINUTE_MS } from '../lib/time.ts'

/** SPEC.md's per-route limits of the directory, and ours where it gives none (reports, locations), defined once. */
export const RATE_LIMITS = {
  ...ACCOUNT_RATE_LIMITS,
  comments: { limit: 10, windowMs: MINUTE_MS },
  items: { limit: 100, windowMs: MINUTE_MS },
  submit: { limit: 5, windowMs: 10 * MINUTE_MS },
  contact: { limit: 3, windowMs: HOUR_MS },
  webhook: { limit: 1000, windowMs: MINUTE_MS },
  /** Not SPEC.md's: enough for any honest reader, not for flooding the admins' queue. */
  reports: { limit: 20, windowMs: HOUR_MS },
  /** The public map's reads, as the public item list. */
  locations: { limit: 100, windowMs: MINUTE_MS },
  /** The feeds and llms.txt, as the public item list. */
  feeds: { limit: 100, windowMs: MINUTE_MS },
  /** The whole published directory in one document: enough to follow it, not to fetch it in a loop. */
  itemsExport: { limit: 10, windowMs: MINUTE_MS },
  /** Imports queue durable jobs that rewrite the directory: a few a minute is plenty for an admin. */
  imports: { limit: 10, windowMs: MINUTE_MS },
} as const satisfies Record<string, RateLimitRule>
