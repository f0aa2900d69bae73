import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { CHECKOUT_PROVIDER_IDS } from '../../integrations/payments/registry.ts'
import { SPONSOR_AD_STATUSES, SPONSOR_INTERVALS } from './tables.ts'

// What every sponsor-ad route shares (the ad as its owner sees it, its limits and examples), and the
// public shelf's schemas. The owner's, the admins' and billing's own are in owner-, review- and
// billing-schemas.ts.

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

/** The error answers several sponsor-ad routes share, for `errors()`. */
export const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
export const NOT_FOUND = [404, 'SPONSOR_AD_NOT_FOUND'] as const
export const TRANSITION_400 = [400, 'SPONSOR_AD_INVALID_TRANSITION', 'VALIDATION_ERROR'] as const

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const EXAMPLE_ID = '5b8e2c4a-1d3f-4e6a-9b7c-0d2e4f6a8b1c'
export const EXAMPLE_USER = {
  id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
}
export const EXAMPLE_AD = {
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

export const adFields = {
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
    Type.Enum([...CHECKOUT_PROVIDER_IDS], { description: 'the provider of its latest checkout' }),
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

export const Pagination = Type.Object({
  page: Type.Integer({ examples: [1] }),
  limit: Type.Integer({ examples: [10] }),
  total: Type.Integer({ examples: [1] }),
  totalPages: Type.Integer({ examples: [1] }),
  hasNext: Type.Boolean({ examples: [false] }),
  hasPrev: Type.Boolean({ examples: [false] }),
})

export const SponsorAdParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'the sponsor ad’s id', examples: [EXAMPLE_ID] }),
})

export const CancelBody = Type.Object(
  {
    cancelReason: Type.Optional(
      Type.String({ maxLength: SPONSOR_LIMITS.reasonMax, examples: ['The shop is closing for the winter.'] }),
    ),
  },
  { examples: [{ cancelReason: 'The shop is closing for the winter.' }] },
)
export type CancelBody = Static<typeof CancelBody>

export const PublicSponsorAdQuery = Query({
  limit: Type.Integer({
    minimum: 1,
    maximum: SPONSOR_LIMITS.publicMax,
    default: SPONSOR_LIMITS.publicDefault,
    examples: [SPONSOR_LIMITS.publicDefault],
  }),
})
export type PublicSponsorAdQuery = Static<typeof PublicSponsorAdQuery>

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
