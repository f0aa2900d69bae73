import { and, asc, desc, eq, inArray, notInArray, type SQLWrapper, sql } from 'drizzle-orm'
import { onUniqueViolation } from '../../db/errors.ts'
import { anyContaining } from '../../db/filters.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import { countRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { slugify } from '../../lib/slug.ts'
import { COLLECTIONS_CONTENT, CONTENT_CHANGED_CHANNEL, checkedName, contentWriter } from '../content.ts'
import { items } from '../items/tables.ts'
import {
  COLLECTION_NAME_MAX_LENGTH,
  COLLECTION_NAME_MIN_LENGTH,
  COLLECTION_SLUG_MAX_LENGTH,
  type Collection,
  type CollectionEntry,
  type CollectionListQuery,
  type CollectionStats,
  type CreateCollectionBody,
  type UpdateCollectionBody,
} from './schemas.ts'
import { collectionItems, collections } from './tables.ts'

const ACTIVE_COUNT = 'active-count'
/** How many ids a 400's message names; `details` (unknown ids) has them all. */
const IDS_IN_MESSAGE = 5

/** `a, b, c, d, e and 3 more`: a message stays short whatever the list. */
function named(ids: readonly string[]): string {
  const more = ids.length > IDS_IN_MESSAGE ? ` and ${ids.length - IDS_IN_MESSAGE} more` : ''
  return `${ids.slice(0, IDS_IN_MESSAGE).join(', ')}${more}`
}

const collectionNotFound = () => notFound('No collection has this id', 'COLLECTION_NOT_FOUND')
const slugTaken = (slug: string) =>
  conflict(`A collection with the slug "${slug}" already exists; give another slug`, 'COLLECTION_SLUG_EXISTS')

const itemCount =
  sql<number>`(select count(*) from ${collectionItems} where ${collectionItems.collectionId} = ${collections.id})`.mapWith(
    Number,
  )

const columns = {
  id: collections.id,
  slug: collections.slug,
  name: collections.name,
  description: collections.description,
  isActive: collections.isActive,
  itemCount,
  createdAt: collections.createdAt,
  updatedAt: collections.updatedAt,
}

const SORT_COLUMNS: Record<CollectionListQuery['sortBy'], SQLWrapper> = {
  name: collections.name,
  createdAt: collections.createdAt,
  updatedAt: collections.updatedAt,
  itemCount,
}

/** A name as stored: trimmed, then 2 to 200 characters. */
const checkName = (raw: string) =>
  checkedName(raw, { min: COLLECTION_NAME_MIN_LENGTH, max: COLLECTION_NAME_MAX_LENGTH })

/**
 * Item ids as Postgres compares them (lower case), each once: a list naming an item twice is a mistake
 * the caller should hear about, not a guess at which position they meant.
 */
function checkedItemIds(raw: readonly string[]): string[] {
  const ids = raw.map((id) => id.toLowerCase())
  const repeated = [...new Set(ids.filter((id, index) => ids.indexOf(id) !== index))]
  if (repeated.length > 0) {
    throw invalidInput('itemIds', `must name each item once; repeated: ${named(repeated)}`)
  }
  return ids
}

/**
 * The items of `ids` that exist, locked against deletion until the transaction ends (so a membership
 * never points at an item deleted meanwhile); 400 `UNKNOWN_ITEM_IDS` listing the others.
 */
async function assertItemsExist(tx: DbOrTx, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  const found = await tx.select({ id: items.id }).from(items).where(inArray(items.id, ids)).for('key share')
  const known = new Set(found.map((row) => row.id))
  const unknown = ids.filter((id) => !known.has(id))
  if (unknown.length === 0) return
  throw invalidInput(
    unknown.map((id) => ({ field: 'itemIds', message: `no item has the id "${id}"` })),
    { code: 'UNKNOWN_ITEM_IDS', summary: `Unknown item ids: ${named(unknown)}` },
  )
}

