import { sql } from 'drizzle-orm'
import { boolean, index, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'

/** SPEC.md "Platform: notification": types and categories. */
export const NOTIFICATION_TYPES = ['ERROR', 'WARNING', 'INFO', 'SUCCESS'] as const
export type NotificationType = (typeof NOTIFICATION_TYPES)[number]

export const NOTIFICATION_CATEGORIES = [
  'ai_credits',
  'subscription',
  'generation',
  'system',
  'security',
] as const
export type NotificationCategory = (typeof NOTIFICATION_CATEGORIES)[number]

/** In-app notifications of a user. Persistent ones are global banners and cannot be dismissed. */
export const notifications = platformSchema.table(
  'notifications',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    type: text('type').$type<NotificationType>().notNull(),
    category: text('category').$type<NotificationCategory>().notNull(),
    title: text('title').notNull(),
    message: text('message').notNull(),
    actionUrl: text('action_url'),
    actionLabel: text('action_label'),
    isPersistent: boolean('is_persistent').notNull().default(false),
    deduplicationKey: text('deduplication_key'),
    expiresAt: timestamptz('expires_at'),
    isRead: boolean('is_read').notNull().default(false),
    isDismissed: boolean('is_dismissed').notNull().default(false),
    readAt: timestamptz('read_at'),
    dismissedAt: timestamptz('dismissed_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('notifications_user_created_idx').on(table.userId, table.createdAt.desc(), table.id.desc()),
    // One live notification per key and user, even when two creates race; a dismissed (or cleared) one
    // no longer holds its key, so the same alert can fire again later.
    uniqueIndex('notifications_user_dedup_unique')
      .on(table.userId, table.deduplicationKey)
      .where(sql`${table.deduplicationKey} is not null and not ${table.isDismissed}`),
    // The daily cleanup's three rules.
    index('notifications_expires_idx').on(table.expiresAt).where(sql`${table.expiresAt} is not null`),
    index('notifications_dismissed_idx').on(table.dismissedAt).where(sql`${table.isDismissed}`),
    index('notifications_created_idx').on(table.createdAt),
  ],
)
