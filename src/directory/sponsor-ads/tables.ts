import { sql } from 'drizzle-orm'
import { boolean, check, index, integer, jsonb, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
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

export const PAYMENT_KINDS = ['initial', 'renewal', 'failed', 'refund'] as const
export type PaymentKind = (typeof PAYMENT_KINDS)[number]

/**
 * Every payment, failed payment and refund the providers reported. `(provider, reference)` is unique:
 * the reference names the payment itself (a subscription's first payment, an invoice, an order), so the
 * several events a provider sends for one payment, in whatever order, record and apply it once.
 */
export const sponsorAdPayments = directorySchema.table(
  'sponsor_ad_payments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    provider: varchar('provider', { length: 20 }).notNull(),
    reference: varchar('reference', { length: 300 }).notNull(),
    kind: varchar('kind', { length: 20 }).$type<PaymentKind>().notNull(),
    /** The webhook event that recorded it. */
    eventId: varchar('event_id', { length: 255 }).notNull(),
    eventType: varchar('event_type', { length: 100 }).notNull(),
    /** Kept when the ad or its user is deleted: money records outlive them. */
    sponsorAdId: uuid('sponsor_ad_id').references(() => sponsorAds.id, { onDelete: 'set null' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Minor units; null when the provider did not say. Refunds are positive amounts of kind `refund`. */
    amount: integer('amount'),
    currency: varchar('currency', { length: 10 }),
    subscriptionId: varchar('subscription_id', { length: 255 }),
    customerId: varchar('customer_id', { length: 255 }),
    /** What it did to its ad: `submitted`, `renewed`, `credited`, `none`. */
    effect: varchar('effect', { length: 20 }).notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    check('sponsor_ad_payments_kind_check', sql`${table.kind} in ('initial', 'renewal', 'failed', 'refund')`),
    uniqueIndex('sponsor_ad_payments_reference_unique').on(table.provider, table.reference),
    index('sponsor_ad_payments_ad_idx').on(table.sponsorAdId, table.createdAt),
    index('sponsor_ad_payments_user_idx').on(table.userId),
    index('sponsor_ad_payments_created_idx').on(table.createdAt.desc(), table.id.desc()),
  ],
)

/** SPEC.md's normalised subscription, one row per provider subscription, kept by its events. */
export const paymentSubscriptions = directorySchema.table(
  'payment_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    provider: varchar('provider', { length: 20 }).notNull(),
    subscriptionId: varchar('subscription_id', { length: 255 }).notNull(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    sponsorAdId: uuid('sponsor_ad_id').references(() => sponsorAds.id, { onDelete: 'set null' }),
    /** What was bought: `sponsor_ad_weekly`, `sponsor_ad_monthly`. */
    planId: varchar('plan_id', { length: 100 }),
    status: varchar('status', { length: 40 }).notNull(),
    startDate: timestamptz('start_date'),
    /** The end of the current period. */
    endDate: timestamptz('end_date'),
    priceId: varchar('price_id', { length: 255 }),
    customerId: varchar('customer_id', { length: 255 }),
    currency: varchar('currency', { length: 10 }),
    amount: integer('amount'),
    interval: varchar('interval', { length: 20 }),
    intervalCount: integer('interval_count'),
    trialStart: timestamptz('trial_start'),
    trialEnd: timestamptz('trial_end'),
    cancelledAt: timestamptz('cancelled_at'),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    cancelReason: text('cancel_reason'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('payment_subscriptions_provider_unique').on(table.provider, table.subscriptionId),
    index('payment_subscriptions_ad_idx').on(table.sponsorAdId),
    index('payment_subscriptions_user_idx').on(table.userId),
    index('payment_subscriptions_updated_idx').on(table.updatedAt.desc(), table.id.desc()),
  ],
)
