import { sql } from 'drizzle-orm'
import { index, integer, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { roles } from '../roles/tables.ts'
import { directorySchema } from '../schema.ts'

export const USER_STATUSES = ['active', 'inactive'] as const
export type UserStatus = (typeof USER_STATUSES)[number]

/** Everyone who can sign in to the directory: visitors with a client profile, and admins. */
export const users = directorySchema.table(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: varchar('username', { length: 50 }).notNull().unique(),
    /** Stored lower-cased: one account per address whatever its case. */
    email: varchar('email', { length: 254 }).notNull().unique(),
    name: varchar('name', { length: 100 }),
    /** Null for accounts that sign in only through an identity provider. */
    passwordHash: text('password_hash'),
    title: varchar('title', { length: 100 }),
    avatar: varchar('avatar', { length: 500 }),
    /** `credentials`, or the identity provider the account came from. */
    provider: varchar('provider', { length: 50 }).notNull().default('credentials'),
    roleId: varchar('role_id', { length: 64 }).references(() => roles.id, { onDelete: 'set null' }),
    status: text('status').$type<UserStatus>().notNull().default('active'),
    loginCount: integer('login_count').notNull().default(0),
    lastLoginAt: timestamptz('last_login_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('users_role_idx').on(table.roleId),
    // Usernames are unique whatever their case (emails are stored lower-cased).
    uniqueIndex('users_username_lower_unique').on(sql`lower(${table.username})`),
  ],
)
