import { and, count, desc, eq, getTableColumns, type SQL, sql } from 'drizzle-orm'
import type { PgTable } from 'drizzle-orm/pg-core'
import { type Static, Type } from 'typebox'
import type { Db } from '../../db/index.ts'
import type { App } from '../../http/app.ts'
import { invalidField, NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { fetchPage, type Page, PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { errors, pageAnswer } from '../http/schemas.ts'
import { PaymentRecord, SubscriptionRecord } from '../sponsor-ads/billing-schemas.ts'
import { paymentRecordOf, subscriptionRecordOf } from '../sponsor-ads/rows.ts'
import {
  PAYMENT_KINDS,
  paymentSubscriptions,
  paymentWebhookEvents,
  sponsorAdPayments,
  WEBHOOK_EVENT_STATUSES,
} from './tables.ts'
import { WEBHOOK_PROVIDERS } from './webhook-routes.ts'

const tags = ['payments']
const Provider = Type.Enum([...WEBHOOK_PROVIDERS])

const PaymentQuery = Query({
  ...PageQueryFields,
  provider: Type.Optional(Provider),
  kind: Type.Optional(Type.Enum([...PAYMENT_KINDS])),
  sponsorAdId: Type.Optional(Type.String({ format: 'uuid' })),
})
const SubscriptionQuery = Query({
  ...PageQueryFields,
  provider: Type.Optional(Provider),
  status: Type.Optional(Type.String({ maxLength: 40, examples: ['past_due'] })),
  sponsorAdId: Type.Optional(Type.String({ format: 'uuid' })),
})
const EventQuery = Query({
  ...PageQueryFields,
  provider: Type.Optional(Provider),
  status: Type.Optional(Type.Enum([...WEBHOOK_EVENT_STATUSES])),
})

const StoredEvent = Type.Object({
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

const Meta = Type.Object(PageMetaFields)
const totalOf = (rows: { n: number }[]) => rows[0]?.n ?? 0

/** A page of `table`'s rows matching `where`, in `order`, each answered as `answer` makes it. */
function pageOf<T extends PgTable, Out>(
  db: Db,
  page: Page,
  table: T,
  where: SQL | undefined,
  order: SQL[],
  answer: (row: T['$inferSelect']) => Out,
) {
  return fetchPage(page, {
    rows: async (limit, offset) =>
      (
        (await db
          .select()
          .from(table as PgTable)
          .where(where)
          .orderBy(...order)
          .limit(limit)
          .offset(offset)) as T['$inferSelect'][]
      ).map(answer),
    total: async () =>
      totalOf(
        await db
          .select({ n: count() })
          .from(table as PgTable)
          .where(where),
      ),
  })
}
const listAnswer = (item: Parameters<typeof Type.Array>[0], description: string, example: unknown) =>
  Type.Object(
    { success: Type.Literal(true), data: Type.Array(item), meta: Meta },
    {
      description,
      examples: [{ success: true, data: [example], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } }],
    },
  )

const AT = '2026-11-23T10:00:00.000Z'
const AD_ID = '5b8e2c4a-1d3f-4e6a-9b7c-0d2e4f6a8b1c'
const USER_ID = '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d'
const EXAMPLE_PAYMENT = {
  id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  provider: 'stripe',
  reference: 'initial:sub_1QbC2d',
  kind: 'initial',
  eventId: 'evt_1QbC2e',
  eventType: 'checkout.session.completed',
  sponsorAdId: AD_ID,
  userId: USER_ID,
  amount: 30000,
  currency: 'usd',
  subscriptionId: 'sub_1QbC2d',
  customerId: 'cus_R2d4',
  effect: 'submitted',
  createdAt: AT,
}
const EXAMPLE_SUBSCRIPTION = {
  id: '1d2e3f4a-5b6c-4d7e-8f9a-0b1c2d3e4f5a',
  provider: 'stripe',
  subscriptionId: 'sub_1QbC2d',
  userId: USER_ID,
  sponsorAdId: AD_ID,
  planId: 'sponsor_ad_monthly',
  status: 'active',
  startDate: AT,
  endDate: '2026-12-23T10:00:00.000Z',
  priceId: 'price_1QbC2f',
  customerId: 'cus_R2d4',
  currency: 'usd',
  amount: 30000,
  interval: 'month',
  intervalCount: 1,
  trialStart: null,
  trialEnd: null,
  cancelledAt: null,
  cancelAtPeriodEnd: false,
  cancelReason: null,
  metadata: { type: 'sponsor_ad', sponsorAdId: AD_ID, itemSlug: 'blue-bottle-coffee' },
  createdAt: AT,
  updatedAt: AT,
}
const EXAMPLE_EVENT = {
  id: '2e3f4a5b-6c7d-4e8f-9a0b-1c2d3e4f5a6b',
  provider: 'stripe',
  eventId: 'evt_1QbC2e',
  type: 'payment_succeeded',
  providerType: 'checkout.session.completed',
  status: 'processed',
  attempts: 1,
  outcome: `payment initial:sub_1QbC2d applied: ad ${AD_ID} moved to pending`,
  lastError: null,
  bytes: 2048,
  receivedAt: AT,
  processedAt: AT,
  nextAttemptAt: null,
}

/**
 * What the payment providers reported, for the admins: the payment records, the provider subscriptions
 * and the stored webhook events (kept 24 hours once processed), newest first.
 */
export function adminPaymentRoutes(app: App, { db }: { db: Db }) {
  app.get(
    '/api/admin/payments',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Payment records',
        description:
          'Every payment, failed payment and refund the providers reported, newest first, each recorded once ' +
          'whatever number of events reported it; `effect` says what it did to its ad. Filters: `provider`, ' +
          '`kind`, `sponsorAdId`.',
        querystring: PaymentQuery,
        response: {
          200: listAnswer(PaymentRecord, 'A page of payment records', EXAMPLE_PAYMENT),
          ...errors(
            [400, invalidField('query.kind', 'must be one of initial, renewal, failed, refund')],
            401,
            403,
          ),
        },
      },
    },
    async (req) => {
      const q = req.query as Static<typeof PaymentQuery>
      const t = sponsorAdPayments
      const where = and(
        q.provider ? eq(t.provider, q.provider) : undefined,
        q.kind ? eq(t.kind, q.kind) : undefined,
        q.sponsorAdId ? eq(t.sponsorAdId, q.sponsorAdId) : undefined,
      )
      return pageAnswer(await pageOf(db, q, t, where, [desc(t.createdAt), desc(t.id)], paymentRecordOf))
    },
  )

  app.get(
    '/api/admin/payments/subscriptions',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Provider subscriptions',
        description:
          'SPEC.md’s normalised subscriptions as their events left them, most recently changed first. A ' +
          'failed renewal marks one `past_due`. Filters: `provider`, `status`, `sponsorAdId`.',
        querystring: SubscriptionQuery,
        response: {
          200: listAnswer(SubscriptionRecord, 'A page of subscriptions', EXAMPLE_SUBSCRIPTION),
          ...errors(400, 401, 403),
        },
      },
    },
    async (req) => {
      const q = req.query as Static<typeof SubscriptionQuery>
      const t = paymentSubscriptions
      const where = and(
        q.provider ? eq(t.provider, q.provider) : undefined,
        q.status ? eq(t.status, q.status) : undefined,
        q.sponsorAdId ? eq(t.sponsorAdId, q.sponsorAdId) : undefined,
      )
      return pageAnswer(await pageOf(db, q, t, where, [desc(t.updatedAt), desc(t.id)], subscriptionRecordOf))
    },
  )

  app.get(
    '/api/admin/payments/events',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Stored webhook events',
        description:
          'The verified events of the last 24 hours (and any still to be processed), newest first, with what ' +
          'processing did or why it failed. Filters: `provider`, `status`.',
        querystring: EventQuery,
        response: {
          200: listAnswer(StoredEvent, 'A page of stored events', EXAMPLE_EVENT),
          ...errors(400, 401, 403),
        },
      },
    },
    async (req) => {
      const q = req.query as Static<typeof EventQuery>
      const t = paymentWebhookEvents
      const where = and(
        q.provider ? eq(t.provider, q.provider) : undefined,
        q.status ? eq(t.status, q.status) : undefined,
      )
      const { rawBody: _rawBody, ...columns } = getTableColumns(t)
      return pageAnswer(
        await fetchPage(q, {
          rows: async (limit, offset) =>
            db
              .select({ ...columns, bytes: sql<number>`octet_length(${t.rawBody})` })
              .from(t)
              .where(where)
              .orderBy(desc(t.receivedAt), desc(t.id))
              .limit(limit)
              .offset(offset),
          total: async () => totalOf(await db.select({ n: count() }).from(t).where(where)),
        }),
      )
    },
  )
}
