import { sql } from 'drizzle-orm'
import { boolean, index, integer, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

/**
 * An item shown on the site's featured shelf, with the display fields it is shown with (SPEC.md's featured
 * item): it names an item by slug, but does not need the item to be in this directory.
 */
export const featuredItems = directorySchema.table(
  'featured_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    itemSlug: varchar('item_slug', { length: 200 }).notNull(),
    itemName: varchar('item_name', { length: 200 }).notNull(),
    itemDescription: text('item_description'),
    itemIconUrl: text('item_icon_url'),
    itemImageUrl: text('item_image_url'),
    /** Higher is more prominent. */
    featuredOrder: integer('featured_order').notNull().default(0),
    isActive: boolean('is_active').notNull().default(true),
    featuredAt: timestamptz('featured_at').notNull(),
    /** Null: no expiry. */
    featuredUntil: timestamptz('featured_until'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at'),
  },
  (table) => [
    // The public shelf: active entries in display order.
    index('featured_items_shelf_idx')
      .on(table.featuredOrder.desc(), table.featuredAt.desc())
      .where(sql`${table.isActive}`),
    // The admin item list's `featured` filter: is an item's slug on the shelf?
    index('featured_items_item_slug_idx').on(table.itemSlug),
  ],
)
