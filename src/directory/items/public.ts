import { and, asc, desc, eq, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache, jsonLength } from '../../db/invalidated-cache.ts'
import { countRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import {
  CATEGORIES_CONTENT,
  COMPANIES_CONTENT,
  CONTENT_CHANGED_CHANNEL,
  ITEMS_CONTENT,
  TAGS_CONTENT,
} from '../content.ts'
import { hasTag, itemNotFound, matchesSearch, publicItemOf, selectPublicItems } from './read.ts'
import type { PublicItem, PublicItemQuery } from './schemas.ts'
import { items } from './tables.ts'

/** What a public item read shows: its own fields, and its category's, tags' and company's names. */
const SHOWN = new Set([ITEMS_CONTENT, CATEGORIES_CONTENT, TAGS_CONTENT, COMPANIES_CONTENT])

export type PublicRead = PageOf<PublicItem> | PublicItem | null

/**
 * The public reads' cache holds at most this much JSON (pages and items, 1,000 of them at most): with the
 * objects and the answers' bytes kept beside it, 2 to 3 times as much memory. Any visitor picks the
 * keys (page, limit, search, filters), and a page of 100 long items weighs half a megabyte.
 */
export const PUBLIC_CACHE_MAX_JSON = 8 * 1024 * 1024

/**
 * Public item pages and items per query, each instance's own: every write of what they show notifies
 * `CONTENT_CHANGED_CHANNEL` in its transaction, and each instance clears on it.
 */
export function createPublicItemCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<PublicRead> {
  return createInvalidatedCache<PublicRead>({
    name: 'public-items',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (SHOWN.has(payload) ? 'all' : 'none'),
    // An unknown slug is not kept: misses cannot crowd out what visitors read.
    keep: (value) => value !== null,
    maxSize: { total: PUBLIC_CACHE_MAX_JSON, sizeOf: jsonLength },
    clock,
  })
}

const published = eq(items.status, 'published')

/** The public site's reads: published items only, served from the content cache. */
export function createPublicItems({ db, cache }: { db: Db; cache: InvalidatedCache<PublicRead> }) {
  return {
    list(query: PublicItemQuery): Promise<PageOf<PublicItem>> {
      const key = `list:${JSON.stringify([query.page, query.limit, query.search, query.category, query.tag, query.sort])}`
      return cache.get(key, () => {
        const where: SQL | undefined = and(
          published,
          query.search === undefined ? undefined : matchesSearch(query.search),
          query.category === undefined ? undefined : eq(items.categoryId, query.category),
          query.tag === undefined ? undefined : hasTag(query.tag),
        )
        const orderBy =
          query.sort === 'name' ? [asc(items.name), asc(items.id)] : [desc(items.publishedAt), desc(items.id)]
        return fetchPage(query, {
          rows: async (limit, offset) => {
            const rows = await selectPublicItems(db)
              .where(where)
              .orderBy(...orderBy)
              .limit(limit)
              .offset(offset)
            return rows.map(publicItemOf)
          },
          total: () => countRows(db, items, where),
        })
      }) as Promise<PageOf<PublicItem>>
    },

    async get(slug: string): Promise<PublicItem> {
      const item = (await cache.get(`slug:${slug}`, async () => {
        const [row] = await selectPublicItems(db).where(and(published, eq(items.slug, slug)))
        return row ? publicItemOf(row) : null
      })) as PublicItem | null
      if (!item) throw itemNotFound()
      return item
    },
  }
}

export type PublicItems = ReturnType<typeof createPublicItems>
