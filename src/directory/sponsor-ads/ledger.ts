import { and, count, desc, eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { paymentSubscriptions, sponsorAdPayments } from '../payments/tables.ts'
import type { PaymentQuery, PaymentRecord, SubscriptionQuery, SubscriptionRecord } from './billing-schemas.ts'

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
 * and each provider subscription as its events left it; read by the admins, newest first.
 */
export function createSponsorAdLedger({ db }: { db: Db }) {
  return {
    async listPayments(query: PaymentQuery): Promise<PageOf<PaymentRecord>> {
      const t = sponsorAdPayments
      const where = and(
        query.provider ? eq(t.provider, query.provider) : undefined,
        query.kind ? eq(t.kind, query.kind) : undefined,
        query.sponsorAdId ? eq(t.sponsorAdId, query.sponsorAdId) : undefined,
      )
      return fetchPage(query, {
        rows: async (limit, offset) =>
          (
            await db
              .select()
              .from(t)
              .where(where)
              .orderBy(desc(t.createdAt), desc(t.id))
              .limit(limit)
              .offset(offset)
          ).map(paymentRecordOf),
        total: async () => (await db.select({ n: count() }).from(t).where(where))[0]?.n ?? 0,
      })
    },

    async listSubscriptions(query: SubscriptionQuery): Promise<PageOf<SubscriptionRecord>> {
      const t = paymentSubscriptions
      const where = and(
        query.provider ? eq(t.provider, query.provider) : undefined,
        query.status ? eq(t.status, query.status) : undefined,
        query.sponsorAdId ? eq(t.sponsorAdId, query.sponsorAdId) : undefined,
      )
      return fetchPage(query, {
        rows: async (limit, offset) =>
          (
            await db
              .select()
              .from(t)
              .where(where)
              .orderBy(desc(t.updatedAt), desc(t.id))
              .limit(limit)
              .offset(offset)
          ).map(subscriptionRecordOf),
        total: async () => (await db.select({ n: count() }).from(t).where(where))[0]?.n ?? 0,
      })
    },
  }
}
