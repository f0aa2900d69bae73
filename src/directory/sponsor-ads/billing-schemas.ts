import { type Static, Type } from 'typebox'
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts'
import { EXAMPLE_ID, EXAMPLE_USER, Nullable } from './schemas.ts'

// What the providers reported about the ads: payment records and provider subscriptions.

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
