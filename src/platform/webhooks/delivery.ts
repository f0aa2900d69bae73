import { and, eq, lt } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import { type Jobs, sendMany } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { isUuid } from '../../lib/ids.ts'
import type { AddressPolicy } from '../../lib/safe-http.ts'
import { bodyOf, createFanOut, WEBHOOK_DELIVERY_JOB, type WebhookEvent } from './fan-out.ts'
import { createRecording, LEASE_MARGIN_MS } from './recording.ts'
import { createSender } from './send.ts'
import { webhookDeliveries, type webhookSubscriptions } from './tables.ts'

export const WEBHOOK_RECOVERY_JOB = 'webhook-delivery-recovery'

type Subscription = typeof webhookSubscriptions.$inferSelect
type Delivery = typeof webhookDeliveries.$inferSelect

export interface WebhookDeliveryDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'warn' | 'info'>
  jobs: Pick<Jobs, 'send' | 'boss'>
  envelope: Envelope
  policy: AddressPolicy
  requireHttps: boolean
  timeoutMs: number
  retryBaseMs: number
  retryMaxMs: number
  maxConsecutiveFailures: number
  /** Jitter's source, in [0, 1). */
  random?: () => number
}

/**
 * Deliveries of webhook events: the fan-out that writes one delivery and its job per subscription in the
 * transaction of the change (an outbox, fan-out.ts), and the job that claims a delivery, makes one signed
 * attempt (send.ts) and records its outcome, scheduling the next attempt of a retried failure
 * (recording.ts).
 */
export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { db, clock, log, jobs, timeoutMs } = deps
  const send = createSender(deps)
  const { claim, record, stopPending } = createRecording(deps)

  return {
    stopPending,
    fanOut: createFanOut(deps),

    /** A new delivery of an earlier one's body (re-signed at its attempt with the current secret). */
    async redeliver(original: Delivery): Promise<{ deliveryId: string; runId: string | null }> {
      return db.transaction(async (tx) => {
        const now = clock.now()
        const [delivery] = await tx
          .insert(webhookDeliveries)
          .values({
            userId: original.userId,
            subscriptionId: original.subscriptionId,
            event: original.event,
            body: original.body,
            status: 'pending',
            redeliveryOf: original.id,
            createdAt: now,
            updatedAt: now,
          })
          .returning({ id: webhookDeliveries.id })
        const runId = await jobs.send(WEBHOOK_DELIVERY_JOB, { deliveryId: delivery!.id }, { tx })
        return { deliveryId: delivery!.id, runId }
      })
    },

    /** One attempt at once, recorded as a delivery and never retried: the test endpoint. */
    async sendNow(subscription: Subscription, event: WebhookEvent) {
      const now = clock.now()
      const [delivery] = await db
        .insert(webhookDeliveries)
        .values({
          userId: subscription.userId,
          subscriptionId: subscription.id,
          event: event.event,
          body: bodyOf(event, subscription.userId, now),
          status: 'delivering',
          attempts: 1,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
      const result = await send(subscription, delivery!)
      await record(delivery!, result, false)
      return { deliveryId: delivery!.id, ...result }
    },

    /**
     * Queues again the attempts whose worker died (a crash, a kill): a delivery still `delivering` long
     * after its attempt's timeout. Its job would otherwise wait for the queue's own expiry. Returns how many.
     */
    async recover(): Promise<number> {
      const stale = await db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.status, 'delivering'),
            lt(webhookDeliveries.updatedAt, new Date(clock.nowMs() - timeoutMs - LEASE_MARGIN_MS)),
          ),
        )
      await sendMany(
        jobs,
        WEBHOOK_DELIVERY_JOB,
        stale.map((delivery) => ({ deliveryId: delivery.id })),
      )
      if (stale.length > 0)
        log.warn({ deliveries: stale.length }, 'webhook attempts without a worker queued again')
      return stale.length
    },

    /** The job: one attempt of the delivery, unless it is done, cancelled or being attempted elsewhere. */
    async attempt(deliveryId: string, runId: string): Promise<void> {
      // Not a delivery's id: nothing to claim, and it must not fail the statement of the whole batch.
      if (!isUuid(deliveryId)) {
        log.warn({ deliveryId, runId }, 'webhook delivery job without a delivery id')
        return
      }
      const row = await claim({ deliveryId, runId })
      if (!row) return
      const { delivery, subscription } = row
      if (subscription?.status !== 'active') {
        await db
          .update(webhookDeliveries)
          .set({
            status: 'cancelled',
            lastError: subscription
              ? `The subscription is ${subscription.status}`
              : 'The subscription was deleted',
            updatedAt: clock.now(),
          })
          .where(eq(webhookDeliveries.id, delivery.id))
        return
      }
      const result = await send(subscription, delivery)
      const status = await record(delivery, result, true)
      log.info(
        { deliveryId, outcome: result.outcome, status: result.status, next: status },
        'webhook attempt',
      )
    },
  }
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>
