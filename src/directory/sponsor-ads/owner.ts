import { and, count, desc, eq, inArray, isNotNull, type SQL, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import { onUniqueViolation } from '../../db/errors.ts'
import { anyContaining } from '../../db/filters.ts'
import type { Db } from '../../db/index.ts'
import {
  type CheckoutProvider,
  type CheckoutSession,
  type PaymentGateways,
  PaymentNotConfiguredError,
  PaymentProviderError,
} from '../../integrations/payments/gateway.ts'
import type { Clock } from '../../lib/clock.ts'
import { HttpError, invalidInput } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { offsetOf, pageMeta } from '../../lib/pagination.ts'
import type { SponsorAdClosing } from './closing.ts'
import type { CreateSponsorAdBody, UserSponsorAdQuery } from './owner-schemas.ts'
import { adNotFound, invalidTransition, notYours, type SponsorAdRow, sponsorAdOf } from './rows.ts'
import type { SponsorAd } from './schemas.ts'
import { type SponsorAdStatus, sponsorAdPayments, sponsorAds } from './tables.ts'

export interface OwnerSponsorAdsDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  gateways: Pick<PaymentGateways, 'createCheckout'>
  config: Pick<
    Config,
    'paymentProvider' | 'appUrl' | 'sponsorWeeklyPrice' | 'sponsorMonthlyPrice' | 'sponsorCurrency'
  >
  /** The origins a checkout may send its buyer back to: the app's own (APP_URL) and CORS_ORIGINS. */
  redirectOrigins: ReadonlySet<string>
  closing: Pick<SponsorAdClosing, 'cancel'>
}

export type OwnerSponsorAds = ReturnType<typeof createOwnerSponsorAds>

/**
 * A user's own ads: submitted for an item, paid for through the configured provider (the payment itself
 * arrives by the provider's webhook), followed, renewed and cancelled. An action on another user's ad is 403;
 * a read of one is 404.
 */
