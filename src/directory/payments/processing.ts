import { and, eq, inArray, lt, lte } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { PaymentEvent } from '../../integrations/payments/contract/events.ts'
import { normalisePaymentEvent } from '../../integrations/payments/registry.ts'
import type { Clock } from '../../lib/clock.ts'
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts'
import type { HandledPaymentEvent, PaymentEventHandler } from './handler.ts'
import { paymentWebhookEvents } from './tables.ts'

/** SPEC.md: an event id seen within this long is acknowledged and not processed again. */
export const IDEMPOTENCY_WINDOW_MS = 24 * HOUR_MS
/** A stored event whose processing failed is tried again this many times in all, then left `failed`. */
export const MAX_PROCESSING_ATTEMPTS = 8
/** The first retry waits this long, each next one twice as long, up to an hour. */
const RETRY_BASE_MS = MINUTE_MS

/** The scheduled sweep: stored events not yet processed are tried again; old processed ones go. */
export const PAYMENT_EVENTS_SWEEP_JOB = 'payment-events-sweep'

type EventRow = typeof paymentWebhookEvents.$inferSelect

export interface PaymentProcessingDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  /** The modules' parts in each event, in this order. */
  handlers: readonly PaymentEventHandler[]
}

export type PaymentProcessing = ReturnType<typeof createPaymentProcessing>

/**
 * Inbound payment events, from storage to effect, whatever they pay for. An event is stored (raw body,
 * provider, id, type) before it is acknowledged; the registered handlers' effects then run in one
 * transaction with the row that marks it processed, which is also its idempotency record. A crash between
 * the two leaves a stored, unprocessed event that the provider's next delivery, or the sweep, processes:
 * never twice, because processing takes the row with `FOR UPDATE SKIP LOCKED` and only while it is still
 * `received`.
 */
