import { createHmac } from 'node:crypto'
import { and, eq, isNull, lt, ne, or, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx } from '../../db/index.ts'
import { type Jobs, sendMany } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { isUuid } from '../../lib/ids.ts'
import { type AddressPolicy, safeRequest } from '../../lib/safe-http.ts'
import {
  type DeliveryOutcome,
  type DeliveryStatus,
  webhookDeliveries,
  webhookSubscriptions,
} from './tables.ts'

export const WEBHOOK_DELIVERY_JOB = 'webhook-delivery'
export const WEBHOOK_RECOVERY_JOB = 'webhook-delivery-recovery'
/** SPEC.md: a body above 1 MiB is refused before signing. */
export const MAX_BODY_BYTES = 1024 * 1024
/** What is read of a receiver's answer; the rest is never downloaded. */
const MAX_RESPONSE_BYTES = 64 * 1024
const LAST_ERROR_MAX_LENGTH = 500
/** An attempt that has not recorded its outcome this long after its timeout lost its worker. */
export const LEASE_MARGIN_MS = 30_000
export const USER_AGENT = 'Curio-Webhooks/1.0'

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

type Subscription = typeof webhookSubscriptions.$inferSelect
type Delivery = typeof webhookDeliveries.$inferSelect

/** What one attempt came to. */
export interface AttemptResult {
  outcome: DeliveryOutcome
  status: number | null
  error: string | null
  durationMs: number
}

const RETRIED: readonly DeliveryOutcome[] = ['server_error', 'timeout']

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

export const secretContext = (subscriptionId: string) => `webhook-secret:${subscriptionId}`

/** `sha256=<hex>`: HMAC-SHA256 of the exact bytes sent, under the subscription's signing secret. */
export const signatureOf = (secret: string, body: string) =>
  `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`

/**
 * Calls made in one turn of the event loop, run as one: `run` gets every call's input and answers each
 * one's output in the same order (a failure fails them all). The attempts of one fetched batch of jobs
 * start together, and attempts that end together are recorded together: one statement each, not one per
 * delivery.
 */
function coalesced<In, Out>(run: (inputs: In[]) => Promise<Out[]>): (input: In) => Promise<Out> {
  let waiting: { input: In; resolve: (output: Out) => void; reject: (error: unknown) => void }[] = []
  const flush = () => {
    const calls = waiting
    waiting = []
    run(calls.map((call) => call.input)).then(
      (outputs) => {
        for (const [index, call] of calls.entries()) call.resolve(outputs[index] as Out)
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error)
      },
    )
  }
  return (input) =>
    new Promise<Out>((resolve, reject) => {
      if (waiting.length === 0) setImmediate(flush)
      waiting.push({ input, resolve, reject })
    })
}

/** A list as one array parameter (`sql` would spread it into a list of parameters). */
const arrayOf = (values: readonly unknown[], type: 'uuid' | 'text' | 'int') =>
  sql`${sql.param(values)}::${sql.raw(type)}[]`

interface ClaimAsk {
  deliveryId: string
  runId: string
}

interface Success {
  deliveryId: string
  subscriptionId: string | null
  result: AttemptResult
}

/**
 * Deliveries of webhook events: the fan-out that writes one delivery and its job per subscription in the
 * transaction of the change (an outbox), and the job that makes one attempt, records its outcome and, for
 * a failure SPEC.md retries, schedules the next with exponential backoff and full jitter.
 */
