import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import { type PaymentWebhooksConfig, webhookSecrets } from '../../integrations/payments/registry.ts'
import type { Clock } from '../../lib/clock.ts'
import { adminPaymentEventRoutes } from './admin-routes.ts'
import type { PaymentEventHandler } from './handler.ts'
import { createPaymentProcessing, PAYMENT_EVENTS_SWEEP_JOB } from './processing.ts'
import { createStoredEvents } from './stored-events.ts'
import { paymentWebhookRoutes } from './webhook-routes.ts'

/**
 * Inbound payment webhooks of every registered provider: verified, stored once and handed to the handlers
 * the modules that care registered (`handlers`, in order), with the outcome recorded; the sweep that
 * retries what failed; and the admins' view of the stored events.
 */
export function paymentsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  rateLimit: RateLimit
  config: Pick<Config, 'appUrl' | 'paymentEventsSweepCron'> & PaymentWebhooksConfig
  handlers: readonly PaymentEventHandler[]
}) {
  const { config, log } = deps
  const processing = createPaymentProcessing(deps)
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
        name: PAYMENT_EVENTS_SWEEP_JOB,
        cron: config.paymentEventsSweepCron,
        handler: async () => {
          const { retried, purged } = await processing.sweep()
          if (retried > 0 || purged > 0) log.info({ retried, purged }, 'payment events swept')
        },
      },
    ],
  }
  return { processing, module }
}
