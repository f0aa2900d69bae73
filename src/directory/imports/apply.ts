/**
 * The database side of an import: what the planner needs to know about a batch's rows, and a batch's plan
 * written in the caller's transaction with the items' history and the categories' counts.
 */
import { randomUUID } from 'node:crypto'
import { or, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { rowsOf } from '../../db/queries.ts'
import { slugify } from '../../lib/slug.ts'
import { type CategoryService, insertImportedCategories } from '../categories/service.ts'
import { categories } from '../categories/tables.ts'
import { insertImportedCompanies } from '../companies/service.ts'
import { companies } from '../companies/tables.ts'
import { writeImportedItems } from '../items/imported.ts'
import { ITEM_LIMITS } from '../items/schemas.ts'
import { type ItemStatus, items, itemTags } from '../items/tables.ts'
import { insertImportedTags } from '../tags/service.ts'
import { tags } from '../tags/tables.ts'
import type { TransferItem } from '../transfer/records.ts'
import { type ItemState, type Known, type Named, NamedSet, type Planned } from './plan.ts'

interface ItemRow {
  id: string
  slug: string
  name: string
  description: string | null
  url: string | null
  icon_url: string | null
  image_url: string | null
  category_id: string | null
  company_id: string | null
  status: ItemStatus
  address: string | null
  city: string | null
  country: string | null
  latitude: number | null
  longitude: number | null
  is_remote: boolean
  service_area: string | null
  published_at: string | Date | null
  tag_ids: string[] | null
}

/** `$1, $2, …`: one parameter per value. */
const list = (values: readonly string[]): SQL =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )

const stateOf = (row: ItemRow): ItemState => ({
  id: row.id,
  slug: row.slug,
  name: row.name,
  description: row.description,
  url: row.url,
  iconUrl: row.icon_url,
  imageUrl: row.image_url,
  categoryId: row.category_id,
  companyId: row.company_id,
  status: row.status,
  address: row.address,
  city: row.city,
  country: row.country,
  latitude: row.latitude === null ? null : Number(row.latitude),
  longitude: row.longitude === null ? null : Number(row.longitude),
  isRemote: row.is_remote,
  serviceArea: row.service_area,
  publishedAt: row.published_at === null ? null : new Date(row.published_at),
  tagIds: [...(row.tag_ids ?? [])].sort(),
})

/** A fresh `Known` with every category, tag and company; items come per batch (`addItemsOf`). */
export async function loadKnown(db: DbOrTx): Promise<Known & { loadedIds: Set<string> }> {
  const [categoryRows, tagRows, companyRows] = await Promise.all([
    db.select({ id: categories.id, name: categories.name }).from(categories),
    db.select({ id: tags.id, name: tags.name }).from(tags),
    db.select({ id: companies.id, name: companies.name, slug: companies.slug }).from(companies),
  ])
  const bySlug = (rows: { id: string; name: string }[]): Named[] =>
    rows.map((row) => ({ ...row, slug: row.id }))
  return {
    items: new Map(),
    byUrl: new Map(),
    categories: new NamedSet(bySlug(categoryRows), 100),
    tags: new NamedSet(bySlug(tagRows), 100),
    companies: new NamedSet(companyRows, ITEM_LIMITS.slugMax, () => randomUUID()),
    loadedIds: new Set(),
  }
}

/**
 * Adds to `known` the items the rows may match (by slug, or by URL), except those it already has: a dry run
 * keeps what its earlier rows made of them.
 */
export async function addItemsOf(
  db: DbOrTx,
  known: Known & { loadedIds: Set<string> },
  rows: readonly TransferItem[],
) {
  const slugs = [
    ...new Set(
      rows.map(
        (row) =>
          row.slug ?? slugify(typeof row.name === 'string' ? row.name.trim() : '', ITEM_LIMITS.slugMax),
      ),
    ),
  ].filter(Boolean)
  const urls = [...new Set(rows.flatMap((row) => (typeof row.url === 'string' ? [row.url] : [])))]
  if (slugs.length === 0 && urls.length === 0) return
  const found = await rowsOf<ItemRow>(
    db,
    sql`select i.id, i.slug, i.name, i.description, i.url, i.icon_url, i.image_url, i.category_id, i.company_id,
          i.status, i.address, i.city, i.country, i.latitude, i.longitude, i.is_remote, i.service_area,
          i.published_at,
          (select array_agg(t.tag_id) from ${itemTags} t where t.item_id = i.id) as tag_ids
        from ${items} i
        where ${or(
          slugs.length > 0 ? sql`i.slug in (${list(slugs)})` : undefined,
          urls.length > 0 ? sql`i.url in (${list(urls)})` : undefined,
        )}`,
  )
  for (const row of found) {
    if (known.loadedIds.has(row.id)) continue
    known.loadedIds.add(row.id)
    const state = stateOf(row)
    known.items.set(state.slug, state)
    if (state.url && !known.byUrl.has(state.url)) known.byUrl.set(state.url, state.slug)
  }
}

export interface ApplyContext {
  actorId: string | null
  at: Date
  note: string
  categories: Pick<CategoryService, 'adjustCounts'>
}

/**
 * Writes a batch's plan in `tx` through the modules that own what it touches: the categories, tags and
 * companies it made, then the items created and updated (with their tags, history and the categories'
 * published counts).
 */
export async function applyBatch(tx: DbOrTx, known: Known, plans: readonly Planned[], context: ApplyContext) {
  const { at } = context
  await insertImportedCategories(tx, known.categories.created, at)
  await insertImportedTags(tx, known.tags.created, at)
  await insertImportedCompanies(tx, known.companies.created, at)
  const creates = plans.flatMap((plan) => (plan.kind === 'create' ? [plan] : []))
  const updates = plans.flatMap((plan) =>
    plan.kind === 'update' ? [{ ...plan, id: plan.before.id ?? missingId() }] : [],
  )
  await writeImportedItems(tx, { creates, updates }, context)
}

const missingId = (): never => {
  throw new Error('an update plan has no item id')
}
