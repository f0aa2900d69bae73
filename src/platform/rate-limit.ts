import { ACCOUNT_RATE_LIMITS, describeRule, type RateLimitKey } from '../http/rate-limit.ts'
import type { RateLimitRule } from '../lib/rate-limiter.ts'
import { MINUTE_MS } from '../lib/time.ts'
import { authOf } from './http/guard.ts'

/**
 * Limits of the platform's account routes, per client IP. SPEC.md states none for them: register and
 * login take the directory's (3 an hour, 5 per 15 minutes), refresh a generous one, since every
 * signed-in client calls it every 15 minutes and many may share one address.
 */
export const PLATFORM_RATE_LIMITS = {
  register: ACCOUNT_RATE_LIMITS.register,
  login: ACCOUNT_RATE_LIMITS.signin,
  refresh: { limit: 60, windowMs: MINUTE_MS },
} as const satisfies Record<string, RateLimitRule>

/** Limits counted per signed-in account (token or API key), as the webhook and deploy routes are. */
export const perAccount: RateLimitKey = { name: 'account', of: (req) => authOf(req).userId }

/** A route description's sentence about its per-account limit. */
export const limitedPerAccount = (rule: RateLimitRule) =>
  ` Limited to ${describeRule(rule, 'account')} (429 with \`Retry-After\`).`
