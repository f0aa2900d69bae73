import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { invalidField, NullableTimestamp } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import {
  AdminAdAnswer,
  AdminDetailAnswer,
  AdminListAnswer,
  AdminSponsorAdQuery,
  ApproveBody,
  CancelBody,
  CheckoutAnswer,
  CheckoutBody,
  CreateSponsorAdBody,
  DeletedAnswer,
  PublicListAnswer,
  PublicSponsorAdQuery,
  RejectBody,
  RenewBody,
  SPONSOR_LIMITS,
  SponsorAdAnswer,
  SponsorAdMessageAnswer,
  SponsorAdParams,
  TransitionAnswer,
  UpdateSponsorAdBody,
  UserListAnswer,
  UserSponsorAdQuery,
  UserStatsAnswer,
} from './schemas.ts'
import type { SponsorAdService } from './service.ts'

const tags = ['sponsor-ads']
const ADMIN = '/api/admin/sponsor-ads'
const USER = '/api/sponsor-ads/user'
const WRITE_403 = [403, 'FORBIDDEN', 'CROSS_ORIGIN'] as const
const NOT_FOUND = [404, 'SPONSOR_AD_NOT_FOUND'] as const
const TRANSITION_400 = [400, 'SPONSOR_AD_INVALID_TRANSITION', 'VALIDATION_ERROR'] as const
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
  'The provider is `PAYMENT_PROVIDER` (Stripe, LemonSqueezy or Polar) and bills the ad’s interval as a ' +
  'subscription; the checkout carries `{type:"sponsor_ad", sponsorAdId, itemSlug}` as metadata. ' +
  '`successUrl` and `cancelUrl` must be on the app’s own origin (APP_URL, or CORS_ORIGINS), else 400; ' +
  'without them the buyer comes back to `/sponsor/success` or `/sponsor/cancel` of APP_URL. 400 ' +
  '`PAYMENT_NOT_CONFIGURED` when the provider’s credentials or the interval’s price are not set; 500 ' +
  '`PAYMENT_PROVIDER_ERROR` when the provider fails (the reason is logged, not shown).'

/** The public shelf of active ads. */
export function publicSponsorAdRoutes(app: App, { ads }: { ads: SponsorAdService }) {
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
    async (req) => ({ success: true as const, data: await ads.publicList(req.query.limit) }),
  )
}

