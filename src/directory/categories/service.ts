import { and, asc, desc, eq, inArray, ne, type SQL, sql } from 'drizzle-orm'
import { onForeignKeyViolation, onUniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { InvalidatedCache } from '../../db/invalidated-cache.ts'
import { pageOfRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, invalidInput, notFound } from '../../lib/errors.ts'
import type { PageOf } from '../../lib/pagination.ts'
import { slugify } from '../../lib/slug.ts'
import { CATEGORIES_CONTENT, checkedName, contentWriter } from '../content.ts'
import type { ItemUsage } from '../usage.ts'
import {
  CATEGORY_ID_MAX_LENGTH,
  CATEGORY_NAME_MAX_LENGTH,
  CATEGORY_NAME_MIN_LENGTH,
  type Category,
  type CategoryListQuery,
  type CreateCategoryBody,
} from './schemas.ts'
import { categories } from './tables.ts'

export interface CategoryServiceDeps {
  db: Db
  clock: Clock
  /** The active categories per locale, invalidated by every categories write (see cache.ts). */
  cache: InvalidatedCache<Category[]>
  /** How many items are in a category (items/usage.ts): a category in use is not deleted. */
  usage: Pick<ItemUsage, 'of'>
}

const nameTaken = () => conflict('A category with this name already exists', 'CATEGORY_NAME_EXISTS')
const idTaken = (id: string) =>
  conflict(`A category with the id "${id}" already exists; give another id`, 'CATEGORY_ID_EXISTS')
const categoryInUse = (count?: number) =>
  conflict(
    `Items are in this category${count === undefined ? '' : ` (${count})`}: move them to another category, ` +
      'or deactivate it instead',
    'CATEGORY_IN_USE',
  )
const categoryNotFound = () => notFound('Category not found', 'CATEGORY_NOT_FOUND')

const columns = {
  id: categories.id,
  name: categories.name,
  isActive: categories.isActive,
  itemCount: categories.itemCount,
  createdAt: categories.createdAt,
  updatedAt: categories.updatedAt,
}

const categoryOf = ({ sortOrder: _, ...category }: typeof categories.$inferSelect): Category => category

/** A category's name, trimmed; 400 when it is not 2 to 100 characters. */
export const checkedCategoryName = (raw: string): string =>
  checkedName(raw, { min: CATEGORY_NAME_MIN_LENGTH, max: CATEGORY_NAME_MAX_LENGTH })

const sameName = (name: string) => sql`lower(${categories.name}) = lower(${name})`

/** The order every listing uses unless asked otherwise: reorder's position, then name. */
const listingOrder = [asc(categories.sortOrder), asc(categories.name), asc(categories.id)]

/**
 * Categories an import made, in its transaction and in the file's order, after the existing ones; one whose
 * id or name was taken meanwhile is left as it is.
 */
export async function insertImportedCategories(
  tx: DbOrTx,
  rows: readonly { id: string; name: string }[],
  at: Date,
) {
  if (rows.length === 0) return
  const [{ next } = { next: 0 }] = await tx
    .select({ next: sql<number>`coalesce(max(${categories.sortOrder}), -1) + 1` })
    .from(categories)
  await tx
    .insert(categories)
    .values(
      rows.map((row, index) => ({
        id: row.id,
        name: row.name,
        sortOrder: Number(next) + index,
        createdAt: at,
        updatedAt: at,
      })),
    )
    .onConflictDoNothing()
}

export function createCategoryService({ db, clock, cache, usage }: CategoryServiceDeps) {
  /** Runs a write and tells every instance, this one at once, that categories changed. */
  const write = contentWriter(db, CATEGORIES_CONTENT, [cache])

  const conflicts = (id: string) =>
    onUniqueViolation({ categories_name_lower_unique: nameTaken, categories_pkey: () => idTaken(id) })

  async function find(id: string): Promise<Category | undefined> {
    const [row] = await db.select(columns).from(categories).where(eq(categories.id, id))
    return row
  }

  return {
    async list(query: CategoryListQuery): Promise<PageOf<Category>> {
      const where = query.includeInactive === 'true' ? undefined : eq(categories.isActive, true)
      const direction = query.sortOrder === 'desc' ? desc : asc
      const orderBy: SQL[] =
        query.sortBy === 'name'
          ? [direction(categories.name), direction(categories.id)]
          : query.sortBy === 'id'
            ? [direction(categories.id)]
            : [direction(categories.sortOrder), direction(categories.name), direction(categories.id)]
      return pageOfRows(db, categories, query, { where, orderBy, map: categoryOf })
    },

    /** The active categories in order, from the content cache. */
    async all(locale: string): Promise<Category[]> {
      // Categories carry no translations yet: every locale reads the same rows, cached apart.
      return cache.get(locale, () =>
        db
          .select(columns)
          .from(categories)
          .where(eq(categories.isActive, true))
          .orderBy(...listingOrder),
      )
    },

    async get(id: string): Promise<Category> {
      const category = await find(id)
      if (!category) throw categoryNotFound()
      return category
    },

    async create(body: CreateCategoryBody): Promise<Category> {
      const name = checkedCategoryName(body.name)
      const id = body.id ?? slugify(name, CATEGORY_ID_MAX_LENGTH)
      if (!id) throw invalidInput('id', 'is required: the name has no letters or digits to make one from')
      return write(async (tx) => {
        const [byName] = await tx.select({ id: categories.id }).from(categories).where(sameName(name))
        if (byName) throw nameTaken()
        const [byId] = await tx.select({ id: categories.id }).from(categories).where(eq(categories.id, id))
        if (byId) throw idTaken(id)
        const now = clock.now()
        const [created] = await tx
          .insert(categories)
          .values({
            id,
            name,
            // New categories go to the end of the order.
            sortOrder: sql`(select coalesce(max(${categories.sortOrder}), -1) + 1 from ${categories})`,
            createdAt: now,
            updatedAt: now,
          })
          .returning(columns)
        if (!created) throw new Error('category insert returned no row')
        return created
      }).catch(conflicts(id))
    },

    async update(id: string, body: { name: string }): Promise<Category> {
      const name = checkedCategoryName(body.name)
      return write(async (tx) => {
        const [taken] = await tx
          .select({ id: categories.id })
          .from(categories)
          .where(and(sameName(name), ne(categories.id, id)))
        if (taken) throw nameTaken()
        const [updated] = await tx
          .update(categories)
          .set({ name, updatedAt: clock.now() })
          .where(eq(categories.id, id))
          .returning(columns)
        if (!updated) throw categoryNotFound()
        return updated
      }).catch(conflicts(id))
    },

    /** `hard` deletes the row; otherwise the category is deactivated (SPEC.md: soft delete). */
    async remove(id: string, hard: boolean): Promise<void> {
      await write(async (tx) => {
        if (hard) {
          // Items keep their category: one in use is deactivated, or emptied first.
          const inUse = await usage.of(tx, id)
          if (inUse > 0) throw categoryInUse(inUse)
        }
        const [row] = hard
          ? await tx.delete(categories).where(eq(categories.id, id)).returning({ id: categories.id })
          : await tx
              .update(categories)
              .set({ isActive: false, updatedAt: clock.now() })
              .where(eq(categories.id, id))
              .returning({ id: categories.id })
        if (!row) throw categoryNotFound()
      }).catch(onForeignKeyViolation({ items_category_id_categories_id_fk: () => categoryInUse() }))
    },

    /** Listed ids take their array position; the others follow in their previous order. */
    async reorder(categoryIds: string[]): Promise<void> {
      await write(async (tx) => {
        const current = await tx
          .select({ id: categories.id })
          .from(categories)
          .orderBy(...listingOrder)
          .for('update')
        const known = new Set(current.map((row) => row.id))
        const unknown = categoryIds.filter((id) => !known.has(id))
        if (unknown.length > 0) {
          throw invalidInput(
            unknown.map((id) => ({ field: 'categoryIds', message: `no category has the id "${id}"` })),
            { code: 'UNKNOWN_CATEGORY_IDS', summary: `Unknown category ids: ${unknown.join(', ')}` },
          )
        }
        const listed = new Set(categoryIds)
        const order = [...categoryIds, ...current.map((row) => row.id).filter((id) => !listed.has(id))]
        const positions = sql.join(
          order.map((id, position) => sql`when ${id} then ${position}::integer`),
          sql` `,
        )
        await tx
          .update(categories)
          .set({ sortOrder: sql`case ${categories.id} ${positions} end` })
          .where(inArray(categories.id, order))
      })
    },

    /**
     * Moves each category's published count by its delta, in the caller's transaction (an item's write,
     * which tells the instances itself); true when a count changed.
     */
    async adjustCounts(tx: DbOrTx, deltas: ReadonlyMap<string, number>): Promise<boolean> {
      let changed = false
      for (const [categoryId, delta] of deltas) {
        if (delta === 0) continue
        // An increment, not a recount: racing writes each add their own change under the row's lock.
        await tx
          .update(categories)
          .set({ itemCount: sql`greatest(${categories.itemCount} + ${delta}, 0)` })
          .where(eq(categories.id, categoryId))
        changed = true
      }
      return changed
    },
  }
}

export type CategoryService = ReturnType<typeof createCategoryService>
