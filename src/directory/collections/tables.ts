import { boolean, index, integer, primaryKey, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { items } from '../items/tables.ts'
import { directorySchema } from '../schema.ts'

/** A hand-picked, ordered list of items ("Best coffee in Lisbon"); inactive ones are not shown. */
export const collections = directorySchema.table(
  'collections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** `^[a-z0-9-]+$`, unique. */
    slug: varchar('slug', { length: 200 }).notNull().unique('collections_slug_unique'),
    name: varchar('name', { length: 200 }).notNull(),
    description: text('description'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [index('collections_active_idx').on(table.isActive)],
)

/** The items of a collection, in `position` order; deleting either side removes the membership. */
export const collectionItems = directorySchema.table(
  'collection_items',
  {
    collectionId: uuid('collection_id')
      .notNull()
      .references(() => collections.id, { onDelete: 'cascade' }),
    itemId: uuid('item_id')
      .notNull()
      .references(() => items.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    addedAt: timestamptz('added_at').notNull(),
  },
  (table) => [
    primaryKey({ name: 'collection_items_pkey', columns: [table.collectionId, table.itemId] }),
    index('collection_items_order_idx').on(table.collectionId, table.position),
    index('collection_items_item_idx').on(table.itemId),
  ],
)
