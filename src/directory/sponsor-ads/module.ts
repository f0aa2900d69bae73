import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { PaymentGateways } from '../../integrations/payments/gateway.ts'
import { createSmtpMailer } from '../../integrations/smtp/mailer.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AccountService } from '../accounts/service.ts'
import type { SiteService } from '../site/service.ts'
import {
  createSponsorAdBilling,
  type FinishedMail,
  QUEUED_PAYMENT_MAIL_JOB,
  SPONSOR_AD_MAIL_JOB,
  type SponsorAdMail,
} from './billing.ts'
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
 * Sponsor ads, their whole life: the public shelf, a user's own ads with checkout and renewal through the
 * configured payment provider, the admins' review, what each payment event does to an ad (`paymentHandler`,
 * which the app hands to the payments inbox) with its emails through SMTP, the payment records and
 * subscriptions, the scheduled expiry, and the retried cancellation of provider subscriptions.
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
    | 'smtpUrl'
    | 'smtpFrom'
    | 'smtpTimeoutMs'
  >
  redirectOrigins: ReadonlySet<string>
  accounts: Pick<AccountService, 'beforeRemove'>
  site: Pick<SiteService, 'settings'>
}) {
  const { config } = deps
  const mailer = config.smtpUrl
    ? createSmtpMailer({ url: config.smtpUrl, from: config.smtpFrom, timeoutMs: config.smtpTimeoutMs })
    : undefined
  const closing = createSponsorAdClosing(deps)
  const owner = createOwnerSponsorAds({ ...deps, closing })
  const review = createSponsorAdReview({ ...deps, closing })
  const shelf = createSponsorAdShelf(deps)
  const ledger = createSponsorAdLedger(deps)
  const billing = createSponsorAdBilling({
    ...deps,
    ledger,
    mailer,
    siteName: async () => (await deps.site.settings()).data.site.name,
  })
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
        cron: config.sponsorExpiryCron,
        handler: async () => {
          await closing.expire()
        },
      },
      {
        name: SUBSCRIPTION_CANCEL_JOB,
        handler: async (job: SubscriptionCancelJob) => closing.cancelSubscription(job),
        // A provider that fails (5xx, 429, no answer) is tried again with backoff for about a day.
        retryLimit: 12,
        retryDelaySeconds: config.subscriptionCancelRetrySeconds,
        retryBackoff: true,
      },
      {
        name: SPONSOR_AD_MAIL_JOB,
        handler: async (mail: SponsorAdMail) => billing.sendMail(mail),
        retryLimit: 8,
        retryDelaySeconds: 60,
        retryBackoff: true,
      },
      {
        name: QUEUED_PAYMENT_MAIL_JOB,
        handler: async (mail: FinishedMail) => billing.sendFinishedMail(mail),
        retryLimit: 8,
        retryDelaySeconds: 60,
        retryBackoff: true,
      },
    ],
    onClose: async () => mailer?.close(),
  }
  return { module, paymentHandler: billing.paymentHandler }
}