export function createOwnerSponsorAds({
  db,
  clock,
  log,
  gateways,
  config,
  redirectOrigins,
  closing,
}: OwnerSponsorAdsDeps) {
  const appBase = new URL(config.appUrl)

  /** The ad of `id` if the user owns it: 404 when there is none, 403 when it is another user's. */
  async function ownedForAction(userId: string, id: string): Promise<SponsorAdRow> {
    if (!isUuid(id)) throw adNotFound()
    const [row] = await db.select().from(sponsorAds).where(eq(sponsorAds.id, id))
    if (!row) throw adNotFound()
    if (row.userId !== userId) throw notYours()
    return row
  }

  /** The redirect URLs of a checkout: the caller's, when on the app's own origins, else the app's pages. */
  function redirects(body: { successUrl?: string; cancelUrl?: string }, ad: SponsorAdRow) {
    const issues: { field: string; message: string }[] = []
    const checked = (field: string, value: string | undefined, fallback: string) => {
      if (value === undefined) return fallback
      let origin: string | undefined
      try {
        origin = new URL(value).origin
      } catch {
        origin = undefined
      }
      if (origin === undefined || !redirectOrigins.has(origin)) {
        issues.push({
          field: `body.${field}`,
          message: `must be on the app's own origin (${appBase.origin})`,
        })
      }
      return value
    }
    const page = (path: string) => new URL(`${path}?sponsorAdId=${ad.id}`, appBase).toString()
    const successUrl = checked('successUrl', body.successUrl, page('/sponsor/success'))
    const cancelUrl = checked('cancelUrl', body.cancelUrl, page('/sponsor/cancel'))
    if (issues.length > 0) throw invalidInput(issues)
    return { successUrl, cancelUrl }
  }

  async function createCheckout(
    ad: SponsorAdRow,
    buyer: { id: string; email: string },
    urls: { successUrl: string; cancelUrl: string },
    renewal: boolean,
  ): Promise<CheckoutSession> {
    const provider = config.paymentProvider as CheckoutProvider
    try {
      return await gateways.createCheckout(provider, {
        sponsorAdId: ad.id,
        itemSlug: ad.itemSlug,
        itemName: ad.itemName,
        interval: ad.interval,
        userId: buyer.id,
        customerEmail: buyer.email,
        ...urls,
        renewal,
      })
    } catch (error) {
      if (error instanceof PaymentNotConfiguredError) {
        log.warn({ provider, reason: error.message }, 'sponsor-ad checkout refused: payments not configured')
        throw new HttpError(
          400,
          'PAYMENT_NOT_CONFIGURED',
          `Sponsor ads cannot be paid for yet: ${provider} checkout is not configured on this site`,
        )
      }
      const status = error instanceof PaymentProviderError ? error.status : null
      log.error(
        { provider, status, err: error instanceof Error ? error.message : String(error), sponsorAdId: ad.id },
        'sponsor-ad checkout failed at the payment provider',
      )
      throw new HttpError(
        500,
        'PAYMENT_PROVIDER_ERROR',
        'The payment provider could not start the checkout; please try again later',
      )
    }
  }

  /** Records the checkout on the ad, if it is still in `statuses` (a payment may have moved it meanwhile). */
  async function recordCheckout(id: string, session: CheckoutSession, statuses: readonly SponsorAdStatus[]) {
    await db
      .update(sponsorAds)
      .set({ paymentProvider: session.provider, checkoutId: session.checkoutId, updatedAt: clock.now() })
      .where(and(eq(sponsorAds.id, id), inArray(sponsorAds.status, statuses)))
  }

  function userWhere(userId: string, query: UserSponsorAdQuery): SQL | undefined {
    const status = query.status
    return and(
      eq(sponsorAds.userId, userId),
      status === undefined
        ? undefined
        : status === 'pending'
          ? inArray(sponsorAds.status, ['pending', 'pending_payment'])
          : status === 'approved'
            ? isNotNull(sponsorAds.approvedAt)
            : eq(sponsorAds.status, status),
      query.interval === undefined ? undefined : eq(sponsorAds.interval, query.interval),
      query.search === undefined
        ? undefined
        : anyContaining([sponsorAds.title, sponsorAds.itemName, sponsorAds.itemSlug], query.search),
    )
  }

  return {
    async create(userId: string, body: CreateSponsorAdBody): Promise<SponsorAd> {
      const now = clock.now()
      const itemName = body.itemName.trim()
      if (itemName === '') throw invalidInput('body.itemName', 'must not be blank')
      const [row] = await db
        .insert(sponsorAds)
        .values({
          userId,
          itemSlug: body.itemSlug,
          itemName,
          itemIconUrl: body.itemIconUrl ?? null,
          itemCategory: body.itemCategory?.trim() || null,
          itemDescription: body.itemDescription?.trim() || null,
          interval: body.interval,
          status: 'pending_payment',
          title: itemName,
          description: body.itemDescription?.trim() || null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
        .catch(
          onUniqueViolation({
            sponsor_ads_open_unique: () =>
              new HttpError(
                400,
                'SPONSOR_AD_DUPLICATE',
                'You already have a sponsor ad for this item awaiting payment, in review or running',
              ),
          }),
        )
      return sponsorAdOf(row as SponsorAdRow)
    },

    async listForUser(userId: string, query: UserSponsorAdQuery) {
      const where = userWhere(userId, query)
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(sponsorAds)
          .where(where)
          .orderBy(desc(sponsorAds.createdAt), desc(sponsorAds.id))
          .limit(query.limit)
          .offset(offsetOf(query)),
        db.select({ n: count() }).from(sponsorAds).where(where),
      ])
      return { data: rows.map(sponsorAdOf), pagination: pageMeta(total?.n ?? 0, query) }
    },

    async readForUser(userId: string, id: string): Promise<SponsorAd> {
      if (!isUuid(id)) throw adNotFound()
      const [row] = await db
        .select()
        .from(sponsorAds)
        .where(and(eq(sponsorAds.id, id), eq(sponsorAds.userId, userId)))
      // Another user's ad reads as missing (SPEC.md: 404 on reads of other users' ads).
      if (!row) throw adNotFound()
      return sponsorAdOf(row)
    },

    async statsForUser(userId: string) {
      const rows = await db
        .select({ status: sponsorAds.status, interval: sponsorAds.interval, n: count() })
        .from(sponsorAds)
        .where(eq(sponsorAds.userId, userId))
        .groupBy(sponsorAds.status, sponsorAds.interval)
      const overview = {
        total: 0,
        pendingPayment: 0,
        pending: 0,
        active: 0,
        rejected: 0,
        expired: 0,
        cancelled: 0,
      }
      const byInterval = { weekly: 0, monthly: 0 }
      const key = {
        pending_payment: 'pendingPayment',
        pending: 'pending',
        active: 'active',
        rejected: 'rejected',
        expired: 'expired',
        cancelled: 'cancelled',
      } as const
      for (const row of rows) {
        overview.total += row.n
        overview[key[row.status]] += row.n
        byInterval[row.interval] += row.n
      }
      const money = await db
        .select({
          interval: sponsorAds.interval,
          received: sql<string>`coalesce(sum(case when ${sponsorAdPayments.kind} in ('initial', 'renewal') then coalesce(${sponsorAdPayments.amount}, case ${sponsorAds.interval} when 'weekly' then ${config.sponsorWeeklyPrice}::int else ${config.sponsorMonthlyPrice}::int end) when ${sponsorAdPayments.kind} = 'refund' then -coalesce(${sponsorAdPayments.amount}, 0) else 0 end), 0)`,
        })
        .from(sponsorAdPayments)
        .innerJoin(sponsorAds, eq(sponsorAds.id, sponsorAdPayments.sponsorAdId))
        .where(eq(sponsorAds.userId, userId))
        .groupBy(sponsorAds.interval)
      const revenue = {
        totalRevenue: 0,
        weeklyRevenue: 0,
        monthlyRevenue: 0,
        currency: config.sponsorCurrency,
      }
      for (const row of money) {
        const amount = Number(row.received)
        revenue.totalRevenue += amount
        if (row.interval === 'weekly') revenue.weeklyRevenue += amount
        else revenue.monthlyRevenue += amount
      }
      return { overview, byInterval, revenue }
    },

    async checkout(
      buyer: { id: string; email: string },
      body: { sponsorAdId: string; successUrl?: string; cancelUrl?: string },
    ) {
      const ad = await ownedForAction(buyer.id, body.sponsorAdId)
      if (ad.status !== 'pending_payment') {
        throw invalidTransition(`Only an ad awaiting payment can be checked out; this one is ${ad.status}`)
      }
      const session = await createCheckout(ad, buyer, redirects(body, ad), false)
      await recordCheckout(ad.id, session, ['pending_payment'])
      return session
    },

    async renew(
      buyer: { id: string; email: string },
      id: string,
      body: { successUrl?: string; cancelUrl?: string },
    ) {
      const ad = await ownedForAction(buyer.id, id)
      if (ad.status !== 'active' && ad.status !== 'expired') {
        throw invalidTransition(`Only an active or expired ad can be renewed; this one is ${ad.status}`)
      }
      const session = await createCheckout(ad, buyer, redirects(body, ad), true)
      await recordCheckout(ad.id, session, ['active', 'expired'])
      return session
    },

    async cancelByOwner(userId: string, id: string, reason: string | undefined): Promise<SponsorAd> {
      await ownedForAction(userId, id)
      return sponsorAdOf(await closing.cancel(id, { userId, owner: true }, reason))
    },
  }
}
