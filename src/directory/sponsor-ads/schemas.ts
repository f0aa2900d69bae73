import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageQueryFields } from '../../lib/pagination.ts'
import { CHECKOUT_PROVIDERS, SPONSOR_AD_STATUSES, SPONSOR_INTERVALS } from './tables.ts'

/** SPEC.md "Limits": sponsor-ad text, and the public list. */
export const SPONSOR_LIMITS = {
  slugMax: 200,
  nameMax: 200,
  urlMax: 500,
  categoryMax: 100,
  itemDescriptionMax: 500,
  titleMax: 200,
  descriptionMax: 1000,
  reasonMax: 500,
  rejectionMin: 10,
  searchMax: 100,
  publicDefault: 10,
  publicMax: 50,
} as const

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const EXAMPLE_ID = '5b8e2c4a-1d3f-4e6a-9b7c-0d2e4f6a8b1c'
const EXAMPLE_USER = {
  id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
}
const EXAMPLE_AD = {
  id: EXAMPLE_ID,
  itemSlug: 'blue-bottle-coffee',
  itemName: 'Blue Bottle Coffee',
  itemIconUrl: 'https://cdn.example.com/blue-bottle.png',
  itemCategory: 'coffee-roasters',
  itemDescription: 'Roasters of fresh coffee since 2002.',
  status: 'active',
  interval: 'monthly',
  title: 'Blue Bottle Coffee',
  description: 'Roasters of fresh coffee since 2002.',
  startDate: '2026-11-20T10:00:00.000Z',
  endDate: '2026-12-20T10:00:00.000Z',
  rejectionReason: null,
  cancelReason: null,
  paymentProvider: 'stripe',
  paidAt: '2026-11-19T08:00:00.000Z',
  unusedPeriods: 0,
  approvedAt: '2026-11-20T10:00:00.000Z',
  cancelledAt: null,
  createdAt: '2026-11-19T07:55:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
}

export const SponsorAdStatus = Type.Enum([...SPONSOR_AD_STATUSES], {
  description:
    '`pending_payment` (created, not paid), `pending` (paid, awaiting review), `active`, `rejected`, `expired`, `cancelled`',
  examples: ['active'],
})
export const SponsorInterval = Type.Enum([...SPONSOR_INTERVALS], {
  description: 'a week or a calendar month per payment',
  examples: ['monthly'],
})

const adFields = {
  id: Type.String({ examples: [EXAMPLE_ID] }),
  itemSlug: Type.String({ examples: [EXAMPLE_AD.itemSlug] }),
  itemName: Type.String({ examples: [EXAMPLE_AD.itemName] }),
  itemIconUrl: Nullable(Type.String({ examples: [EXAMPLE_AD.itemIconUrl] })),
  itemCategory: Nullable(Type.String({ examples: [EXAMPLE_AD.itemCategory] })),
  itemDescription: Nullable(Type.String({ examples: [EXAMPLE_AD.itemDescription] })),
  status: SponsorAdStatus,
  interval: SponsorInterval,
  title: Type.String({
    description: 'the item’s name until an admin changes it',
    examples: [EXAMPLE_AD.title],
  }),
  description: Nullable(Type.String({ examples: [EXAMPLE_AD.description] })),
  startDate: Type.Union([Timestamp, Type.Null()], { description: 'set by approval' }),
  endDate: Type.Union([Timestamp, Type.Null()], {
    description: 'the end of the periods paid for; the ad expires then',
  }),
  rejectionReason: Nullable(Type.String()),
  cancelReason: Nullable(Type.String()),
  paymentProvider: Nullable(
    Type.Enum([...CHECKOUT_PROVIDERS], { description: 'the provider of its latest checkout' }),
  ),
  paidAt: Type.Union([Timestamp, Type.Null()], { description: 'when its first payment arrived' }),
  unusedPeriods: Type.Integer({
    description: 'periods paid for while the ad awaited review; the approval adds them all',
    examples: [0],
  }),
  approvedAt: NullableTimestamp,
  cancelledAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
}

