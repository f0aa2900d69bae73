import { and, asc, eq, gt, inArray, isNull, or, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { arrayOf } from '../../db/queries.ts'
import { users } from '../accounts/tables.ts'
import { categories } from '../categories/tables.ts'
import { collectionItems } from '../collections/tables.ts'
import { companies } from '../companies/tables.ts'
import { featuredItems } from '../featured/tables.ts'
import { tags } from '../tags/tables.ts'
import type { Item, PublicItem } from './schemas.ts'
import { items, itemTags } from './tables.ts'

/** The columns an item is answered with, its category, company and submitter joined in. */
export const itemColumns = {
  row: items,
  categoryName: categories.name,
  companySlug: companies.slug,
  companyName: companies.name,
  submitterName: users.name,
  submitterEmail: users.email,
}

/** `select … from items` with what an answer needs joined: add `where`, order and limits. */
export const selectItems = (db: DbOrTx) =>
  db
    .select(itemColumns)
    .from(items)
    .leftJoin(categories, eq(categories.id, items.categoryId))
    .leftJoin(companies, eq(companies.id, items.companyId))
    .leftJoin(users, eq(users.id, items.submittedBy))

export type ItemRow = {
  row: typeof items.$inferSelect
  categoryName: string | null
  companySlug: string | null
  companyName: string | null
  submitterName: string | null
  submitterEmail: string | null
}

/**
 * The search words of a query as a `tsquery` each word of which matches as a prefix (`cof bean` →
 * `cof:* & bean:*`), built from letters and digits only so nothing the user types is tsquery syntax.
 * Undefined when there is no word to look for.
 */
export function searchQuery(search: string | undefined): string | undefined {
  const words = search?.toLowerCase().match(/[\p{L}\p{N}]+/gu)
  if (!words || words.length === 0) return undefined
  return [...new Set(words)]
    .slice(0, 8)
    .map((word) => `${word}:*`)
    .join(' & ')
}

/** Items whose name or description holds every word of `search`; none when it holds no word at all. */
export function matchesSearch(search: string): SQL {
  const query = searchQuery(search)
  return query ? sql`${items.search} @@ to_tsquery('simple', ${query})` : sql`false`
}

/** Items that carry the tag `tagId`. */
export const hasTag = (tagId: string): SQL =>
  sql`exists (select 1 from ${itemTags} where ${itemTags.itemId} = ${items.id} and ${itemTags.tagId} = ${tagId})`

/** An active featured entry, not past its `featuredUntil`, names the item's slug. */
export const isFeatured = (now: Date): SQL =>
  sql`exists (select 1 from ${featuredItems} where ${featuredItems.itemSlug} = ${items.slug} and ${and(
    eq(featuredItems.isActive, true),
    or(isNull(featuredItems.featuredUntil), gt(featuredItems.featuredUntil, now)),
  )})`

/** The tags of each item, by name. */
async function tagsOf(db: DbOrTx, ids: string[]): Promise<Map<string, { id: string; name: string }[]>> {
  const byItem = new Map<string, { id: string; name: string }[]>()
  if (ids.length === 0) return byItem
  const rows = await db
    .select({ itemId: itemTags.itemId, id: tags.id, name: tags.name })
    .from(itemTags)
    .innerJoin(tags, eq(tags.id, itemTags.tagId))
    .where(sql`${itemTags.itemId} = any(${arrayOf(ids, 'uuid')})`)
    .orderBy(asc(tags.name), asc(tags.id))
  for (const { itemId, id, name } of rows) {
    const list = byItem.get(itemId)
    if (list) list.push({ id, name })
    else byItem.set(itemId, [{ id, name }])
  }
  return byItem
}

const publicOf = (
  { row, categoryName, companySlug, companyName }: ItemRow,
  itemTagList: { id: string; name: string }[],
): PublicItem => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  url: row.url,
  iconUrl: row.iconUrl,
  imageUrl: row.imageUrl,
  category: row.categoryId ? { id: row.categoryId, name: categoryName ?? row.categoryId } : null,
  tags: itemTagList,
  company:
    row.companyId && companySlug && companyName
      ? { id: row.companyId, slug: companySlug, name: companyName }
      : null,
  location: {
    address: row.address,
    city: row.city,
    country: row.country,
    latitude: row.latitude,
    longitude: row.longitude,
    isRemote: row.isRemote,
    serviceArea: row.serviceArea,
  },
  publishedAt: row.publishedAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

/** Rows as the public site shows them, their tags read in one query. */
export async function publicItemsOf(db: DbOrTx, rows: ItemRow[]): Promise<PublicItem[]> {
  const tagsByItem = await tagsOf(
    db,
    rows.map(({ row }) => row.id),
  )
  return rows.map((row) => publicOf(row, tagsByItem.get(row.row.id) ?? []))
}

/** Rows as admins see them: tags, collections and featured state read in one query each. */
export async function adminItemsOf(db: DbOrTx, rows: ItemRow[], now: Date): Promise<Item[]> {
  if (rows.length === 0) return []
  const ids = rows.map(({ row }) => row.id)
  const slugs = rows.map(({ row }) => row.slug)
  const [tagsByItem, memberships, featured] = await Promise.all([
    tagsOf(db, ids),
    db
      .select({ itemId: collectionItems.itemId, collectionId: collectionItems.collectionId })
      .from(collectionItems)
      .where(sql`${collectionItems.itemId} = any(${arrayOf(ids, 'uuid')})`)
      .orderBy(asc(collectionItems.addedAt), asc(collectionItems.collectionId)),
    db
      .selectDistinct({ slug: featuredItems.itemSlug })
      .from(featuredItems)
      .where(
        and(
          inArray(featuredItems.itemSlug, slugs),
          eq(featuredItems.isActive, true),
          or(isNull(featuredItems.featuredUntil), gt(featuredItems.featuredUntil, now)),
        ),
      ),
  ])
  const collectionsByItem = new Map<string, string[]>()
  for (const { itemId, collectionId } of memberships) {
    collectionsByItem.set(itemId, [...(collectionsByItem.get(itemId) ?? []), collectionId])
  }
  const featuredSlugs = new Set(featured.map(({ slug }) => slug))
  return rows.map((itemRow) => {
    const { row, submitterName, submitterEmail } = itemRow
    return {
      ...publicOf(itemRow, tagsByItem.get(row.id) ?? []),
      status: row.status,
      featured: featuredSlugs.has(row.slug),
      collectionIds: collectionsByItem.get(row.id) ?? [],
      submittedBy:
        row.submittedBy && submitterEmail
          ? { id: row.submittedBy, name: submitterName, email: submitterEmail }
          : null,
      reviewNote: row.reviewNote,
      reviewedBy: row.reviewedBy,
      reviewedAt: row.reviewedAt,
    }
  })
}
