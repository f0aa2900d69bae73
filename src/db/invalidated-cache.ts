import type { Clock } from '../lib/clock.ts'
import { cacheHits, cacheMisses, cacheStaleAnswers } from '../lib/metrics.ts'
import { databaseUnavailable } from './errors.ts'
import type { Notifications } from './notifications.ts'

/** What one notification makes stale: every entry, one entry, or nothing of this cache's. */
export type Invalidation = 'all' | 'none' | { key: string }

export interface InvalidatedCacheOptions<V> {
  /** What the metrics call the cache (`cache` label of curio_cache_hits_total): unique in the process. */
  name: string
  /** Every write that changes what is cached notifies this channel in its transaction. */
  channel: string
  /** What a message's payload invalidates; by default every message clears everything. */
  invalidates?: (payload: string) => Invalidation
  /** Entries kept at most (1,000 by default); past it the oldest stored goes first. */
  maxEntries?: number
  /**
   * A bound on the entries' total size besides their number, for values whose size varies (a page of 100
   * items weighs a hundred times a count): `sizeOf` tells a value's size, its JSON length for instance.
   * The oldest entries go until a new one fits; a value larger than the whole bound is answered, not kept.
   */
  maxSize?: { total: number; sizeOf: (value: V) => number }
  /**
   * Entries older than this are loaded again: a bound for what no notification announces (figures that
   * move with the calendar).
   */
  ttlMs?: number
  /** Whether a loaded value is kept (e.g. not a miss, so unknown keys cannot crowd out known ones). */
  keep?: (value: V) => boolean
  clock: Pick<Clock, 'nowMs'>
}

/**
 * A per-instance cache of what the database holds, correct because it is invalidated, not because it
 * expires: every write notifies `channel` when it commits (in its transaction, or by a trigger), each
 * instance drops what the message names, and the writing instance drops it at once (`clear`/`delete`)
 * so it reads its own writes. While the notification connection is down (or before `listen`), nothing
 * is served from or stored in the cache: a message could be missed. Then, and for entries past their TTL,
 * the last value stays at hand for one case only: when loading it again fails because the database cannot
 * be reached, the last value is answered rather than an error (an outage keeps the public reads up).
 */
export interface InvalidatedCache<V> {
  /** The cached value of `key`, or `load`'s; concurrent misses of one key share one load. */
  get(key: string, load: () => Promise<V>): Promise<V>
  /** The cached value of `key`, if there is one to trust. */
  peek(key: string): V | undefined
  /** Forgets everything now (after this instance's own write). */
  clear(): void
  /** Forgets one entry now. */
  delete(key: string): void
  /** Subscribes to the channel; from then on, while the connection holds, the cache is on. */
  listen(notifications: Notifications): Promise<void>
  /** Whether values are being served and stored. */
  readonly active: boolean
}

/** A value's size as `maxSize` counts it: the length of its JSON (nothing for null or undefined). */
export const jsonLength = (value: unknown): number =>
  value === null || value === undefined ? 0 : JSON.stringify(value).length

interface Entry<V> {
  value: V
  at: number
  size: number
}

/**
 * Entries in the order they were stored, within a number and a total size: past either, the oldest go.
 * Both of a cache's maps (fresh entries and last known values) are one of these.
 */
function boundedMap<T extends { size: number }>(maxEntries: number, maxTotal: number) {
  const map = new Map<string, T>()
  let total = 0
  const remove = (key: string) => {
    const found = map.get(key)
    if (!found) return
    total -= found.size
    map.delete(key)
  }
  return {
    get: (key: string) => map.get(key),
    delete: remove,
    clear() {
      map.clear()
      total = 0
    },
    entries: () => map.entries(),
    /** Stores `item` unless it alone is larger than the bound; the oldest go until it fits. */
    set(key: string, item: T) {
      remove(key)
      if (item.size > maxTotal) return
      while (map.size > 0 && (map.size >= maxEntries || total + item.size > maxTotal)) {
        remove(map.keys().next().value!)
      }
      map.set(key, item)
      total += item.size
    },
  }
}

/**
 * After a load finds the database unreachable, last known values answer at once for this long, rather
 * than each read waiting out the connect timeout first; one load per key keeps trying meanwhile.
 */
const UNREACHABLE_MS = 5000