export function createPaymentProcessing({ db, clock, log, handlers }: PaymentProcessingDeps) {
  /** The effects of one event, in the caller's transaction; returns what they were, for the stored event. */
  async function apply(tx: Tx, event: PaymentEvent): Promise<string> {
    if (event.type === 'ignored') return `unhandled event type ${event.providerType}`
    const outcomes: string[] = []
    for (const handler of handlers)
      outcomes.push(await handler.onPaymentEvent(tx, event as HandledPaymentEvent))
    return outcomes.join('; ')
  }

  /** Takes a stored event and applies it, all in one transaction; `skipped` when it is done or taken. */
  async function process(id: string): Promise<'processed' | 'skipped' | 'failed'> {
    let stored: EventRow | undefined
    try {
      return await db.transaction(async (tx) => {
        const [row] = await tx
          .select()
          .from(paymentWebhookEvents)
          .where(and(eq(paymentWebhookEvents.id, id), eq(paymentWebhookEvents.status, 'received')))
          .for('update', { skipLocked: true })
        if (!row) return 'skipped' as const
        stored = row
        const normalised = normalisePaymentEvent(
          row.provider,
          JSON.parse(row.rawBody.toString('utf8')),
          row.eventId,
        )
        if (!normalised.ok) throw new Error(normalised.message)
        const outcome = await apply(tx, { ...normalised.event, id: row.eventId })
        await tx
          .update(paymentWebhookEvents)
          .set({
            status: 'processed',
            attempts: row.attempts + 1,
            outcome,
            lastError: null,
            processedAt: clock.now(),
            nextAttemptAt: null,
          })
          .where(eq(paymentWebhookEvents.id, id))
        log.info(
          { provider: row.provider, eventId: row.eventId, type: row.type, outcome },
          'payment event processed',
        )
        return 'processed' as const
      })
    } catch (error) {
      if (!stored) throw error
      const attempts = stored.attempts + 1
      const message = error instanceof Error ? error.message : String(error)
      const giveUp = attempts >= MAX_PROCESSING_ATTEMPTS
      const next = new Date(clock.now().getTime() + Math.min(HOUR_MS, RETRY_BASE_MS * 2 ** (attempts - 1)))
      await db
        .update(paymentWebhookEvents)
        .set({
          status: giveUp ? 'failed' : 'received',
          attempts,
          lastError: message.slice(0, 1000),
          nextAttemptAt: giveUp ? null : next,
        })
        .where(and(eq(paymentWebhookEvents.id, id), eq(paymentWebhookEvents.status, 'received')))
      log.error(
        {
          provider: stored.provider,
          eventId: stored.eventId,
          attempts,
          err: message,
          next: giveUp ? 'failed' : next,
        },
        'payment event processing failed',
      )
      return 'failed'
    }
  }

  return {
    apply,
    process,

    /**
     * Stores a verified event and processes it. A duplicate within the idempotency window is not processed
     * again; one stored but not yet processed (an earlier delivery failed or its instance died) is.
     */
    async receive(
      event: PaymentEvent,
      rawBody: Buffer,
    ): Promise<'processed' | 'duplicate' | 'failed' | 'skipped'> {
      const now = clock.now()
      const row = {
        provider: event.provider,
        eventId: event.id,
        type: event.type,
        providerType: event.providerType,
        rawBody,
        receivedAt: now,
      }
      let failure: unknown
      try {
        // Stored and applied in one transaction: the insert claims the id (a duplicate arriving meanwhile
        // waits for it, then finds it), and the row commits with the effects or not at all.
        const applied = await db.transaction(async (tx) => {
          const [inserted] = await tx
            .insert(paymentWebhookEvents)
            .values({ ...row, status: 'processed', attempts: 1, processedAt: now })
            .onConflictDoNothing({ target: [paymentWebhookEvents.provider, paymentWebhookEvents.eventId] })
            .returning({ id: paymentWebhookEvents.id })
          if (!inserted) return false
          const outcome = await apply(tx, event)
          await tx
            .update(paymentWebhookEvents)
            .set({ outcome })
            .where(eq(paymentWebhookEvents.id, inserted.id))
          log.info(
            { provider: event.provider, eventId: event.id, type: event.type, outcome },
            'payment event processed',
          )
          return true
        })
        if (applied) return 'processed'
      } catch (error) {
        failure = error
      }
      if (failure !== undefined) {
        // Its effects failed: the event is stored on its own, to be retried from its stored copy. If even
        // that fails, the error reaches the route, which does not acknowledge it.
        const message = failure instanceof Error ? failure.message : String(failure)
        await db
          .insert(paymentWebhookEvents)
          .values({
            ...row,
            status: 'received',
            attempts: 1,
            lastError: message.slice(0, 1000),
            nextAttemptAt: new Date(now.getTime() + RETRY_BASE_MS),
          })
          .onConflictDoNothing({ target: [paymentWebhookEvents.provider, paymentWebhookEvents.eventId] })
        log.error(
          { provider: event.provider, eventId: event.id, attempts: 1, err: message },
          'payment event processing failed',
        )
        return 'failed'
      }
      const [seen] = await db
        .select({ id: paymentWebhookEvents.id, status: paymentWebhookEvents.status })
        .from(paymentWebhookEvents)
        .where(
          and(eq(paymentWebhookEvents.provider, event.provider), eq(paymentWebhookEvents.eventId, event.id)),
        )
      if (seen?.status === 'received') {
        const outcome = await process(seen.id)
        return outcome === 'skipped' ? 'duplicate' : outcome
      }
      return 'duplicate'
    },

    /** The sweep: stored events whose retry is due are processed again; processed ones past the window go. */
    async sweep(limit = 100): Promise<{ retried: number; purged: number }> {
      const now = clock.now()
      const due = await db
        .select({ id: paymentWebhookEvents.id })
        .from(paymentWebhookEvents)
        .where(and(eq(paymentWebhookEvents.status, 'received'), lte(paymentWebhookEvents.nextAttemptAt, now)))
        .orderBy(paymentWebhookEvents.nextAttemptAt)
        .limit(limit)
      let retried = 0
      for (const { id } of due) if ((await process(id)) !== 'skipped') retried++
      const purged = await db
        .delete(paymentWebhookEvents)
        .where(
          and(
            inArray(paymentWebhookEvents.status, ['processed', 'failed']),
            lt(paymentWebhookEvents.receivedAt, new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS)),
          ),
        )
        .returning({ id: paymentWebhookEvents.id })
      return { retried, purged: purged.length }
    },
  }
}
