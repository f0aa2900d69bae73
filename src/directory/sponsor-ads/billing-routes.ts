import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import {
  PaymentListAnswer,
  PaymentQuery,
  SubscriptionListAnswer,
  SubscriptionQuery,
} from './billing-schemas.ts'
import type { SponsorAdLedger } from './ledger.ts'

const tags = ['payments']

/** What the payment providers reported about the ads, for the admins: payment records and subscriptions. */
export function adminBillingRoutes(app: App, { ledger }: { ledger: SponsorAdLedger }) {
  app.get(
    '/api/admin/payments',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Payment records',
        description:
          'Every payment, failed payment and refund the providers reported, newest first, each recorded once ' +
          'whatever number of events reported it; `effect` says what it did to its ad. Filters: `provider`, ' +
          '`kind`, `sponsorAdId`.',
        querystring: PaymentQuery,
        response: {
          200: PaymentListAnswer,
          ...errors(
            [400, invalidField('query.kind', 'must be one of initial, renewal, failed, refund')],
            401,
            403,
          ),
        },
      },
    },
    async (req) => pageAnswer(await ledger.listPayments(req.query)),
  )

  app.get(
    '/api/admin/payments/subscriptions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Provider subscriptions',
        description:
          'The providers’ subscriptions, normalised, as their events left them, most recently changed first. A ' +
          'failed renewal marks one `past_due`. Filters: `provider`, `status`, `sponsorAdId`.',
        querystring: SubscriptionQuery,
        response: {
          200: SubscriptionListAnswer,
          ...errors(400, 401, 403),
        },
      },
    },
    async (req) => pageAnswer(await ledger.listSubscriptions(req.query)),
  )
}
