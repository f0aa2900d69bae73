import { and, asc, count, desc, eq, gt, inArray, isNotNull, lte, or, type SQL, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import { onUniqueViolation } from '../../db/errors.ts'
import { anyContaining } from '../../db/filters.ts'
import type { Db, DbOrTx, Tx } from '../../db/index.ts'
import {
  type CheckoutProvider,
  type CheckoutSession,
  type PaymentGateways,
  PaymentNotConfiguredError,
  PaymentProviderError,
} from '../../integrations/payments/gateway.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { forbidden, HttpError, invalidInput, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { offsetOf, type PageMeta, pageMeta } from '../../lib/pagination.ts'
import { users } from '../accounts/tables.ts'
import { categories } from '../categories/tables.ts'
import { items } from '../items/tables.ts'
import { paymentSubscriptions, sponsorAdPayments } from '../payments/tables.ts'
import type {
  AdminSponsorAd,
  AdminSponsorAdDetail,
  AdminSponsorAdQuery,
  CreateSponsorAdBody,
  PaymentRecord,
  PublicSponsorAd,
  SponsorAd,
  SubscriptionRecord,
  UpdateSponsorAdBody,
  UserSponsorAdQuery,
} from './schemas.ts'
import { OPEN_SPONSOR_AD_STATUSES, type SponsorAdStatus, type SponsorInterval, sponsorAds } from './tables.ts'

/** The durable job that cancels an ad's subscription at its provider, retried while the provider fails. */
export const SUBSCRIPTION_CANCEL_JOB = 'sponsor-subscription-cancel'
/** The scheduled job that expires active ads past their end date. */
export const SPONSOR_EXPIRY_JOB = 'sponsor-ads-expire'

export interface SubscriptionCancelJob {
  provider: CheckoutProvider
  subscriptionId: string
  sponsorAdId: string
}

type Row = typeof sponsorAds.$inferSelect

/** What a page of the admin's list is answered with. */
export interface AdminPage {
  data: AdminSponsorAd[]
  pagination: PageMeta
  stats: { total: number; active: number; pending: number; expired: number; cancelled: number }
}

/** The end of `count` periods of `interval` from `from`: 7 days a week, a calendar month (UTC) a month. */
export function addPeriods(from: Date, interval: SponsorInterval, periods: number): Date {
  const end = new Date(from.getTime())
  if (interval === 'weekly') {
    end.setUTCDate(end.getUTCDate() + 7 * periods)
    return end
  }
  const day = end.getUTCDate()
  end.setUTCDate(1)
  end.setUTCMonth(end.getUTCMonth() + periods)
  // The 31st of January plus a month is the last day of February, not the 3rd of March.
  const lastDay = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() + 1, 0)).getUTCDate()
  end.setUTCDate(Math.min(day, lastDay))
  return end
}

const adNotFound = () => notFound('Sponsor ad not found', 'SPONSOR_AD_NOT_FOUND')
const notYours = () => forbidden('This sponsor ad belongs to another user', 'FORBIDDEN')
const invalidTransition = (message: string) => new HttpError(400, 'SPONSOR_AD_INVALID_TRANSITION', message)

export const sponsorAdOf = (row: Row): SponsorAd => ({
  id: row.id,
  itemSlug: row.itemSlug,
  itemName: row.itemName,
  itemIconUrl: row.itemIconUrl,
  itemCategory: row.itemCategory,
  itemDescription: row.itemDescription,
  status: row.status,
  interval: row.interval,
  title: row.title,
  description: row.description,
  startDate: row.startDate,
  endDate: row.endDate,
  rejectionReason: row.rejectionReason,
  cancelReason: row.cancelReason,
  paymentProvider: row.paymentProvider as CheckoutProvider | null,
  paidAt: row.paidAt,
  unusedPeriods: row.unusedPeriods,
  approvedAt: row.approvedAt,
  cancelledAt: row.cancelledAt,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
})

const adminAdOf = (
  row: Row,
  user: { id: string; name: string | null; email: string } | null,
): AdminSponsorAd => ({
  ...sponsorAdOf(row),
  user,
  checkoutId: row.checkoutId,
  subscriptionId: row.subscriptionId,
  customerId: row.customerId,
  approvedBy: row.approvedBy,
  rejectedAt: row.rejectedAt,
  cancelledBy: row.cancelledBy,
})

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

