import { createInvalidatedCache, type InvalidatedCache, jsonLength } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import { CATEGORIES_CONTENT, CONTENT_CHANGED_CHANNEL } from '../content.ts'
import type { Category } from './schemas.ts'

/**
 * What the cached lists may weigh together, as JSON: each locale asked for keeps a whole list, and the
 * number of categories has no limit, so a count of entries alone would not bound it.
 */
export const CATEGORY_CACHE_MAX_JSON = 2 * 1024 * 1024

/**
 * The active categories per locale, each instance's own: every categories write notifies
 * `CONTENT_CHANGED_CHANNEL` with `categories` in its transaction, and each instance clears on it.
 */
export function createCategoryCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<Category[]> {
  return createInvalidatedCache<Category[]>({
    name: 'categories',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (payload === CATEGORIES_CONTENT ? 'all' : 'none'),
    maxSize: { total: CATEGORY_CACHE_MAX_JSON, sizeOf: jsonLength },
    clock,
  })
}
