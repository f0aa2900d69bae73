import { index, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { platformSchema } from '../schema.ts'

export const users = platformSchema.table('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  /** Stored lower-cased: one account per address whatever its case. */
  email: varchar('email', { length: 254 }).notNull().unique(),
  name: varchar('name', { length: 100 }),
  passwordHash: text('password_hash').notNull(),
  createdAt: timestamptz('created_at').notNull(),
  updatedAt: timestamptz('updated_at').notNull(),
})

/**
 * One row per issued refresh token, hashed. Tokens of one login form a family: a refresh spends the token
 * and issues its successor; presenting a spent token again revokes the whole family.
 */
export const refreshTokens = platformSchema.table(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: uuid('family_id').notNull(),
    tokenHash: varchar('token_hash', { length: 64 }).notNull().unique(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    revokedAt: timestamptz('revoked_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('refresh_tokens_family_idx').on(table.familyId),
    index('refresh_tokens_expires_idx').on(table.expiresAt),
  ],
)
