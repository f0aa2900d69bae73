/**
 * Items written by an import, a batch at a time in the import's transaction: what item create and update do
 * one by one (the row, its tags, its history entry, the categories' published counts), for many at once. The
 * import works out what each row becomes (imports/plan.ts); this writes it.
 */
import { randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import type { CategoryService } from '../categories/service.ts'
import { categoryCountChanges } from './relations.ts'
import { type FieldChange, type ItemStatus, itemHistory, items, itemTags } from './tables.ts'

/** Rows one insert statement writes (bounded by Postgres' 65,535 parameters). */
const INSERT_CHUNK = 500

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
  const history: (typeof itemHistory.$inferInsert)[] = []
  const deltas = new Map<string, number>()
  const count = (before: ImportedFields | null, after: ImportedFields) => {
    for (const [category, delta] of categoryCountChanges(before, after)) {
      deltas.set(category, (deltas.get(category) ?? 0) + delta)
    }
  }
  const entry = (itemId: string, action: 'created' | 'updated', changes: FieldChange[]) =>
    history.push({ itemId, actorId: context.actorId, action, changes, note: context.note, createdAt: at })

  for (const chunk of chunks(batch.creates, INSERT_CHUNK)) {
    for (const create of chunk) create.item.id = randomUUID()
    await tx.insert(items).values(
      chunk.map(({ item }) => ({
        id: item.id as string,
        ...columnsOf(item),
        submittedBy: null,
        createdAt: at,
        updatedAt: at,
      })),
    )
    const tagRows = chunk.flatMap(({ item }) =>
      item.tagIds.map((tagId) => ({ itemId: item.id as string, tagId })),
    )
    if (tagRows.length > 0) await tx.insert(itemTags).values(tagRows)
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
  for (const chunk of chunks(history, INSERT_CHUNK)) await tx.insert(itemHistory).values(chunk)
  return context.categories.adjustCounts(tx, deltas)
}
