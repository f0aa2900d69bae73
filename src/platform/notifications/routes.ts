import type { App } from '../../http/app.ts'
import { described, invalidField } from '../../http/schemas.ts'
import { authOf } from '../http/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  AllRead,
  NOTIFICATION_LIST_DEFAULT_LIMIT,
  NOTIFICATION_LIST_MAX_LIMIT,
  NotificationDone,
  NotificationList,
  NotificationListQuery,
  NotificationParams,
  PersistentNotifications,
  UnreadCount,
} from './schemas.ts'
import type { NotificationService } from './service.ts'

const tags = ['notifications']
const config = { access: 'jwt' } as const
const unauthenticated = [401, 'UNAUTHORIZED', 'INVALID_TOKEN'] as const
const apiKeyRefused = [403, 'API_KEY_NOT_ALLOWED'] as const
const notFound = [404, 'NOTIFICATION_NOT_FOUND'] as const
const SHOWN =
  'Dismissed notifications and those past their `expiresAt` are never listed or counted; the daily ' +
  'cleanup at 03:00 UTC removes expired ones, dismissed ones after 7 days and all after 30 days.'

export function notificationRoutes(app: App, { notifications }: { notifications: NotificationService }) {
  app.get(
    '/api/notifications',
    {
      config,
      schema: {
        tags,
        summary: 'List notifications',
        description:
          'The caller’s notifications, newest first, with the total over all pages. `unreadOnly=true` keeps ' +
          'the unread ones, `category` one of `ai_credits`, `subscription`, `generation`, `system`, ' +
          `\`security\`. \`limit\` defaults to ${NOTIFICATION_LIST_DEFAULT_LIMIT} and is capped at ` +
          `${NOTIFICATION_LIST_MAX_LIMIT} (a larger value answers ${NOTIFICATION_LIST_MAX_LIMIT}, not an ` +
          'error); `limit` below 1 or a negative `offset` is 400. ' +
          SHOWN,
        querystring: NotificationListQuery,
        response: {
          200: NotificationList,
          ...errors(
            [
              400,
              invalidField('query.limit', 'must be at least 1'),
              invalidField(
                'query.category',
                'must be one of "ai_credits", "subscription", "generation", "system", "security"',
              ),
            ],
            unauthenticated,
            apiKeyRefused,
          ),
        },
      },
    },
    async (req) => notifications.list(authOf(req).userId, req.query),
  )

  app.get(
    '/api/notifications/unread-count',
    {
      config,
      schema: {
        tags,
        summary: 'Count unread notifications',
        description: `How many of the caller’s notifications are not read yet. ${SHOWN}`,
        response: { 200: UnreadCount, ...errors(unauthenticated, apiKeyRefused) },
      },
    },
    async (req) => ({ count: await notifications.unreadCount(authOf(req).userId) }),
  )

  app.get(
    '/api/notifications/persistent',
    {
      config,
      schema: {
        tags,
        summary: 'List persistent notifications',
        description:
          'The caller’s persistent notifications, shown as global banners, newest first (at most ' +
          `${NOTIFICATION_LIST_MAX_LIMIT}). They cannot be dismissed: each goes away when the issue it reports ` +
          'is resolved (a new API key, a reconnected Git account), or when it expires.',
        response: { 200: PersistentNotifications, ...errors(unauthenticated, apiKeyRefused) },
      },
    },
    async (req) => ({ notifications: await notifications.persistent(authOf(req).userId) }),
  )

  app.post(
    '/api/notifications/read-all',
    {
      config,
      schema: {
        tags,
        summary: 'Mark all notifications read',
        description:
          'Marks every unread notification of the caller read (dismissed and expired ones are left alone); ' +
          '`count` says how many it marked.',
        response: { 200: AllRead, ...errors(unauthenticated, apiKeyRefused) },
      },
    },
    async (req) => ({ success: true as const, count: await notifications.markAllRead(authOf(req).userId) }),
  )

  app.post(
    '/api/notifications/:id/read',
    {
      config,
      schema: {
        tags,
        summary: 'Mark a notification read',
        description:
          'Marks one of the caller’s notifications read; marking it again changes nothing. 404 ' +
          '`NOTIFICATION_NOT_FOUND` for an unknown id or another user’s.',
        params: NotificationParams,
        response: {
          200: described(NotificationDone, 'Marked read', { success: true }),
          ...errors(unauthenticated, apiKeyRefused, notFound),
        },
      },
    },
    async (req) => {
      await notifications.markRead(authOf(req).userId, req.params.id)
      return { success: true as const }
    },
  )

  app.post(
    '/api/notifications/:id/dismiss',
    {
      config,
      schema: {
        tags,
        summary: 'Dismiss a notification',
        description:
          'Hides one of the caller’s notifications: it is no longer listed or counted, and the cleanup ' +
          'removes it after 7 days; its deduplication key is free again, so the same alert can come back. A ' +
          'persistent notification (a banner) cannot be dismissed: 400 `NOTIFICATION_PERSISTENT`. 404 ' +
          '`NOTIFICATION_NOT_FOUND` for an unknown id or another user’s.',
        params: NotificationParams,
        response: {
          200: described(NotificationDone, 'Dismissed', { success: true }),
          ...errors([400, 'NOTIFICATION_PERSISTENT'], unauthenticated, apiKeyRefused, notFound),
        },
      },
    },
    async (req) => {
      await notifications.dismiss(authOf(req).userId, req.params.id)
      return { success: true as const }
    },
  )
}
