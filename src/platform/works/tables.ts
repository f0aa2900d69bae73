import { sql } from 'drizzle-orm'
import { index, integer, jsonb, primaryKey, text, unique, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'

export const GENERATE_STATUSES = ['IDLE', 'PENDING', 'GENERATING', 'COMPLETED', 'ERROR', 'CANCELLED'] as const
export type GenerateStatus = (typeof GENERATE_STATUSES)[number]

export const MEMBER_ROLES = ['editor', 'viewer'] as const
export type MemberRole = (typeof MEMBER_ROLES)[number]
export type WorkRole = 'owner' | MemberRole

/** A directory site being built. Its slug is unique per owner. */
export const works = platformSchema.table(
  'works',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    slug: varchar('slug', { length: 63 }).notNull(),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description'),
    generateStatus: text('generate_status').$type<GenerateStatus>().notNull().default('IDLE'),
    itemsCount: integer('items_count').notNull().default(0),
    /** The last lines a generation run logged, newest last. */
    recentLogs: jsonb('recent_logs').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [unique('works_owner_slug_unique').on(table.ownerId, table.slug)],
)

/** Who else may see (viewer) or change (editor) a work. */
export const workMembers = platformSchema.table(
  'work_members',
  {
    workId: uuid('work_id')
      .notNull()
      .references(() => works.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role').$type<MemberRole>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.workId, table.userId] }),
    index('work_members_user_idx').on(table.userId),
  ],
)
