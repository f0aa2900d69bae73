import { and, eq, inArray, isNotNull, lte } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, Tx } from '../../db/index.ts'
import {
  type CheckoutProvider,
  type PaymentGateways,
  PaymentNotConfiguredError,
  PaymentProviderError,
} from '../../integrations/payments/gateway.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { invalidTransition, lockSponsorAd, notYours, type SponsorAdRow } from './rows.ts'
import { OPEN_SPONSOR_AD_STATUSES, sponsorAds } from './tables.ts'

/** The durable job that cancels an ad's subscription at its provider, retried while the provider fails. */
export const SUBSCRIPTION_CANCEL_JOB = 'sponsor-subscription-cancel'
/** The scheduled job that expires active ads past their end date. */
export const SPONSOR_EXPIRY_JOB = 'sponsor-ads-expire'

export interface SubscriptionCancelJob {
  provider: CheckoutProvider
  subscriptionId: string
  sponsorAdId: string
}

export interface SponsorAdClosingDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  jobs: Pick<Jobs, 'send'>
  gateways: Pick<PaymentGateways, 'cancelSubscription'>
}

export type SponsorAdClosing = ReturnType<typeof createSponsorAdClosing>

/**
 * How an ad stops: cancelled by its owner or an admin, expired past its end, or gone with its account.
 * Whatever stops an ad that is still charged for also cancels its provider subscription, by a job enqueued
 * in the same transaction and retried while the provider fails.
 */
export function createSponsorAdClosing({ db, clock, log, jobs, gateways }: SponsorAdClosingDeps) {
  /** Enqueues the cancellation of the ad's provider subscription, when it has one. */
  async function cancelSubscriptionOf(tx: Tx, ad: SponsorAdRow) {
    if (!ad.subscriptionId || !ad.paymentProvider) return
    const job: SubscriptionCancelJob = {
      provider: ad.paymentProvider as CheckoutProvider,
      subscriptionId: ad.subscriptionId,
      sponsorAdId: ad.id,
    }
    await jobs.send(SUBSCRIPTION_CANCEL_JOB, job, {
      tx,
      singletonKey: `${ad.paymentProvider}:${ad.subscriptionId}`,
    })
  }

  return {
    cancelSubscriptionOf,

    /**
     * Cancels an ad: in `pending_payment`, `pending` or `active`, else 400. The provider's subscription is
     * cancelled too.
     */
    async cancel(
      id: string,
      by: { userId: string; owner: boolean },
      reason: string | undefined,
    ): Promise<SponsorAdRow> {
      return db.transaction(async (tx) => {
        const ad = await lockSponsorAd(tx, id)
        if (by.owner && ad.userId !== by.userId) throw notYours()
        if (!(OPEN_SPONSOR_AD_STATUSES as readonly string[]).includes(ad.status)) {
          throw invalidTransition(`A sponsor ad in status ${ad.status} cannot be cancelled`)
        }
        const now = clock.now()
        const [row] = await tx
          .update(sponsorAds)
          .set({
            status: 'cancelled',
            cancelReason: reason?.trim() || null,
            cancelledAt: now,
            cancelledBy: by.userId,
            updatedAt: now,
          })
          .where(eq(sponsorAds.id, id))
          .returning()
        await cancelSubscriptionOf(tx, ad)
        return row as SponsorAdRow
      })
    },

    /**
     * In an account's deletion: the provider subscriptions of its open ads are cancelled (the ads go with
     * the account), so nobody is charged for ads that no longer exist.
     */
    async cancelSubscriptionsOf(tx: Tx, userId: string): Promise<void> {
      const open = await tx
        .select()
        .from(sponsorAds)
        .where(
          and(
            eq(sponsorAds.userId, userId),
            inArray(sponsorAds.status, [...OPEN_SPONSOR_AD_STATUSES]),
            isNotNull(sponsorAds.subscriptionId),
          ),
        )
        .for('update')
      for (const ad of open) await cancelSubscriptionOf(tx, ad)
    },

    /** The job: every active ad whose end date has passed becomes `expired`. */
    async expire(): Promise<number> {
      const now = clock.now()
      const expired = await db
        .update(sponsorAds)
        .set({ status: 'expired', updatedAt: now })
        .where(and(eq(sponsorAds.status, 'active'), lte(sponsorAds.endDate, now)))
        .returning({ id: sponsorAds.id })
      if (expired.length > 0) log.info({ count: expired.length }, 'sponsor ads expired')
      return expired.length
    },

    /** The job: cancels a subscription at its provider; a failure that may pass is thrown, so it is retried. */
    async cancelSubscription(job: SubscriptionCancelJob): Promise<void> {
      try {
        await gateways.cancelSubscription(job.provider, job.subscriptionId)
        log.info(
          { provider: job.provider, subscriptionId: job.subscriptionId, sponsorAdId: job.sponsorAdId },
          'provider subscription cancelled',
        )
      } catch (error) {
        const retry =
          error instanceof PaymentProviderError ? error.retry : !(error instanceof PaymentNotConfiguredError)
        log.error(
          {
            provider: job.provider,
            subscriptionId: job.subscriptionId,
            sponsorAdId: job.sponsorAdId,
            err: error instanceof Error ? error.message : String(error),
            retry,
          },
          'provider subscription not cancelled',
        )
        if (retry) throw error
      }
    },
  }
}
