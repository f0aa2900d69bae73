import { index, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'

/**
 * A user's favorite item. It keeps the item's name, icon and category as they were when favorited, so it
 * shows without the item (which may live in another directory, or be gone). One per user and item slug.
 */
export const favorites = directorySchema.table(
  'favorites',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemSlug: varchar('item_slug', { length: 200 }).notNull(),
    itemName: varchar('item_name', { length: 200 }).notNull(),
    itemIconUrl: text('item_icon_url'),
    itemCategory: varchar('item_category', { length: 100 }),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('favorites_user_item_unique').on(table.userId, table.itemSlug),
    index('favorites_user_created_idx').on(table.userId, table.createdAt),
  ],
)
