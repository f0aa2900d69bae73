import { jsonb, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'

/**
 * The site's documents an admin edits whole: `settings` (typed, defaults filled in when read) and
 * `navigation` (the header and footer menus). One row per key; a missing row means the defaults.
 */
export const siteDocuments = directorySchema.table('site_documents', {
  key: varchar('key', { length: 40 }).primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull(),
  updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
  updatedAt: timestamptz('updated_at').notNull(),
})
