import { and, eq, exists, isNull, or, sql } from 'drizzle-orm'
import type { DbOrTx } from '../../db/index.ts'
import { type Jobs, sendMany } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { workMembers, works } from '../works/tables.ts'
import { webhookDeliveries, webhookSubscriptions } from './tables.ts'

export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery'

/** The events of SPEC.md's table, with their extra fields. */
export type WebhookEvent =
  | { event: 'work.created'; workId: string; workName: string }
  | {
      event: 'work.generation.completed'
      workId: string
      workName: string
      itemsCount: number
      generateStatus: string
    }
  | { event: 'deployment.dispatched'; workId: string; providerId: string; providerName: string }
  | { event: 'deployment.completed'; workId: string; providerId: string; providerName: string; url?: string }
  | {
      event: 'deployment.failed'
      workId: string
      providerId: string
      providerName: string
      terminalState: string
      error: string
    }
  | { event: 'webhook.test'; note: string }

/** The body every attempt of a delivery sends: the event's fields, `sentAt` and the subscriber's account. */
export const bodyOf = (event: WebhookEvent, accountId: string, sentAt: Date) =>
  JSON.stringify({ ...event, sentAt: sentAt.toISOString(), accountId })

export interface FanOutDeps {
  clock: Clock
  jobs: Pick<Jobs, 'boss'>
}

/**
 * The fan-out of a work's event, in the transaction of the change that caused it (an outbox): one delivery
 * and its job per active subscription in scope. In scope are the owner's account-wide subscriptions, and the
 * work-scoped subscriptions of the work by any account that may still see it (its owner and its members:
 * a member who was removed gets nothing more). Each body names its subscriber's account.
 */
export function createFanOut({ clock, jobs }: FanOutDeps) {
  return async function fanOut(tx: DbOrTx, workId: string, event: WebhookEvent): Promise<number> {
    const subscriptions = await tx
      .select({ id: webhookSubscriptions.id, userId: webhookSubscriptions.userId })
      .from(webhookSubscriptions)
      .innerJoin(works, eq(works.id, workId))
      .where(
        and(
          eq(webhookSubscriptions.status, 'active'),
          or(
            and(isNull(webhookSubscriptions.workId), eq(webhookSubscriptions.userId, works.ownerId)),
            and(
              eq(webhookSubscriptions.workId, works.id),
              or(
                eq(webhookSubscriptions.userId, works.ownerId),
                exists(
                  tx
                    .select({ one: sql`1` })
                    .from(workMembers)
                    .where(
                      and(
                        eq(workMembers.workId, works.id),
                        eq(workMembers.userId, webhookSubscriptions.userId),
                      ),
                    ),
                ),
              ),
            ),
          ),
        ),
      )
    if (subscriptions.length === 0) return 0
    const now = clock.now()
    // Built once per subscriber account: most events have one (the owner).
    const bodies = new Map<string, string>()
    const body = (accountId: string) => {
      const built = bodies.get(accountId) ?? bodyOf(event, accountId, now)
      bodies.set(accountId, built)
      return built
    }
    const deliveries = await tx
      .insert(webhookDeliveries)
      .values(
        subscriptions.map((subscription) => ({
          userId: subscription.userId,
          subscriptionId: subscription.id,
          event: event.event,
          body: body(subscription.userId),
          status: 'pending' as const,
          createdAt: now,
          updatedAt: now,
        })),
      )
      .returning({ id: webhookDeliveries.id })
    await sendMany(
      jobs,
      WEBHOOK_DELIVERY_JOB,
      deliveries.map((delivery) => ({ deliveryId: delivery.id })),
      { tx },
    )
    return deliveries.length
  }
}
