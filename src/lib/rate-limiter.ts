import { createHash } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { Logger } from 'pino'
import { type Clock, systemClock } from './clock.ts'
import { loadOnce } from './load-once.ts'
import { MINUTE_MS } from './time.ts'

/** Expired windows are swept this often (SPEC.md, rate-limiting facility). */
export const PURGE_INTERVAL_MS = 5 * MINUTE_MS

export interface RateLimitRule {
  limit: number
  windowMs: number
}

export type RateLimitResult =
  | { success: true; limit: number; remaining: number; resetTime: number }
  | { success: false; limit: number; remaining: 0; resetTime: number; retryAfter: number }

/** How often a degraded failover store tries the shared store again. */
export const FAILOVER_RETRY_AFTER_MS = 5_000
/** A Redis command unanswered this long fails, so a network partition cannot hang a request. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000
/** Reconnect backoff doubles from 100 ms up to this. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 5_000

export type RateLimitBackend = 'redis' | 'memory'

/** Where windows are counted right now; safe to show in a readiness answer. */
export interface RateLimitHealth {
  backend: RateLimitBackend
  /** Clock ms when the shared store stopped answering; only while degraded. */
  degradedSince?: number
  /** The last failure, without connection strings; only while degraded. */
  lastError?: string
}

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
  health?(): RateLimitHealth
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
  /** The store's health, or `{ backend: 'memory' }` for a store that reports none. */
  health(): RateLimitHealth
}

interface Window {
  count: number
  resetTime: number
}

/**
 * Windows one instance's memory store holds at most (about 200 bytes each: 20 MB). Keys carry the client
 * IP, so between two sweeps a flood from ever-new addresses (IPv6 gives anyone millions) would otherwise
 * grow the store without end.
 */
export const MEMORY_STORE_MAX_WINDOWS = 100_000

/** A full store sweeps its expired windows at most this often before it evicts a live one. */
const FULL_SWEEP_INTERVAL_MS = 1000

/**
 * Windows in memory, in the order they started. A new window in a full store first sweeps the expired
 * ones (at most once a second), then, if the store is still full, evicts the oldest: that key starts a new
 * window with its next request. Taking a window from a client that way needs `maxWindows` windows from
 * other clients started after its own, far more requests than any limit lets through.
 */
