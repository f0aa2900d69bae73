import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Db, Tx } from '../../db/index.ts'
import { pageOfRows } from '../../db/queries.ts'
import type { PaymentEvent } from '../../integrations/payments/contract/events.ts'
import type { Clock } from '../../lib/clock.ts'
import type { PageOf } from '../../lib/pagination.ts'
import type { PaymentQuery, PaymentRecord, SubscriptionQuery, SubscriptionRecord } from './billing-schemas.ts'
import type { SponsorAdRow } from './rows.ts'
import { type PaymentKind, paymentSubscriptions, sponsorAdPayments } from './tables.ts'

export const paymentRecordOf = (row: typeof sponsorAdPayments.$inferSelect): PaymentRecord => ({
  id: row.id,
  provider: row.provider,
  reference: row.reference,
  kind: row.kind,
  eventId: row.eventId,
  eventType: row.eventType,
  sponsorAdId: row.sponsorAdId,
  userId: row.userId,
  amount: row.amount,
  currency: row.currency,
  subscriptionId: row.subscriptionId,
  customerId: row.customerId,
  effect: row.effect as PaymentRecord['effect'],
  createdAt: row.createdAt,
})

export const subscriptionRecordOf = (row: typeof paymentSubscriptions.$inferSelect): SubscriptionRecord => ({
  id: row.id,
  provider: row.provider,
  subscriptionId: row.subscriptionId,
  userId: row.userId,
  sponsorAdId: row.sponsorAdId,
  planId: row.planId,
  status: row.status,
  startDate: row.startDate,
  endDate: row.endDate,
  priceId: row.priceId,
  customerId: row.customerId,
  currency: row.currency,
  amount: row.amount,
  interval: row.interval,
  intervalCount: row.intervalCount,
  trialStart: row.trialStart,
  trialEnd: row.trialEnd,
  cancelledAt: row.cancelledAt,
  cancelAtPeriodEnd: row.cancelAtPeriodEnd,
  cancelReason: row.cancelReason,
  metadata: row.metadata,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

export type SponsorAdLedger = ReturnType<typeof createSponsorAdLedger>

/**
 * The ads' money as the providers reported it: every payment, failed payment and refund recorded once,
 * and each provider subscription as its events left it. Billing writes it in each event's transaction;
 * the admins read it, newest first.
 */
export function createSponsorAdLedger({ db, clock }: { db: Db; clock: Clock }) {
  return {
    /** Records a payment-like row once per reference; false when it was recorded before. */
    async record(
      tx: Tx,
      event: PaymentEvent,
      ad: SponsorAdRow | null,
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
    },

    /** Gives the ad's recorded payment of `reference` the subscription it lacked; false when it had one. */
    async noteSubscription(
      tx: Tx,
      payment: { provider: string; reference: string; sponsorAdId: string },
      subscriptionId: string,
    ): Promise<boolean> {
      const learnt = await tx
        .update(sponsorAdPayments)
        .set({ subscriptionId })
        .where(
          and(
            eq(sponsorAdPayments.provider, payment.provider),
            eq(sponsorAdPayments.reference, payment.reference),
            eq(sponsorAdPayments.sponsorAdId, payment.sponsorAdId),
            isNull(sponsorAdPayments.subscriptionId),
          ),
        )
        .returning({ id: sponsorAdPayments.id })
      return learnt.length > 0
    },

    /** Keeps SPEC.md's normalised subscription of the event; a cancelled one is not revived by a late update. */
    async upsertSubscription(tx: Tx, event: PaymentEvent, ad: SponsorAdRow | null, status?: string) {
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
    },

    /** A failed renewal, reported at `at`: the subscription is `past_due`. */
    async markPastDue(tx: Tx, provider: string, subscriptionId: string, at: Date) {
      await tx
        .update(paymentSubscriptions)
        .set({ status: 'past_due', updatedAt: at })
        .where(
          and(
            eq(paymentSubscriptions.provider, provider),
            eq(paymentSubscriptions.subscriptionId, subscriptionId),
          ),
        )
    },

    async listPayments(query: PaymentQuery): Promise<PageOf<PaymentRecord>> {
      const t = sponsorAdPayments
      const where = and(
        query.provider ? eq(t.provider, query.provider) : undefined,
        query.kind ? eq(t.kind, query.kind) : undefined,
        query.sponsorAdId ? eq(t.sponsorAdId, query.sponsorAdId) : undefined,
      )
      return pageOfRows(db, t, query, {
        where,
        orderBy: [desc(t.createdAt), desc(t.id)],
        map: paymentRecordOf,
      })
    },

    async listSubscriptions(query: SubscriptionQuery): Promise<PageOf<SubscriptionRecord>> {
      const t = paymentSubscriptions
      const where = and(
        query.provider ? eq(t.provider, query.provider) : undefined,
        query.status ? eq(t.status, query.status) : undefined,
        query.sponsorAdId ? eq(t.sponsorAdId, query.sponsorAdId) : undefined,
      )
      return pageOfRows(db, t, query, {
        where,
        orderBy: [desc(t.updatedAt), desc(t.id)],
        map: subscriptionRecordOf,
      })
    },
  }
}
