/**
 * What an item names besides its own fields: its category (and the change of its count), tags, company and
 * collections. The categories and collections write their own rows; items hand them the change.
 */
import { type AnyColumn, eq, inArray, type SQL } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { type FieldIssue, invalidInput } from '../../lib/errors.ts'
import { categories } from '../categories/tables.ts'
import { companies } from '../companies/tables.ts'
import { tags } from '../tags/tables.ts'
import { type ItemStatus, itemTags } from './tables.ts'

/**
 * The collections an item is in, as items need them. A collection's membership table references items, so
 * collections import items and not back: the collections module answers this (collections/memberships.ts)
 * and `app.ts` hands it in.
 */
export interface ItemCollections {
  /** The ids of `ids` that name no collection; the collections named are share-locked until the end of `tx`. */
  unknownIds(tx: DbOrTx, ids: readonly string[]): Promise<string[]>
  /**
   * The item's collections become `collectionIds`, in the caller's transaction (an item's write): it leaves
   * the others and joins the end of new ones.
   */
  set(tx: DbOrTx, itemId: string, collectionIds: readonly string[], at: Date): Promise<void>
  /**
   * The collection ids of the item whose id is `itemId` (a column of the enclosing query), earliest joined
   * first, as one JSON array: a subquery, so a page of items stays one statement.
   */
  idsOf(itemId: AnyColumn): SQL<string[]>
}

/** What a link check made of an item's URL; `unchecked` also when its URL changed since it was checked. */
export const LINK_STATUSES = ['ok', 'redirected', 'broken', 'unchecked'] as const
export type LinkStatus = (typeof LINK_STATUSES)[number]

/** An item's link as admins see it: the check of its current URL, or `unchecked`. */
export interface ItemLink {
  status: LinkStatus
  httpStatus: number | null
  finalUrl: string | null
  reason: string | null
  checkedAt: Date | null
  failures: number
}

/**
 * The link checks of an item, as the admin view needs them. The checks' table references items, so the links
 * module answers this (links/item-links.ts) and `app.ts` hands it in.
 */
export interface ItemLinks {
  /**
   * The check of the item's current URL (`itemId` and `url` are columns of the enclosing query), as one JSON
   * object or null: a subquery, so a page of items stays one statement.
   */
  linkOf(itemId: AnyColumn, url: AnyColumn): SQL<Record<string, unknown> | null>
  /** Items whose current URL's check has `status` (`unchecked`: never checked, or checked at another URL). */
  withStatus(itemId: AnyColumn, url: AnyColumn, status: LinkStatus): SQL
}

/**
 * Checks that every category, tag, company and collection the input names exists (a submission may
 * only use active categories), naming each failing field in one 400.
 */
export async function checkReferences(
  tx: DbOrTx,
  collections: Pick<ItemCollections, 'unknownIds'>,
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
    const unknown = await collections.unknownIds(tx, input.collectionIds)
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
