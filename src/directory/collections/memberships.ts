/**
 * The collections of one item, as the items module needs them (`ItemCollections`): items cannot import
 * collections, whose membership table references items, so `app.ts` hands them this.
 */
import { and, eq, inArray, sql } from 'drizzle-orm'
import type { ItemCollections } from '../items/relations.ts'
import { collectionItems, collections } from './tables.ts'

export const itemCollections: ItemCollections = {
  async unknownIds(tx, ids) {
    const found = await tx
      .select({ id: collections.id })
      .from(collections)
      .where(inArray(collections.id, [...ids]))
      .for('share')
    const known = new Set(found.map((collection) => collection.id))
    return ids.filter((id) => !known.has(id))
  },

  async set(tx, itemId, collectionIds, at) {
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
  },

  idsOf: (itemId) =>
    sql<
      string[]
    >`coalesce((select json_agg(${collectionItems.collectionId} order by ${collectionItems.addedAt}, ${collectionItems.collectionId}) from ${collectionItems} where ${collectionItems.itemId} = ${itemId}), '[]'::json)`,
}
