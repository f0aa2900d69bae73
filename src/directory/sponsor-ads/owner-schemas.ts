import { type Static, Type } from 'typebox'
import { Query } from '../../http/schemas.ts'
import { CHECKOUT_PROVIDER_IDS } from '../../integrations/payments/registry.ts'
import { PageQueryFields } from '../../lib/pagination.ts'
import { EXAMPLE_AD, EXAMPLE_ID, Pagination, SPONSOR_LIMITS, SponsorAd, SponsorInterval } from './schemas.ts'

// A user's own ads: the list and its figures, submission, checkout and renewal.

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

export const CheckoutAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      checkoutId: Type.String({ examples: ['cs_test_a1B2'] }),
      checkoutUrl: Type.String({
        description: 'send the buyer here',
        examples: ['https://checkout.stripe.com/c/pay/cs_test_a1B2'],
      }),
      provider: Type.Enum([...CHECKOUT_PROVIDER_IDS], { examples: ['stripe'] }),
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
