import { sql } from 'drizzle-orm'
import { check, index, integer, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'

/** SPEC.md "Sponsor ad status". */
export const SPONSOR_AD_STATUSES = [
  'pending_payment',
  'pending',
  'active',
  'rejected',
  'expired',
  'cancelled',
] as const
export type SponsorAdStatus = (typeof SPONSOR_AD_STATUSES)[number]

export const SPONSOR_INTERVALS = ['weekly', 'monthly'] as const
export type SponsorInterval = (typeof SPONSOR_INTERVALS)[number]

/** The statuses in which an ad holds its item for its user: a second one is refused. */
export const OPEN_SPONSOR_AD_STATUSES = ['pending_payment', 'pending', 'active'] as const

/**
 * A paid placement of an item, bought by a user for a week or a month at a time. Its payment state lives
 * here (the provider, its subscription, the periods paid for and not yet used); every payment that moved
 * it is a row of `sponsor_ad_payments`.
 */
export const sponsorAds = directorySchema.table(
  'sponsor_ads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    itemSlug: varchar('item_slug', { length: 200 }).notNull(),
    itemName: varchar('item_name', { length: 200 }).notNull(),
    itemIconUrl: varchar('item_icon_url', { length: 500 }),
    itemCategory: varchar('item_category', { length: 100 }),
    itemDescription: varchar('item_description', { length: 500 }),
    interval: varchar('interval', { length: 10 }).$type<SponsorInterval>().notNull(),
    status: varchar('status', { length: 20 }).$type<SponsorAdStatus>().notNull(),
    title: varchar('title', { length: 200 }).notNull(),
    description: varchar('description', { length: 1000 }),
    startDate: timestamptz('start_date'),
    endDate: timestamptz('end_date'),
    rejectionReason: text('rejection_reason'),
    cancelReason: text('cancel_reason'),
    approvedAt: timestamptz('approved_at'),
    approvedBy: uuid('approved_by').references(() => users.id, { onDelete: 'set null' }),
    rejectedAt: timestamptz('rejected_at'),
    rejectedBy: uuid('rejected_by').references(() => users.id, { onDelete: 'set null' }),
    cancelledAt: timestamptz('cancelled_at'),
    /** The admin or owner who cancelled it; null when the provider's cancellation did, or once they are gone. */
    cancelledBy: uuid('cancelled_by').references(() => users.id, { onDelete: 'set null' }),
    /** When its first payment arrived. */
    paidAt: timestamptz('paid_at'),
    /**
     * Periods paid for that no approval or renewal has used yet: a payment that reaches an ad still in
     * review waits here, and the approval gives them all.
     */
    unusedPeriods: integer('unused_periods').notNull().default(0),
    /** The provider of its latest checkout, and what that provider calls the checkout and subscription. */
    paymentProvider: varchar('payment_provider', { length: 20 }),
    checkoutId: varchar('checkout_id', { length: 255 }),
    subscriptionId: varchar('subscription_id', { length: 255 }),
    customerId: varchar('customer_id', { length: 255 }),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check(
      'sponsor_ads_status_check',
      sql`${table.status} in ('pending_payment', 'pending', 'active', 'rejected', 'expired', 'cancelled')`,
    ),
    check('sponsor_ads_interval_check', sql`${table.interval} in ('weekly', 'monthly')`),
    check('sponsor_ads_unused_periods_check', sql`${table.unusedPeriods} >= 0`),
    // One open ad per user and item, also for racing submissions.
    uniqueIndex('sponsor_ads_open_unique')
      .on(table.userId, table.itemSlug)
      .where(sql`${table.status} in ('pending_payment', 'pending', 'active')`),
    // A user's list, newest first.
    index('sponsor_ads_user_created_idx').on(table.userId, table.createdAt.desc(), table.id.desc()),
    // The admin list within a status, the public list and the expiry sweep (active by end date).
    index('sponsor_ads_status_created_idx').on(table.status, table.createdAt.desc(), table.id.desc()),
    index('sponsor_ads_status_end_idx').on(table.status, table.endDate),
    index('sponsor_ads_created_idx').on(table.createdAt.desc(), table.id.desc()),
    // Events that name only the provider's subscription find their ad by it.
    index('sponsor_ads_subscription_idx').on(table.paymentProvider, table.subscriptionId),
  ],
)