/** A sponsor ad as its owner sees it. */
export const SponsorAd = Type.Object(adFields, { examples: [EXAMPLE_AD] })
export type SponsorAd = Static<typeof SponsorAd>

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

/** A sponsor ad as admins see it: its user and, on the single read, its payments and subscriptions. */
export const AdminSponsorAd = Type.Object({
  ...adFields,
  user: Nullable(
    Type.Object({
      id: Type.String({ examples: [EXAMPLE_USER.id] }),
      name: Nullable(Type.String({ examples: [EXAMPLE_USER.name] })),
      email: Type.String({ examples: [EXAMPLE_USER.email] }),
    }),
  ),
  checkoutId: Nullable(Type.String({ examples: ['cs_test_a1B2'] })),
  subscriptionId: Nullable(Type.String({ examples: ['sub_1QbC2d'] })),
  customerId: Nullable(Type.String({ examples: ['cus_R2d4'] })),
  approvedBy: Nullable(Type.String()),
  rejectedAt: NullableTimestamp,
  cancelledBy: Nullable(Type.String()),
})
export type AdminSponsorAd = Static<typeof AdminSponsorAd>

export const AdminSponsorAdDetail = Type.Object({
  ...AdminSponsorAd.properties,
  payments: Type.Array(PaymentRecord, { description: 'oldest first' }),
  subscriptions: Type.Array(SubscriptionRecord),
})
export type AdminSponsorAdDetail = Static<typeof AdminSponsorAdDetail>

const EXAMPLE_ADMIN = {
  ...EXAMPLE_AD,
  user: EXAMPLE_USER,
  checkoutId: 'cs_test_a1B2',
  subscriptionId: 'sub_1QbC2d',
  customerId: 'cus_R2d4',
  approvedBy: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
  rejectedAt: null,
  cancelledBy: null,
}

const Pagination = Type.Object({
  page: Type.Integer({ examples: [1] }),
  limit: Type.Integer({ examples: [10] }),
  total: Type.Integer({ examples: [1] }),
  totalPages: Type.Integer({ examples: [1] }),
  hasNext: Type.Boolean({ examples: [false] }),
  hasPrev: Type.Boolean({ examples: [false] }),
})

const Search = Type.String({
  maxLength: SPONSOR_LIMITS.searchMax,
  description: 'text in the title, item name or item slug, whatever its case',
  examples: ['coffee'],
})

export const UserSponsorAdQuery = Query({
  ...PageQueryFields,
  status: Type.Optional(
    Type.Enum(['pending', 'pending_payment', 'approved', 'rejected', 'active', 'expired', 'cancelled'], {
      description:
        '`pending` is every ad still waiting (for its payment or for review); `pending_payment` only those ' +
        'not paid; `approved` every ad an admin approved, whatever happened to it since',
    }),
  ),
  interval: Type.Optional(SponsorInterval),
  search: Type.Optional(Search),
})
export type UserSponsorAdQuery = Static<typeof UserSponsorAdQuery>

export const ADMIN_SORTS = ['createdAt', 'updatedAt', 'startDate', 'endDate', 'status'] as const

export const AdminSponsorAdQuery = Query({
  ...PageQueryFields,
  status: Type.Optional(SponsorAdStatus),
  interval: Type.Optional(SponsorInterval),
  search: Type.Optional(
    Type.String({
      maxLength: SPONSOR_LIMITS.searchMax,
      description: 'text in the title, item name or slug, or the user’s name or email, whatever its case',
      examples: ['coffee'],
    }),
  ),
  sortBy: Type.Enum([...ADMIN_SORTS], { default: 'createdAt' }),
  sortOrder: Type.Enum(['asc', 'desc'], { default: 'desc' }),
})
export type AdminSponsorAdQuery = Static<typeof AdminSponsorAdQuery>

