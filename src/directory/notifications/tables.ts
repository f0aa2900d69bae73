import { sql } from 'drizzle-orm'
import { index, jsonb, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

/** What the admins of the site should look at: a new submission, report, comment or message. */
export const adminNotifications = directorySchema.table(
  'admin_notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** `item_submitted`, … */
    type: varchar('type', { length: 40 }).notNull(),
    title: varchar('title', { length: 200 }).notNull(),
    message: text('message').notNull(),
    /** What the notification is about, e.g. `{itemId, itemSlug}`. */
    data: jsonb('data').$type<Record<string, unknown>>().notNull().default({}),
    readAt: timestamptz('read_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('admin_notifications_created_idx').on(table.createdAt.desc()),
    index('admin_notifications_unread_idx').on(table.createdAt.desc()).where(sql`${table.readAt} is null`),
  ],
)
