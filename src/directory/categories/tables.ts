import { sql } from 'drizzle-orm'
import { boolean, index, integer, uniqueIndex, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

/** The directory's categories; `sortOrder` is the order reorder sets and every listing uses. */
export const categories = directorySchema.table(
  'categories',
  {
    /** Slug, `^[a-z0-9-]+$`. */
    id: varchar('id', { length: 100 }).primaryKey(),
    name: varchar('name', { length: 100 }).notNull(),
    isActive: boolean('is_active').notNull().default(true),
    itemCount: integer('item_count').notNull().default(0),
    sortOrder: integer('sort_order').notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('categories_sort_idx').on(table.sortOrder, table.name),
    // Names are unique whatever their case.
    uniqueIndex('categories_name_lower_unique').on(sql`lower(${table.name})`),
  ],
)
