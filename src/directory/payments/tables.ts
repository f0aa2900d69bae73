import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  customType,
  index,
  integer,
  jsonb,
  text,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'
import { sponsorAds } from '../sponsor-ads/tables.ts'

const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
})

export const WEBHOOK_EVENT_STATUSES = ['received', 'processed', 'failed'] as const
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUSES)[number]

/**
 * Every verified inbound payment event, stored before it is acknowledged: its raw body, provider, id and
 * type. The row is also the idempotency record: `(provider, event_id)` is unique, and its effects run in
 * the transaction that marks it `processed`, so an event applies once however often and wherever it
 * arrives. An event whose processing failed is tried again from its stored body.
 */
export const paymentWebhookEvents = directorySchema.table(
  'payment_webhook_events',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    provider: varchar('provider', { length: 20 }).notNull(),
    eventId: varchar('event_id', { length: 255 }).notNull(),
    /** The normalised type (`payment_succeeded`, …, or `ignored`), and the provider's own name. */
    type: varchar('type', { length: 40 }).notNull(),
    providerType: varchar('provider_type', { length: 100 }).notNull(),
    rawBody: bytea('raw_body').notNull(),
    status: varchar('status', { length: 20 }).$type<WebhookEventStatus>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** What processing did (`sponsor ad … moved to pending`, `unknown sponsor ad`, …) or why it failed. */
    outcome: text('outcome'),
    lastError: text('last_error'),
    receivedAt: timestamptz('received_at').notNull(),
    processedAt: timestamptz('processed_at'),
    /** When the retry sweep may try it again; null once processed or given up. */
    nextAttemptAt: timestamptz('next_attempt_at'),
  },
  (table) => [
    check('payment_webhook_events_status_check', sql`${table.status} in ('received', 'processed', 'failed')`),
    uniqueIndex('payment_webhook_events_event_unique').on(table.provider, table.eventId),
    index('payment_webhook_events_retry_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.status} = 'received'`),
    index('payment_webhook_events_received_idx').on(table.receivedAt.desc(), table.id.desc()),
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
