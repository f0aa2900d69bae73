import { and, asc, count, desc, eq, ne, type SQL, sql } from 'drizzle-orm'
import { foreignKeyViolation, onUniqueViolation } from '../../db/errors.ts'
import { anyContaining } from '../../db/filters.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { countRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, invalidInput, notFound } from '../../lib/errors.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { slugify } from '../../lib/slug.ts'
import { type Clearable, checkedName, contentWriter, TAGS_CONTENT } from '../content.ts'
import type { ItemUsage } from '../usage.ts'
import {
  type CreateTagBody,
  TAG_ID_MAX_LENGTH,
  TAG_NAME_MAX_LENGTH,
  TAG_NAME_MIN_LENGTH,
  type Tag,
  type TagListQuery,
  type TagOption,
  type TagStats,
  TOP_TAGS,
} from './schemas.ts'
import { tags } from './tables.ts'

export interface TagServiceDeps {
  db: Db
  clock: Clock
  /**
   * Caches that show tag names (public item reads), cleared at once after this instance's write so it reads
   * its own writes; the other instances clear on the notification.
   */
  caches?: readonly Clearable[]
  /** How many items carry each tag (items/usage.ts). */
  usage: ItemUsage
}

/** The foreign key of `item_tags.tag_id`: it restricts deleting a tag an item carries. */
const ITEM_TAG_FOREIGN_KEY = 'item_tags_tag_id_tags_id_fk'

const nameTaken = () => conflict('A tag with this name already exists', 'TAG_NAME_EXISTS')
const idTaken = (id: string) =>
  conflict(`A tag with the id "${id}" already exists; give another id`, 'TAG_ID_EXISTS')
const tagNotFound = () => notFound('Tag not found', 'TAG_NOT_FOUND')
const tagInUse = (items: number) =>
  conflict(
    `This tag is in use: remove it from its ${items} ${items === 1 ? 'item' : 'items'} first`,
    'TAG_IN_USE',
  )

const checkName = (raw: string) => checkedName(raw, { min: TAG_NAME_MIN_LENGTH, max: TAG_NAME_MAX_LENGTH })

const sameName = (name: string) => sql`lower(${tags.name}) = lower(${name})`

/** Tags: their names, ids, and how many items carry each. */
/** Tags an import made, in its transaction; one whose id or name was taken meanwhile is left as it is. */
export async function insertImportedTags(
  tx: DbOrTx,
  rows: readonly { id: string; name: string }[],
  at: Date,
) {
  if (rows.length === 0) return
  await tx
    .insert(tags)
    .values(rows.map((row) => ({ id: row.id, name: row.name, createdAt: at, updatedAt: at })))
    .onConflictDoNothing()
}

