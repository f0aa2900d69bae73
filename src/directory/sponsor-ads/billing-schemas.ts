import { type Static, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PAYMENT_PROVIDERS } from '../../integrations/payments/registry.ts'
import { PageMetaFields, PageQueryFields } from '../../lib/pagination.ts'
import { EXAMPLE_ID, EXAMPLE_USER, Nullable } from './schemas.ts'
import { PAYMENT_KINDS } from './tables.ts'

// What the providers reported about the ads: payment records and provider subscriptions, and the admins'
// lists of them.

export const PaymentRecord = Type.Object({
  id: Type.String(),
  provider: Type.String({ examples: ['stripe'] }),
  reference: Type.String({
    description:
      'what names the payment at the provider: `initial:<subscription>`, `invoice:<id>`, `order:<id>`…',
    examples: ['initial:sub_1QbC2d'],
  }),
  kind: Type.Enum(['initial', 'renewal', 'failed', 'refund'], { examples: ['initial'] }),
  eventId: Type.String({ examples: ['evt_1QbC2e'] }),
  eventType: Type.String({
    description: 'the provider’s event name',
    examples: ['checkout.session.completed'],
  }),
  sponsorAdId: Nullable(Type.String({ examples: [EXAMPLE_ID] })),
  userId: Nullable(Type.String({ examples: [EXAMPLE_USER.id] })),
  amount: Nullable(Type.Integer({ description: 'minor units', examples: [30000] })),
  currency: Nullable(Type.String({ examples: ['usd'] })),
  subscriptionId: Nullable(Type.String({ examples: ['sub_1QbC2d'] })),
  customerId: Nullable(Type.String({ examples: ['cus_R2d4'] })),
  effect: Type.Enum(['submitted', 'renewed', 'credited', 'none'], {
    description:
      'what it did to its ad: `submitted` for review, `renewed` a period, `credited` a period for the approval, or `none`',
    examples: ['submitted'],
  }),
  createdAt: Timestamp,
})
export type PaymentRecord = Static<typeof PaymentRecord>

/** SPEC.md's normalised subscription. */
export const SubscriptionRecord = Type.Object({
  id: Type.String(),
  provider: Type.String({ examples: ['stripe'] }),
  subscriptionId: Type.String({ examples: ['sub_1QbC2d'] }),
  userId: Nullable(Type.String()),
  sponsorAdId: Nullable(Type.String()),
  planId: Nullable(Type.String({ examples: ['sponsor_ad_monthly'] })),
  status: Type.String({ examples: ['active'] }),
  startDate: NullableTimestamp,
  endDate: Type.Union([Timestamp, Type.Null()], { description: 'the end of the current period' }),
  priceId: Nullable(Type.String({ examples: ['price_1QbC2f'] })),
  customerId: Nullable(Type.String({ examples: ['cus_R2d4'] })),
  currency: Nullable(Type.String({ examples: ['usd'] })),
  amount: Nullable(Type.Integer({ description: 'minor units per period', examples: [30000] })),
  interval: Nullable(Type.String({ examples: ['month'] })),
  intervalCount: Nullable(Type.Integer({ examples: [1] })),
  trialStart: NullableTimestamp,
  trialEnd: NullableTimestamp,
  cancelledAt: NullableTimestamp,
  cancelAtPeriodEnd: Type.Boolean(),
  cancelReason: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type SubscriptionRecord = Static<typeof SubscriptionRecord>

const Provider = Type.Enum(PAYMENT_PROVIDERS.map((provider) => provider.id))

export const PaymentQuery = Query({
  ...PageQueryFields,
  provider: Type.Optional(Provider),
  kind: Type.Optional(Type.Enum([...PAYMENT_KINDS])),
  sponsorAdId: Type.Optional(Type.String({ format: 'uuid' })),
})
export type PaymentQuery = Static<typeof PaymentQuery>

export const SubscriptionQuery = Query({
  ...PageQueryFields,
  provider: Type.Optional(Provider),
  status: Type.Optional(Type.String({ maxLength: 40, examples: ['past_due'] })),
  sponsorAdId: Type.Optional(Type.String({ format: 'uuid' })),
})
export type SubscriptionQuery = Static<typeof SubscriptionQuery>

const Meta = Type.Object(PageMetaFields)
const listAnswer = (item: Parameters<typeof Type.Array>[0], description: string, example: unknown) =>
  Type.Object(
    { success: Type.Literal(true), data: Type.Array(item), meta: Meta },
    {
      description,
      examples: [{ success: true, data: [example], meta: { page: 1, limit: 10, total: 1, totalPages: 1 } }],
    },
  )

const AT = '2026-11-23T10:00:00.000Z'
const EXAMPLE_PAYMENT = {
  id: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f',
  provider: 'stripe',
  reference: 'initial:sub_1QbC2d',
  kind: 'initial',
  eventId: 'evt_1QbC2e',
  eventType: 'checkout.session.completed',
  sponsorAdId: EXAMPLE_ID,
  userId: EXAMPLE_USER.id,
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
  userId: EXAMPLE_USER.id,
  sponsorAdId: EXAMPLE_ID,
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
  metadata: { type: 'sponsor_ad', sponsorAdId: EXAMPLE_ID, itemSlug: 'blue-bottle-coffee' },
  createdAt: AT,
  updatedAt: AT,
}
export const PaymentListAnswer = listAnswer(PaymentRecord, 'A page of payment records', EXAMPLE_PAYMENT)
export const SubscriptionListAnswer = listAnswer(
  SubscriptionRecord,
  'A page of subscriptions',
  EXAMPLE_SUBSCRIPTION,
)