export const PublicSponsorAdQuery = Query({
  limit: Type.Integer({
    minimum: 1,
    maximum: SPONSOR_LIMITS.publicMax,
    default: SPONSOR_LIMITS.publicDefault,
    examples: [SPONSOR_LIMITS.publicDefault],
  }),
})
export type PublicSponsorAdQuery = Static<typeof PublicSponsorAdQuery>

const HttpUrl = (description: string) =>
  Type.String({ maxLength: SPONSOR_LIMITS.urlMax, pattern: '^https?://', description })

export const CreateSponsorAdBody = Type.Object(
  {
    itemSlug: Type.String({
      minLength: 1,
      maxLength: SPONSOR_LIMITS.slugMax,
      pattern: '^[a-z0-9-]+$',
      description: 'the item’s slug',
      examples: [EXAMPLE_AD.itemSlug],
    }),
    itemName: Type.String({
      minLength: 1,
      maxLength: SPONSOR_LIMITS.nameMax,
      description: 'shown on the ad; also its first title',
      examples: [EXAMPLE_AD.itemName],
    }),
    interval: SponsorInterval,
    itemIconUrl: Type.Optional(HttpUrl('an http(s) URL of the item’s icon')),
    itemCategory: Type.Optional(
      Type.String({ maxLength: SPONSOR_LIMITS.categoryMax, examples: ['coffee-roasters'] }),
    ),
    itemDescription: Type.Optional(
      Type.String({ maxLength: SPONSOR_LIMITS.itemDescriptionMax, examples: [EXAMPLE_AD.itemDescription] }),
    ),
  },
  {
    examples: [
      {
        itemSlug: EXAMPLE_AD.itemSlug,
        itemName: EXAMPLE_AD.itemName,
        interval: 'monthly',
        itemDescription: EXAMPLE_AD.itemDescription,
      },
    ],
  },
)
export type CreateSponsorAdBody = Static<typeof CreateSponsorAdBody>

const RedirectFields = {
  successUrl: Type.Optional(
    HttpUrl('where the provider sends the buyer after paying; must be on the app’s own origin (APP_URL)'),
  ),
  cancelUrl: Type.Optional(HttpUrl('where the provider sends a buyer who gives up; on the app’s own origin')),
}

export const CheckoutBody = Type.Object(
  {
    sponsorAdId: Type.String({ format: 'uuid', description: 'an ad of yours in `pending_payment`' }),
    ...RedirectFields,
  },
  {
    examples: [{ sponsorAdId: EXAMPLE_ID, successUrl: 'https://directory.example.com/sponsor/thanks' }],
  },
)
export type CheckoutBody = Static<typeof CheckoutBody>

export const RenewBody = Type.Object(RedirectFields, {
  examples: [{ successUrl: 'https://directory.example.com/sponsor/thanks' }],
})
export type RenewBody = Static<typeof RenewBody>

export const CancelBody = Type.Object(
  {
    cancelReason: Type.Optional(
      Type.String({ maxLength: SPONSOR_LIMITS.reasonMax, examples: ['The shop is closing for the winter.'] }),
    ),
  },
  { examples: [{ cancelReason: 'The shop is closing for the winter.' }] },
)
export type CancelBody = Static<typeof CancelBody>

export const ApproveBody = Type.Object(
  {
    forceApprove: Type.Optional(
      Type.Boolean({ description: 'approve an ad in `pending_payment`, without payment', default: false }),
    ),
  },
  { examples: [{}, { forceApprove: true }] },
)
export type ApproveBody = Static<typeof ApproveBody>

export const RejectBody = Type.Object(
  {
    rejectionReason: Type.String({
      minLength: SPONSOR_LIMITS.rejectionMin,
      maxLength: SPONSOR_LIMITS.reasonMax,
      examples: ['The item is not part of this directory.'],
    }),
  },
  { examples: [{ rejectionReason: 'The item is not part of this directory.' }] },
)
export type RejectBody = Static<typeof RejectBody>

