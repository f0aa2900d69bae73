import { and, desc, eq, isNotNull, isNull, sql } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { notify } from '../../db/notifications.ts'
import { countRows, pageOfRows } from '../../db/queries.ts'
import type { Clock } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { clip } from '../../lib/values.ts'
import { type Clearable, CONTENT_CHANGED_CHANNEL, contentWriter, NOTICES_CONTENT } from '../content.ts'
import type { AdminNoticeType, NotificationListQuery } from './schemas.ts'
import { adminNotifications } from './tables.ts'

export interface AdminNotice {
  type: AdminNoticeType
  title: string
  message: string
  data: Record<string, unknown>
}

/**
 * Raises a notification for the site's admins, in the transaction of what it is about: a submission and
 * its notice are written together or not at all.
 */
export async function notifyAdmins(tx: DbOrTx, at: Date, notice: AdminNotice): Promise<void> {
  // A title names what it is about (an item's name of up to 200 characters): it is cut to its column.
  const title = clip(notice.title, 200)
  await tx.insert(adminNotifications).values({ ...notice, title, createdAt: at })
  await notify(tx, CONTENT_CHANGED_CHANNEL, NOTICES_CONTENT)
}

type Row = typeof adminNotifications.$inferSelect

const notificationOf = (row: Row) => ({ ...row, type: row.type as AdminNoticeType })

const notificationNotFound = () => notFound('Notification not found', 'NOTIFICATION_NOT_FOUND')

/** The admins' notifications: shared by every admin, read by any of them. */
export function createAdminNotificationService({
  db,
  clock,
  caches = [],
}: {
  db: Db
  clock: Clock
  /** Caches reading notifications makes stale on this instance (the dashboard's unread count). */
  caches?: Clearable[]
}) {
  const unread = isNull(adminNotifications.readAt)
  const write = contentWriter(db, NOTICES_CONTENT, caches)
  return {
    async list(query: NotificationListQuery) {
      const where = and(
        query.unread === 'true'
          ? unread
          : query.unread === 'false'
            ? isNotNull(adminNotifications.readAt)
            : undefined,
        query.type === undefined ? undefined : eq(adminNotifications.type, query.type),
      )
      const [page, unreadCount] = await Promise.all([
        pageOfRows(db, adminNotifications, query, {
          where,
          orderBy: [desc(adminNotifications.createdAt), desc(adminNotifications.id)],
          map: notificationOf,
        }),
        countRows(db, adminNotifications, unread),
      ])
      return { ...page, unreadCount }
    },

    /** Marks one read; reading it again keeps the first `readAt`. */
    async markRead(id: string) {
      if (!isUuid(id)) throw notificationNotFound()
      const [row] = await write((tx) =>
        tx
          .update(adminNotifications)
          .set({ readAt: sql`coalesce(${adminNotifications.readAt}, ${clock.now()})` })
          .where(eq(adminNotifications.id, id))
          .returning(),
      )
      if (!row) throw notificationNotFound()
      return notificationOf(row)
    },

    async markAllRead(): Promise<number> {
      const rows = await write((tx) =>
        tx
          .update(adminNotifications)
          .set({ readAt: clock.now() })
          .where(unread)
          .returning({ id: adminNotifications.id }),
      )
      return rows.length
    },
  }
}

export type AdminNotificationService = ReturnType<typeof createAdminNotificationService>
