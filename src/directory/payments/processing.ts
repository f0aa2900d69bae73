import { and, eq, inArray, isNull, lt, lte, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import type { PaymentEvent } from '../../integrations/payments/contract/events.ts'
import { normalisePaymentEvent, paymentProvider } from '../../integrations/payments/registry.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { HOUR_MS, MINUTE_MS } from '../../lib/time.ts'
import { users } from '../accounts/tables.ts'
import { addPeriods, lockAdForPayment } from '../sponsor-ads/rows.ts'
import { OPEN_SPONSOR_AD_STATUSES, sponsorAds } from '../sponsor-ads/tables.ts'
import { type PaymentKind, paymentSubscriptions, paymentWebhookEvents, sponsorAdPayments } from './tables.ts'

/** SPEC.md: an event id seen within this long is acknowledged and not processed again. */
export const IDEMPOTENCY_WINDOW_MS = 24 * HOUR_MS
/** A stored event whose processing failed is tried again this many times in all, then left `failed`. */
export const MAX_PROCESSING_ATTEMPTS = 8
/** The first retry waits this long, each next one twice as long, up to an hour. */
const RETRY_BASE_MS = MINUTE_MS

/** The queue of the emails payments send (confirmations, failures, trial endings). */
export const PAYMENT_MAIL_JOB = 'payment-mail'
/** The scheduled sweep: stored events not yet processed are tried again; old processed ones go. */
export const PAYMENT_EVENTS_SWEEP_JOB = 'payment-events-sweep'

export interface PaymentMail {
  to: string
  subject: string
  text: string
}

type AdRow = typeof sponsorAds.$inferSelect
type EventRow = typeof paymentWebhookEvents.$inferSelect

export interface PaymentProcessingDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  jobs: Pick<Jobs, 'send'>
  /** Whether payment emails are sent (SMTP is configured). */
  mailEnabled: boolean
  siteName: () => Promise<string>
}

export type PaymentProcessing = ReturnType<typeof createPaymentProcessing>

/**
 * Inbound payment events, from storage to effect. An event is stored (raw body, provider, id, type)
 * before it is acknowledged; its effects then run in one transaction with the row that marks it
 * processed, which is also its idempotency record. A crash between the two leaves a stored, unprocessed
 * event that the provider's next delivery, or the sweep, processes: never twice, because processing
 * takes the row with `FOR UPDATE SKIP LOCKED` and only while it is still `received`.
 */