export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { db, clock, log, jobs, envelope, timeoutMs, retryBaseMs, retryMaxMs, maxConsecutiveFailures } = deps
  const random = deps.random ?? Math.random

  /** Full jitter: anywhere from 0 to the exponential delay of this attempt, capped. */
  const backoffMs = (attempts: number) =>
    Math.floor(random() * Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(attempts - 1, 40)))

  const enqueue = (tx: DbOrTx, deliveryId: string, startAfter?: Date) =>
    jobs.send(WEBHOOK_DELIVERY_JOB, { deliveryId }, { tx, ...(startAfter ? { startAfter } : {}) })

  /** The request and its classification, as SPEC.md's retry table says. */
  async function send(
    subscription: Pick<Subscription, 'id' | 'url' | 'signingSecret'>,
    delivery: Pick<Delivery, 'id' | 'event' | 'body'>,
  ): Promise<AttemptResult> {
    const bytes = Buffer.byteLength(delivery.body)
    if (bytes > MAX_BODY_BYTES) {
      return {
        outcome: 'payload_too_large',
        status: null,
        error: `The body is ${bytes} bytes, above the 1 MiB limit: it was not sent`,
        durationMs: 0,
      } satisfies AttemptResult
    }
    const secret = envelope.open(subscription.signingSecret, secretContext(subscription.id))
    const signature = signatureOf(secret, delivery.body)
    const result = await safeRequest({
      url: subscription.url,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'x-service-event': delivery.event,
        'x-service-delivery': delivery.id,
        'x-service-signature-256': signature,
        'x-hub-signature-256': signature,
      },
      body: delivery.body,
      timeoutMs,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      policy: deps.policy,
      requireHttps: deps.requireHttps,
    })
    const cut = (text: string) => text.slice(0, LAST_ERROR_MAX_LENGTH)
    switch (result.kind) {
      case 'blocked':
        return {
          outcome: 'ssrf_blocked',
          status: null,
          error: cut(result.reason),
          durationMs: result.durationMs,
        }
      case 'timeout':
        return {
          outcome: 'timeout',
          status: null,
          error: `No complete answer within ${timeoutMs} ms`,
          durationMs: result.durationMs,
        }
      case 'failed':
        return {
          outcome: 'server_error',
          status: null,
          error: cut(result.reason),
          durationMs: result.durationMs,
        }
      case 'response': {
        const { status, durationMs } = result
        if (status >= 200 && status < 300) return { outcome: 'success', status, error: null, durationMs }
        const outcome: DeliveryOutcome =
          status >= 300 && status < 400 ? 'redirect_refused' : status < 500 ? 'client_error' : 'server_error'
        const said = result.body.replace(/\s+/g, ' ').trim()
        return {
          outcome,
          status,
          error: cut(
            `The endpoint answered ${status}${outcome === 'redirect_refused' ? ' (redirects are never followed)' : ''}${said ? `: ${said}` : ''}`,
          ),
          durationMs,
        } satisfies AttemptResult
      }
    }
  }

  /**
   * Records an attempt: a success with those ending at the same time (recordSuccess); a failure in one
   * transaction: the delivery's outcome, the subscription's failure count (reaching the maximum fails the
   * subscription and stops its deliveries) and, for a retried outcome, the next attempt's job.
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
            await enqueue(tx, delivery.id, new Date(clock.nowMs() + backoffMs(delivery.attempts)))
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
   * Claims in one statement: each delivery that is `pending`, or whose attempt outlived its lease, becomes
   * `delivering` with one attempt more under the asking job's run id, and is returned with the subscription
   * it is for. A delivery asked for twice at once is claimed by one of the two.
   */
  const claim = coalesced(async (asks: ClaimAsk[]) => {
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

  /** Ends the subscription's deliveries still to be made (paused, deleted or failed: they stop). */
  async function stopPending(tx: DbOrTx, subscriptionId: string, reason: string) {
    await tx
      .update(webhookDeliveries)
      .set({ status: 'cancelled', lastError: reason, updatedAt: clock.now() })
      .where(
        and(eq(webhookDeliveries.subscriptionId, subscriptionId), eq(webhookDeliveries.status, 'pending')),
      )
  }

  return {
    stopPending,

    /**
     * Writes one delivery and its job per active subscription in scope of the event (the account's
     * account-wide ones and those of the event's work), in `tx`: the deliveries exist exactly when the
     * change does. Returns how many.
     */
    async fanOut(tx: DbOrTx, accountId: string, workId: string | null, event: WebhookEvent): Promise<number> {
      const subscriptions = await tx
        .select({ id: webhookSubscriptions.id })
        .from(webhookSubscriptions)
        .where(
          and(
            eq(webhookSubscriptions.userId, accountId),
            eq(webhookSubscriptions.status, 'active'),
            workId
              ? or(isNull(webhookSubscriptions.workId), eq(webhookSubscriptions.workId, workId))
              : isNull(webhookSubscriptions.workId),
          ),
        )
      if (subscriptions.length === 0) return 0
      const now = clock.now()
      const body = JSON.stringify({ ...event, sentAt: now.toISOString(), accountId })
      const deliveries = await tx
        .insert(webhookDeliveries)
        .values(
          subscriptions.map((subscription) => ({
            userId: accountId,
            subscriptionId: subscription.id,
            event: event.event,
            body,
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
    },

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
        const runId = await enqueue(tx, delivery!.id)
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
          body: JSON.stringify({ ...event, sentAt: now.toISOString(), accountId: subscription.userId }),
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
