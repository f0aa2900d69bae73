import { and, asc, count, desc, eq, type SQL, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { foreignKeyViolation, uniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { createInvalidatedCache, type InvalidatedCache } from '../../db/invalidated-cache.ts'
import { countRows } from '../../db/queries.ts'
import { claimFreeSlug } from '../../db/slugs.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, invalidInput } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { slugify } from '../../lib/slug.ts'
import { type BulkResult, runBulk } from '../bulk.ts'
import type { CategoryService } from '../categories/service.ts'
import type { ProfileService } from '../clients/profiles.ts'
import {
  CATEGORIES_CONTENT,
  type Clearable,
  CONTENT_CHANGED_CHANNEL,
  checkedName,
  contentWriter,
  ITEMS_CONTENT,
} from '../content.ts'
import { notifyAdmins } from '../notifications/service.ts'
import { changesBetween, historyOf, record, snapshotOf } from './history.ts'
import {
  adminItemOf,
  createAdminItemsByIds,
  hasTag,
  isFeatured,
  itemNotFound,
  matchesSearch,
  selectAdminItems,
} from './read.ts'
import {
  categoryCountChanges,
  checkReferences,
  type ItemCollections,
  type ItemLinks,
  setTags,
  tagIdsOf,
} from './relations.ts'
import {
  type AdminItemQuery,
  type CreateItemBody,
  type HistoryQuery,
  ITEM_LIMITS,
  type Item,
  type LocationInput,
  type SubmitItemBody,
  type UpdateItemBody,
} from './schemas.ts'
import { type ItemStatus, items } from './tables.ts'

export interface ItemServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'warn'>
  /** Caches an item write makes stale on this instance (the others hear the notification). */
  caches: Clearable[]
  /** The admin list's totals per set of filters, until the next item write (see `createItemCountCache`). */
  counts: InvalidatedCache<number>
  /** The published count of each category, moved in the item's write. */
  categories: Pick<CategoryService, 'adjustCounts'>
  /** The collections an item is in: checked and set in the item's write, listed in its admin answer. */
  collections: ItemCollections
  /** An item's link check: shown in its admin answer, filtered on by the admin list. */
  links: ItemLinks
  /** A submission is counted on the submitter's client profile. */
  profiles: Pick<ProfileService, 'countSubmission'>
}

/**
 * How many items match each set of admin-list filters, each instance's own: every item write notifies
 * `CONTENT_CHANGED_CHANNEL` with `items` in its transaction and each instance forgets on it, so a total
 * is exact while it is reused (the `featured` filter, which moves with time, is never cached).
 */
export function createItemCountCache(clock: Pick<Clock, 'nowMs'>): InvalidatedCache<number> {
  return createInvalidatedCache<number>({
    name: 'item-counts',
    channel: CONTENT_CHANGED_CHANNEL,
    invalidates: (payload) => (payload === ITEMS_CONTENT ? 'all' : 'none'),
    clock,
  })
}

export interface Actor {
  id: string
}

type Row = typeof items.$inferSelect

const slugTaken = (slug: string) =>
  conflict(`An item with the slug "${slug}" already exists; give another slug`, 'ITEM_SLUG_EXISTS')

const checkName = (raw: string) => checkedName(raw, { min: ITEM_LIMITS.nameMin, max: ITEM_LIMITS.nameMax })

/** The location columns after `input` is applied to `current`; latitude and longitude go together. */
function locationOf(current: Partial<Row>, input: LocationInput | undefined) {
  const next = {
    address: current.address ?? null,
    city: current.city ?? null,
    country: current.country ?? null,
    latitude: current.latitude ?? null,
    longitude: current.longitude ?? null,
    isRemote: current.isRemote ?? false,
    serviceArea: current.serviceArea ?? null,
  }
  if (!input) return next
  const trimmed = (value: string | null | undefined) => (value == null ? value : value.trim() || null)
  if (input.address !== undefined) next.address = trimmed(input.address) ?? null
  if (input.city !== undefined) next.city = trimmed(input.city) ?? null
  if (input.country !== undefined) next.country = trimmed(input.country) ?? null
  if (input.serviceArea !== undefined) next.serviceArea = trimmed(input.serviceArea) ?? null
  if (input.latitude !== undefined) next.latitude = input.latitude
  if (input.longitude !== undefined) next.longitude = input.longitude
  if (input.isRemote !== undefined) next.isRemote = input.isRemote
  if ((next.latitude === null) !== (next.longitude === null)) {
    const missing = next.latitude === null ? 'latitude' : 'longitude'
    throw invalidInput(
      `location.${missing}`,
      'is required with the other coordinate (send both, or both null)',
    )
  }
  return next
}

/** Items: the admin's management, the history of every change, and submissions from the site. */
export function createItemService(deps: ItemServiceDeps) {
  const { db, clock, log, caches, counts, categories, collections, links, profiles } = deps
  /** Runs a write and tells every instance, this one at once, that items (and what else it names) changed. */
  const write = contentWriter(db, ITEMS_CONTENT, [...caches, counts])
  const itemsByIds = createAdminItemsByIds(db, { collections, links })

  /** Keeps the published count of each category in step with an item going from `before` to `after`. */
  const adjustCategoryCounts = (
    tx: DbOrTx,
    before: Parameters<typeof categoryCountChanges>[0],
    after: Parameters<typeof categoryCountChanges>[1],
  ) => categories.adjustCounts(tx, categoryCountChanges(before, after))

  /**
   * The row of `id` locked for this transaction, or 404. A change takes `no key update`, which leaves
   * collections free to reference the item meanwhile (their writers lock the collection, then `key share`
   * the items); only a deletion takes the whole row.
   */
  async function locked(
    tx: DbOrTx,
    id: string,
    strength: 'no key update' | 'update' = 'no key update',
  ): Promise<Row> {
    if (!isUuid(id)) throw itemNotFound()
    const [row] = await tx.select().from(items).where(eq(items.id, id)).for(strength)
    if (!row) throw itemNotFound()
    return row
  }

  async function read(id: string, executor: DbOrTx = db): Promise<Item> {
    if (!isUuid(id)) throw itemNotFound()
    const [row] = await selectAdminItems(executor, clock.now(), { collections, links }).where(
      eq(items.id, id),
    )
    if (!row) throw itemNotFound()
    return adminItemOf(row)
  }

  /** The first of `base`, `base-2`, `base-3`, … no item has, held for `tx`: take it first in the transaction. */
  const freeSlug = (tx: DbOrTx, base: string) =>
    claimFreeSlug(tx, { column: items.slug, maxLength: ITEM_LIMITS.slugMax }, base)

  /** A write's database errors as answers: a taken slug is 409, a reference deleted meanwhile is 400. */
  function mapWriteError(slug: string | undefined) {
    return (error: unknown): never => {
      if (uniqueViolation(error)?.constraint === 'items_slug_unique') throw slugTaken(slug ?? '')
      const reference = foreignKeyViolation(error)?.constraint
      if (reference) {
        const field = reference.includes('category')
          ? 'categoryId'
          : reference.includes('company')
            ? 'companyId'
            : reference.includes('tag')
              ? 'tagIds'
              : reference.includes('collection')
                ? 'collectionIds'
                : undefined
        if (field) throw invalidInput(field, 'names something that was just deleted')
      }
      throw error
    }
  }

  async function insertItem(
    tx: DbOrTx,
    touched: Set<string>,
    values: {
      slug: string
      name: string
      status: ItemStatus
      submittedBy: string | null
      body: Omit<CreateItemBody, 'name' | 'slug' | 'status'>
    },
    actorId: string,
    action: 'created' | 'submitted',
  ): Promise<Row> {
    const now = clock.now()
    const { body } = values
    const [row] = await tx
      .insert(items)
      .values({
        slug: values.slug,
        name: values.name,
        description: body.description ?? null,
        url: body.url ?? null,
        iconUrl: body.iconUrl ?? null,
        imageUrl: body.imageUrl ?? null,
        categoryId: body.categoryId ?? null,
        companyId: body.companyId ?? null,
        status: values.status,
        ...locationOf({}, body.location),
        submittedBy: values.submittedBy,
        publishedAt: values.status === 'published' ? now : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
    if (!row) throw new Error('item insert returned no row')
    const tagIds = body.tagIds ?? []
    await setTags(tx, row.id, tagIds)
    if (body.collectionIds) await collections.set(tx, row.id, body.collectionIds, now)
    const changes = changesBetween({}, snapshotOf(row, tagIds)).filter(
      (change) =>
        change.to !== null && !(Array.isArray(change.to) && change.to.length === 0) && change.to !== false,
    )
    await record(tx, clock.now(), { itemId: row.id, actorId, action, changes })
    if (await adjustCategoryCounts(tx, null, row)) touched.add(CATEGORIES_CONTENT)
    return row
  }

  async function update(id: string, body: UpdateItemBody, actor: Actor): Promise<Item> {
    const name = body.name === undefined ? undefined : checkName(body.name)
    return write(async (tx, touched) => {
      const before = await locked(tx, id)
      await checkReferences(tx, collections, body)
      const beforeTags = await tagIdsOf(tx, id)
      const now = clock.now()
      const changes: Partial<typeof items.$inferInsert> = {
        ...(name === undefined ? {} : { name }),
        ...(body.slug === undefined ? {} : { slug: body.slug }),
        ...(body.description === undefined ? {} : { description: body.description }),
        ...(body.url === undefined ? {} : { url: body.url }),
        ...(body.iconUrl === undefined ? {} : { iconUrl: body.iconUrl }),
        ...(body.imageUrl === undefined ? {} : { imageUrl: body.imageUrl }),
        ...(body.categoryId === undefined ? {} : { categoryId: body.categoryId }),
        ...(body.companyId === undefined ? {} : { companyId: body.companyId }),
        ...(body.status === undefined ? {} : { status: body.status }),
        ...(body.location === undefined ? {} : locationOf(before, body.location)),
      }
      if (body.status === 'published' && before.status !== 'published') changes.publishedAt = now
      const afterTags = body.tagIds ?? beforeTags
      const after: Row = { ...before, ...changes } as Row
      const diff = changesBetween(snapshotOf(before, beforeTags), snapshotOf(after, afterTags))
      if (diff.length > 0) {
        await tx
          .update(items)
          .set({ ...changes, updatedAt: now })
          .where(eq(items.id, id))
        if (body.tagIds) await setTags(tx, id, body.tagIds)
        await record(tx, clock.now(), { itemId: id, actorId: actor.id, action: 'updated', changes: diff })
        if (await adjustCategoryCounts(tx, before, after)) touched.add(CATEGORIES_CONTENT)
      }
      if (body.collectionIds) await collections.set(tx, id, body.collectionIds, now)
      return read(id, tx)
    }).catch(mapWriteError(body.slug))
  }

  /**
   * Deletes the item within a write that is already open (a report's moderation runs it in its own): the
   * history and the category count in the same transaction, and `touched` names what changed.
   */
  async function removeWithin(tx: DbOrTx, touched: Set<string>, id: string, actor: Actor): Promise<void> {
    const before = await locked(tx, id, 'update')
    await tx.delete(items).where(eq(items.id, id))
    await record(tx, clock.now(), {
      itemId: id,
      actorId: actor.id,
      action: 'deleted',
      changes: [{ field: 'status', from: before.status, to: null }],
    })
    touched.add(ITEMS_CONTENT)
    if (await adjustCategoryCounts(tx, before, null)) touched.add(CATEGORIES_CONTENT)
  }

  async function remove(id: string, actor: Actor): Promise<void> {
    await write((tx, touched) => removeWithin(tx, touched, id, actor))
  }

  /** Approves (publishes) or rejects an item, keeping the note; 409 when it already is what was asked. */
  async function review(id: string, action: 'approve' | 'reject', note: string | undefined, actor: Actor) {
    const status: ItemStatus = action === 'approve' ? 'published' : 'rejected'
    return write(async (tx, touched) => {
      const before = await locked(tx, id)
      if (before.status === status) {
        throw conflict(
          `The item is already ${status}`,
          action === 'approve' ? 'ITEM_ALREADY_PUBLISHED' : 'ITEM_ALREADY_REJECTED',
        )
      }
      const now = clock.now()
      const reviewNote = note?.trim() || null
      await tx
        .update(items)
        .set({
          status,
          reviewNote,
          reviewedBy: actor.id,
          reviewedAt: now,
          updatedAt: now,
          ...(status === 'published' ? { publishedAt: now } : {}),
        })
        .where(eq(items.id, id))
      await record(tx, clock.now(), {
        itemId: id,
        actorId: actor.id,
        action: action === 'approve' ? 'approved' : 'rejected',
        changes: [{ field: 'status', from: before.status, to: status }],
        note: reviewNote,
      })
      if (await adjustCategoryCounts(tx, before, { categoryId: before.categoryId, status })) {
        touched.add(CATEGORIES_CONTENT)
      }
      return read(id, tx)
    })
  }

  function listWhere(query: AdminItemQuery): SQL | undefined {
    const conditions: (SQL | undefined)[] = [
      query.search === undefined ? undefined : matchesSearch(query.search),
      query.status === undefined ? undefined : eq(items.status, query.status),
      query.category === undefined ? undefined : eq(items.categoryId, query.category),
      query.company === undefined ? undefined : eq(items.companyId, query.company),
      query.tag === undefined ? undefined : hasTag(query.tag),
      query.featured === undefined
        ? undefined
        : query.featured === 'true'
          ? isFeatured(clock.now())
          : sql`not ${isFeatured(clock.now())}`,
      query.linkStatus === undefined ? undefined : links.withStatus(items.id, items.url, query.linkStatus),
    ]
    return and(...conditions)
  }

  const sortColumns = {
    createdAt: items.createdAt,
    updatedAt: items.updatedAt,
    publishedAt: items.publishedAt,
    name: items.name,
    status: items.status,
  } as const

  return {
    async list(query: AdminItemQuery): Promise<PageOf<Item>> {
      const where = listWhere(query)
      const direction = query.sortOrder === 'asc' ? asc : desc
      const orderBy =
        query.sortBy === 'publishedAt'
          ? [sql`${items.publishedAt} ${sql.raw(query.sortOrder)} nulls last`, direction(items.id)]
          : [direction(sortColumns[query.sortBy]), direction(items.id)]
      return fetchPage(query, {
        rows: async (limit, offset) => {
          const page = await db
            .select({ id: items.id })
            .from(items)
            .where(where)
            .orderBy(...orderBy)
            .limit(limit)
            .offset(offset)
          return itemsByIds(
            page.map((row) => row.id),
            clock.now(),
          )
        },
        total: () => {
          // Featured entries move with time and link checks write no item: neither total is cached.
          if (query.featured !== undefined || query.linkStatus !== undefined)
            return countRows(db, items, where)
          const key = JSON.stringify([query.search, query.status, query.category, query.tag, query.company])
          return counts.get(key, () => countRows(db, items, where))
        },
      })
    },

    get: (id: string) => read(id),

    async stats() {
      const [row] = await db
        .select({
          total: count(),
          published: sql<number>`count(*) filter (where ${items.status} = 'published')::int`,
          pending: sql<number>`count(*) filter (where ${items.status} = 'pending')::int`,
          rejected: sql<number>`count(*) filter (where ${items.status} = 'rejected')::int`,
          draft: sql<number>`count(*) filter (where ${items.status} = 'draft')::int`,
        })
        .from(items)
      return row ?? { total: 0, published: 0, pending: 0, rejected: 0, draft: 0 }
    },

    async create(body: CreateItemBody, actor: Actor): Promise<Item> {
      const name = checkName(body.name)
      const base = body.slug ?? slugify(name, ITEM_LIMITS.slugMax)
      if (!base) throw invalidInput('slug', 'is required: the name has no letters or digits to make one from')
      let slug = base
      return write(async (tx, touched) => {
        if (body.slug === undefined) {
          slug = await freeSlug(tx, base)
        } else {
          const [taken] = await tx.select({ id: items.id }).from(items).where(eq(items.slug, slug))
          if (taken) throw slugTaken(slug)
        }
        await checkReferences(tx, collections, body)
        const row = await insertItem(
          tx,
          touched,
          { slug, name, status: body.status ?? 'draft', submittedBy: null, body },
          actor.id,
          'created',
        )
        return read(row.id, tx)
      }).catch((error) => mapWriteError(slug)(error))
    },

    update,
    remove,
    removeWithin,

    /**
     * Gives an item that still lacks coordinates the geocoded ones (and the city or country given), with
     * their history entry, in the caller's write (the location index's); false when it has coordinates
     * now, as an admin's edit meanwhile wins.
     */
    async setCoordinates(
      tx: DbOrTx,
      id: string,
      place: { latitude: number; longitude: number; city?: string; country?: string },
      change: { actorId: string | null; note: string },
    ): Promise<boolean> {
      const [row] = await tx
        .update(items)
        .set({ ...place, updatedAt: clock.now() })
        .where(and(eq(items.id, id), sql`${items.latitude} is null`))
        .returning({ id: items.id })
      if (!row) return false
      await record(tx, clock.now(), {
        itemId: id,
        actorId: change.actorId,
        action: 'updated',
        changes: [
          { field: 'location.latitude', from: null, to: place.latitude },
          { field: 'location.longitude', from: null, to: place.longitude },
        ],
        note: change.note,
      })
      return true
    },
    /** What an item write makes stale on this instance, for a write that runs `removeWithin`. */
    caches: [...caches, counts] as readonly Clearable[],
    review,

    history: (id: string, query: HistoryQuery) => historyOf(db, id, query),

    bulk(action: 'approve' | 'reject' | 'delete', ids: string[], actor: Actor): Promise<BulkResult> {
      const verb = action === 'approve' ? 'approved' : action === 'reject' ? 'rejected' : 'deleted'
      return runBulk(
        ids,
        (id) => (action === 'delete' ? remove(id, actor) : review(id, action, undefined, actor)),
        (error, itemId) => log.warn({ err: error, itemId }, `bulk ${verb} failed`),
      )
    },

    /**
     * A signed-in user's submission: `pending`, theirs, with a free slug from its name, and a notification
     * for the admins in the same transaction.
     */
    async submit(
      body: SubmitItemBody,
      submitter: { id: string; name: string | null; email: string },
    ): Promise<Item> {
      const name = checkName(body.name)
      const base = slugify(name, ITEM_LIMITS.slugMax - 4) || 'item'
      let slug = base
      return write(async (tx, touched) => {
        slug = await freeSlug(tx, base)
        await checkReferences(tx, collections, body, { activeCategoryOnly: true })
        const row = await insertItem(
          tx,
          touched,
          { slug, name, status: 'pending', submittedBy: submitter.id, body },
          submitter.id,
          'submitted',
        )
        await profiles.countSubmission(tx, submitter.id)
        await notifyAdmins(tx, clock.now(), {
          type: 'item_submitted',
          title: `New submission: ${name}`,
          message: `${submitter.name ?? submitter.email} submitted "${name}" for review.`,
          data: { itemId: row.id, itemSlug: row.slug, submittedBy: submitter.id },
        })
        return read(row.id, tx)
      }).catch((error) => mapWriteError(slug)(error))
    },
  }
}

export type ItemService = ReturnType<typeof createItemService>
