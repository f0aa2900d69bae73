import { and, eq, getTableColumns, gt, isNull, or, type Placeholder, type SQL, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { notFound } from '../../lib/errors.ts'
import { users } from '../accounts/tables.ts'
import { categories } from '../categories/tables.ts'
import { companies } from '../companies/tables.ts'
import { featuredItems } from '../featured/tables.ts'
import { tags } from '../tags/tables.ts'
import type { ItemCollections, ItemLink, ItemLinks, LinkStatus } from './relations.ts'
import type { Item, PublicItem } from './schemas.ts'
import { items, itemTags } from './tables.ts'

/** The 404 of an unknown item, or one the caller may not see. */
export const itemNotFound = () => notFound('Item not found', 'ITEM_NOT_FOUND')

/** Every column of an item but its search vector, which no answer shows. */
const { search: _search, ...rowColumns } = getTableColumns(items)
type Row = Omit<typeof items.$inferSelect, 'search'>

/** The item's tags by name, as one JSON array: a page is one statement, not one per item. */
const tagsOfItem = sql<
  { id: string; name: string }[]
>`coalesce((select json_agg(json_build_object('id', ${tags.id}, 'name', ${tags.name}) order by ${tags.name}, ${tags.id}) from ${itemTags} join ${tags} on ${tags.id} = ${itemTags.tagId} where ${itemTags.itemId} = ${items.id}), '[]'::json)`

/** An active featured entry, not past its `featuredUntil`, names the item's slug. */
export const isFeatured = (now: Date | Placeholder): SQL =>
  sql`exists (select 1 from ${featuredItems} where ${featuredItems.itemSlug} = ${items.slug} and ${and(
    eq(featuredItems.isActive, true),
    or(isNull(featuredItems.featuredUntil), gt(featuredItems.featuredUntil, now)),
  )})`

/** The columns a public item is answered with: its own, its category's and company's names, its tags. */
const publicColumns = {
  row: rowColumns,
  categoryName: categories.name,
  companySlug: companies.slug,
  companyName: companies.name,
  tags: tagsOfItem,
}

/** What admins see besides: the submitter, the item's collections, whether it is featured, its link check. */
const adminColumns = (now: Date | Placeholder, relations: AdminRelations) => ({
  ...publicColumns,
  submitterName: users.name,
  submitterEmail: users.email,
  collectionIds: relations.collections.idsOf(items.id),
  featured: sql<boolean>`${isFeatured(now)}`,
  link: relations.links.linkOf(items.id, items.url),
})

/** What the admin view asks of collections and link checks: each a subquery of its one statement. */
export interface AdminRelations {
  collections: Pick<ItemCollections, 'idsOf'>
  links: Pick<ItemLinks, 'linkOf'>
}

/** `select … from items` as the public site shows them: add `where`, order and limits, then `publicItemOf`. */
export const selectPublicItems = (db: DbOrTx) =>
  db
    .select(publicColumns)
    .from(items)
    .leftJoin(categories, eq(categories.id, items.categoryId))
    .leftJoin(companies, eq(companies.id, items.companyId))

/** `select … from items` as admins see them: add `where`, order and limits, then `adminItemOf`. */
export const selectAdminItems = (db: DbOrTx, now: Date | Placeholder, relations: AdminRelations) =>
  db
    .select(adminColumns(now, relations))
    .from(items)
    .leftJoin(categories, eq(categories.id, items.categoryId))
    .leftJoin(companies, eq(companies.id, items.companyId))
    .leftJoin(users, eq(users.id, items.submittedBy))

interface PublicRow {
  row: Row
  categoryName: string | null
  companySlug: string | null
  companyName: string | null
  tags: { id: string; name: string }[]
}

interface AdminRow extends PublicRow {
  submitterName: string | null
  submitterEmail: string | null
  collectionIds: string[]
  featured: boolean
  link: Record<string, unknown> | null
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

/** A row of `selectPublicItems` as the public site shows it. */
export const publicItemOf = ({
  row,
  categoryName,
  companySlug,
  companyName,
  tags,
}: PublicRow): PublicItem => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  url: row.url,
  iconUrl: row.iconUrl,
  imageUrl: row.imageUrl,
  category: row.categoryId ? { id: row.categoryId, name: categoryName ?? row.categoryId } : null,
  tags,
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

/** The link of an item never checked at its current URL. */
const UNCHECKED: ItemLink = {
  status: 'unchecked',
  httpStatus: null,
  finalUrl: null,
  reason: null,
  checkedAt: null,
  failures: 0,
}

/** The link check's JSON object (dates as text) as an item's `link`. */
const linkOf = (json: Record<string, unknown> | null): ItemLink =>
  json === null
    ? UNCHECKED
    : {
        status: json.status as LinkStatus,
        httpStatus: (json.httpStatus as number | null) ?? null,
        finalUrl: (json.finalUrl as string | null) ?? null,
        reason: (json.reason as string | null) ?? null,
        checkedAt: typeof json.checkedAt === 'string' ? new Date(json.checkedAt) : null,
        failures: Number(json.failures ?? 0),
      }

/** A row of `selectAdminItems` as admins see it. */
export const adminItemOf = (adminRow: AdminRow): Item => {
  const { row, submitterName, submitterEmail, collectionIds, featured, link } = adminRow
  return {
    ...publicItemOf(adminRow),
    status: row.status,
    featured,
    collectionIds,
    submittedBy:
      row.submittedBy && submitterEmail
        ? { id: row.submittedBy, name: submitterName, email: submitterEmail }
        : null,
    reviewNote: row.reviewNote,
    reviewedBy: row.reviewedBy,
    reviewedAt: row.reviewedAt,
    link: linkOf(link),
  }
}

/**
 * The admin view of the items of `ids`, in that order. One prepared statement serves every page: Postgres
 * parses it once per connection and keeps its plan, where planning the joins and subqueries of a page
 * anew cost more than running them. The list finds a page's ids with a plain statement, then reads them
 * here.
 */
export function createAdminItemsByIds(db: Db, relations: AdminRelations) {
  const statement = selectAdminItems(db, sql.placeholder('now'), relations)
    .where(sql`${items.id} = any(${sql.placeholder('ids')}::uuid[])`)
    .prepare('directory_admin_items_by_ids')
  return async (ids: string[], now: Date): Promise<Item[]> => {
    if (ids.length === 0) return []
    const rows = await statement.execute({ ids, now })
    const byId = new Map(rows.map((row) => [row.row.id, adminItemOf(row)]))
    return ids.flatMap((id) => byId.get(id) ?? [])
  }
}
