/**
 * Items written by an import, a batch at a time in the import's transaction: what item create and update do
 * one by one (the row, its tags, its history entry, the categories' published counts), for many at once. The
 * import works out what each row becomes (imports/plan.ts); this writes it.
 */
import { randomUUID } from 'node:crypto'
import { eq, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import type { CategoryService } from '../categories/service.ts'
import { categoryCountChanges } from './relations.ts'
import { type FieldChange, type ItemStatus, itemHistory, items, itemTags } from './tables.ts'

/** Rows one insert statement writes. */
const INSERT_CHUNK = 1000

/** An item's fields as an import sets them, its tags by id. */
export interface ImportedFields {
  slug: string
  name: string
  description: string | null
  url: string | null
  iconUrl: string | null
  imageUrl: string | null
  categoryId: string | null
  companyId: string | null
  status: ItemStatus
  address: string | null
  city: string | null
  country: string | null
  latitude: number | null
  longitude: number | null
  isRemote: boolean
  serviceArea: string | null
  publishedAt: Date | null
  tagIds: string[]
}

export interface ImportedItems {
  /** New items; each gets its `id` here. */
  creates: { item: ImportedFields & { id: string | null }; changes: FieldChange[] }[]
  updates: { id: string; before: ImportedFields; item: ImportedFields; changes: FieldChange[] }[]
}

const columnsOf = ({ tagIds: _, ...fields }: ImportedFields & { id?: string | null }) => {
  const { id: _id, ...columns } = fields as typeof fields & { id?: unknown }
  return columns
}

function* chunks<T>(values: readonly T[], size: number) {
  for (let start = 0; start < values.length; start += size) yield values.slice(start, start + size)
}

/**
 * Writes the batch in `tx`: items inserted a chunk at a time with their tags, updates one by one (tags
 * replaced where they changed), a history entry each with `note`, and the categories' published counts.
 * True when a category's count moved.
 */
export async function writeImportedItems(
  tx: DbOrTx,
  batch: ImportedItems,
  context: {
    actorId: string | null
    at: Date
    note: string
    categories: Pick<CategoryService, 'adjustCounts'>
  },
): Promise<boolean> {
  const { at } = context
  const history: { item_id: string; action: 'created' | 'updated'; changes: FieldChange[] }[] = []
  const deltas = new Map<string, number>()
  const count = (before: ImportedFields | null, after: ImportedFields) => {
    for (const [category, delta] of categoryCountChanges(before, after)) {
      deltas.set(category, (deltas.get(category) ?? 0) + delta)
    }
  }
  const entry = (itemId: string, action: 'created' | 'updated', changes: FieldChange[]) =>
    history.push({ item_id: itemId, action, changes })

  for (const chunk of chunks(batch.creates, INSERT_CHUNK)) {
    for (const create of chunk) create.item.id = randomUUID()
    // The chunk as one JSON parameter, taken apart by Postgres: one serialization, not a parameter per
    // cell for the driver to handle.
    const rows = chunk.map(({ item }) => ({
      id: item.id,
      slug: item.slug,
      name: item.name,
      description: item.description,
      url: item.url,
      icon_url: item.iconUrl,
      image_url: item.imageUrl,
      category_id: item.categoryId,
      company_id: item.companyId,
      status: item.status,
      address: item.address,
      city: item.city,
      country: item.country,
      latitude: item.latitude,
      longitude: item.longitude,
      is_remote: item.isRemote,
      service_area: item.serviceArea,
      published_at: item.publishedAt?.toISOString() ?? null,
    }))
    const stamp = at.toISOString()
    await tx.execute(sql`
      insert into ${items} (id, slug, name, description, url, icon_url, image_url, category_id, company_id, status,
        address, city, country, latitude, longitude, is_remote, service_area, published_at, submitted_by,
        created_at, updated_at)
      select id, slug, name, description, url, icon_url, image_url, category_id, company_id, status, address,
        city, country, latitude, longitude, is_remote, service_area, published_at, null,
        ${stamp}::timestamptz, ${stamp}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as row(id uuid, slug text, name text,
        description text, url text, icon_url text, image_url text, category_id text, company_id uuid,
        status text, address text, city text, country text, latitude float8, longitude float8,
        is_remote boolean, service_area text, published_at timestamptz)`)
    const tagRows = chunk.flatMap(({ item }) => item.tagIds.map((tagId) => [item.id, tagId]))
    if (tagRows.length > 0) {
      await tx.execute(sql`
        insert into ${itemTags} (item_id, tag_id)
        select (pair->>0)::uuid, pair->>1 from jsonb_array_elements(${JSON.stringify(tagRows)}::jsonb) as pair`)
    }
    for (const { item, changes } of chunk) {
      entry(item.id as string, 'created', changes)
      count(null, item)
    }
  }

  for (const { id, before, item, changes } of batch.updates) {
    await tx
      .update(items)
      .set({ ...columnsOf(item), updatedAt: at })
      .where(eq(items.id, id))
    if (changes.some((change) => change.field === 'tagIds')) {
      await tx.delete(itemTags).where(eq(itemTags.itemId, id))
      if (item.tagIds.length > 0) {
        await tx.insert(itemTags).values(item.tagIds.map((tagId) => ({ itemId: id, tagId })))
      }
    }
    if (changes.length > 0) entry(id, 'updated', changes)
    count(before, item)
  }
  for (const chunk of chunks(history, INSERT_CHUNK)) {
    await tx.execute(sql`
      insert into ${itemHistory} (item_id, actor_id, action, changes, note, created_at)
      select entry.item_id, ${context.actorId}::uuid, entry.action, entry.changes, ${context.note},
        ${at.toISOString()}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as entry(item_id uuid, action text, changes jsonb)`)
  }
  return context.categories.adjustCounts(tx, deltas)
}
