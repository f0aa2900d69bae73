import { sql } from 'drizzle-orm'
import { uniqueIndex, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

/** The directory's tags; an item has any number of them (`item_tags`). */
export const tags = directorySchema.table(
  'tags',
  {
    /** Slug, `^[a-z0-9-]+$`. */
    id: varchar('id', { length: 100 }).primaryKey(),
    name: varchar('name', { length: 100 }).notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  // Names are unique whatever their case.
  (table) => [uniqueIndex('tags_name_lower_unique').on(sql`lower(${table.name})`)],
)
