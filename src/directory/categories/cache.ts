import type { Notifications } from '../../db/notifications.ts'

/** The channel every content write notifies, so each instance drops what it cached. */
export const CONTENT_CHANGED_CHANNEL = 'curio_content_changed'
export const CATEGORIES_CONTENT = 'categories'

/**
 * An in-process cache of the active categories per locale. Each instance keeps its own; every write
 * notifies `CONTENT_CHANGED_CHANNEL` in its transaction and each instance clears on the notification.
 */
export interface ContentCache<T> {
  /** The cached value for `locale`, loading it once on a miss. */
  get(locale: string, load: () => Promise<T>): Promise<T>
  clear(): void
}

export function createContentCache<T>(): ContentCache<T> {
  const entries = new Map<string, T>()
  // A load that started before a clear must not store what it read.
  let generation = 0
  return {
    async get(locale, load) {
      const cached = entries.get(locale)
      if (cached !== undefined) return cached
      const started = generation
      const value = await load()
      if (started === generation) entries.set(locale, value)
      return value
    },
    clear() {
      generation++
      entries.clear()
    },
  }
}

/** Clears `cache` on every categories change from any instance, and after a reconnect (changes may be lost). */
export async function listenForCategoryChanges(
  notifications: Notifications,
  cache: Pick<ContentCache<unknown>, 'clear'>,
): Promise<void> {
  await notifications.listen(
    CONTENT_CHANGED_CHANNEL,
    (payload) => {
      if (payload === CATEGORIES_CONTENT) cache.clear()
    },
    { onReconnect: () => cache.clear() },
  )
}
