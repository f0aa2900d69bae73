import type { App } from '../../http/app.ts'
import { invalidField } from '../../http/schemas.ts'
import { CHECKOUT_PAYMENT_PROVIDERS, providerNames } from '../../integrations/payments/registry.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import type { OwnerSponsorAds } from './owner.ts'
import {
  CheckoutAnswer,
  CheckoutBody,
  CreateSponsorAdBody,
  RenewBody,
  SponsorAdAnswer,
  SponsorAdMessageAnswer,
  UserListAnswer,
  UserSponsorAdQuery,
  UserStatsAnswer,
} from './owner-schemas.ts'
import {
  CancelBody,
  NOT_FOUND,
  PublicListAnswer,
  PublicSponsorAdQuery,
  SPONSOR_LIMITS,
  SponsorAdParams,
  TRANSITION_400,
  WRITE_403,
} from './schemas.ts'
import type { SponsorAdShelf } from './shelf.ts'

const tags = ['sponsor-ads']
const USER = '/api/sponsor-ads/user'
const CHECKOUT_FAILURES = [
  [
    400,
    'SPONSOR_AD_INVALID_TRANSITION',
    'PAYMENT_NOT_CONFIGURED',
    invalidField('body.successUrl', "must be on the app's own origin (https://directory.example.com)"),
  ],
  [500, 'PAYMENT_PROVIDER_ERROR'],
] as const

const CHECKOUT_SAYS =
  `The provider is \`PAYMENT_PROVIDER\` (${providerNames(CHECKOUT_PAYMENT_PROVIDERS, 'or')}) and bills the ad’s interval as a ` +
  'subscription; the checkout carries `{type:"sponsor_ad", sponsorAdId, itemSlug}` as metadata. ' +
  '`successUrl` and `cancelUrl` must be on the app’s own origin (APP_URL, or CORS_ORIGINS), else 400; ' +
  'without them the buyer comes back to `/sponsor/success` or `/sponsor/cancel` of APP_URL. 400 ' +
  '`PAYMENT_NOT_CONFIGURED` when the provider’s credentials or the interval’s price are not set; 500 ' +
  '`PAYMENT_PROVIDER_ERROR` when the provider fails (the reason is logged, not shown).'

/** The public shelf of active ads. */
export function publicSponsorAdRoutes(app: App, { shelf }: { shelf: SponsorAdShelf }) {
  app.get(
    '/api/sponsor-ads',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Active sponsor ads',
        description:
          'Ads that are `active` and within their dates (an ad past its end date is never shown, even before ' +
          'the expiry job marks it), each with the published item of its slug (null when the directory has ' +
          `none). \`limit\` 1 to ${SPONSOR_LIMITS.publicMax}, default ${SPONSOR_LIMITS.publicDefault}.`,
        querystring: PublicSponsorAdQuery,
        response: {
          200: PublicListAnswer,
          ...errors([400, invalidField('query.limit', `must be at most ${SPONSOR_LIMITS.publicMax}`)]),
        },
      },
    },
    async (req) => ({ success: true as const, data: await shelf.publicList(req.query.limit) }),
  )
}

