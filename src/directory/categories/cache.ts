import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import { CATEGORIES_CONTENT, CONTENT_CHANGED_CHANNEL } from '../content.ts'
import type { Category } from './schemas.ts'

/**
 * The active categories per locale, each instance's own: every categories write notifies
 * `CONTENT_CHANGED_CHANNEL` with `categories` in its transaction, and each instance clears on it.
 */
export function createCategoryCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<Category[]> {
  return createInvalidatedCache<Category[]>({
    name: 'categories',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (payload === CATEGORIES_CONTENT ? 'all' : 'none'),
    clock,
  })
}
