import { sql } from 'drizzle-orm'
import { boolean, jsonb, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

export const ROLE_STATUSES = ['active', 'inactive'] as const
export type RoleStatus = (typeof ROLE_STATUSES)[number]

/** The seeded roles every directory starts with. */
export const ADMIN_ROLE_ID = 'admin'
export const USER_ROLE_ID = 'user'

export const roles = directorySchema.table(
  'roles',
  {
    /** Slug of the name: normalised, diacritics stripped, URL-safe, at most 64 characters. */
    id: varchar('id', { length: 64 }).primaryKey(),
    name: varchar('name', { length: 100 }).notNull().unique(),
    description: varchar('description', { length: 500 }).notNull().default(''),
    status: text('status').$type<RoleStatus>().notNull().default('active'),
    isAdmin: boolean('is_admin').notNull().default(false),
    /** Permission identifiers of the form `area.action`. */
    permissions: jsonb('permissions').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    updatedAt: timestamptz('updated_at').notNull().defaultNow(),
  },
  // Names are unique whatever their case.
  (table) => [uniqueIndex('roles_name_lower_unique').on(sql`lower(${table.name})`)],
)
