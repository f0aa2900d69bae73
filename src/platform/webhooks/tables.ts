import { sql } from 'drizzle-orm'
import { index, integer, text, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'
import { works } from '../works/tables.ts'

export const SUBSCRIPTION_STATUSES = ['active', 'paused', 'failed'] as const
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number]

export const DELIVERY_STATUSES = ['pending', 'delivering', 'succeeded', 'failed', 'cancelled'] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

export const DELIVERY_OUTCOMES = [
  'success',
  'redirect_refused',
  'client_error',
  'server_error',
  'timeout',
  'payload_too_large',
  'ssrf_blocked',
] as const
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number]

/** Where an account's events go: account-wide (every work it owns) or one work's (one it may view). */
export const webhookSubscriptions = platformSchema.table(
  'webhook_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workId: uuid('work_id').references(() => works.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    status: text('status').$type<SubscriptionStatus>().notNull(),
    /** The signing secret, sealed (`enc:v1:`): it signs every attempt, and is shown only when made. */
    signingSecret: text('signing_secret').notNull(),
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('webhook_subscriptions_user_idx').on(table.userId, table.status),
    // A work's event finds the work-scoped subscriptions of its members by the work.
    index('webhook_subscriptions_work_idx').on(table.workId).where(sql`${table.workId} is not null`),
  ],
)

/**
 * One event for one subscription, with the body it sends (built once: every attempt and a redelivery send
 * the same bytes). Written with the change that caused the event, with its job: an outbox.
 */
export const webhookDeliveries = platformSchema.table(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    subscriptionId: uuid('subscription_id').references(() => webhookSubscriptions.id, {
      onDelete: 'set null',
    }),
    event: text('event').notNull(),
    body: text('body').notNull(),
    status: text('status').$type<DeliveryStatus>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastResponseStatus: integer('last_response_status'),
    lastOutcome: text('last_outcome').$type<DeliveryOutcome>(),
    lastError: text('last_error'),
    durationMs: integer('duration_ms'),
    /** The job that ran its last attempt. */
    triggerRunId: text('trigger_run_id'),
    redeliveryOf: uuid('redelivery_of'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('webhook_deliveries_user_idx').on(table.userId, table.createdAt),
    index('webhook_deliveries_subscription_idx').on(table.subscriptionId, table.status),
    // The recovery pass looks for attempts in flight, a handful among many.
    index('webhook_deliveries_delivering_idx').on(table.updatedAt).where(sql`${table.status} = 'delivering'`),
  ],
)
