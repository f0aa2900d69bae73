import { sql } from 'drizzle-orm'
import { bigint, check, index, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { items } from '../items/tables.ts'
import { directorySchema } from '../schema.ts'

export const COMMENT_STATUSES = ['pending', 'approved', 'rejected'] as const
export type CommentStatus = (typeof COMMENT_STATUSES)[number]

/**
 * What signed-in users say about an item. A comment goes with its item, and with its author's account:
 * deleting either deletes it, so a comment always has an owner the reports module can find.
 */
export const comments = directorySchema.table(
  'comments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    itemId: uuid('item_id')
      .notNull()
      .references(() => items.id, { onDelete: 'cascade' }),
    authorId: uuid('author_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Plain text as sent (trimmed); markup stays text. */
    body: text('body').notNull(),
    status: varchar('status', { length: 20 }).$type<CommentStatus>().notNull(),
    /** The admin who last approved or rejected it; null once their account is gone. */
    moderatedBy: uuid('moderated_by').references(() => users.id, { onDelete: 'set null' }),
    moderatedAt: timestamptz('moderated_at'),
    moderationNote: text('moderation_note'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check('comments_status_check', sql`${table.status} in ('pending', 'approved', 'rejected')`),
    // The public read (an item's approved comments, oldest first), the admin's item filter, and the
    // cascade of an item's deletion.
    index('comments_item_status_created_idx').on(table.itemId, table.status, table.createdAt, table.id),
    // The admin list, newest first, within a status or across all of them.
    index('comments_status_created_idx').on(
      table.status,
      table.createdAt.desc().nullsFirst(),
      table.id.desc().nullsFirst(),
    ),
    index('comments_created_idx').on(table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    // A user's comments: the cascade of an account's deletion, and the reports module's owner lookups.
    index('comments_author_idx').on(table.authorId),
  ],
)

/**
 * How many comments there are in each status, kept by statement-level triggers on `comments` (migration
 * 0014): every insert, moderation and deletion, cascades included, adds its difference in its own
 * transaction, so the figures are exact without counting a million rows.
 */
export const commentCounts = directorySchema.table('comment_counts', {
  status: varchar('status', { length: 20 }).$type<CommentStatus>().primaryKey(),
  count: bigint('count', { mode: 'number' }).notNull(),
})
