import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { type PaymentWebhooksConfig, webhookSecrets } from '../../integrations/payments/registry.ts'
import { createSmtpMailer } from '../../integrations/smtp/mailer.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { SiteService } from '../site/service.ts'
import { adminPaymentEventRoutes } from './admin-routes.ts'
import {
  createPaymentProcessing,
  PAYMENT_EVENTS_SWEEP_JOB,
  PAYMENT_MAIL_JOB,
  type PaymentMail,
} from './processing.ts'
import { createStoredEvents } from './stored-events.ts'
import { paymentWebhookRoutes } from './webhook-routes.ts'

/**
 * Inbound payment webhooks of every registered provider: verified, stored, applied once;
 * their emails through SMTP; the sweep that retries what failed; and the admins' view of it all.
 */
export function paymentsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  jobs: Pick<Jobs, 'send'>
  rateLimit: RateLimit
  site: Pick<SiteService, 'settings'>
  config: Pick<Config, 'appUrl' | 'smtpUrl' | 'smtpFrom' | 'smtpTimeoutMs' | 'paymentEventsSweepCron'> &
    PaymentWebhooksConfig
}) {
  const { config, log } = deps
  const mailer = config.smtpUrl
    ? createSmtpMailer({ url: config.smtpUrl, from: config.smtpFrom, timeoutMs: config.smtpTimeoutMs })
    : undefined
  const processing = createPaymentProcessing({
    ...deps,
    mailEnabled: mailer !== undefined,
    siteName: async () => (await deps.site.settings()).data.site.name,
  })
  const events = createStoredEvents(deps)
  const module: Module = {
    name: 'payments',
    routes: (app) => {
      paymentWebhookRoutes(app, {
        processing,
        rateLimit: deps.rateLimit,
        clock: deps.clock,
        log,
        appUrl: config.appUrl,
        secrets: webhookSecrets(config),
      })
      adminPaymentEventRoutes(app, { events })
    },
    jobs: [
      {
        name: PAYMENT_MAIL_JOB,
        handler: async (mail: PaymentMail) => {
          if (!mailer) return
          const outcome = await mailer.send(mail)
          if (outcome.ok) return
          log.warn(
            { subject: mail.subject, error: outcome.error, retry: outcome.retry },
            'payment email not sent',
          )
          // Thrown, so pg-boss tries again later; a refusal that will not pass is dropped.
          if (outcome.retry) throw new Error(outcome.error)
        },
        retryLimit: 8,
        retryDelaySeconds: 60,
        retryBackoff: true,
      },
      {
        name: PAYMENT_EVENTS_SWEEP_JOB,
        cron: config.paymentEventsSweepCron,
        handler: async () => {
          const { retried, purged } = await processing.sweep()
          if (retried > 0 || purged > 0) log.info({ retried, purged }, 'payment events swept')
        },
      },
    ],
    onClose: async () => mailer?.close(),
  }
  return { processing, module }
}
