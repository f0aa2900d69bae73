/**
 * What an item names besides its own fields: its category (and the change of its count), tags, company and
 * collections. The categories and collections write their own rows; items hand them the change.
 */
import { eq, inArray } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { type FieldIssue, invalidInput } from '../../lib/errors.ts'
import { categories } from '../categories/tables.ts'
import { collections } from '../collections/tables.ts'
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

/**
 * How each category's published count moves when an item goes from `before` to `after`: +1 where it became
 * published there, -1 where it left (the categories' `adjustCounts` applies it).
 */
export function categoryCountChanges(
  before: { categoryId: string | null; status: ItemStatus } | null,
  after: { categoryId: string | null; status: ItemStatus } | null,
): Map<string, number> {
  const deltas = new Map<string, number>()
  const add = (state: typeof before, delta: number) => {
    if (state?.categoryId && state.status === 'published') {
      deltas.set(state.categoryId, (deltas.get(state.categoryId) ?? 0) + delta)
    }
  }
  add(before, -1)
  add(after, 1)
  return deltas
}
