import { and, asc, count, desc, eq, sql } from 'drizzle-orm'
import { anyContaining } from '../../db/filters.ts'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { HttpError, invalidInput } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { offsetOf, type PageMeta, pageMeta } from '../../lib/pagination.ts'
import { users } from '../accounts/tables.ts'
import type { SponsorAdClosing } from './closing.ts'
import { paymentRecordOf, subscriptionRecordOf } from './ledger.ts'
import type {
  AdminSponsorAd,
  AdminSponsorAdDetail,
  AdminSponsorAdQuery,
  UpdateSponsorAdBody,
} from './review-schemas.ts'
import {
  addPeriods,
  adNotFound,
  invalidTransition,
  lockSponsorAd,
  type SponsorAdRow,
  sponsorAdOf,
} from './rows.ts'
import { OPEN_SPONSOR_AD_STATUSES, paymentSubscriptions, sponsorAdPayments, sponsorAds } from './tables.ts'

/** What a page of the admin's list is answered with. */
export interface AdminPage {
  data: AdminSponsorAd[]
  pagination: PageMeta
  stats: { total: number; active: number; pending: number; expired: number; cancelled: number }
}

const adminAdOf = (
  row: SponsorAdRow,
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

const ADMIN_SORT_COLUMNS = {
  createdAt: sponsorAds.createdAt,
  updatedAt: sponsorAds.updatedAt,
  startDate: sponsorAds.startDate,
  endDate: sponsorAds.endDate,
  status: sponsorAds.status,
} as const

export interface SponsorAdReviewDeps {
  db: Db
  clock: Clock
  closing: Pick<SponsorAdClosing, 'cancel' | 'cancelSubscriptionOf'>
}

export type SponsorAdReview = ReturnType<typeof createSponsorAdReview>

/**
 * The admins' review of every ad: approve or reject what was submitted, edit, cancel, delete, and read
 * them with their users, payments and subscriptions. Every move locks the ad's row and checks its status
 * in the transaction that changes it, so two admins (or an admin and a payment) acting at once cannot both
 * move it.
 */
export function createSponsorAdReview({ db, clock, closing }: SponsorAdReviewDeps) {
  async function readForAdmin(id: string): Promise<AdminSponsorAdDetail> {
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
  }

  return {
    readForAdmin,

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
        const approved = row as SponsorAdRow
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
        await closing.cancelSubscriptionOf(tx, ad)
        const rejected = row as SponsorAdRow
        return { id: rejected.id, status: rejected.status, rejectionReason }
      })
    },

    async cancelByAdmin(adminId: string, id: string, reason: string | undefined) {
      const row = await closing.cancel(id, { userId: adminId, owner: false }, reason)
      return { id: row.id, status: row.status, cancelReason: row.cancelReason }
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
        return updated as SponsorAdRow
      })
      return readForAdmin(row.id)
    },

    async remove(id: string): Promise<void> {
      await db.transaction(async (tx) => {
        const ad = await lockSponsorAd(tx, id)
        // Deleting an ad that is still charged for stops the charges.
        if ((OPEN_SPONSOR_AD_STATUSES as readonly string[]).includes(ad.status))
          await closing.cancelSubscriptionOf(tx, ad)
        await tx.delete(sponsorAds).where(eq(sponsorAds.id, id))
      })
    },
  }
}