/** The row of `id`, locked until the transaction ends; 404 when there is none. */
export async function lockSponsorAd(tx: Tx, id: string): Promise<Row> {
  if (!isUuid(id)) throw adNotFound()
  const [row] = await tx.select().from(sponsorAds).where(eq(sponsorAds.id, id)).for('update')
  if (!row) throw adNotFound()
  return row
}

const ADMIN_SORT_COLUMNS = {
  createdAt: sponsorAds.createdAt,
  updatedAt: sponsorAds.updatedAt,
  startDate: sponsorAds.startDate,
  endDate: sponsorAds.endDate,
  status: sponsorAds.status,
} as const

export interface SponsorAdServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn' | 'error'>
  jobs: Pick<Jobs, 'send'>
  gateways: PaymentGateways
  config: Pick<
    Config,
    'paymentProvider' | 'appUrl' | 'sponsorWeeklyPrice' | 'sponsorMonthlyPrice' | 'sponsorCurrency'
  >
  /** The origins a checkout may send its buyer back to: the app's own (APP_URL) and CORS_ORIGINS. */
  redirectOrigins: ReadonlySet<string>
}

export type SponsorAdService = ReturnType<typeof createSponsorAdService>

/**
 * Sponsor ads: a user submits one for an item, pays through the configured provider, an admin approves
 * or rejects it, and it runs until the end of the periods paid for. Every transition locks the ad's row
 * and checks its status in the transaction that changes it, so two admins (or an admin and a payment)
 * acting at once cannot both move it.
 */
