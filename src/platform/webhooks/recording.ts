import { and, eq, lt, ne, or, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx } from '../../db/index.ts'
import { arrayOf } from '../../db/queries.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { coalesced } from '../../lib/coalesce.ts'
import { WEBHOOK_DELIVERY_JOB } from './fan-out.ts'
import type { AttemptResult } from './send.ts'
import {
  type DeliveryOutcome,
  type DeliveryStatus,
  webhookDeliveries,
  webhookSubscriptions,
} from './tables.ts'

/** An attempt that has not recorded its outcome this long after its timeout lost its worker. */
export const LEASE_MARGIN_MS = 30_000

const RETRIED: readonly DeliveryOutcome[] = ['server_error', 'timeout']

type Delivery = typeof webhookDeliveries.$inferSelect

export interface RecordingDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'warn'>
  jobs: Pick<Jobs, 'send'>
  timeoutMs: number
  retryBaseMs: number
  retryMaxMs: number
  maxConsecutiveFailures: number
  /** Jitter's source, in [0, 1). */
  random?: () => number
}

interface Success {
  deliveryId: string
  subscriptionId: string | null
  result: AttemptResult
}

/**
 * The state of deliveries around an attempt: the claim that makes one worker its only sender, and the
 * record of its outcome (a success; a failure with the subscription's failure count, its end at the
 * maximum, and for a failure SPEC.md retries the next attempt's job, with exponential backoff and full
 * jitter).
 */
