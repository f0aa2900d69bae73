import type { App } from '../../http/app.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import { EventListAnswer, EventQuery } from './schemas.ts'
import type { StoredEvents } from './stored-events.ts'

const tags = ['payments']

/** The stored webhook events (kept 24 hours once processed), newest first, for the admins. */
export function adminPaymentEventRoutes(app: App, { events }: { events: StoredEvents }) {
  app.get(
    '/api/admin/payments/events',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Stored webhook events',
        description:
          'The verified events of the last 24 hours (and any still to be processed), newest first, with what ' +
          'processing did or why it failed. Filters: `provider`, `status`.',
        querystring: EventQuery,
        response: {
          200: EventListAnswer,
          ...errors(400, 401, 403),
        },
      },
    },
    async (req) => pageAnswer(await events.list(req.query)),
  )
}
