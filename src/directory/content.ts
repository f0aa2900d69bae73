import type { Db, DbOrTx } from '../db/index.ts'
import { notify } from '../db/notifications.ts'
import { invalidInput } from '../lib/errors.ts'

/** The channel every content write notifies with what changed, so each instance drops what it cached. */
export const CONTENT_CHANGED_CHANNEL = 'curio_content_changed'
export const CATEGORIES_CONTENT = 'categories'
/** Public item reads show category, tag and company names, so they clear on those payloads too. */
export const ITEMS_CONTENT = 'items'
export const TAGS_CONTENT = 'tags'
export const COMPANIES_CONTENT = 'companies'
export const COLLECTIONS_CONTENT = 'collections'
export const FEATURED_CONTENT = 'featured-items'
export const SETTINGS_CONTENT = 'settings'
export const NAVIGATION_CONTENT = 'navigation'
export const COMMENTS_CONTENT = 'comments'
/** A report's moderation (which may remove an item or a comment, and names what it touched besides). */
export const REPORTS_CONTENT = 'reports'
/** Admin notifications raised or read: the dashboard's unread count. */
export const NOTICES_CONTENT = 'admin-notifications'

/** A cache a write makes stale. */
export interface Clearable {
  clear(): void
}

/**
 * The write of a content module: `work` runs in a transaction that also notifies `CONTENT_CHANGED_CHANNEL`
 * with `payload` (and any payload `work` adds to `touched`, e.g. items that moved a category's count), so
 * every instance drops what it cached when the write commits; this instance's `caches` are cleared at
 * once, so its own next read is already fresh.
 */
export function contentWriter(db: Db, payload: string, caches: readonly Clearable[]) {
  return async function write<T>(work: (tx: DbOrTx, touched: Set<string>) => Promise<T>): Promise<T> {
    const touched = new Set([payload])
    const result = await db.transaction(async (tx) => {
      const value = await work(tx, touched)
      for (const changed of touched) await notify(tx, CONTENT_CHANGED_CHANNEL, changed)
      return value
    })
    for (const cache of caches) cache.clear()
    return result
  }
}

/** A name trimmed, or 400 on `field` when it is not `min` to `max` characters once trimmed. */
export function checkedName(raw: string, { min, max }: { min: number; max: number }, field = 'name'): string {
  const name = raw.trim()
  if (name.length < min || name.length > max) {
    throw invalidInput(field, `must be ${min} to ${max} characters once trimmed`)
  }
  return name
}
