import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Category } from './schemas.ts'

/** The channel every content write notifies with what changed, so each instance drops what it cached. */
export const CONTENT_CHANGED_CHANNEL = 'curio_content_changed'
export const CATEGORIES_CONTENT = 'categories'
/** What else a content write names: public item reads show tag and company names, so they clear on these. */
export const ITEMS_CONTENT = 'items'
export const TAGS_CONTENT = 'tags'
export const COMPANIES_CONTENT = 'companies'
export const COLLECTIONS_CONTENT = 'collections'

/**
 * The active categories per locale, each instance's own: every categories write notifies
 * `CONTENT_CHANGED_CHANNEL` with `categories` in its transaction, and each instance clears on it.
 */
export function createCategoryCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<Category[]> {
  return createInvalidatedCache<Category[]>({
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (payload === CATEGORIES_CONTENT ? 'all' : 'none'),
    clock,
  })
}
