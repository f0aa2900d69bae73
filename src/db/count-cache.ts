import type { Notifications } from './notifications.ts'

/**
 * Totals of filtered lists (`count(*)` over a where clause), kept per instance until the table changes.
 * Counting thousands of matches costs milliseconds of Postgres time on every page of a list, while the
 * table changes rarely by comparison; paging through one result, or refreshing it, counts once.
 *
 * Correctness rests on invalidation, not on time: a trigger on the table notifies a channel in every
 * writing transaction (any writer, cascades included), each instance clears on the notification, and the
 * service clears at once after its own writes, so a caller reads its own writes. While the notification
 * connection is down nothing is served from or stored in the cache.
 */
export interface CountCache {
  /** The cached total for `key`, or the result of `load`, stored unless the table changed meanwhile. */
  get(key: string, load: () => Promise<number>): Promise<number>
  /** The cached total for `key`, if there is one to trust. */
  peek(key: string): number | undefined
  clear(): void
  /** Runs `listener` on every clear: other caches over the same table can share the invalidation. */
  onClear(listener: () => void): void
  /** Subscribes to `channel`; until then, and while the connection is lost, the cache stays off. */
  listen(notifications: Notifications, channel: string): Promise<void>
}

export function createCountCache({ maxEntries = 1000 } = {}): CountCache {
  const entries = new Map<string, number>()
  // A load that started before a clear must not store what it counted.
  let generation = 0
  let enabled = false
  const clearListeners: (() => void)[] = []

  function clear() {
    generation++
    entries.clear()
    for (const listener of clearListeners) listener()
  }

  const peek = (key: string) => (enabled ? entries.get(key) : undefined)

  return {
    peek,

    async get(key, load) {
      const cached = peek(key)
      if (cached !== undefined) return cached
      const started = generation
      const total = await load()
      if (enabled && started === generation) {
        // Oldest first out: a Map iterates in insertion order.
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
        entries.set(key, total)
      }
      return total
    },

    clear,

    onClear(listener) {
      clearListeners.push(listener)
    },

    async listen(notifications, channel) {
      await notifications.listen(channel, clear, {
        onLost: () => {
          enabled = false
          clear()
        },
        onReconnect: () => {
          clear()
          enabled = true
        },
      })
      enabled = true
    },
  }
}
