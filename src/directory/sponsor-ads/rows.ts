import { eq } from 'drizzle-orm'
import type { Tx } from '../../db/index.ts'
import type { CheckoutProvider } from '../../integrations/payments/gateway.ts'
import { forbidden, HttpError, notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import type { SponsorAd } from './schemas.ts'
import { type SponsorInterval, sponsorAds } from './tables.ts'

// What the owner's, the admins' and billing's code share about an ad: its row, its lock, its errors and
// how it is answered.

export type SponsorAdRow = typeof sponsorAds.$inferSelect

export const adNotFound = () => notFound('Sponsor ad not found', 'SPONSOR_AD_NOT_FOUND')
export const notYours = () => forbidden('This sponsor ad belongs to another user', 'FORBIDDEN')
export const invalidTransition = (message: string) =>
  new HttpError(400, 'SPONSOR_AD_INVALID_TRANSITION', message)

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

/** The row of `id`, locked until the transaction ends; 404 when there is none. */
export async function lockSponsorAd(tx: Tx, id: string): Promise<SponsorAdRow> {
  if (!isUuid(id)) throw adNotFound()
  const [row] = await tx.select().from(sponsorAds).where(eq(sponsorAds.id, id)).for('update')
  if (!row) throw adNotFound()
  return row
}

export const sponsorAdOf = (row: SponsorAdRow): SponsorAd => ({
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
