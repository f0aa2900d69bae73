import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query } from '../../http/schemas.ts'
import { PageQueryFields } from '../../lib/pagination.ts'
import { PaymentRecord, SubscriptionRecord } from './billing-schemas.ts'
import {
  adFields,
  EXAMPLE_AD,
  EXAMPLE_ID,
  EXAMPLE_USER,
  Nullable,
  Pagination,
  SPONSOR_LIMITS,
  SponsorAdStatus,
  SponsorInterval,
} from './schemas.ts'

// The admins' view of every ad: the list with its figures, the single read with payments, the moves.

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

export const DeletedAnswer = Type.Object(
  { success: Type.Literal(true), message: Type.String({ examples: ['Sponsor ad deleted'] }) },
  { description: 'Deleted', examples: [{ success: true, message: 'Sponsor ad deleted' }] },
)
