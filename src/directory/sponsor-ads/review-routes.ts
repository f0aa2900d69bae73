import { Type } from 'typebox'
import type { App } from '../../http/app.ts'
import { invalidField, NullableTimestamp } from '../../http/schemas.ts'
import { viewerOf } from '../auth/guard.ts'
import { errors } from '../http/schemas.ts'
import type { SponsorAdReview } from './review.ts'
import {
  AdminAdAnswer,
  AdminDetailAnswer,
  AdminListAnswer,
  AdminSponsorAdQuery,
  ApproveBody,
  DeletedAnswer,
  RejectBody,
  TransitionAnswer,
  UpdateSponsorAdBody,
} from './review-schemas.ts'
import {
  CancelBody,
  NOT_FOUND,
  SPONSOR_LIMITS,
  SponsorAdParams,
  TRANSITION_400,
  WRITE_403,
} from './schemas.ts'

const tags = ['sponsor-ads']
const ADMIN = '/api/admin/sponsor-ads'

/** The admins' review and management of every ad. */
export function adminSponsorAdRoutes(app: App, { review }: { review: SponsorAdReview }) {
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
    async (req) => ({ success: true as const, ...(await review.listForAdmin(req.query)) }),
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
    async (req) => ({ success: true as const, data: await review.readForAdmin(req.params.id) }),
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
      data: await review.update(req.params.id, req.body),
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
      await review.remove(req.params.id)
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
      data: await review.approve(viewerOf(req).user.id, req.params.id, req.body.forceApprove === true),
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
      data: await review.reject(viewerOf(req).user.id, req.params.id, req.body.rejectionReason),
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
      data: await review.cancelByAdmin(viewerOf(req).user.id, req.params.id, req.body.cancelReason),
      message: 'Sponsor ad cancelled',
    }),
  )
}
