import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { errors } from '../http/schemas.ts'
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

export function dashboardRoutes(app: App, { dashboard }: { dashboard: DashboardService }) {
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
