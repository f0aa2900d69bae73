import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { PaymentGateways } from '../../integrations/payments/gateway.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AccountService } from '../accounts/service.ts'
import { adminBillingRoutes } from './billing-routes.ts'
import {
  createSponsorAdClosing,
  SPONSOR_EXPIRY_JOB,
  SUBSCRIPTION_CANCEL_JOB,
  type SubscriptionCancelJob,
} from './closing.ts'
import { createSponsorAdLedger } from './ledger.ts'
import { createOwnerSponsorAds } from './owner.ts'
import { publicSponsorAdRoutes, userSponsorAdRoutes } from './owner-routes.ts'
import { createSponsorAdReview } from './review.ts'
import { adminSponsorAdRoutes } from './review-routes.ts'
import { createSponsorAdShelf } from './shelf.ts'

/**
 * Sponsor ads: the public shelf, a user's own ads with checkout and renewal through the configured
 * payment provider, the admins' review, the scheduled expiry, and the retried cancellation of provider
 * subscriptions.
 */
export function sponsorAdsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  jobs: Pick<Jobs, 'send'>
  gateways: PaymentGateways
  config: Pick<
    Config,
    | 'paymentProvider'
    | 'appUrl'
    | 'sponsorWeeklyPrice'
    | 'sponsorMonthlyPrice'
    | 'sponsorCurrency'
    | 'sponsorExpiryCron'
    | 'subscriptionCancelRetrySeconds'
  >
  redirectOrigins: ReadonlySet<string>
  accounts: Pick<AccountService, 'beforeRemove'>
}) {
  const closing = createSponsorAdClosing(deps)
  const owner = createOwnerSponsorAds({ ...deps, closing })
  const review = createSponsorAdReview({ ...deps, closing })
  const shelf = createSponsorAdShelf(deps)
  const ledger = createSponsorAdLedger(deps)
  deps.accounts.beforeRemove((tx, userId) => closing.cancelSubscriptionsOf(tx, userId))
  const module: Module = {
    name: 'sponsor-ads',
    routes: (app) => {
      publicSponsorAdRoutes(app, { shelf })
      userSponsorAdRoutes(app, { ads: owner })
      adminSponsorAdRoutes(app, { review })
      adminBillingRoutes(app, { ledger })
    },
    jobs: [
      {
        name: SPONSOR_EXPIRY_JOB,
        cron: deps.config.sponsorExpiryCron,
        handler: async () => {
          await closing.expire()
        },
      },
      {
        name: SUBSCRIPTION_CANCEL_JOB,
        handler: async (job: SubscriptionCancelJob) => closing.cancelSubscription(job),
        // A provider that fails (5xx, 429, no answer) is tried again with backoff for about a day.
        retryLimit: 12,
        retryDelaySeconds: deps.config.subscriptionCancelRetrySeconds,
        retryBackoff: true,
      },
    ],
  }
  return { module }
}
