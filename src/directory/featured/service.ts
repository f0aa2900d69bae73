import { asc, desc, eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import { pageOfRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import type { PageOf } from '../../lib/pagination.ts'
import { CONTENT_CHANGED_CHANNEL, contentWriter, FEATURED_CONTENT } from '../content.ts'
import type {
  CreateFeaturedBody,
  FeaturedItem,
  FeaturedListQuery,
  ShelfQuery,
  UpdateFeaturedBody,
} from './schemas.ts'
import { featuredItems } from './tables.ts'

const ACTIVE = 'active'

type Row = typeof featuredItems.$inferSelect

const featuredOf = (row: Row): FeaturedItem => ({
  id: row.id,
  itemSlug: row.itemSlug,
  itemName: row.itemName,
  itemDescription: row.itemDescription,
  itemIconUrl: row.itemIconUrl,
  itemImageUrl: row.itemImageUrl,
  featuredOrder: row.featuredOrder,
  isActive: row.isActive,
  featuredAt: row.featuredAt.toISOString(),
  featuredUntil: row.featuredUntil?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt?.toISOString() ?? null,
})

/** SPEC.md's shelf order: `featuredOrder` descending, then `featuredAt` descending. */
const shelfOrder = [desc(featuredItems.featuredOrder), desc(featuredItems.featuredAt), asc(featuredItems.id)]

const notFeatured = () => notFound('No featured item has this id', 'FEATURED_ITEM_NOT_FOUND')

/**
 * The active entries in shelf order, each instance's own: every featured-items write notifies
 * `CONTENT_CHANGED_CHANNEL` with `featured-items` in its transaction, and each instance clears on it.
 * Expiry is applied when read, so a cached shelf never shows an entry past its `featuredUntil`.
 */
export function createFeaturedCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<FeaturedItem[]> {
  return createInvalidatedCache<FeaturedItem[]>({
    name: 'featured-items',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (payload === FEATURED_CONTENT ? 'all' : 'none'),
    clock,
  })
}

/** Featured items: the admin's entries and the public shelf, served from the content cache. */
/** What an entry shows of an item when the admin sends only its slug. */
export interface ItemDisplay {
  name: string
  description: string | null
  iconUrl: string | null
  imageUrl: string | null
}

export interface FeaturedServiceDeps {
  db: Db
  clock: Clock
  cache: InvalidatedCache<FeaturedItem[]>
  /**
   * The item of this directory with a slug, if any (items/usage.ts). Handed in: items read the featured
   * entries, so featured does not import items.
   */
  itemBySlug: (slug: string) => Promise<ItemDisplay | undefined>
}

export function createFeaturedService({ db, clock, cache, itemBySlug }: FeaturedServiceDeps) {
  /** The shelf per query, kept while it is what the cached entries show (one per `limit` and flag). */
  const shelves = new Map<
    string,
    { source: FeaturedItem[]; from: number; until: number; value: FeaturedItem[] }
  >()

  /** Runs a write and tells every instance, this one at once, that featured changed. */
  const write = contentWriter(db, FEATURED_CONTENT, [cache])

  /** `featuredUntil` must come after `featuredAt`: an entry that leaves before it arrives is a mistake. */
  function checkWindow(featuredAt: Date, featuredUntil: Date | null) {
    if (featuredUntil && featuredUntil.getTime() <= featuredAt.getTime()) {
      throw invalidInput('body.featuredUntil', 'must be after featuredAt')
    }
  }

  async function find(id: string): Promise<Row> {
    if (!isUuid(id)) throw notFeatured()
    const [row] = await db.select().from(featuredItems).where(eq(featuredItems.id, id))
    if (!row) throw notFeatured()
    return row
  }

  return {
    list(query: FeaturedListQuery): Promise<PageOf<FeaturedItem>> {
      const where =
        query.isActive === undefined ? undefined : eq(featuredItems.isActive, query.isActive === 'true')
      return pageOfRows(db, featuredItems, query, { where, orderBy: shelfOrder, map: featuredOf })
    },

    async get(id: string): Promise<FeaturedItem> {
      return featuredOf(await find(id))
    },

    async create(body: CreateFeaturedBody): Promise<FeaturedItem> {
      const now = clock.now()
      const featuredAt = body.featuredAt ? new Date(body.featuredAt) : now
      const featuredUntil = body.featuredUntil ? new Date(body.featuredUntil) : null
      checkWindow(featuredAt, featuredUntil)
      // Display fields not sent come from the item of this directory with that slug, when there is one.
      const item =
        body.itemName === undefined ||
        body.itemDescription === undefined ||
        body.itemIconUrl === undefined ||
        body.itemImageUrl === undefined
          ? await itemBySlug(body.itemSlug)
          : undefined
      const itemName = body.itemName ?? item?.name
      if (itemName === undefined) {
        throw invalidInput('body.itemName', 'is required: no item of this directory has this itemSlug')
      }
      const [row] = await write((tx) =>
        tx
          .insert(featuredItems)
          .values({
            itemSlug: body.itemSlug,
            itemName,
            itemDescription:
              body.itemDescription === undefined ? (item?.description ?? null) : body.itemDescription,
            itemIconUrl: body.itemIconUrl === undefined ? (item?.iconUrl ?? null) : body.itemIconUrl,
            itemImageUrl: body.itemImageUrl === undefined ? (item?.imageUrl ?? null) : body.itemImageUrl,
            featuredOrder: body.featuredOrder ?? 0,
            isActive: body.isActive ?? true,
            featuredAt,
            featuredUntil,
            createdAt: now,
            updatedAt: null,
          })
          .returning(),
      )
      return featuredOf(row!)
    },

    async update(id: string, body: UpdateFeaturedBody): Promise<FeaturedItem> {
      const current = await find(id)
      const featuredAt = body.featuredAt ? new Date(body.featuredAt) : current.featuredAt
      const featuredUntil =
        body.featuredUntil === undefined
          ? current.featuredUntil
          : body.featuredUntil === null
            ? null
            : new Date(body.featuredUntil)
      checkWindow(featuredAt, featuredUntil)
      const [row] = await write((tx) =>
        tx
          .update(featuredItems)
          .set({
            ...(body.itemSlug === undefined ? {} : { itemSlug: body.itemSlug }),
            ...(body.itemName === undefined ? {} : { itemName: body.itemName }),
            ...(body.itemDescription === undefined ? {} : { itemDescription: body.itemDescription }),
            ...(body.itemIconUrl === undefined ? {} : { itemIconUrl: body.itemIconUrl }),
            ...(body.itemImageUrl === undefined ? {} : { itemImageUrl: body.itemImageUrl }),
            ...(body.featuredOrder === undefined ? {} : { featuredOrder: body.featuredOrder }),
            ...(body.isActive === undefined ? {} : { isActive: body.isActive }),
            featuredAt,
            featuredUntil,
            updatedAt: clock.now(),
          })
          .where(eq(featuredItems.id, id))
          .returning(),
      )
      if (!row) throw notFeatured()
      return featuredOf(row)
    },

    async delete(id: string): Promise<void> {
      if (!isUuid(id)) throw notFeatured()
      const removed = await write((tx) =>
        tx.delete(featuredItems).where(eq(featuredItems.id, id)).returning({ id: featuredItems.id }),
      )
      if (removed.length === 0) throw notFeatured()
    },

    /** SPEC.md's public shelf: active entries, not past `featuredUntil` unless `includeExpired`, in order. */
    async shelf(query: ShelfQuery): Promise<FeaturedItem[]> {
      const active = await cache.get(ACTIVE, async () =>
        (
          await db
            .select()
            .from(featuredItems)
            .where(eq(featuredItems.isActive, true))
            .orderBy(...shelfOrder)
        ).map(featuredOf),
      )
      const now = clock.nowMs()
      const key = `${query.includeExpired}:${query.limit}`
      const shown = shelves.get(key)
      if (shown && shown.source === active && shown.from <= now && now < shown.until) return shown.value
      const ends = (item: FeaturedItem) =>
        item.featuredUntil === null ? Infinity : new Date(item.featuredUntil).getTime()
      const showing = query.includeExpired === 'true' ? active : active.filter((item) => ends(item) > now)
      const value = showing.slice(0, query.limit)
      // The same array until the cached entries change or one of them reaches its featuredUntil.
      const until =
        query.includeExpired === 'true'
          ? Infinity
          : Math.min(Infinity, ...showing.map(ends).filter((end) => end > now))
      shelves.set(key, { source: active, from: now, until, value })
      return value
    },
  }
}

export type FeaturedService = ReturnType<typeof createFeaturedService>
