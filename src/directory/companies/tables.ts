import { sql } from 'drizzle-orm'
import { boolean, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

/** The companies behind the directory's items; an item names at most one. */
export const companies = directorySchema.table(
  'companies',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** `^[a-z0-9-]+$`, unique. */
    slug: varchar('slug', { length: 200 }).notNull().unique('companies_slug_unique'),
    name: varchar('name', { length: 200 }).notNull(),
    description: text('description'),
    website: text('website'),
    logoUrl: text('logo_url'),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  // Names are unique whatever their case.
  (table) => [uniqueIndex('companies_name_lower_unique').on(sql`lower(${table.name})`)],
)
