import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import type { AddressPolicy } from '../../lib/safe-http.ts'
import type { PlatformEvents } from '../events.ts'
import type { WorkAccess } from '../works/access.ts'
import { createWebhookDelivery, WEBHOOK_RECOVERY_JOB } from './delivery.ts'
import { WEBHOOK_DELIVERY_JOB } from './fan-out.ts'
import { LEASE_MARGIN_MS } from './recording.ts'
import { webhookRoutes } from './routes.ts'
import { createWebhookService } from './service.ts'

export interface WebhooksModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  jobs: Pick<Jobs, 'send' | 'boss'>
  envelope: Envelope
  access: Pick<WorkAccess, 'requireView'>
  rateLimit: RateLimit
  policy: AddressPolicy
  requireHttps: boolean
  timeoutMs: number
  retryBaseMs: number
  retryMaxMs: number
  maxConsecutiveFailures: number
  /** Deliveries one instance makes at once. */
  concurrency: number
}

/**
 * Free delivery slots (of WEBHOOK_CONCURRENCY) refilled by one fetch: one queue round trip for many
 * deliveries, while a slow endpoint holds its own slot only (src/jobs startBatchWorker).
 */
const DELIVERY_BATCH_SIZE = 10

/** Signed outbound webhooks: subscriptions, the outbox fan-out of domain events, and the delivery job. */
export function webhooksModule(deps: WebhooksModuleDeps) {
  const delivery = createWebhookDelivery(deps)
  const webhooks = createWebhookService({ ...deps, delivery })

  /** The event to every subscription in scope of its work, in the change's transaction. */
  const { fanOut } = delivery

  const module: Module<PlatformEvents> = {
    name: 'webhooks',
    routes: (app) => webhookRoutes(app, { webhooks, rateLimit: deps.rateLimit }),
    jobs: [
      {
        name: WEBHOOK_DELIVERY_JOB,
        handler: async ({ deliveryId }: { deliveryId: string }, job) => delivery.attempt(deliveryId, job.id),
        // The delivery schedules its own retries; these are for a handler that failed (a lost database).
        retryLimit: 5,
        retryDelaySeconds: 10,
        concurrency: deps.concurrency,
        batchSize: DELIVERY_BATCH_SIZE,
        // A job taken by a process that died before claiming its delivery runs again once the attempt's lease
        // is over (a claimed one is queued again by `recover`).
        expireInSeconds: Math.ceil((deps.timeoutMs + LEASE_MARGIN_MS) / 1000),
      },
      {
        name: WEBHOOK_RECOVERY_JOB,
        // Another instance's crash is noticed within a minute, without waiting for a restart.
        cron: '* * * * *',
        handler: async () => {
          await delivery.recover()
        },
      },
    ],
    // A restart finds the attempts its own crash left behind.
    onReady: async () => {
      await delivery.recover()
    },
    listeners: (events) => {
      events.on('WorkCreated', ({ workId, workName }, tx) =>
        fanOut(tx, workId, { event: 'work.created', workId, workName }),
      )
      events.on('WorkGenerationCompleted', ({ workId, workName, itemsCount, generateStatus }, tx) =>
        fanOut(tx, workId, {
          event: 'work.generation.completed',
          workId,
          workName,
          itemsCount,
          generateStatus,
        }),
      )
      events.on('DeploymentDispatched', ({ workId, providerId, providerName }, tx) =>
        fanOut(tx, workId, { event: 'deployment.dispatched', workId, providerId, providerName }),
      )
      events.on('DeploymentCompleted', ({ workId, providerId, providerName, url }, tx) =>
        fanOut(tx, workId, {
          event: 'deployment.completed',
          workId,
          providerId,
          providerName,
          ...(url === undefined ? {} : { url }),
        }),
      )
      events.on('DeploymentFailed', ({ workId, providerId, providerName, terminalState, error }, tx) =>
        fanOut(tx, workId, {
          event: 'deployment.failed',
          workId,
          providerId,
          providerName,
          terminalState,
          error,
        }),
      )
    },
  }
  return { webhooks, delivery, module }
}