export const UpdateSponsorAdBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: SPONSOR_LIMITS.titleMax })),
    description: Type.Optional(Nullable(Type.String({ maxLength: SPONSOR_LIMITS.descriptionMax }))),
    startDate: Type.Optional(Type.String({ format: 'date-time' })),
    endDate: Type.Optional(Type.String({ format: 'date-time' })),
  },
  {
    description:
      'Any of the ad’s title, description and dates; the end must come after the start. Status moves only by ' +
      'its own actions (approve, reject, cancel).',
    minProperties: 1,
    examples: [{ title: 'Blue Bottle: the coffee of Oakland', endDate: '2027-01-20T10:00:00.000Z' }],
  },
)
export type UpdateSponsorAdBody = Static<typeof UpdateSponsorAdBody>

export const SponsorAdParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the sponsor ad’s id', examples: [EXAMPLE_ID] }),
})

export const UserListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(SponsorAd), pagination: Pagination },
  {
    description: 'A page of your sponsor ads, newest first',
    examples: [
      {
        success: true,
        data: [EXAMPLE_AD],
        pagination: { page: 1, limit: 10, total: 1, totalPages: 1, hasNext: false, hasPrev: false },
      },
    ],
  },
)

export const AdminStats = Type.Object({
  total: Type.Integer({ examples: [12] }),
  active: Type.Integer({ examples: [5] }),
  pending: Type.Integer({ description: 'awaiting review or payment', examples: [3] }),
  expired: Type.Integer({ examples: [2] }),
  cancelled: Type.Integer({ examples: [1] }),
})

export const AdminListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Array(AdminSponsorAd),
    pagination: Pagination,
    stats: AdminStats,
  },
  {
    description: 'A page of sponsor ads with the figures of all of them (not only of the filter)',
    examples: [
      {
        success: true,
        data: [EXAMPLE_ADMIN],
        pagination: { page: 1, limit: 10, total: 1, totalPages: 1, hasNext: false, hasPrev: false },
        stats: { total: 12, active: 5, pending: 3, expired: 2, cancelled: 1 },
      },
    ],
  },
)

export const UserStatsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    stats: Type.Object({
      overview: Type.Object({
        total: Type.Integer(),
        pendingPayment: Type.Integer(),
        pending: Type.Integer(),
        active: Type.Integer(),
        rejected: Type.Integer(),
        expired: Type.Integer(),
        cancelled: Type.Integer(),
      }),
      byInterval: Type.Object({ weekly: Type.Integer(), monthly: Type.Integer() }),
      revenue: Type.Object(
        {
          totalRevenue: Type.Integer(),
          weeklyRevenue: Type.Integer(),
          monthlyRevenue: Type.Integer(),
          currency: Type.String({ examples: ['usd'] }),
        },
        {
          description:
            'What your ads’ payments came to, in minor units (cents): payments received less refunds, by the ' +
            'ad’s interval. A payment whose amount the provider did not say counts at the configured price.',
        },
      ),
    }),
  },
  {
    description: 'Your ads by status and interval, and what their payments came to',
    examples: [
      {
        success: true,
        stats: {
          overview: {
            total: 3,
            pendingPayment: 1,
            pending: 0,
            active: 1,
            rejected: 0,
            expired: 1,
            cancelled: 0,
          },
          byInterval: { weekly: 1, monthly: 2 },
          revenue: { totalRevenue: 70000, weeklyRevenue: 10000, monthlyRevenue: 60000, currency: 'usd' },
        },
      },
    ],
  },
)

export const SponsorAdAnswer = (description: string) =>
  Type.Object(
    { success: Type.Literal(true), data: SponsorAd },
    { description, examples: [{ success: true, data: EXAMPLE_AD }] },
  )

export const SponsorAdMessageAnswer = (description: string, message: string) =>
  Type.Object(
    { success: Type.Literal(true), data: SponsorAd, message: Type.String({ examples: [message] }) },
    { description, examples: [{ success: true, data: EXAMPLE_AD, message }] },
  )

