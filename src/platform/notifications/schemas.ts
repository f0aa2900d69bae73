import { Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { NOTIFICATION_CATEGORIES, NOTIFICATION_TYPES } from './tables.ts'

/** SPEC.md "Limits": notifications list default 50, max 100 (a larger limit is capped, not refused). */
export const NOTIFICATION_LIST_DEFAULT_LIMIT = 50
export const NOTIFICATION_LIST_MAX_LIMIT = 100

const EXAMPLE_NOTIFICATION = {
  id: '7d2f4b9e-1c3a-4e5f-8a6b-0c9d8e7f6a51',
  type: 'ERROR',
  category: 'ai_credits',
  title: 'OpenAI credits are used up',
  message:
    'OpenAI refused to generate because the account has no credits left or reached its quota. ' +
    'Add credits or use another API key, then generate again.',
  actionUrl: '/settings/plugins/openai',
  actionLabel: 'Update API key',
  isPersistent: true,
  isRead: false,
  isDismissed: false,
  deduplicationKey: 'ai-credits:openai',
  expiresAt: null,
  createdAt: '2026-11-22T10:00:00.000Z',
} as const

const EXAMPLE_WARNING = {
  id: '2a8c6e40-5b7d-4f19-9e3c-6d1f0a2b4c83',
  type: 'WARNING',
  category: 'ai_credits',
  title: 'OpenAI could not answer',
  message: 'Generating "Coffee Guide" failed because OpenAI answered: 503 Service Unavailable.',
  actionUrl: '/works/0b6d1c1e-4a57-4f5e-9d55-2b1f0c7e3a10',
  actionLabel: 'Open work',
  isPersistent: false,
  isRead: true,
  isDismissed: false,
  deduplicationKey: 'ai-provider-error:openai',
  expiresAt: '2026-11-23T09:00:00.000Z',
  createdAt: '2026-11-22T09:00:00.000Z',
} as const

export const NotificationBody = Type.Object(
  {
    id: Type.String({ format: 'uuid', examples: [EXAMPLE_NOTIFICATION.id] }),
    type: Type.Enum(NOTIFICATION_TYPES, { examples: ['ERROR'] }),
    category: Type.Enum(NOTIFICATION_CATEGORIES, { examples: ['ai_credits'] }),
    title: Type.String({ examples: [EXAMPLE_NOTIFICATION.title] }),
    message: Type.String({ examples: [EXAMPLE_NOTIFICATION.message] }),
    actionUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'where the app takes the user to act on it (a path of the app); null when nothing to do',
      examples: ['/settings/plugins/openai'],
    }),
    actionLabel: Type.Union([Type.String(), Type.Null()], {
      description: 'the label of the action’s button',
      examples: ['Update API key'],
    }),
    isPersistent: Type.Boolean({
      description: 'shown as a global banner; cannot be dismissed, goes when its issue is resolved',
    }),
    isRead: Type.Boolean(),
    isDismissed: Type.Boolean(),
    deduplicationKey: Type.Union([Type.String(), Type.Null()], {
      description: 'while a notification with this key is not dismissed, no other one with it is created',
      examples: ['ai-credits:openai'],
    }),
    expiresAt: Type.Unsafe<Date | string | null>({
      ...NullableTimestamp,
      description: 'after this instant it is no longer listed or counted, and the cleanup removes it',
      examples: ['2026-11-23T09:00:00.000Z'],
    }),
    createdAt: Timestamp,
  },
  { description: 'One notification of yours', examples: [EXAMPLE_NOTIFICATION] },
)

export const NotificationListQuery = Query({
  unreadOnly: Type.Boolean({
    default: false,
    description: 'only notifications not yet read',
    examples: [false],
  }),
  limit: Type.Integer({
    minimum: 1,
    default: NOTIFICATION_LIST_DEFAULT_LIMIT,
    description: `notifications per page; a value over ${NOTIFICATION_LIST_MAX_LIMIT} is treated as ${NOTIFICATION_LIST_MAX_LIMIT}`,
    examples: [NOTIFICATION_LIST_DEFAULT_LIMIT],
  }),
  offset: Type.Integer({ minimum: 0, default: 0, description: 'notifications to skip', examples: [0] }),
  category: Type.Optional(
    Type.Enum(NOTIFICATION_CATEGORIES, { description: 'only this category', examples: ['ai_credits'] }),
  ),
})

export const NotificationList = Type.Object(
  {
    notifications: Type.Array(NotificationBody),
    total: Type.Integer({ description: 'matching notifications over all pages', examples: [2] }),
  },
  {
    description: 'A page of your notifications, newest first',
    examples: [{ notifications: [EXAMPLE_NOTIFICATION, EXAMPLE_WARNING], total: 2 }],
  },
)

export const PersistentNotifications = Type.Object(
  { notifications: Type.Array(NotificationBody) },
  {
    description: 'Your persistent notifications (global banners), newest first',
    examples: [{ notifications: [EXAMPLE_NOTIFICATION] }],
  },
)

export const UnreadCount = Type.Object(
  { count: Type.Integer({ examples: [3] }) },
  { description: 'How many of your notifications are unread', examples: [{ count: 3 }] },
)

export const NotificationParams = Type.Object({
  // Not format: uuid, so a malformed id is as unknown as a missing one (404), not a 400.
  id: Type.String({ description: 'the notification id (a UUID)', examples: [EXAMPLE_NOTIFICATION.id] }),
})

export const NotificationDone = Type.Object({ success: Type.Literal(true) })

export const AllRead = Type.Object(
  {
    success: Type.Literal(true),
    count: Type.Integer({ description: 'how many notifications this call marked read', examples: [3] }),
  },
  { description: 'Every unread notification is now read', examples: [{ success: true, count: 3 }] },
)