export function createRecording(deps: RecordingDeps) {
  const { db, clock, log, jobs, timeoutMs, retryBaseMs, retryMaxMs, maxConsecutiveFailures } = deps
  const random = deps.random ?? Math.random

  /** Full jitter: anywhere from 0 to the exponential delay of this attempt, capped. */
  const backoffMs = (attempts: number) =>
    Math.floor(random() * Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(attempts - 1, 40)))

  /** Ends the subscription's deliveries still to be made (paused, deleted or failed: they stop). */
  async function stopPending(tx: DbOrTx, subscriptionId: string, reason: string) {
    await tx
      .update(webhookDeliveries)
      .set({ status: 'cancelled', lastError: reason, updatedAt: clock.now() })
      .where(
        and(eq(webhookDeliveries.subscriptionId, subscriptionId), eq(webhookDeliveries.status, 'pending')),
      )
  }

  /**
   * Claims in one statement: each delivery that is `pending`, or whose attempt outlived its lease, becomes
   * `delivering` with one attempt more under the asking job's run id, and is returned with the subscription
   * it is for. A delivery asked for twice at once is claimed by one of the two.
   */
  const claim = coalesced(async (asks: { deliveryId: string; runId: string }[]) => {
    const now = clock.now()
    const asked = sql`unnest(${arrayOf(
      asks.map((ask) => ask.deliveryId),
      'uuid',
    )}, ${arrayOf(
      asks.map((ask) => ask.runId),
      'text',
    )}) as asked(id, run_id)`
    const claimed = db.$with('claimed').as(
      db
        .update(webhookDeliveries)
        .set({
          status: 'delivering',
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          triggerRunId: sql`asked.run_id`,
          updatedAt: now,
        })
        .from(asked)
        .where(
          and(
            sql`${webhookDeliveries.id} = asked.id`,
            or(
              eq(webhookDeliveries.status, 'pending'),
              // An attempt whose worker died: taken again once it cannot be running any more.
              and(
                eq(webhookDeliveries.status, 'delivering'),
                lt(webhookDeliveries.updatedAt, new Date(now.getTime() - timeoutMs - LEASE_MARGIN_MS)),
              ),
            ),
          ),
        )
        .returning({
          id: webhookDeliveries.id,
          runId: webhookDeliveries.triggerRunId,
          subscriptionId: webhookDeliveries.subscriptionId,
          event: webhookDeliveries.event,
          body: webhookDeliveries.body,
          attempts: webhookDeliveries.attempts,
        }),
    )
    const rows = await db
      .with(claimed)
      .select({
        runId: claimed.runId,
        delivery: {
          id: claimed.id,
          subscriptionId: claimed.subscriptionId,
          event: claimed.event,
          body: claimed.body,
          attempts: claimed.attempts,
        },
        subscription: {
          id: webhookSubscriptions.id,
          url: webhookSubscriptions.url,
          status: webhookSubscriptions.status,
          signingSecret: webhookSubscriptions.signingSecret,
        },
      })
      .from(claimed)
      .leftJoin(webhookSubscriptions, eq(webhookSubscriptions.id, claimed.subscriptionId))
    const byRun = new Map(rows.map((row) => [row.runId, row]))
    return asks.map((ask) => {
      const row = byRun.get(ask.runId)
      return row?.delivery.id === ask.deliveryId ? row : undefined
    })
  })

  /**
   * Successes in one statement: the deliveries `succeeded`, their subscriptions' failure counts back to 0
   * (written only where not 0 already, so deliveries to one subscription do not queue on its row).
   */
  const recordSuccess = coalesced(async (successes: Success[]): Promise<DeliveryStatus[]> => {
    const now = clock.now()
    const subscriptionIds = [...new Set(successes.flatMap((success) => success.subscriptionId ?? []))]
    const reset = db.$with('reset').as(
      db
        .update(webhookSubscriptions)
        .set({ consecutiveFailures: 0, updatedAt: now })
        .where(
          and(
            sql`${webhookSubscriptions.id} = any(${arrayOf(subscriptionIds, 'uuid')})`,
            ne(webhookSubscriptions.consecutiveFailures, 0),
          ),
        )
        .returning({ id: webhookSubscriptions.id }),
    )
    const done = sql`unnest(${arrayOf(
      successes.map((success) => success.deliveryId),
      'uuid',
    )}, ${arrayOf(
      successes.map((success) => success.result.status),
      'int',
    )}, ${arrayOf(
      successes.map((success) => success.result.durationMs),
      'int',
    )}) as done(id, response_status, duration_ms)`
    await db
      .with(reset)
      .update(webhookDeliveries)
      .set({
        status: 'succeeded',
        lastOutcome: 'success',
        lastResponseStatus: sql`done.response_status`,
        lastError: null,
        durationMs: sql`done.duration_ms`,
        updatedAt: now,
      })
      .from(done)
      .where(sql`${webhookDeliveries.id} = done.id`)
    return successes.map(() => 'succeeded')
  })

  /**
   * Records an attempt: a success with those ending at the same time (recordSuccess); a failure in one
   * transaction: the delivery's outcome, the subscription's failure count (reaching the maximum fails the
   * subscription and stops its deliveries) and, for a retried outcome when `retry`, the next attempt's job.
   */
  async function record(
    delivery: Pick<Delivery, 'id' | 'subscriptionId' | 'attempts'>,
    result: AttemptResult,
    retry: boolean,
  ): Promise<DeliveryStatus> {
    if (result.outcome === 'success') {
      return recordSuccess({ deliveryId: delivery.id, subscriptionId: delivery.subscriptionId, result })
    }
    return db.transaction(async (tx) => {
      const now = clock.now()
      let status: DeliveryStatus = 'failed'
      if (delivery.subscriptionId) {
        const [subscription] = await tx
          .update(webhookSubscriptions)
          .set({ consecutiveFailures: sql`${webhookSubscriptions.consecutiveFailures} + 1`, updatedAt: now })
          .where(eq(webhookSubscriptions.id, delivery.subscriptionId))
          .returning()
        if (subscription) {
          if (
            subscription.status === 'active' &&
            subscription.consecutiveFailures >= maxConsecutiveFailures
          ) {
            await tx
              .update(webhookSubscriptions)
              .set({ status: 'failed', updatedAt: now })
              .where(eq(webhookSubscriptions.id, subscription.id))
            await stopPending(tx, subscription.id, 'The subscription failed: too many consecutive failures')
            log.warn({ subscriptionId: subscription.id }, 'webhook subscription failed')
          } else if (retry && subscription.status === 'active' && RETRIED.includes(result.outcome)) {
            status = 'pending'
            const startAfter = new Date(clock.nowMs() + backoffMs(delivery.attempts))
            await jobs.send(WEBHOOK_DELIVERY_JOB, { deliveryId: delivery.id }, { tx, startAfter })
          }
        }
      }
      await tx
        .update(webhookDeliveries)
        .set({
          status,
          lastOutcome: result.outcome,
          lastResponseStatus: result.status,
          lastError: result.error,
          durationMs: result.durationMs,
          updatedAt: now,
        })
        .where(eq(webhookDeliveries.id, delivery.id))
      return status
    })
  }

  return { claim, record, stopPending }
}