export const AdminDetailAnswer = Type.Object(
  { success: Type.Literal(true), data: AdminSponsorAdDetail },
  {
    description: 'The ad with its user, its payments and its subscriptions',
    examples: [{ success: true, data: { ...EXAMPLE_ADMIN, payments: [], subscriptions: [] } }],
  },
)

export const AdminAdAnswer = Type.Object(
  { success: Type.Literal(true), data: AdminSponsorAd, message: Type.String() },
  {
    description: 'The ad as changed',
    examples: [{ success: true, data: EXAMPLE_ADMIN, message: 'Sponsor ad updated' }],
  },
)

export const CheckoutAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      checkoutId: Type.String({ examples: ['cs_test_a1B2'] }),
      checkoutUrl: Type.String({
        description: 'send the buyer here',
        examples: ['https://checkout.stripe.com/c/pay/cs_test_a1B2'],
      }),
      provider: Type.Enum([...CHECKOUT_PROVIDERS], { examples: ['stripe'] }),
    }),
    message: Type.String({ examples: ['Checkout session created'] }),
  },
  {
    description: 'The checkout to send the buyer to',
    examples: [
      {
        success: true,
        data: {
          checkoutId: 'cs_test_a1B2',
          checkoutUrl: 'https://checkout.stripe.com/c/pay/cs_test_a1B2',
          provider: 'stripe',
        },
        message: 'Checkout session created',
      },
    ],
  },
)

export const TransitionAnswer = <P extends Record<string, TSchema>>(
  fields: P,
  example: Record<string, unknown>,
  message: string,
) =>
  Type.Object(
    {
      success: Type.Literal(true),
      data: Type.Object({ id: Type.String(), status: SponsorAdStatus, ...fields }),
      message: Type.String({ examples: [message] }),
    },
    {
      description: 'The ad’s new status',
      examples: [{ success: true, data: { id: EXAMPLE_ID, ...example }, message }],
    },
  )

export const PublicSponsorAd = Type.Object({
  sponsor: Type.Object({
    id: Type.String({ examples: [EXAMPLE_ID] }),
    itemSlug: Type.String({ examples: [EXAMPLE_AD.itemSlug] }),
    status: Type.Literal('active'),
    interval: SponsorInterval,
  }),
  item: Nullable(
    Type.Object(
      {
        name: Type.String({ examples: ['Blue Bottle Coffee'] }),
        slug: Type.String({ examples: [EXAMPLE_AD.itemSlug] }),
        description: Nullable(Type.String({ examples: ['Roasters of fresh coffee since 2002.'] })),
        icon_url: Nullable(Type.String({ examples: [EXAMPLE_AD.itemIconUrl] })),
        category: Nullable(Type.String({ description: 'the category’s id', examples: ['coffee-roasters'] })),
      },
      { description: 'the published item of this slug; null when the directory has none' },
    ),
  ),
})
export type PublicSponsorAd = Static<typeof PublicSponsorAd>

export const PublicListAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Array(PublicSponsorAd) },
  {
    description: 'Active ads within their dates, the most recently started first',
    examples: [
      {
        success: true,
        data: [
          {
            sponsor: { id: EXAMPLE_ID, itemSlug: EXAMPLE_AD.itemSlug, status: 'active', interval: 'monthly' },
            item: {
              name: 'Blue Bottle Coffee',
              slug: EXAMPLE_AD.itemSlug,
              description: 'Roasters of fresh coffee since 2002.',
              icon_url: EXAMPLE_AD.itemIconUrl,
              category: 'coffee-roasters',
            },
          },
        ],
      },
    ],
  },
)

export const DeletedAnswer = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Sponsor ad deleted'] }) },
  { description: 'Deleted', examples: [{ success: true, message: 'Sponsor ad deleted' }] },
)