/** A signed-in user's own ads: submit, pay, follow, cancel, renew. */
export function userSponsorAdRoutes(app: App, { ads }: { ads: OwnerSponsorAds }) {
  app.get(
    USER,
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Your sponsor ads',
        description:
          'A page of your ads, newest first. `status` filters (`pending` covers ads awaiting payment or ' +
          'review; `approved`, every ad an admin approved), as do `interval` and `search` (title, item name ' +
          'or slug).',
        querystring: UserSponsorAdQuery,
        response: {
          200: UserListAnswer,
          ...errors([400, invalidField('query.limit', 'must be at most 100')], 401),
        },
      },
    },
    async (req) => ({ success: true as const, ...(await ads.listForUser(viewerOf(req).user.id, req.query)) }),
  )

  app.post(
    USER,
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Submit a sponsor ad',
        description:
          'A new ad for an item, in `pending_payment`: pay for it with `POST /api/sponsor-ads/checkout`. One ' +
          'ad per item may be awaiting payment, in review or running at a time: a second is 400 ' +
          '`SPONSOR_AD_DUPLICATE`, also when two arrive at once.',
        body: CreateSponsorAdBody,
        response: {
          200: SponsorAdMessageAnswer('The ad, awaiting payment', 'Sponsor ad created; proceed to payment'),
          ...errors(
            [400, invalidField('body.itemSlug', 'must match pattern "^[a-z0-9-]+$"'), 'SPONSOR_AD_DUPLICATE'],
            401,
            [403, 'CROSS_ORIGIN'],
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.create(viewerOf(req).user.id, req.body),
      message: 'Sponsor ad created; proceed to payment',
    }),
  )

  app.get(
    `${USER}/stats`,
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Figures of your sponsor ads',
        description:
          'How many of your ads are in each status and interval, and what their payments came to, in minor ' +
          'units (received less refunded).',
        response: { 200: UserStatsAnswer, ...errors(401) },
      },
    },
    async (req) => ({ success: true as const, stats: await ads.statsForUser(viewerOf(req).user.id) }),
  )

  app.get(
    `${USER}/:id`,
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Read one of your sponsor ads',
        description: 'Another user’s ad answers 404, as a missing one does.',
        params: SponsorAdParams,
        response: { 200: SponsorAdAnswer('Your ad'), ...errors(401, NOT_FOUND) },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.readForUser(viewerOf(req).user.id, req.params.id),
    }),
  )

  app.post(
    '/api/sponsor-ads/checkout',
    {
      config: { access: 'session' },
      schema: {
        tags,
        summary: 'Pay for a sponsor ad',
        description:
          `A checkout for your ad in \`pending_payment\` (another status is 400; another user’s ad 403). ${CHECKOUT_SAYS} ` +
          'Its payment, reported by the provider’s webhook, moves the ad to `pending` for review.',
        body: CheckoutBody,
        response: {
          200: CheckoutAnswer,
          ...errors(...CHECKOUT_FAILURES, 401, WRITE_403, NOT_FOUND, 413, 415),
        },
      },
    },
    async (req) => {
      const { user } = viewerOf(req)
      const { provider, checkoutId, checkoutUrl } = await ads.checkout(user, req.body)
      return {
        success: true as const,
        data: { checkoutId, checkoutUrl, provider },
        message: 'Checkout session created',
      }
    },
  )

  app.post(
    `${USER}/:id/cancel`,
    {
      config: { access: 'session', optionalBody: true },
      schema: {
        tags,
        summary: 'Cancel your sponsor ad',
        description:
          'An ad awaiting payment, in review or running becomes `cancelled` (another status is 400); its ' +
          'subscription at the provider is cancelled too, by a job retried until the provider confirms. ' +
          `\`cancelReason\` up to ${SPONSOR_LIMITS.reasonMax} characters.`,
        params: SponsorAdParams,
        body: CancelBody,
        response: {
          200: SponsorAdMessageAnswer('The cancelled ad', 'Sponsor ad cancelled'),
          ...errors(TRANSITION_400, 401, WRITE_403, NOT_FOUND, 413, 415),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.cancelByOwner(viewerOf(req).user.id, req.params.id, req.body.cancelReason),
      message: 'Sponsor ad cancelled',
    }),
  )

  app.post(
    `${USER}/:id/renew`,
    {
      config: { access: 'session', optionalBody: true },
      schema: {
        tags,
        summary: 'Renew your sponsor ad',
        description:
          'A renewal checkout for your `active` or `expired` ad (another status is 400); the ad is unchanged ' +
          `until the payment arrives, which adds a period from the later of now and its end date. ${CHECKOUT_SAYS}`,
        params: SponsorAdParams,
        body: RenewBody,
        response: {
          200: CheckoutAnswer,
          ...errors(...CHECKOUT_FAILURES, 401, WRITE_403, NOT_FOUND, 413, 415),
        },
      },
    },
    async (req) => {
      const { user } = viewerOf(req)
      const { provider, checkoutId, checkoutUrl } = await ads.renew(user, req.params.id, req.body)
      return {
        success: true as const,
        data: { checkoutId, checkoutUrl, provider },
        message: 'Renewal checkout session created',
      }
    },
  )
}
