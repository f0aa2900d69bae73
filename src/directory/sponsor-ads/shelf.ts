import { and, desc, eq, gt, lte, or, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { categories } from '../categories/tables.ts'
import { items } from '../items/tables.ts'
import type { PublicSponsorAd } from './schemas.ts'
import { sponsorAds } from './tables.ts'

export type SponsorAdShelf = ReturnType<typeof createSponsorAdShelf>

/** The public shelf: the ads running now, each with the published item it promotes. */
export function createSponsorAdShelf({ db, clock }: { db: Db; clock: Clock }) {
  return {
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
  }
}
