import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Clock } from './clock.ts'

/** Expired windows are swept this often (SPEC.md, rate-limiting facility). */
export const PURGE_INTERVAL_MS = 5 * 60_000

export interface RateLimitRule {
  limit: number
  windowMs: number
}

export type RateLimitResult =
  | { success: true; limit: number; remaining: number; resetTime: number }
  | { success: false; limit: number; remaining: 0; resetTime: number; retryAfter: number }

export interface RateLimitStatus {
  remaining: number
  resetTime: number | null
}

export interface RateLimitStore {
  /** Counts one request against key under rule; fixed window semantics of SPEC.md. */
  hit(
    key: string,
    rule: RateLimitRule,
    nowMs: number,
  ): Promise<{ count: number; resetTime: number; allowed: boolean }>
  /** Reads the window without counting. */
  peek(key: string, nowMs: number): Promise<{ count: number; resetTime: number } | null>
  reset(key: string): Promise<void>
  /** Removes windows whose resetTime has passed; returns how many were removed (Redis: 0, TTL does it). */
  purge(nowMs: number): Promise<number>
  close(): Promise<void>
}

export interface MemoryRateLimitStore extends RateLimitStore {
  /** Number of windows held, expired or not. */
  size(): number
}

export interface RateLimiter {
  check(key: string, rule: RateLimitRule): Promise<RateLimitResult>
  status(key: string, rule: RateLimitRule): Promise<RateLimitStatus>
  reset(key: string): Promise<void>
  purge(): Promise<number>
  /** Stops the purge timer and closes the store. */
  close(): Promise<void>
}

interface Window {
  count: number
  resetTime: number
}

export function createMemoryRateLimitStore(): MemoryRateLimitStore {
  const windows = new Map<string, Window>()
  return {
    async hit(key, rule, nowMs) {
      const current = windows.get(key)
      if (!current || nowMs >= current.resetTime) {
        const fresh = { count: 1, resetTime: nowMs + rule.windowMs }
        windows.set(key, fresh)
        return { ...fresh, allowed: true }
      }
      if (current.count >= rule.limit) return { ...current, allowed: false }
      current.count += 1
      return { ...current, allowed: true }
    },
    async peek(key, nowMs) {
      const current = windows.get(key)
      return current && nowMs < current.resetTime ? { ...current } : null
    },
    async reset(key) {
      windows.delete(key)
    },
    async purge(nowMs) {
      let removed = 0
      for (const [key, window] of windows) {
        if (window.resetTime <= nowMs) {
          windows.delete(key)
          removed += 1
        }
      }
      return removed
    },
    async close() {
      windows.clear()
    },
    size: () => windows.size,
  }
}

// The whole hit in one script so concurrent instances cannot interleave read and write.
// `now` and the new reset come from the caller's clock; expiry is relative so a test clock far
// from real time still gets a live key.
const HIT_SCRIPT = `
local values = redis.call('HMGET', KEYS[1], 'count', 'reset')
local count = tonumber(values[1])
local reset = tonumber(values[2])
local limit = tonumber(ARGV[1])
local now = tonumber(ARGV[3])
if count == nil or reset == nil or now >= reset then
  redis.call('HSET', KEYS[1], 'count', 1, 'reset', ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, ARGV[4], 1}
end
if count >= limit then
  return {count, values[2], 0}
end
count = redis.call('HINCRBY', KEYS[1], 'count', 1)
return {count, values[2], 1}
`
const HIT_SCRIPT_SHA = createHash('sha1').update(HIT_SCRIPT).digest('hex')

export function createRedisRateLimitStore(
  redis: Redis,
  options: { prefix?: string; ownsConnection?: boolean } = {},
): RateLimitStore {
  const prefix = options.prefix ?? 'curio:rl:'

  async function runHit(args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(HIT_SCRIPT_SHA, 1, ...args)
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error
      return await redis.eval(HIT_SCRIPT, 1, ...args)
    }
  }

  return {
    async hit(key, rule, nowMs) {
      const reply = (await runHit([
        prefix + key,
        rule.limit,
        rule.windowMs,
        nowMs,
        nowMs + rule.windowMs,
      ])) as [number, string, number]
      return { count: Number(reply[0]), resetTime: Number(reply[1]), allowed: reply[2] === 1 }
    },
    async peek(key, nowMs) {
      const [count, reset] = await redis.hmget(prefix + key, 'count', 'reset')
      if (count === null || reset === null || Number(reset) <= nowMs) return null
      return { count: Number(count), resetTime: Number(reset) }
    },
    async reset(key) {
      await redis.del(prefix + key)
    },
    async purge() {
      return 0
    },
    async close() {
      if (options.ownsConnection) await redis.quit()
    },
  }
}

export function createRateLimiter(deps: {
  store: RateLimitStore
  clock: Clock
  purgeIntervalMs?: number
}): RateLimiter {
  const { store, clock } = deps
  const purge = () => store.purge(clock.nowMs())
  // A failed sweep is harmless: hit and peek already ignore expired windows, and the next tick retries.
  const timer = setInterval(() => purge().catch(() => {}), deps.purgeIntervalMs ?? PURGE_INTERVAL_MS)
  timer.unref()

  return {
    async check(key, rule) {
      const nowMs = clock.nowMs()
      const { count, resetTime, allowed } = await store.hit(key, rule, nowMs)
      if (allowed) {
        return { success: true, limit: rule.limit, remaining: Math.max(0, rule.limit - count), resetTime }
      }
      const retryAfter = Math.max(1, Math.ceil((resetTime - nowMs) / 1000))
      return { success: false, limit: rule.limit, remaining: 0, resetTime, retryAfter }
    },
    async status(key, rule) {
      const window = await store.peek(key, clock.nowMs())
      if (!window) return { remaining: rule.limit, resetTime: null }
      return { remaining: Math.max(0, rule.limit - window.count), resetTime: window.resetTime }
    },
    reset: (key) => store.reset(key),
    purge,
    async close() {
      clearInterval(timer)
      await store.close()
    },
  }
}
