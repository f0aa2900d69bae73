import { sql } from 'drizzle-orm'
import { check, customType, index, integer, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { directorySchema } from '../schema.ts'

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