export function createPaymentProcessing({
  db,
  clock,
  log,
  jobs,
  mailEnabled,
  siteName,
}: PaymentProcessingDeps) {
  /**
   * Queues an email to the ad's owner in the transaction (nothing without SMTP); `site` is the site's
   * name, read before the transaction opened.
   */
  async function mailOwner(tx: Tx, site: string, ad: AdRow, subject: string, lines: string[]) {
    if (!mailEnabled) return
    const [owner] = await tx.select({ email: users.email }).from(users).where(eq(users.id, ad.userId))
    if (!owner) return
    const message: PaymentMail = {
      to: owner.email,
      subject: `[${site}] ${subject}`,
      text: [...lines, '', `-- ${site}`].join('\n'),
    }
    await jobs.send(PAYMENT_MAIL_JOB, message, { tx })
  }

  /** Keeps SPEC.md's normalised subscription of the event; a cancelled one is not revived by a late update. */
  async function upsertSubscription(tx: Tx, event: PaymentEvent, ad: AdRow | null, status?: string) {
    const details = event.subscription
    if (!details?.subscriptionId) return
    const now = clock.now()
    const newStatus = status ?? details.status ?? 'active'
    const values = {
      provider: event.provider,
      subscriptionId: details.subscriptionId,
      userId: ad?.userId ?? null,
      sponsorAdId: ad?.id ?? null,
      planId: ad ? `sponsor_ad_${ad.interval}` : null,
      status: newStatus,
      startDate: now,
      endDate: details.currentPeriodEnd,
      priceId: details.priceId,
      customerId: details.customerId,
      currency: event.currency,
      amount: event.amount,
      interval: details.interval,
      intervalCount: details.interval ? 1 : null,
      trialStart: null,
      trialEnd: details.trialEnd,
      cancelledAt: details.cancelledAt,
      cancelAtPeriodEnd: details.cancelAtPeriodEnd ?? false,
      cancelReason: null,
      metadata: event.metadata ? { ...event.metadata } : {},
      createdAt: now,
      updatedAt: now,
    }
    const ps = paymentSubscriptions
    const keep = (column: keyof typeof values & keyof typeof ps.$inferSelect) =>
      sql.raw(`coalesce(excluded.${ps[column].name}, payment_subscriptions.${ps[column].name})`)
    await tx
      .insert(ps)
      .values(values)
      .onConflictDoUpdate({
        target: [ps.provider, ps.subscriptionId],
        set: {
          // An ended subscription stays ended: an update delivered late does not bring it back.
          status: sql`case when ${ps.status} in ('canceled', 'cancelled', 'expired', 'revoked', 'incomplete_expired') and excluded.status not in ('canceled', 'cancelled', 'expired', 'revoked', 'incomplete_expired') then ${ps.status} else excluded.status end`,
          userId: keep('userId'),
          sponsorAdId: keep('sponsorAdId'),
          planId: keep('planId'),
          endDate: keep('endDate'),
          priceId: keep('priceId'),
          customerId: keep('customerId'),
          currency: keep('currency'),
          amount: keep('amount'),
          interval: keep('interval'),
          intervalCount: keep('intervalCount'),
          trialEnd: keep('trialEnd'),
          cancelledAt: keep('cancelledAt'),
          cancelAtPeriodEnd:
            details.cancelAtPeriodEnd === null ? sql`${ps.cancelAtPeriodEnd}` : details.cancelAtPeriodEnd,
          metadata: event.metadata ? { ...event.metadata } : sql`${ps.metadata}`,
          updatedAt: now,
        },
      })
  }

  /** Records a payment-like row once per reference; false when it was recorded before. */
  async function record(
    tx: Tx,
    event: PaymentEvent,
    ad: AdRow | null,
    reference: string,
    kind: PaymentKind,
    effect: string,
  ): Promise<boolean> {
    const inserted = await tx
      .insert(sponsorAdPayments)
      .values({
        provider: event.provider,
        reference,
        kind,
        eventId: event.id,
        eventType: event.providerType,
        sponsorAdId: ad?.id ?? null,
        userId: ad?.userId ?? null,
        amount: event.amount === null ? null : Math.round(event.amount),
        currency: event.currency,
        subscriptionId: event.subscription?.subscriptionId ?? null,
        customerId: event.customerId,
        effect,
        createdAt: clock.now(),
      })
      .onConflictDoNothing({ target: [sponsorAdPayments.provider, sponsorAdPayments.reference] })
      .returning({ id: sponsorAdPayments.id })
    return inserted.length > 0
  }

  /** A payment received: recorded once, and moving its ad as CONTRACT.md says. */
  async function applyPayment(tx: Tx, event: PaymentEvent, ad: AdRow | null, site: string): Promise<string> {
    const payment = event.payment
    if (!payment) return 'not a completed payment; nothing to apply'
    const now = clock.now()
    let effect: 'submitted' | 'renewed' | 'credited' | 'none' = 'none'
    let changes: Partial<typeof sponsorAds.$inferInsert> = {}
    if (ad) {
      if (ad.status === 'pending_payment') {
        effect = 'submitted'
        changes = { status: 'pending', paidAt: ad.paidAt ?? now, unusedPeriods: ad.unusedPeriods + 1 }
      } else if (ad.status === 'pending') {
        // Paid again while in review: the approval gives every period paid for.
        effect = 'credited'
        changes = { unusedPeriods: ad.unusedPeriods + 1 }
      } else if (ad.status === 'active' || ad.status === 'expired') {
        // A renewal: a new period from the later of now and its end date.
        effect = 'renewed'
        const from = ad.endDate && ad.endDate.getTime() > now.getTime() ? ad.endDate : now
        changes = {
          status: 'active',
          startDate: ad.startDate ?? now,
          endDate: addPeriods(from, ad.interval, 1),
        }
      }
    }
    const fresh = await record(tx, event, ad, payment.reference, payment.kind, effect)
    const subscriptionId = event.subscription?.subscriptionId ?? null
    if (!fresh) {
      // The same payment, reported again with what the first report lacked (LemonSqueezy's order comes
      // before its subscription): the ad learns its subscription, so a cancel can reach it.
      if (ad && subscriptionId && !payment.reference.startsWith('initial:')) {
        const learnt = await tx
          .update(sponsorAdPayments)
          .set({ subscriptionId })
          .where(
            and(
              eq(sponsorAdPayments.provider, event.provider),
              eq(sponsorAdPayments.reference, payment.reference),
              eq(sponsorAdPayments.sponsorAdId, ad.id),
              isNull(sponsorAdPayments.subscriptionId),
            ),
          )
          .returning({ id: sponsorAdPayments.id })
        if (learnt.length > 0) {
          await tx.update(sponsorAds).set({ subscriptionId, updatedAt: now }).where(eq(sponsorAds.id, ad.id))
          return `payment ${payment.reference} was recorded before; its subscription ${subscriptionId} noted`
        }
      }
      return `payment ${payment.reference} was recorded before; nothing applied again`
    }
    if (!ad) return `payment ${payment.reference} recorded; it names no sponsor ad of this site`
    if (effect === 'none') {
      log.warn(
        { sponsorAdId: ad.id, status: ad.status, reference: payment.reference, provider: event.provider },
        'payment received for a sponsor ad that is closed; refund it at the provider if it should not stand',
      )
      return `payment ${payment.reference} recorded; the ad is ${ad.status}, so nothing moved`
    }
    await tx
      .update(sponsorAds)
      .set({
        ...changes,
        ...(payment.kind === 'initial' || !ad.subscriptionId
          ? {
              paymentProvider: event.provider === 'solidgate' ? ad.paymentProvider : event.provider,
              ...(subscriptionId ? { subscriptionId } : {}),
              ...(event.customerId ? { customerId: event.customerId } : {}),
            }
          : {}),
        updatedAt: now,
      })
      .where(eq(sponsorAds.id, ad.id))
    const what =
      effect === 'submitted'
        ? 'Your payment was received. Your ad is now waiting for review; it starts running once approved.'
        : effect === 'credited'
          ? 'Your payment was received. Your ad is still waiting for review; the approval will start every period paid for.'
          : `Your payment was received and your ad runs until ${(changes.endDate as Date).toISOString().slice(0, 10)}.`
    await mailOwner(tx, site, ad, `Payment received for your sponsor ad: ${ad.title}`, [
      what,
      '',
      `Ad: ${ad.title} (${ad.interval})`,
      ...(event.amount === null ? [] : [`Amount: ${formatAmount(event.amount, event.currency)}`]),
    ])
    return `payment ${payment.reference} applied: ad ${ad.id} ${effect === 'submitted' ? 'moved to pending' : effect}`
  }

  /** The effects of one event, in the caller's transaction; returns what it did, for the stored event. */
  async function apply(tx: Tx, event: PaymentEvent, site = ''): Promise<string> {
    if (event.type === 'ignored') return `unhandled event type ${event.providerType}`
    const ad = await lockAdForPayment(tx, {
      sponsorAdId: event.metadata?.sponsorAdId ?? null,
      provider: event.provider,
      subscriptionId: event.subscription?.subscriptionId ?? null,
    })
    if (!ad && (event.metadata || event.payment)) {
      log.warn(
        { provider: event.provider, eventId: event.id, sponsorAdId: event.metadata?.sponsorAdId },
        'payment event for an unknown sponsor ad',
      )
    }
    const now = clock.now()
    switch (event.type) {
      case 'payment_succeeded':
      case 'subscription_payment_succeeded':
        if (event.type === 'subscription_payment_succeeded') await upsertSubscription(tx, event, ad)
        return applyPayment(tx, event, ad, site)
      case 'subscription_created':
        await upsertSubscription(tx, event, ad)
        return applyPayment(tx, event, ad, site)
      case 'subscription_updated':
        await upsertSubscription(tx, event, ad)
        return `subscription ${event.subscription?.subscriptionId ?? '(none)'} updated`
      case 'subscription_cancelled': {
        await upsertSubscription(tx, event, ad, event.subscription?.status ?? 'cancelled')
        const subscriptionId = event.subscription?.subscriptionId ?? null
        const sameSubscription =
          !ad?.subscriptionId || !subscriptionId || ad.subscriptionId === subscriptionId
        if (ad && sameSubscription && (OPEN_SPONSOR_AD_STATUSES as readonly string[]).includes(ad.status)) {
          await tx
            .update(sponsorAds)
            .set({
              status: 'cancelled',
              cancelReason: `The subscription was cancelled at ${paymentProvider(event.provider).name}`,
              cancelledAt: now,
              cancelledBy: null,
              updatedAt: now,
            })
            .where(eq(sponsorAds.id, ad.id))
          return `subscription cancelled: ad ${ad.id} cancelled`
        }
        return 'subscription cancelled; no open ad runs on it'
      }
      case 'subscription_payment_failed':
      case 'payment_failed': {
        await record(tx, event, ad, `failed:${event.id}`, 'failed', 'none')
        if (event.type === 'subscription_payment_failed') {
          await upsertSubscription(tx, event, ad, 'past_due')
          const id = event.subscription?.subscriptionId
          if (id) {
            await tx
              .update(paymentSubscriptions)
              .set({ status: 'past_due', updatedAt: now })
              .where(
                and(
                  eq(paymentSubscriptions.provider, event.provider),
                  eq(paymentSubscriptions.subscriptionId, id),
                ),
              )
          }
        }
        log.warn(
          { provider: event.provider, eventId: event.id, sponsorAdId: ad?.id, type: event.providerType },
          'payment failed',
        )
        if (ad) {
          await mailOwner(tx, site, ad, `Payment failed for your sponsor ad: ${ad.title}`, [
            `${paymentProvider(event.provider).name} could not take the payment for your sponsor ad.`,
            'Please check your payment method; the ad stops when its paid time ends.',
            '',
            `Ad: ${ad.title} (${ad.interval})`,
          ])
        }
        return event.type === 'subscription_payment_failed'
          ? 'payment failed: subscription past due'
          : 'payment failed'
      }
      case 'subscription_trial_ending':
        await upsertSubscription(tx, event, ad)
        if (ad) {
          const end = event.subscription?.trialEnd
          await mailOwner(tx, site, ad, `Your sponsor ad’s trial ends soon: ${ad.title}`, [
            `The trial of your sponsor ad ends${end ? ` on ${end.toISOString().slice(0, 10)}` : ' soon'}.`,
            'Its subscription will then be charged, unless you cancel it.',
          ])
        }
        return 'trial ending: notified'
      case 'refund_succeeded': {
        await record(tx, event, ad, `refund:${event.id}`, 'refund', 'none')
        log.info(
          { provider: event.provider, eventId: event.id, sponsorAdId: ad?.id, amount: event.amount },
          'refund',
        )
        return 'refund recorded'
      }
    }
  }

  /** Takes a stored event and applies it, all in one transaction; `skipped` when it is done or taken. */
  async function process(id: string): Promise<'processed' | 'skipped' | 'failed'> {
    let stored: EventRow | undefined
    // Read outside the transaction: on the embedded database a second connection would wait for it.
    const site = mailEnabled ? await siteName() : ''
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
        const outcome = await apply(tx, { ...normalised.event, id: row.eventId }, site)
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
      const site = mailEnabled ? await siteName() : ''
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
          const outcome = await apply(tx, event, site)
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

/** `30000, 'usd'` → `300.00 USD`. */
export function formatAmount(amount: number, currency: string | null): string {
  return `${(amount / 100).toFixed(2)} ${(currency ?? '').toUpperCase()}`.trim()
}