/** Makes `ids` the collection's items in that order; items that stay keep their `addedAt`. */
async function setMembership(tx: DbOrTx, collectionId: string, ids: string[], now: Date): Promise<void> {
  await tx
    .delete(collectionItems)
    .where(
      and(
        eq(collectionItems.collectionId, collectionId),
        ids.length > 0 ? notInArray(collectionItems.itemId, ids) : undefined,
      ),
    )
  if (ids.length === 0) return
  await tx
    .insert(collectionItems)
    .values(ids.map((itemId, position) => ({ collectionId, itemId, position, addedAt: now })))
    .onConflictDoUpdate({
      target: [collectionItems.collectionId, collectionItems.itemId],
      set: { position: sql`excluded.position` },
    })
}

async function readCollection(executor: DbOrTx, id: string): Promise<Collection | undefined> {
  const [row] = await executor.select(columns).from(collections).where(eq(collections.id, id))
  return row
}

async function readEntries(executor: DbOrTx, collectionId: string): Promise<CollectionEntry[]> {
  const rows = await executor
    .select({
      addedAt: collectionItems.addedAt,
      id: items.id,
      slug: items.slug,
      name: items.name,
      status: items.status,
      iconUrl: items.iconUrl,
      categoryId: items.categoryId,
    })
    .from(collectionItems)
    .innerJoin(items, eq(items.id, collectionItems.itemId))
    .where(eq(collectionItems.collectionId, collectionId))
    .orderBy(asc(collectionItems.position))
  // The stored positions keep their order but may have gaps once an item is deleted: answer the rank.
  return rows.map(({ addedAt, ...item }, position) => ({ position, addedAt, item }))
}

/**
 * The count of active collections, each instance's own: every collections write notifies
 * `CONTENT_CHANGED_CHANNEL` with `collections` in its transaction, and each instance clears on it.
 */
export function createCollectionsCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<number> {
  return createInvalidatedCache<number>({
    name: 'collection-counts',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (payload === COLLECTIONS_CONTENT ? 'all' : 'none'),
    clock,
  })
}

export interface CollectionServiceDeps {
  db: Db
  clock: Clock
  cache: InvalidatedCache<number>
}

