import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors, metaOf } from '../http/schemas.ts'
import {
  MarkedAllAnswer,
  NotificationAnswer,
  NotificationListAnswer,
  NotificationListQuery,
  NotificationParams,
} from './schemas.ts'
import type { AdminNotificationService } from './service.ts'

const tags = ['notifications']
const BASE = '/api/admin/notifications'
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const

/** The admins' notifications: new submissions, comments awaiting moderation, contact messages, reports. */
export function adminNotificationRoutes(
  app: App,
  { notifications }: { notifications: AdminNotificationService },
) {
  app.get(
    BASE,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List admin notifications',
        description:
          'Newest first. `unread=true` keeps those no admin has read, `type` one kind. Every admin shares ' +
          'them: one admin reading a notification reads it for all. `unreadCount` is the unread total.',
        querystring: NotificationListQuery,
        response: {
          200: NotificationListAnswer,
          ...errors([400, invalidField('query.unread', 'must be one of true, false')], 401, 403),
        },
      },
    },
    async (req) => {
      const { items, meta, unreadCount } = await notifications.list(req.query)
      return { success: true as const, data: items, meta: metaOf(meta), unreadCount }
    },
  )

  app.post(
    `${BASE}/mark-all-read`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Mark every notification read',
        description: 'Marks every unread notification read and says how many there were.',
        response: { 200: MarkedAllAnswer, ...errors(401, WRITE_403) },
      },
    },
    async () => ({ success: true as const, updated: await notifications.markAllRead() }),
  )

  app.post(
    `${BASE}/:id/read`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Mark a notification read',
        description: 'Marks it read; a notification read before keeps its first `readAt`.',
        params: NotificationParams,
        response: { 200: NotificationAnswer, ...errors(401, WRITE_403, [404, 'NOTIFICATION_NOT_FOUND']) },
      },
    },
    async (req) => ({ success: true as const, data: await notifications.markRead(req.params.id) }),
  )
}
