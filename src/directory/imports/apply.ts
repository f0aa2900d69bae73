/**
 * The database side of an import: what the planner needs to know about a batch's rows, and a batch's plan
 * written in the caller's transaction with the items' history and the categories' counts.
 */
import { randomUUID } from 'node:crypto'
import { eq, or, type SQL, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { rowsOf } from '../../db/queries.ts'
import { slugify } from '../../lib/slug.ts'
import type { CategoryService } from '../categories/service.ts'
import { categories } from '../categories/tables.ts'
import { companies } from '../companies/tables.ts'
import { categoryCountChanges } from '../items/relations.ts'
import { ITEM_LIMITS } from '../items/schemas.ts'
import { type ItemStatus, itemHistory, items, itemTags } from '../items/tables.ts'
import { tags } from '../tags/tables.ts'
import type { TransferItem } from '../transfer/records.ts'
import { type ItemState, type Known, type Named, NamedSet, type Planned } from './plan.ts'

/** Rows one insert statement writes (bounded by Postgres' 65,535 parameters). */
const INSERT_CHUNK = 500

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

const columnsOf = (item: ItemState) => ({
  slug: item.slug,
  name: item.name,
  description: item.description,
  url: item.url,
  iconUrl: item.iconUrl,
  imageUrl: item.imageUrl,
  categoryId: item.categoryId,
  companyId: item.companyId,
  status: item.status,
  address: item.address,
  city: item.city,
  country: item.country,
  latitude: item.latitude,
  longitude: item.longitude,
  isRemote: item.isRemote,
  serviceArea: item.serviceArea,
  publishedAt: item.publishedAt,
})

function* chunks<T>(values: readonly T[], size: number) {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size)
}

export interface ApplyContext {
  actorId: string | null
  at: Date
  note: string
  categories: Pick<CategoryService, 'adjustCounts'>
}

/**
 * Writes a batch's plan in `tx`: the categories, tags and companies it made, the items created and updated
 * with their tags and history, and the categories' published counts. Returns which content it touched.
 */
export async function applyBatch(
  tx: DbOrTx,
  known: Known,
  plans: readonly Planned[],
  context: ApplyContext,
): Promise<Set<string>> {
  const touched = new Set<string>()
  const { at } = context
  if (known.categories.created.length > 0) {
    const [{ next } = { next: 0 }] = await rowsOf<{ next: number }>(
      tx,
      sql`select coalesce(max(sort_order), -1) + 1 as next from ${categories}`,
    )
    await tx
      .insert(categories)
      .values(
        known.categories.created.map((category, index) => ({
          id: category.id,
          name: category.name,
          sortOrder: Number(next) + index,
          createdAt: at,
          updatedAt: at,
        })),
      )
      .onConflictDoNothing()
    touched.add('categories')
  }
  if (known.tags.created.length > 0) {
    await tx
      .insert(tags)
      .values(known.tags.created.map((tag) => ({ id: tag.id, name: tag.name, createdAt: at, updatedAt: at })))
      .onConflictDoNothing()
    touched.add('tags')
  }
  if (known.companies.created.length > 0) {
    await tx
      .insert(companies)
      .values(
        known.companies.created.map((company) => ({
          id: company.id,
          slug: company.slug,
          name: company.name,
          createdAt: at,
          updatedAt: at,
        })),
      )
      .onConflictDoNothing()
    touched.add('companies')
  }

  const creates = plans.flatMap((plan) => (plan.kind === 'create' ? [plan] : []))
  const updates = plans.flatMap((plan) => (plan.kind === 'update' ? [plan] : []))
  const history: (typeof itemHistory.$inferInsert)[] = []
  const deltas = new Map<string, number>()
  const count = (before: ItemState | null, after: ItemState) => {
    for (const [category, delta] of categoryCountChanges(before, after)) {
      deltas.set(category, (deltas.get(category) ?? 0) + delta)
    }
  }

  for (const chunk of chunks(creates, INSERT_CHUNK)) {
    const ids = chunk.map(() => randomUUID())
    await tx.insert(items).values(
      chunk.map((plan, index) => ({
        id: ids[index],
        ...columnsOf(plan.item),
        submittedBy: null,
        createdAt: at,
        updatedAt: at,
      })),
    )
    const tagRows = chunk.flatMap((plan, index) =>
      plan.item.tagIds.map((tagId) => ({ itemId: ids[index]!, tagId })),
    )
    if (tagRows.length > 0) await tx.insert(itemTags).values(tagRows)
    chunk.forEach((plan, index) => {
      plan.item.id = ids[index]!
      history.push({
        itemId: ids[index]!,
        actorId: context.actorId,
        action: 'created',
        changes: plan.changes,
        note: context.note,
        createdAt: at,
      })
      count(null, plan.item)
    })
  }

  for (const plan of updates) {
    const id = plan.before.id
    if (!id) throw new Error('an update plan has no item id')
    await tx
      .update(items)
      .set({ ...columnsOf(plan.item), updatedAt: at })
      .where(eq(items.id, id))
    if (plan.changes.some((change) => change.field === 'tagIds')) {
      await tx.delete(itemTags).where(eq(itemTags.itemId, id))
      if (plan.item.tagIds.length > 0) {
        await tx.insert(itemTags).values(plan.item.tagIds.map((tagId) => ({ itemId: id, tagId })))
      }
    }
    if (plan.changes.length > 0) {
      history.push({
        itemId: id,
        actorId: context.actorId,
        action: 'updated',
        changes: plan.changes,
        note: context.note,
        createdAt: at,
      })
    }
    count(plan.before, plan.item)
  }
  for (const chunk of chunks(history, INSERT_CHUNK)) await tx.insert(itemHistory).values(chunk)
  if (creates.length > 0 || updates.length > 0) touched.add('items')
  if (await context.categories.adjustCounts(tx, deltas)) touched.add('categories')
  return touched
}