/** A signed-in user's own ads: submit, pay, follow, cancel, renew. */
export function userSponsorAdRoutes(app: App, { ads }: { ads: SponsorAdService }) {
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

/** The admins' review and management of every ad. */
export function adminSponsorAdRoutes(app: App, { ads }: { ads: SponsorAdService }) {
  app.get(
    ADMIN,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'List sponsor ads',
        description:
          'A page of ads with their users. `status` and `interval` filter; `search` finds text in the title, ' +
          'item name or slug, or the user’s name or email; `sortBy` (`createdAt`, `updatedAt`, `startDate`, ' +
          '`endDate`, `status`) and `sortOrder`. `stats` counts all ads, whatever the filter (`pending` ' +
          'includes those awaiting payment).',
        querystring: AdminSponsorAdQuery,
        response: {
          200: AdminListAnswer,
          ...errors(
            [
              400,
              invalidField('query.sortBy', 'must be one of createdAt, updatedAt, startDate, endDate, status'),
            ],
            401,
            403,
          ),
        },
      },
    },
    async (req) => ({ success: true as const, ...(await ads.listForAdmin(req.query)) }),
  )

  app.get(
    `${ADMIN}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Read a sponsor ad',
        description: 'The ad with its user, every payment recorded for it and its provider subscriptions.',
        params: SponsorAdParams,
        response: { 200: AdminDetailAnswer, ...errors(401, 403, NOT_FOUND) },
      },
    },
    async (req) => ({ success: true as const, data: await ads.readForAdmin(req.params.id) }),
  )

  app.put(
    `${ADMIN}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Edit a sponsor ad',
        description:
          'Changes the title, description, start or end date (the end after the start). The status moves ' +
          'only by approve, reject and cancel; an active ad given an end in the past expires at the next ' +
          'expiry run and leaves the public list at once.',
        params: SponsorAdParams,
        body: UpdateSponsorAdBody,
        response: {
          200: AdminAdAnswer,
          ...errors(
            [400, invalidField('body.endDate', 'must be after startDate')],
            401,
            WRITE_403,
            NOT_FOUND,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.update(req.params.id, req.body),
      message: 'Sponsor ad updated',
    }),
  )

  app.delete(
    `${ADMIN}/:id`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a sponsor ad',
        description:
          'Deletes the ad for good. Its payment records stay (without the ad); a subscription still charged ' +
          'for it is cancelled at the provider.',
        params: SponsorAdParams,
        response: { 200: DeletedAnswer, ...errors(401, WRITE_403, NOT_FOUND) },
      },
    },
    async (req) => {
      await ads.remove(req.params.id)
      return { success: true as const, message: 'Sponsor ad deleted' }
    },
  )

  app.post(
    `${ADMIN}/:id/approve`,
    {
      config: { access: 'admin', optionalBody: true },
      schema: {
        tags,
        summary: 'Approve a sponsor ad',
        description:
          'A paid ad in `pending` becomes `active` from now, for every period paid for. An ad in ' +
          '`pending_payment` is 400 `PAYMENT_NOT_RECEIVED` unless `forceApprove` is true (then one period, ' +
          'unpaid). Any other status is 400. Two admins acting at once: one succeeds, the other gets 400.',
        params: SponsorAdParams,
        body: ApproveBody,
        response: {
          200: TransitionAnswer(
            { startDate: NullableTimestamp, endDate: NullableTimestamp },
            { status: 'active', startDate: '2026-11-23T10:00:00.000Z', endDate: '2026-12-23T10:00:00.000Z' },
            'Sponsor ad approved',
          ),
          ...errors(
            [400, 'PAYMENT_NOT_RECEIVED', 'SPONSOR_AD_INVALID_TRANSITION'],
            401,
            WRITE_403,
            NOT_FOUND,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.approve(viewerOf(req).user.id, req.params.id, req.body.forceApprove === true),
      message: 'Sponsor ad approved',
    }),
  )

  app.post(
    `${ADMIN}/:id/reject`,
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Reject a sponsor ad',
        description:
          `An ad in \`pending\` or \`pending_payment\` becomes \`rejected\` with its \`rejectionReason\` ` +
          `(${SPONSOR_LIMITS.rejectionMin} to ${SPONSOR_LIMITS.reasonMax} characters); any other status is 400. ` +
          'A subscription already paid is cancelled at the provider (refunds are made there).',
        params: SponsorAdParams,
        body: RejectBody,
        response: {
          200: TransitionAnswer(
            { rejectionReason: Type.String() },
            { status: 'rejected', rejectionReason: 'The item is not part of this directory.' },
            'Sponsor ad rejected',
          ),
          ...errors(
            [
              400,
              invalidField('body.rejectionReason', 'must be at least 10 characters long'),
              'SPONSOR_AD_INVALID_TRANSITION',
            ],
            401,
            WRITE_403,
            NOT_FOUND,
            413,
            415,
          ),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.reject(viewerOf(req).user.id, req.params.id, req.body.rejectionReason),
      message: 'Sponsor ad rejected',
    }),
  )

  app.post(
    `${ADMIN}/:id/cancel`,
    {
      config: { access: 'admin', optionalBody: true },
      schema: {
        tags,
        summary: 'Cancel a sponsor ad',
        description:
          'An ad awaiting payment, in review or running becomes `cancelled` (another status is 400), and its ' +
          `provider subscription is cancelled by a retried job. \`cancelReason\` up to ${SPONSOR_LIMITS.reasonMax} characters.`,
        params: SponsorAdParams,
        body: CancelBody,
        response: {
          200: TransitionAnswer(
            { cancelReason: Type.Union([Type.String(), Type.Null()]) },
            { status: 'cancelled', cancelReason: 'Requested by the sponsor.' },
            'Sponsor ad cancelled',
          ),
          ...errors(TRANSITION_400, 401, WRITE_403, NOT_FOUND, 413, 415),
        },
      },
    },
    async (req) => ({
      success: true as const,
      data: await ads.cancelByAdmin(viewerOf(req).user.id, req.params.id, req.body.cancelReason),
      message: 'Sponsor ad cancelled',
    }),
  )
}