export function createSponsorAdService({
  db,
  clock,
  log,
  jobs,
  gateways,
  config,
  redirectOrigins,
}: SponsorAdServiceDeps) {
  const appBase = new URL(config.appUrl)

  /** The ad of `id` if the user owns it: 404 when there is none, 403 when it is another user's. */
  async function ownedForAction(userId: string, id: string): Promise<Row> {
    if (!isUuid(id)) throw adNotFound()
    const [row] = await db.select().from(sponsorAds).where(eq(sponsorAds.id, id))
    if (!row) throw adNotFound()
    if (row.userId !== userId) throw notYours()
    return row
  }

  /** The redirect URLs of a checkout: the caller's, when on the app's own origins, else the app's pages. */
  function redirects(body: { successUrl?: string; cancelUrl?: string }, ad: Row) {
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
    ad: Row,
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

  /**
   * Cancels an ad: in `pending_payment`, `pending` or `active`, else 400. The provider's subscription is
   * cancelled too, by a job enqueued in the same transaction and retried while the provider fails.
   */
  async function cancel(
    id: string,
    by: { userId: string; owner: boolean },
    reason: string | undefined,
  ): Promise<Row> {
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
      return row as Row
    })
  }

  /** Enqueues the cancellation of the ad's provider subscription, when it has one. */
  async function cancelSubscriptionOf(tx: Tx, ad: Row) {
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

  const priceOf = (interval: SponsorInterval) =>
    interval === 'weekly' ? config.sponsorWeeklyPrice : config.sponsorMonthlyPrice

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
      return sponsorAdOf(row as Row)
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
      return sponsorAdOf(await cancel(id, { userId, owner: true }, reason))
    },

    async cancelByAdmin(adminId: string, id: string, reason: string | undefined) {
      const row = await cancel(id, { userId: adminId, owner: false }, reason)
      return { id: row.id, status: row.status, cancelReason: row.cancelReason }
    },

    async approve(adminId: string, id: string, forceApprove: boolean) {
      return db.transaction(async (tx) => {
        const ad = await lockSponsorAd(tx, id)
        if (ad.status === 'pending_payment' && !forceApprove) {
          throw new HttpError(
            400,
            'PAYMENT_NOT_RECEIVED',
            'The ad has not been paid for; send forceApprove: true to approve it without payment',
          )
        }
        if (ad.status !== 'pending' && ad.status !== 'pending_payment') {
          throw invalidTransition(`A sponsor ad in status ${ad.status} cannot be approved`)
        }
        const now = clock.now()
        // Every period paid for while it waited runs from now; a forced approval gives one.
        const periods = Math.max(1, ad.unusedPeriods)
        const [row] = await tx
          .update(sponsorAds)
          .set({
            status: 'active',
            startDate: now,
            endDate: addPeriods(now, ad.interval, periods),
            unusedPeriods: 0,
            approvedAt: now,
            approvedBy: adminId,
            updatedAt: now,
          })
          .where(eq(sponsorAds.id, id))
          .returning()
        const approved = row as Row
        return {
          id: approved.id,
          status: approved.status,
          startDate: approved.startDate,
          endDate: approved.endDate,
        }
      })
    },

    async reject(adminId: string, id: string, reason: string) {
      const rejectionReason = reason.trim()
      if (rejectionReason.length < 10) {
        throw invalidInput('body.rejectionReason', 'must be 10 to 500 characters once trimmed')
      }
      return db.transaction(async (tx) => {
        const ad = await lockSponsorAd(tx, id)
        if (ad.status !== 'pending' && ad.status !== 'pending_payment') {
          throw invalidTransition(`A sponsor ad in status ${ad.status} cannot be rejected`)
        }
        const now = clock.now()
        const [row] = await tx
          .update(sponsorAds)
          .set({ status: 'rejected', rejectionReason, rejectedAt: now, rejectedBy: adminId, updatedAt: now })
          .where(eq(sponsorAds.id, id))
          .returning()
        // A rejected ad will not run: nothing more is charged for it.
        await cancelSubscriptionOf(tx, ad)
        const rejected = row as Row
        return { id: rejected.id, status: rejected.status, rejectionReason }
      })
    },

    async update(id: string, body: UpdateSponsorAdBody): Promise<AdminSponsorAd> {
      const row = await db.transaction(async (tx) => {
        const ad = await lockSponsorAd(tx, id)
        const startDate = body.startDate === undefined ? ad.startDate : new Date(body.startDate)
        const endDate = body.endDate === undefined ? ad.endDate : new Date(body.endDate)
        if (startDate && endDate && endDate.getTime() <= startDate.getTime()) {
          throw invalidInput('body.endDate', 'must be after startDate')
        }
        const title = body.title?.trim()
        if (title === '') throw invalidInput('body.title', 'must not be blank')
        const [updated] = await tx
          .update(sponsorAds)
          .set({
            ...(title === undefined ? {} : { title }),
            ...(body.description === undefined ? {} : { description: body.description?.trim() || null }),
            startDate,
            endDate,
            updatedAt: clock.now(),
          })
          .where(eq(sponsorAds.id, id))
          .returning()
        return updated as Row
      })
      return (await this.readForAdmin(row.id)) as AdminSponsorAd
    },

    async remove(id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const ad = await lockSponsorAd(tx, id)
        // Deleting an ad that is still charged for stops the charges.
        if ((OPEN_SPONSOR_AD_STATUSES as readonly string[]).includes(ad.status))
          await cancelSubscriptionOf(tx, ad)
        await tx.delete(sponsorAds).where(eq(sponsorAds.id, id))
      })
    },

    async readForAdmin(id: string): Promise<AdminSponsorAdDetail> {
      if (!isUuid(id)) throw adNotFound()
      const [found] = await db
        .select({ ad: sponsorAds, user: { id: users.id, name: users.name, email: users.email } })
        .from(sponsorAds)
        .leftJoin(users, eq(users.id, sponsorAds.userId))
        .where(eq(sponsorAds.id, id))
      if (!found) throw adNotFound()
      const [payments, subscriptions] = await Promise.all([
        db
          .select()
          .from(sponsorAdPayments)
          .where(eq(sponsorAdPayments.sponsorAdId, id))
          .orderBy(asc(sponsorAdPayments.createdAt), asc(sponsorAdPayments.id)),
        db
          .select()
          .from(paymentSubscriptions)
          .where(eq(paymentSubscriptions.sponsorAdId, id))
          .orderBy(asc(paymentSubscriptions.createdAt)),
      ])
      return {
        ...adminAdOf(found.ad, found.user),
        payments: payments.map(paymentRecordOf),
        subscriptions: subscriptions.map(subscriptionRecordOf),
      }
    },

    async listForAdmin(query: AdminSponsorAdQuery): Promise<AdminPage> {
      const where = and(
        query.status === undefined ? undefined : eq(sponsorAds.status, query.status),
        query.interval === undefined ? undefined : eq(sponsorAds.interval, query.interval),
        query.search === undefined
          ? undefined
          : anyContaining(
              [sponsorAds.title, sponsorAds.itemName, sponsorAds.itemSlug, users.name, users.email],
              query.search,
            ),
      )
      const column = ADMIN_SORT_COLUMNS[query.sortBy]
      const direction = query.sortOrder === 'asc' ? asc : desc
      const [rows, [total], [stats]] = await Promise.all([
        db
          .select({ ad: sponsorAds, user: { id: users.id, name: users.name, email: users.email } })
          .from(sponsorAds)
          .leftJoin(users, eq(users.id, sponsorAds.userId))
          .where(where)
          .orderBy(
            query.sortOrder === 'asc' ? sql`${column} asc nulls first` : sql`${column} desc nulls last`,
            direction(sponsorAds.id),
          )
          .limit(query.limit)
          .offset(offsetOf(query)),
        db
          .select({ n: count() })
          .from(sponsorAds)
          .leftJoin(users, eq(users.id, sponsorAds.userId))
          .where(where),
        db
          .select({
            total: count(),
            active: sql<number>`count(*) filter (where ${sponsorAds.status} = 'active')::int`,
            pending: sql<number>`count(*) filter (where ${sponsorAds.status} in ('pending', 'pending_payment'))::int`,
            expired: sql<number>`count(*) filter (where ${sponsorAds.status} = 'expired')::int`,
            cancelled: sql<number>`count(*) filter (where ${sponsorAds.status} = 'cancelled')::int`,
          })
          .from(sponsorAds),
      ])
      return {
        data: rows.map((row) => adminAdOf(row.ad, row.user)),
        pagination: pageMeta(total?.n ?? 0, query),
        stats: stats ?? { total: 0, active: 0, pending: 0, expired: 0, cancelled: 0 },
      }
    },

    /** Active ads within their dates, with the published item of their slug (or null). */
    async publicList(limit: number): Promise<PublicSponsorAd[]> {
      const now = clock.now()
      const rows = await db
        .select({
          id: sponsorAds.id,
          itemSlug: sponsorAds.itemSlug,
          interval: sponsorAds.interval,
          item: {
            name: items.name,
            slug: items.slug,
            description: items.description,
            iconUrl: items.iconUrl,
            category: categories.id,
          },
        })
        .from(sponsorAds)
        .leftJoin(items, and(eq(items.slug, sponsorAds.itemSlug), eq(items.status, 'published')))
        .leftJoin(categories, eq(categories.id, items.categoryId))
        .where(
          and(
            eq(sponsorAds.status, 'active'),
            // Past its end it is no longer shown, whether or not the expiry job has run yet.
            gt(sponsorAds.endDate, now),
            or(lte(sponsorAds.startDate, now), sql`${sponsorAds.startDate} is null`),
          ),
        )
        .orderBy(desc(sponsorAds.startDate), desc(sponsorAds.id))
        .limit(limit)
      return rows.map((row) => ({
        sponsor: { id: row.id, itemSlug: row.itemSlug, status: 'active' as const, interval: row.interval },
        item: row.item?.slug
          ? {
              name: row.item.name as string,
              slug: row.item.slug,
              description: row.item.description,
              icon_url: row.item.iconUrl,
              category: row.item.category,
            }
          : null,
      }))
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

    priceOf,
  }
}

/** The ad a payment names, locked: by its metadata's id, else by the provider's subscription. */
export async function lockAdForPayment(
  tx: DbOrTx,
  ref: { sponsorAdId: string | null; provider: string; subscriptionId: string | null },
): Promise<Row | null> {
  if (ref.sponsorAdId && isUuid(ref.sponsorAdId)) {
    const [row] = await tx.select().from(sponsorAds).where(eq(sponsorAds.id, ref.sponsorAdId)).for('update')
    if (row) return row
  }
  if (ref.subscriptionId) {
    const [row] = await tx
      .select()
      .from(sponsorAds)
      .where(
        and(eq(sponsorAds.paymentProvider, ref.provider), eq(sponsorAds.subscriptionId, ref.subscriptionId)),
      )
      .orderBy(desc(sponsorAds.createdAt))
      .limit(1)
      .for('update')
    if (row) return row
  }
  return null
}
