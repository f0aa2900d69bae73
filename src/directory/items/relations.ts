/** What an item names besides its own fields: its category (and its count), tags, company and collections. */
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { type FieldIssue, invalidInput } from '../../lib/errors.ts'
import { categories } from '../categories/tables.ts'
import { collectionItems, collections } from '../collections/tables.ts'
import { companies } from '../companies/tables.ts'
import { tags } from '../tags/tables.ts'
import { type ItemStatus, itemTags } from './tables.ts'

/**
 * Checks that every category, tag, company and collection the input names exists (a submission may
 * only use active categories), naming each failing field in one 400.
 */
export async function checkReferences(
  tx: DbOrTx,
  input: {
    categoryId?: string | null
    tagIds?: string[]
    companyId?: string | null
    collectionIds?: string[]
  },
  options: { activeCategoryOnly?: boolean } = {},
) {
  const issues: FieldIssue[] = []
  if (input.categoryId) {
    const [category] = await tx
      .select({ isActive: categories.isActive })
      .from(categories)
      .where(eq(categories.id, input.categoryId))
      // The write may then move the category's count: a share lock here would deadlock two such writes,
      // each waiting for the other's share to update the row.
      .for('no key update')
    if (!category || (options.activeCategoryOnly && !category.isActive)) {
      issues.push({ field: 'categoryId', message: `no category has the id "${input.categoryId}"` })
    }
  }
  if (input.tagIds && input.tagIds.length > 0) {
    const found = await tx
      .select({ id: tags.id })
      .from(tags)
      .where(inArray(tags.id, input.tagIds))
      .for('share')
    const known = new Set(found.map((tag) => tag.id))
    const unknown = input.tagIds.filter((id) => !known.has(id))
    if (unknown.length > 0) {
      issues.push({
        field: 'tagIds',
        message: `no tag has the id ${unknown.map((id) => `"${id}"`).join(', ')}`,
      })
    }
  }
  if (input.companyId) {
    const [company] = await tx
      .select({ id: companies.id })
      .from(companies)
      .where(eq(companies.id, input.companyId))
      .for('share')
    if (!company) issues.push({ field: 'companyId', message: `no company has the id "${input.companyId}"` })
  }
  if (input.collectionIds && input.collectionIds.length > 0) {
    const found = await tx
      .select({ id: collections.id })
      .from(collections)
      .where(inArray(collections.id, input.collectionIds))
      .for('share')
    const known = new Set(found.map((collection) => collection.id))
    const unknown = input.collectionIds.filter((id) => !known.has(id))
    if (unknown.length > 0) {
      issues.push({
        field: 'collectionIds',
        message: `no collection has the id ${unknown.map((id) => `"${id}"`).join(', ')}`,
      })
    }
  }
  if (issues.length > 0) throw invalidInput(issues)
}

export async function tagIdsOf(tx: DbOrTx, itemId: string): Promise<string[]> {
  const rows = await tx.select({ id: itemTags.tagId }).from(itemTags).where(eq(itemTags.itemId, itemId))
  return rows.map((row) => row.id)
}

export async function setTags(tx: DbOrTx, itemId: string, tagIds: string[]) {
  await tx.delete(itemTags).where(eq(itemTags.itemId, itemId))
  if (tagIds.length > 0) await tx.insert(itemTags).values(tagIds.map((tagId) => ({ itemId, tagId })))
}

/** The item's collections become `collectionIds`: it leaves the others and joins the end of new ones. */
export async function setCollections(tx: DbOrTx, itemId: string, collectionIds: string[], at: Date) {
  const current = await tx
    .select({ id: collectionItems.collectionId })
    .from(collectionItems)
    .where(eq(collectionItems.itemId, itemId))
  const currentIds = new Set(current.map((row) => row.id))
  const wanted = new Set(collectionIds)
  const leaving = [...currentIds].filter((id) => !wanted.has(id))
  if (leaving.length > 0) {
    await tx
      .delete(collectionItems)
      .where(and(eq(collectionItems.itemId, itemId), inArray(collectionItems.collectionId, leaving)))
  }
  for (const collectionId of collectionIds) {
    if (currentIds.has(collectionId)) continue
    // The collection's row is locked as its own item-list writes lock it, so appends and a replacement
    // of the list are served one after the other.
    await tx
      .select({ id: collections.id })
      .from(collections)
      .where(eq(collections.id, collectionId))
      .for('update')
    await tx
      .insert(collectionItems)
      .values({
        collectionId,
        itemId,
        position: sql`(select coalesce(max(${collectionItems.position}), -1) + 1 from ${collectionItems} where ${collectionItems.collectionId} = ${collectionId})`,
        addedAt: at,
      })
      .onConflictDoNothing()
  }
}

/** Keeps the published count of each category in step: +1 where an item became published there, -1 where it left. */
export async function adjustCategoryCounts(
  tx: DbOrTx,
  before: { categoryId: string | null; status: ItemStatus } | null,
  after: { categoryId: string | null; status: ItemStatus } | null,
): Promise<boolean> {
  const deltas = new Map<string, number>()
  const add = (state: typeof before, delta: number) => {
    if (state?.categoryId && state.status === 'published') {
      deltas.set(state.categoryId, (deltas.get(state.categoryId) ?? 0) + delta)
    }
  }
  add(before, -1)
  add(after, 1)
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
}