export function createMemoryRateLimitStore({
  maxWindows = MEMORY_STORE_MAX_WINDOWS,
}: {
  maxWindows?: number
} = {}): MemoryRateLimitStore {
  const windows = new Map<string, Window>()
  let sweptAt = Number.NEGATIVE_INFINITY

  function purge(nowMs: number): number {
    let removed = 0
    for (const [key, window] of windows) {
      if (window.resetTime <= nowMs) {
        windows.delete(key)
        removed += 1
      }
    }
    return removed
  }

  function makeRoom(nowMs: number) {
    if (windows.size < maxWindows) return
    if (nowMs - sweptAt >= FULL_SWEEP_INTERVAL_MS) {
      sweptAt = nowMs
      purge(nowMs)
    }
    if (windows.size >= maxWindows) windows.delete(windows.keys().next().value!)
  }

  return {
    async hit(key, rule, nowMs) {
      const current = windows.get(key)
      if (!current || nowMs >= current.resetTime) {
        const fresh = { count: 1, resetTime: nowMs + rule.windowMs }
        // Deleted first so that a renewed window moves to the end of the Map's (insertion) order.
        windows.delete(key)
        makeRoom(nowMs)
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
    purge: async (nowMs) => purge(nowMs),
    async close() {
      windows.clear()
    },
    size: () => windows.size,
    health: () => ({ backend: 'memory' }),
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
      // quit cannot be sent while disconnected with the offline queue off: drop the socket instead.
      if (options.ownsConnection) await redis.quit().catch(() => redis.disconnect())
    },
    health: () => ({ backend: 'redis' }),
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
    health: () => store.health?.() ?? { backend: 'memory' },
    async close() {
      clearInterval(timer)
      await store.close()
    },
  }
}

export interface FailoverRateLimitStore extends RateLimitStore {
  health(): RateLimitHealth
}

/**
 * Counts in `primary` (Redis) and, when it throws, in `fallback` (per-instance memory) for that call and
 * every call after it, trying the primary again at most every `retryAfterMs`; the first call the primary
 * answers ends the outage. A limit never disappears with the shared store.
 */
export function createFailoverRateLimitStore(deps: {
  primary: RateLimitStore
  fallback: RateLimitStore
  log: Pick<Logger, 'warn' | 'info'>
  retryAfterMs?: number
  clock?: Clock
}): FailoverRateLimitStore {
  const { primary, fallback, log } = deps
  const clock = deps.clock ?? systemClock
  const retryAfterMs = deps.retryAfterMs ?? FAILOVER_RETRY_AFTER_MS
  let outage: { since: number; lastError: string } | null = null
  let nextAttemptMs = 0

  function markDegraded(error: unknown) {
    const nowMs = clock.nowMs()
    nextAttemptMs = nowMs + retryAfterMs
    if (outage) {
      outage.lastError = describeError(error)
      return
    }
    outage = { since: nowMs, lastError: describeError(error) }
    log.warn({ err: error, retryAfterMs }, 'rate-limit store unreachable; counting per instance in memory')
  }

  function markRecovered(since: number) {
    outage = null
    // Windows counted in memory during the outage are not copied to the primary.
    log.info({ degradedForMs: clock.nowMs() - since }, 'rate-limit store answers again; counting in it')
  }

  async function route<T>(call: (store: RateLimitStore) => Promise<T>): Promise<T> {
    if (outage) {
      if (clock.nowMs() < nextAttemptMs) return call(fallback)
      // One probe per interval: calls arriving while it is in flight answer from memory.
      nextAttemptMs = clock.nowMs() + retryAfterMs
    }
    let result: T
    try {
      result = await call(primary)
    } catch (error) {
      markDegraded(error)
      return call(fallback)
    }
    if (outage) markRecovered(outage.since)
    return result
  }

  return {
    hit: (key, rule, nowMs) => route((store) => store.hit(key, rule, nowMs)),
    peek: (key, nowMs) => route((store) => store.peek(key, nowMs)),
    async reset(key) {
      // Memory windows outlive an outage (so a flapping outage cannot reset a count): clear them too.
      await fallback.reset(key)
      await route((store) => store.reset(key))
    },
    async purge(nowMs) {
      const removed = await fallback.purge(nowMs)
      return removed + (await primary.purge(nowMs))
    },
    async close() {
      const results = await Promise.allSettled([primary.close(), fallback.close()])
      const failure = results.find((result) => result.status === 'rejected')
      if (failure) throw failure.reason
    },
    health() {
      if (!outage) return { backend: 'redis' }
      return { backend: 'memory', degradedSince: outage.since, lastError: outage.lastError }
    },
  }
}

// A readiness answer may be public and a connection string can carry a password.
function describeError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/[a-z][a-z0-9+.-]*:\/\/\S*/gi, '[url]').slice(0, 200)
}

const ioredis = loadOnce(() => import('ioredis'))

/**
 * The ioredis client for rate limiting: a disconnected or partitioned Redis makes calls fail within
 * `commandTimeoutMs` (so a failover store answers from memory) while it reconnects in the background.
 * Connection errors are logged once per outage, and its end once. ioredis is loaded with the first client,
 * so a process without REDIS_URL never loads it.
 */
export async function createRedisClient(
  url: string,
  options: {
    log: Pick<Logger, 'warn' | 'info'>
    commandTimeoutMs?: number
    maxReconnectDelayMs?: number
  },
): Promise<Redis> {
  const { log } = options
  const maxReconnectDelayMs = options.maxReconnectDelayMs ?? REDIS_MAX_RECONNECT_DELAY_MS
  const { Redis } = await ioredis()
  const redis = new Redis(url, {
    // As runtime.ts does: nothing connects until the caller awaits connect() at boot (to learn whether
    // Redis answers) or sends a command; reconnecting goes on after a failed first attempt either way.
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: options.commandTimeoutMs ?? REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, maxReconnectDelayMs),
  })
  let down = false
  redis.on('error', (error) => {
    if (down) return
    down = true
    log.warn({ err: error }, 'redis connection failed; reconnecting in the background')
  })
  redis.on('ready', () => {
    if (!down) return
    down = false
    log.info('redis connection restored')
  })
  return redis
}