export function createTagService({ db, clock, caches = [], usage }: TagServiceDeps) {
  /** Runs a write and tells every instance, this one at once, that tags changed. */
  const write = contentWriter(db, TAGS_CONTENT, caches)

  const conflicts = (id: string) =>
    onUniqueViolation({ tags_name_lower_unique: nameTaken, tags_pkey: () => idTaken(id) })

  /** The tags matching `where`, each with its item count; the caller orders and pages. */
  function withCounts(executor: DbOrTx, where: SQL | undefined) {
    const counts = usage.counts(executor)
    const itemCount = sql<number>`coalesce(${counts.itemCount}, 0)`.mapWith(Number)
    return {
      itemCount,
      query: executor
        .select({
          id: tags.id,
          name: tags.name,
          itemCount,
          createdAt: tags.createdAt,
          updatedAt: tags.updatedAt,
        })
        .from(tags)
        .leftJoin(counts, eq(counts.key, tags.id))
        .where(where)
        .$dynamic(),
    }
  }

  async function find(executor: DbOrTx, id: string): Promise<Tag | undefined> {
    const [row] = await withCounts(executor, eq(tags.id, id)).query
    return row
  }

  return {
    list(query: TagListQuery): Promise<PageOf<Tag>> {
      const search = query.search?.trim()
      const where = search ? anyContaining([tags.name, tags.id], search) : undefined
      const direction = query.sortOrder === 'desc' ? desc : asc
      return fetchPage(query, {
        rows: (limit, offset) => {
          const { query: rows, itemCount } = withCounts(db, where)
          const first =
            query.sortBy === 'itemCount'
              ? [direction(itemCount), direction(tags.name)]
              : query.sortBy === 'createdAt'
                ? [direction(tags.createdAt)]
                : [direction(tags.name)]
          return rows
            .orderBy(...first, direction(tags.id))
            .limit(limit)
            .offset(offset)
        },
        total: () => countRows(db, tags, where),
      })
    },

    /** Every tag by name, for pickers. */
    all(): Promise<TagOption[]> {
      return db.select({ id: tags.id, name: tags.name }).from(tags).orderBy(asc(tags.name), asc(tags.id))
    },

    async stats(): Promise<TagStats> {
      const counts = usage.counts(db)
      const [[totals], topTags] = await Promise.all([
        db
          .select({
            total: count(),
            used: sql<number>`count(${counts.key})`.mapWith(Number),
          })
          .from(tags)
          .leftJoin(counts, eq(counts.key, tags.id)),
        db
          .select({
            id: tags.id,
            name: tags.name,
            itemCount: sql<number>`${counts.itemCount}`.mapWith(Number),
          })
          .from(tags)
          .innerJoin(counts, eq(counts.key, tags.id))
          .orderBy(desc(counts.itemCount), asc(tags.name), asc(tags.id))
          .limit(TOP_TAGS),
      ])
      const total = totals?.total ?? 0
      const used = totals?.used ?? 0
      return { total, used, unused: total - used, topTags }
    },

    async get(id: string): Promise<Tag> {
      const tag = await find(db, id)
      if (!tag) throw tagNotFound()
      return tag
    },

    async create(body: CreateTagBody): Promise<Tag> {
      const name = checkName(body.name)
      const id = body.id ?? slugify(name, TAG_ID_MAX_LENGTH)
      if (!id) throw invalidInput('id', 'is required: the name has no letters or digits to make one from')
      return write(async (tx) => {
        const [byName] = await tx.select({ id: tags.id }).from(tags).where(sameName(name))
        if (byName) throw nameTaken()
        const [byId] = await tx.select({ id: tags.id }).from(tags).where(eq(tags.id, id))
        if (byId) throw idTaken(id)
        const now = clock.now()
        const [created] = await tx
          .insert(tags)
          .values({ id, name, createdAt: now, updatedAt: now })
          .returning({ id: tags.id, name: tags.name, createdAt: tags.createdAt, updatedAt: tags.updatedAt })
        if (!created) throw new Error('tag insert returned no row')
        return { ...created, itemCount: 0 }
      }).catch(conflicts(id))
    },

    async update(id: string, body: { name: string }): Promise<Tag> {
      const name = checkName(body.name)
      return write(async (tx) => {
        const [taken] = await tx
          .select({ id: tags.id })
          .from(tags)
          .where(and(sameName(name), ne(tags.id, id)))
        if (taken) throw nameTaken()
        const [updated] = await tx
          .update(tags)
          .set({ name, updatedAt: clock.now() })
          .where(eq(tags.id, id))
          .returning({ id: tags.id })
        if (!updated) throw tagNotFound()
        const tag = await find(tx, id)
        if (!tag) throw tagNotFound()
        return tag
      }).catch(conflicts(id))
    },

    /** Deletes an unused tag for good; one an item carries is 409 `TAG_IN_USE`. */
    async delete(id: string): Promise<void> {
      await write(async (tx) => {
        // Locked first: an item taking the tag meanwhile waits, then fails on the foreign key.
        const [row] = await tx.select({ id: tags.id }).from(tags).where(eq(tags.id, id)).for('update')
        if (!row) throw tagNotFound()
        const items = await usage.of(tx, id)
        if (items > 0) throw tagInUse(items)
        await tx.delete(tags).where(eq(tags.id, id))
      }).catch(async (error) => {
        // An item took the tag between the count and the delete: the foreign key refused it.
        if (foreignKeyViolation(error)?.constraint === ITEM_TAG_FOREIGN_KEY) {
          throw tagInUse(Math.max(1, await usage.of(db, id)))
        }
        throw error
      })
    },
  }
}

export type TagService = ReturnType<typeof createTagService>