/** Collections: hand-picked, ordered lists of items, and whether the site has any to show. */
export function createCollectionService({ db, clock, cache }: CollectionServiceDeps) {
  /** Runs a write and tells every instance, this one at once, that collections changed. */
  const write = contentWriter(db, COLLECTIONS_CONTENT, [cache])

  /** Locks the collection's row for the rest of the transaction (writers of one collection take turns). */
  async function touch(tx: DbOrTx, id: string, changes: Partial<typeof collections.$inferInsert>) {
    const [row] = await tx
      .update(collections)
      .set({ ...changes, updatedAt: clock.now() })
      .where(eq(collections.id, id))
      .returning({ id: collections.id })
    if (!row) throw collectionNotFound()
  }

  async function find(id: string): Promise<Collection> {
    const collection = isUuid(id) ? await readCollection(db, id) : undefined
    if (!collection) throw collectionNotFound()
    return collection
  }

  return {
    /** SPEC.md: the count covers active collections only; `exists` when it is above 0. */
    async exists(): Promise<{ exists: boolean; count: number }> {
      const count = await cache.get(ACTIVE_COUNT, () =>
        countRows(db, collections, eq(collections.isActive, true)),
      )
      return { exists: count > 0, count }
    },

    list(query: CollectionListQuery): Promise<PageOf<Collection>> {
      const search = query.search?.trim()
      const where = and(
        search
          ? anyContaining([collections.name, collections.slug, collections.description], search)
          : undefined,
        query.isActive === undefined ? undefined : eq(collections.isActive, query.isActive === 'true'),
      )
      const direction = query.sortOrder === 'asc' ? asc : desc
      return fetchPage(query, {
        rows: (limit, offset) =>
          db
            .select(columns)
            .from(collections)
            .where(where)
            .orderBy(direction(SORT_COLUMNS[query.sortBy]), asc(collections.id))
            .limit(limit)
            .offset(offset),
        total: () => countRows(db, collections, where),
      })
    },

    async stats(): Promise<CollectionStats> {
      const [row] = await db
        .select({
          total: sql<number>`count(*)`.mapWith(Number),
          active: sql<number>`count(*) filter (where ${collections.isActive})`.mapWith(Number),
          inactive: sql<number>`count(*) filter (where not ${collections.isActive})`.mapWith(Number),
          empty: sql<number>`count(*) filter (where ${itemCount} = 0)`.mapWith(Number),
          totalItems: sql<number>`coalesce(sum(${itemCount}), 0)`.mapWith(Number),
          averageItems: sql<number>`coalesce(round(avg(${itemCount}), 2), 0)`.mapWith(Number),
        })
        .from(collections)
      return row ?? { total: 0, active: 0, inactive: 0, empty: 0, totalItems: 0, averageItems: 0 }
    },

    get: find,

    /** The slug, sent or made from the name, is unique: the unique index settles racing creates (409). */
    async create(body: CreateCollectionBody): Promise<Collection> {
      const name = checkName(body.name)
      const slug = body.slug ?? slugify(name, COLLECTION_SLUG_MAX_LENGTH)
      if (!slug) throw invalidInput('slug', 'is required: the name has no letters or digits to make one from')
      const itemIds = checkedItemIds(body.itemIds ?? [])
      return write(async (tx) => {
        await assertItemsExist(tx, itemIds)
        const now = clock.now()
        const [created] = await tx
          .insert(collections)
          .values({
            slug,
            name,
            description: body.description ?? null,
            isActive: body.isActive ?? true,
            createdAt: now,
            updatedAt: now,
          })
          .returning({ id: collections.id })
        if (!created) throw new Error('collection insert returned no row')
        await setMembership(tx, created.id, itemIds, now)
        const collection = await readCollection(tx, created.id)
        if (!collection) throw new Error('created collection not found')
        return collection
      }).catch(onUniqueViolation({ collections_slug_unique: () => slugTaken(slug) }))
    },

    async update(id: string, body: UpdateCollectionBody): Promise<Collection> {
      if (!isUuid(id)) throw collectionNotFound()
      const name = body.name === undefined ? undefined : checkName(body.name)
      return write(async (tx) => {
        await touch(tx, id, {
          ...(name === undefined ? {} : { name }),
          ...(body.slug === undefined ? {} : { slug: body.slug }),
          ...(body.description === undefined ? {} : { description: body.description }),
          ...(body.isActive === undefined ? {} : { isActive: body.isActive }),
        })
        const collection = await readCollection(tx, id)
        if (!collection) throw collectionNotFound()
        return collection
      }).catch(onUniqueViolation({ collections_slug_unique: () => slugTaken(body.slug ?? '') }))
    },

    /** Deletes the collection and its memberships (cascade); the items stay. */
    async delete(id: string): Promise<void> {
      if (!isUuid(id)) throw collectionNotFound()
      const removed = await write((tx) =>
        tx.delete(collections).where(eq(collections.id, id)).returning({ id: collections.id }),
      )
      if (removed.length === 0) throw collectionNotFound()
    },

    async items(id: string): Promise<CollectionEntry[]> {
      await find(id)
      return readEntries(db, id)
    },

    /** Replaces the membership and order in one transaction; answers the new list. */
    async replaceItems(id: string, rawItemIds: readonly string[]): Promise<CollectionEntry[]> {
      if (!isUuid(id)) throw collectionNotFound()
      const itemIds = checkedItemIds(rawItemIds)
      return write(async (tx) => {
        await touch(tx, id, {})
        await assertItemsExist(tx, itemIds)
        await setMembership(tx, id, itemIds, clock.now())
        return readEntries(tx, id)
      })
    },
  }
}

export type CollectionService = ReturnType<typeof createCollectionService>
