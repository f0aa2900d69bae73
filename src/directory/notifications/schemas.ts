import { type Static, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'

/** What a notification is about: a submission, a comment awaiting moderation, a contact message, a report, links a check found broken. */
export const ADMIN_NOTICE_TYPES = [
  'item_submitted',
  'comment_pending',
  'contact_message',
  'report_created',
  'links_broken',
] as const
export type AdminNoticeType = (typeof ADMIN_NOTICE_TYPES)[number]

const EXAMPLE = {
  id: '2d4f6a8c-0e1b-4c3d-9e5f-7a9b1c3d5e7f',
  type: 'item_submitted',
  title: 'New submission: Blue Bottle Coffee',
  message: 'Ada Lovelace submitted "Blue Bottle Coffee" for review.',
  data: { itemId: '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60', itemSlug: 'blue-bottle-coffee' },
  readAt: null,
  createdAt: '2026-11-23T09:00:00.000Z',
}

export const AdminNotification = Type.Object({
  id: Type.String({ examples: [EXAMPLE.id] }),
  type: Type.Enum([...ADMIN_NOTICE_TYPES], { examples: [EXAMPLE.type] }),
  title: Type.String({ examples: [EXAMPLE.title] }),
  message: Type.String({ examples: [EXAMPLE.message] }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description: 'what it is about, e.g. `{itemId, itemSlug}` for a submission',
  }),
  readAt: NullableTimestamp,
  createdAt: Timestamp,
})
export type AdminNotification = Static<typeof AdminNotification>

export const NotificationListQuery = Query({
  ...PageQueryFields,
  unread: Type.Optional(Type.Enum(['true', 'false'], { description: '`true`: only those not read yet' })),
  type: Type.Optional(Type.Enum([...ADMIN_NOTICE_TYPES])),
})
export type NotificationListQuery = Static<typeof NotificationListQuery>

export const NotificationListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(AdminNotification),
    meta: Type.Object(PageMetaFields),
    unreadCount: Type.Integer({ description: 'unread notifications in all, whatever the filters' }),
  },
  {
    description: 'A page of notifications, newest first',
    examples: [
      {
        success: true,
        data: [EXAMPLE],
        meta: { page: 1, limit: 10, total: 1, totalPages: 1 },
        unreadCount: 1,
      },
    ],
  },
)

export const NotificationParams = Type.Object({
  id: Type.String({ description: 'the notification’s id (a UUID)', examples: [EXAMPLE.id] }),
})

export const NotificationAnswer = Type.Object(
  { success: Type.Literal(true), data: AdminNotification },
  {
    description: 'The notification, read',
    examples: [{ success: true, data: { ...EXAMPLE, readAt: '2026-11-23T09:05:00.000Z' } }],
  },
)

export const MarkedAllAnswer = Type.Object(
  {
    success: Type.Literal(true),
    updated: Type.Integer({ description: 'how many were unread and are now read' }),
  },
  { description: 'Every notification is read', examples: [{ success: true, updated: 3 }] },
)