export function createInvalidatedCache<V>(options: InvalidatedCacheOptions<V>): InvalidatedCache<V> {
  const {
    channel,
    clock,
    maxEntries = 1000,
    maxSize,
    ttlMs,
    keep,
    invalidates = () => 'all' as const,
  } = options
  const sizeOf = maxSize?.sizeOf ?? (() => 0)
  const hits = cacheHits.labels({ cache: options.name })
  const misses = cacheMisses.labels({ cache: options.name })
  const staleAnswers = cacheStaleAnswers.labels({ cache: options.name })
  const entries = boundedMap<Entry<V>>(maxEntries, maxSize?.total ?? Number.POSITIVE_INFINITY)
  /** Values no longer trusted, but not known to be wrong: answered only while the database is unreachable. */
  const lastKnown = boundedMap<{ value: V; size: number }>(
    maxEntries,
    maxSize?.total ?? Number.POSITIVE_INFINITY,
  )
  const loading = new Map<string, { generation: number; value: Promise<V> }>()
  // Bumped by every invalidation: a load that started before one must not store what it read.
  let generation = 0
  /** Until then the database counts as away: last known values answer without waiting for a load. */
  let unreachableUntil = Number.NEGATIVE_INFINITY
  let enabled = false

  // An invalidation says the value is wrong: it is not kept as the last known one.
  function clear() {
    generation++
    entries.clear()
    loading.clear()
    lastKnown.clear()
  }

  function remove(key: string) {
    generation++
    entries.delete(key)
    loading.delete(key)
    lastKnown.delete(key)
  }

  function fresh(key: string): Entry<V> | undefined {
    if (!enabled) return undefined
    const entry = entries.get(key)
    if (!entry) return undefined
    if (ttlMs !== undefined && clock.nowMs() - entry.at >= ttlMs) {
      entries.delete(key)
      lastKnown.set(key, entry)
      return undefined
    }
    return entry
  }

  /**
   * `load`, or the last known value of `key` when the database cannot be reached to load it (`stale` then
   * says so: such a value is answered, never stored as fresh).
   */
  function loadOrLastKnown(key: string, load: () => Promise<V>) {
    const attempt = { stale: false }
    const value = load().catch((error: unknown) => {
      if (databaseUnavailable(error) === undefined) throw error
      unreachableUntil = clock.nowMs() + UNREACHABLE_MS
      const last = lastKnown.get(key)
      if (last === undefined) throw error
      staleAnswers.inc()
      attempt.stale = true
      return last.value
    })
    return { value, attempt }
  }

  /** Loads `key`, shared by the gets that come while it runs; stores what it read unless told not to. */
  function startLoad(key: string, load: () => Promise<V>) {
    const started = generation
    const at = clock.nowMs()
    const { value, attempt } = loadOrLastKnown(key, load)
    const pending = { generation: started, value }
    loading.set(key, pending)
    value.then(
      (result) => {
        if (loading.get(key) === pending) loading.delete(key)
        if (!attempt.stale && enabled && started === generation && (!keep || keep(result))) {
          store(key, result, at)
        }
      },
      () => {
        if (loading.get(key) === pending) loading.delete(key)
      },
    )
    return pending
  }

  function store(key: string, value: V, at: number) {
    lastKnown.delete(key)
    entries.set(key, { value, at, size: sizeOf(value) })
  }

  return {
    get active() {
      return enabled
    },

    peek: (key) => fresh(key)?.value,

    get(key, load) {
      const cached = fresh(key)
      if (cached) {
        hits.inc()
        return Promise.resolve(cached.value)
      }
      misses.inc()
      const last = lastKnown.get(key)
      if (last !== undefined && clock.nowMs() < unreachableUntil) {
        // The database was just found away: answer now, while one load of the key finds out if it is back.
        if (!loading.has(key)) startLoad(key, load).value.catch(() => {})
        staleAnswers.inc()
        return Promise.resolve(last.value)
      }
      const pending = loading.get(key)
      if (pending && pending.generation === generation) return pending.value
      return startLoad(key, load).value
    },

    clear,
    delete: remove,

    async listen(notifications) {
      // Lost while (or before) the channel was being listened to: off until the reconnection says so.
      let lost = false
      await notifications.listen(
        channel,
        (payload) => {
          const what = invalidates(payload)
          if (what === 'all') clear()
          else if (what !== 'none') remove(what.key)
        },
        {
          onLost: () => {
            lost = true
            enabled = false
            const last = [...entries.entries()]
            clear()
            for (const [key, entry] of last) lastKnown.set(key, entry)
          },
          onReconnect: () => {
            lost = false
            clear()
            lastKnown.clear()
            enabled = true
          },
        },
      )
      clear()
      if (!lost) enabled = true
    },
  }
}
