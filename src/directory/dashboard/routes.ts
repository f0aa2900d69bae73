import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { Query } from '../../http/schemas.ts'
import { errors } from '../http/schemas.ts'
import { ACTIVITY_DAYS, type DashboardActivityRead, HISTORY_ACTIONS } from './activity.ts'
import type { DashboardService } from './service.ts'

const Count = (description?: string) => Type.Integer(description ? { description } : {})

export const DashboardAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      items: Type.Object({
        total: Count(),
        published: Count(),
        pending: Count(),
        rejected: Count(),
        draft: Count(),
      }),
      pendingReviews: Count('items waiting for a review (pending)'),
      comments: Type.Object({ total: Count(), awaitingModeration: Count() }),
      clients: Type.Object({
        total: Count(),
        active: Count(),
        newToday: Count('since the start of today (UTC)'),
        newThisWeek: Count('in the last 7 days'),
      }),
      notifications: Type.Object({ unread: Count() }),
    }),
  },
  {
    description: 'The figures an admin opens the console for',
    examples: [
      {
        success: true,
        data: {
          items: { total: 412, published: 380, pending: 21, rejected: 7, draft: 4 },
          pendingReviews: 21,
          comments: { total: 1290, awaitingModeration: 14 },
          clients: { total: 2304, active: 2210, newToday: 5, newThisWeek: 38 },
          notifications: { unread: 9 },
        },
      },
    ],
  },
)

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', examples: ['2026-11-26'] })

export const ActivityQuery = Query({
  days: Type.Integer({
    minimum: ACTIVITY_DAYS.min,
    maximum: ACTIVITY_DAYS.max,
    default: ACTIVITY_DAYS.default,
    description: `how many UTC days, today included (${ACTIVITY_DAYS.min} to ${ACTIVITY_DAYS.max})`,
  }),
})

export const ActivityAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      days: Count(),
      from: Day,
      to: Day,
      series: Type.Array(
        Type.Object({
          date: Day,
          submissions: Count('items proposed by members'),
          created: Count('items added by admins and imports'),
          approved: Count(),
          rejected: Count(),
          updated: Count('edits of existing items'),
          deleted: Count(),
          comments: Count('comments posted'),
          newClients: Count('client profiles made'),
        }),
        { description: 'one entry per UTC day from `from` to `to`, zeros included' },
      ),
      topItems: Type.Array(
        Type.Object({
          id: Type.String(),
          slug: Type.String(),
          name: Type.String(),
          status: Type.String(),
          favorites: Count('members who keep it as a favorite'),
          comments: Count(),
        }),
        { description: 'the most favorited items (at most 5), most first' },
      ),
      recent: Type.Array(
        Type.Object({
          id: Type.String(),
          action: Type.Enum(HISTORY_ACTIONS),
          item: Type.Object({
            id: Type.String(),
            slug: Type.Union([Type.String(), Type.Null()]),
            name: Type.Union([Type.String(), Type.Null()]),
            deleted: Type.Boolean({ description: 'the item is gone; its id remains' }),
          }),
          actor: Type.Union([
            Type.Object({
              id: Type.String(),
              name: Type.Union([Type.String(), Type.Null()]),
              email: Type.String(),
            }),
            Type.Null(),
          ]),
          note: Type.Union([Type.String(), Type.Null()]),
          createdAt: Type.String({ format: 'date-time' }),
        }),
        { description: 'the latest changes of items (at most 10), newest first' },
      ),
    }),
  },
  {
    description: 'What happened day by day, the most favorited items, and the latest changes',
    examples: [
      {
        success: true,
        data: {
          days: 7,
          from: '2026-11-20',
          to: '2026-11-26',
          series: [
            {
              date: '2026-11-26',
              submissions: 3,
              created: 1,
              approved: 2,
              rejected: 1,
              updated: 4,
              deleted: 0,
              comments: 12,
              newClients: 2,
            },
          ],
          topItems: [
            {
              id: '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60',
              slug: 'blue-bottle-coffee',
              name: 'Blue Bottle Coffee',
              status: 'published',
              favorites: 41,
              comments: 9,
            },
          ],
          recent: [
            {
              id: '0c2e4a6b-8d0f-4e1a-9c3b-5d7f9a1c3e5b',
              action: 'approved',
              item: {
                id: '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60',
                slug: 'blue-bottle-coffee',
                name: 'Blue Bottle Coffee',
                deleted: false,
              },
              actor: {
                id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
                name: 'Grace Hopper',
                email: 'grace@example.com',
              },
              note: null,
              createdAt: '2026-11-26T09:12:00.000Z',
            },
          ],
        },
      },
    ],
  },
)

export function dashboardRoutes(
  app: App,
  { dashboard, activity }: { dashboard: DashboardService; activity: DashboardActivityRead },
) {
  app.get(
    '/api/admin/dashboard/activity',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['dashboard'],
        summary: 'Activity over time',
        description:
          'For the last `days` UTC days (today included), one entry per day: items submitted, created, ' +
          'approved, rejected, edited and deleted (from the items’ history), comments posted and client ' +
          'profiles made. Also the most favorited items and the latest changes of items with who made them.',
        querystring: ActivityQuery,
        response: { 200: ActivityAnswer, ...errors(400, 401, 403) },
      },
    },
    async (req) => ({ success: true as const, data: await activity(req.query.days) }),
  )

  app.get(
    '/api/admin/dashboard/stats',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['dashboard'],
        summary: 'Dashboard figures',
        description:
          'Items by status and those waiting for review, comments awaiting moderation, clients (new today and ' +
          'this week), unread admin notifications. Each figure is counted once per change of what it counts ' +
          '(every write tells every instance), not on every call.',
        response: { 200: DashboardAnswer, ...errors(401, 403) },
      },
    },
    async () => ({ success: true as const, data: await dashboard.stats() }),
  )
}
