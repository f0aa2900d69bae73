import { index, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'

/** Long-lived keys for scripts. Only the SHA-256 of a key is stored, with its 12-character display prefix. */
export const apiKeys = platformSchema.table(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 100 }).notNull(),
    prefix: varchar('prefix', { length: 12 }).notNull(),
    keyHash: varchar('key_hash', { length: 64 }).notNull().unique(),
    expiresAt: timestamptz('expires_at'),
    lastUsedAt: timestamptz('last_used_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('api_keys_user_idx').on(table.userId)],
)
