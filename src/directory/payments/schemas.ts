import { type Static, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { WEBHOOK_EVENT_STATUSES } from './tables.ts'
import { WEBHOOK_PROVIDERS } from './webhook-routes.ts'

// The admins' view of the stored webhook events.

export const EventQuery = Query({
  ...PageQueryFields,
  provider: Type.Optional(Type.Enum([...WEBHOOK_PROVIDERS])),
  status: Type.Optional(Type.Enum([...WEBHOOK_EVENT_STATUSES])),
})

export type EventQuery = Static<typeof EventQuery>

export const StoredEvent = Type.Object({
  id: Type.String(),
  provider: Type.String({ examples: ['stripe'] }),
  eventId: Type.String({ examples: ['evt_1QbC2e'] }),
  type: Type.String({ description: 'the normalised type', examples: ['payment_succeeded'] }),
  providerType: Type.String({ examples: ['checkout.session.completed'] }),
  status: Type.Enum([...WEBHOOK_EVENT_STATUSES], {
    description:
      '`received` (stored, its processing to come or to be retried), `processed`, or `failed` (given up)',
  }),
  attempts: Type.Integer(),
  outcome: Type.Union([Type.String(), Type.Null()], {
    examples: ['payment initial:sub_1 applied: ad 5b8e… moved to pending'],
  }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  bytes: Type.Integer({ description: 'the size of the raw body kept' }),
  receivedAt: Timestamp,
  processedAt: NullableTimestamp,
  nextAttemptAt: NullableTimestamp,
})

export type StoredEvent = Static<typeof StoredEvent>

const AT = '2026-11-23T10:00:00.000Z'
const EXAMPLE_EVENT = {
  id: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b',
  provider: 'stripe',
  eventId: 'evt_1QbC2e',
  type: 'payment_succeeded',
  providerType: 'checkout.session.completed',
  status: 'processed',
  attempts: 1,
  outcome: 'payment initial:sub_1QbC2d applied: ad 5b8e2c4a-1d3f-4e6a-9b7c-0d2e4f6a8b1c moved to pending',
  lastError: null,
  bytes: 2048,
  receivedAt: AT,
  processedAt: AT,
  nextAttemptAt: null,
}

export const EventListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(StoredEvent), meta: Type.Object(PageMetaFields) },
  {
    description: 'A page of stored events',
    examples: [
      { success: true, data: [EXAMPLE_EVENT], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } },
    ],
  },
)
