/**
 * Reads of items handed to the modules that items point at (tags, companies, categories, featured entries):
 * items read their tables, so they cannot import items back; `app.ts` hands them these.
 */
import { count, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { countRows } from '../../db/queries.ts'
import type { ItemUsage } from '../usage.ts'
import { items, itemTags } from './tables.ts'

/** How many items carry each tag: one grouped read of `item_tags`. */
export const tagUsage: ItemUsage = {
  counts: (executor) =>
    executor
      .select({ key: sql<string>`${itemTags.tagId}`.as('key'), itemCount: count().as('item_count') })
      .from(itemTags)
      .groupBy(itemTags.tagId)
      .as('usage'),
  of: (executor, tagId) => countRows(executor, itemTags, eq(itemTags.tagId, tagId)),
}

/** How many items name each company: one grouped read of `items`. */
export const companyUsage: ItemUsage = {
  counts: (executor) =>
    executor
      .select({ key: sql<string>`${items.companyId}`.as('key'), itemCount: count().as('item_count') })
      .from(items)
      .where(sql`${items.companyId} is not null`)
      .groupBy(items.companyId)
      .as('usage'),
  of: (executor, companyId) => countRows(executor, items, eq(items.companyId, companyId)),
}

/** How many items, of any status, are in a category. */
export const categoryUsage: Pick<ItemUsage, 'of'> = {
  of: (executor, categoryId) => countRows(executor, items, eq(items.categoryId, categoryId)),
}

/** The display fields of the item with this slug, for a featured entry sent without them. */
export async function itemDisplay(db: Db, slug: string) {
  const [item] = await db
    .select({
      name: items.name,
      description: items.description,
      iconUrl: items.iconUrl,
      imageUrl: items.imageUrl,
    })
    .from(items)
    .where(eq(items.slug, slug))
  return item
}
