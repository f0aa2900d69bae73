import { and, asc, eq } from 'drizzle-orm'
import { onUniqueViolation } from '../../db/errors.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, notFound } from '../../lib/errors.ts'
import { favorites } from './tables.ts'

type Row = typeof favorites.$inferSelect

export interface NewFavorite {
  itemSlug: string
  itemName: string
  itemIconUrl?: string | undefined
  itemCategory?: string | undefined
}

const favoriteOf = (row: Row) => ({
  id: row.id,
  userId: row.userId,
  itemSlug: row.itemSlug,
  itemName: row.itemName,
  itemIconUrl: row.itemIconUrl,
  itemCategory: row.itemCategory,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
})

/** A user's favorite items: theirs only; one per item slug, the unique index deciding between racing adds. */
export function createFavoriteService({ db, clock }: { db: Db; clock: Clock }) {
  return {
    async list(userId: string) {
      const rows = await db
        .select()
        .from(favorites)
        .where(eq(favorites.userId, userId))
        .orderBy(asc(favorites.createdAt), asc(favorites.id))
      return rows.map(favoriteOf)
    },

    async add(userId: string, input: NewFavorite) {
      const now = clock.now()
      const [row] = await db
        .insert(favorites)
        .values({
          userId,
          itemSlug: input.itemSlug,
          itemName: input.itemName,
          itemIconUrl: input.itemIconUrl ?? null,
          itemCategory: input.itemCategory ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .catch(
          onUniqueViolation({
            favorites_user_item_unique: () =>
              conflict('This item is already in your favorites', 'FAVORITE_EXISTS'),
          }),
        )
      return favoriteOf(row!)
    },

    /** Removes the user's favorite of the item; 404 when they have none (someone else's is not theirs). */
    async remove(userId: string, itemSlug: string) {
      const removed = await db
        .delete(favorites)
        .where(and(eq(favorites.userId, userId), eq(favorites.itemSlug, itemSlug)))
        .returning({ id: favorites.id })
      if (removed.length === 0) throw notFound('This item is not in your favorites', 'FAVORITE_NOT_FOUND')
    },
  }
}

export type FavoriteService = ReturnType<typeof createFavoriteService>
