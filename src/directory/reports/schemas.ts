import { type Static, type TSchema, Type } from 'typebox'
import { NullableTimestamp, Query, Timestamp } from '../../http/schemas.ts'
import { PageQueryFields } from '../../lib/pagination.ts'
import {
  MODERATION_ACTIONS,
  REPORT_CONTENT_TYPES,
  REPORT_REASONS,
  REPORT_RESOLUTIONS,
  REPORT_STATUSES,
} from './tables.ts'

export const REPORT_LIMITS = {
  contentIdMax: 200,
  detailsMax: 1000,
  reviewNoteMax: 1000,
  searchMax: 100,
} as const

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

const EXAMPLE_ID = '5b7d9f1a-3c5e-4a7b-9d1f-2a4c6e8b0d13'
const EXAMPLE_REPORTER = {
  id: '7a1c9e3b-2d4f-4a6b-8c0d-1e2f3a4b5c6d',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
}
const EXAMPLE_REVIEWER = {
  id: '1c3e5a7b-9d0f-4b2d-8e6a-0c2e4a6b8d0f',
  name: 'Grace Hopper',
  email: 'grace@example.com',
}

const ContentType = Type.Enum([...REPORT_CONTENT_TYPES], {
  description: '`item` or `comment`',
  examples: ['item'],
})
const Reason = Type.Enum([...REPORT_REASONS], { examples: ['spam'] })
const Status = Type.Enum([...REPORT_STATUSES], { examples: ['pending'] })
const Resolution = Type.Enum([...REPORT_RESOLUTIONS], {
  description:
    'the moderation action it runs: `content_removed` deletes the item or comment, `user_warned` adds a warning ' +
    'to its owner, `user_suspended` suspends them, `user_banned` bans them for good, `no_action` does nothing',
  examples: ['user_warned'],
})

const Person = Type.Object({
  id: Type.String({ examples: [EXAMPLE_REPORTER.id] }),
  name: Nullable(Type.String({ examples: [EXAMPLE_REPORTER.name] })),
  email: Type.String({ examples: [EXAMPLE_REPORTER.email] }),
})

const ModerationResult = Type.Object(
  {
    success: Type.Boolean({ examples: [true] }),
    message: Type.String({ examples: ['Warned the content owner (2 warnings now)'] }),
  },
  { description: 'what the moderation action did, or why it failed (the report is saved either way)' },
)

export const CreateReportBody = Type.Object(
  {
    contentType: ContentType,
    contentId: Type.String({
      minLength: 1,
      maxLength: REPORT_LIMITS.contentIdMax,
      pattern: '\\S',
      description: 'the item’s id or slug, or the comment’s id',
      examples: ['blue-bottle-coffee'],
    }),
    reason: Reason,
    details: Type.Optional(
      Type.String({
        maxLength: REPORT_LIMITS.detailsMax,
        description: 'what is wrong, in the reporter’s words',
        examples: ['The listing links to a phishing page.'],
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        contentType: 'item',
        contentId: 'blue-bottle-coffee',
        reason: 'spam',
        details: 'The listing links to a phishing page.',
      },
      { contentType: 'comment', contentId: '8c2e4a6b-0d1f-4b3d-9e5a-7c9e1b3d5f70', reason: 'harassment' },
    ],
  },
)
export type CreateReportBody = Static<typeof CreateReportBody>

export const CreatedReportAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Report submitted'] }),
    report: Type.Object({
      id: Type.String({ examples: [EXAMPLE_ID] }),
      contentType: ContentType,
      contentId: Type.String({ examples: ['blue-bottle-coffee'] }),
      reason: Reason,
      status: Status,
      createdAt: Timestamp,
    }),
  },
  {
    description: 'The report, `pending` until an admin reviews it',
    examples: [
      {
        success: true,
        message: 'Report submitted',
        report: {
          id: EXAMPLE_ID,
          contentType: 'item',
          contentId: 'blue-bottle-coffee',
          reason: 'spam',
          status: 'pending',
          createdAt: '2026-11-22T10:00:00.000Z',
        },
      },
    ],
  },
)

/** A report as admins read it, in the list and on its own. */
export const Report = Type.Object({
  id: Type.String({ examples: [EXAMPLE_ID] }),
  contentType: ContentType,
  contentId: Type.String({ examples: ['blue-bottle-coffee'] }),
  reason: Reason,
  details: Nullable(Type.String({ examples: ['The listing links to a phishing page.'] })),
  status: Status,
  resolution: Nullable(Resolution),
  reviewNote: Nullable(Type.String({ examples: ['Confirmed: the link is a phishing page.'] })),
  reportedBy: Nullable(
    Type.String({ description: 'the reporter’s user id; null once their account is gone' }),
  ),
  reviewedBy: Nullable(Type.String({ description: 'the last reviewing admin’s user id' })),
  reviewedAt: NullableTimestamp,
  reporter: Nullable(Person),
  reviewer: Nullable(Person),
  moderationResult: Nullable(ModerationResult),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})
export type Report = Static<typeof Report>

const EXAMPLE_REPORT: Report = {
  id: EXAMPLE_ID,
  contentType: 'item',
  contentId: 'blue-bottle-coffee',
  reason: 'spam',
  details: 'The listing links to a phishing page.',
  status: 'resolved',
  resolution: 'user_warned',
  reviewNote: 'Confirmed: the link is a phishing page.',
  reportedBy: EXAMPLE_REPORTER.id,
  reviewedBy: EXAMPLE_REVIEWER.id,
  reviewedAt: '2026-11-22T11:00:00.000Z',
  reporter: EXAMPLE_REPORTER,
  reviewer: EXAMPLE_REVIEWER,
  moderationResult: { success: true, message: 'Warned the content owner (1 warning now)' },
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T11:00:00.000Z',
}

/** The reported content as this database holds it now, for the admin's single read. */
const ReportedContent = Type.Object(
  {
    found: Type.Boolean({
      description: 'false when the content is gone or was never held here',
      examples: [true],
    }),
    id: Nullable(Type.String({ examples: ['3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60'] })),
    title: Nullable(
      Type.String({
        description: 'the item’s name, or the comment’s first 200 characters',
        examples: ['Blue Bottle Coffee'],
      }),
    ),
    ownerId: Nullable(
      Type.String({ description: 'the item’s submitter or the comment’s author; null when nobody owns it' }),
    ),
  },
  { description: 'the content as it is now' },
)

export const ReportAnswer = Type.Object(
  { success: Type.Literal(true), data: Type.Intersect([Report, Type.Object({ content: ReportedContent })]) },
  {
    description: 'The report with its reporter, its reviewer and the content it names',
    examples: [
      {
        success: true,
        data: {
          ...EXAMPLE_REPORT,
          content: {
            found: true,
            id: '3f6b2d1e-8a4c-4e7b-9d2f-1c5a7e9b3d60',
            title: 'Blue Bottle Coffee',
            ownerId: '2b4d6f8a-0c1e-4f3a-9b5d-7e9f1a3c5e70',
          },
        },
      },
    ],
  },
)

export const AdminReportQuery = Query({
  ...PageQueryFields,
  search: Type.Optional(
    Type.String({
      maxLength: REPORT_LIMITS.searchMax,
      description: 'text in the content id, the details, or the reporter’s name or email, whatever its case',
      examples: ['phishing'],
    }),
  ),
  status: Type.Optional(Status),
  contentType: Type.Optional(ContentType),
  reason: Type.Optional(Reason),
})
export type AdminReportQuery = Static<typeof AdminReportQuery>

export const ReportListAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      reports: Type.Array(Report),
      pagination: Type.Object({
        total: Type.Integer({ examples: [1] }),
        page: Type.Integer({ examples: [1] }),
        limit: Type.Integer({ examples: [10] }),
        totalPages: Type.Integer({ examples: [1] }),
      }),
    }),
  },
  {
    description: 'A page of reports, newest first',
    examples: [
      {
        success: true,
        data: { reports: [EXAMPLE_REPORT], pagination: { total: 1, page: 1, limit: 10, totalPages: 1 } },
      },
    ],
  },
)

const countsOf = (keys: readonly string[], description: string) =>
  Type.Object(Object.fromEntries(keys.map((key) => [key, Type.Integer({ examples: [0] })])), { description })

export const ReportStatsAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      total: Type.Integer({ examples: [12] }),
      pendingCount: Type.Integer({ examples: [5] }),
      resolvedCount: Type.Integer({ examples: [4] }),
      byStatus: countsOf(REPORT_STATUSES, 'every status, 0 when none'),
      byContentType: countsOf(REPORT_CONTENT_TYPES, 'every content type, 0 when none'),
      byReason: countsOf(REPORT_REASONS, 'every reason, 0 when none'),
    }),
  },
  {
    description: 'How many reports there are, by status, content type and reason',
    examples: [
      {
        success: true,
        data: {
          total: 12,
          pendingCount: 5,
          resolvedCount: 4,
          byStatus: { pending: 5, reviewed: 1, resolved: 4, dismissed: 2 },
          byContentType: { item: 9, comment: 3 },
          byReason: { spam: 6, harassment: 2, inappropriate: 3, other: 1 },
        },
      },
    ],
  },
)

export const ReportParams = Type.Object({ id: Type.String({ maxLength: 100, examples: [EXAMPLE_ID] }) })

export const UpdateReportBody = Type.Object(
  {
    status: Type.Optional(Status),
    resolution: Type.Optional(Resolution),
    reviewNote: Type.Optional(
      Type.String({
        maxLength: REPORT_LIMITS.reviewNoteMax,
        description: 'kept on the report, and the reason recorded with the moderation action',
        examples: ['Confirmed: the link is a phishing page.'],
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      { resolution: 'user_warned', reviewNote: 'Keep listings honest.' },
      { status: 'dismissed', reviewNote: 'Not a problem.' },
    ],
  },
)
export type UpdateReportBody = Static<typeof UpdateReportBody>

export const UpdatedReportAnswer = Type.Object(
  {
    success: Type.Literal(true),
    message: Type.String({ examples: ['Report updated'] }),
    data: Type.Object({
      id: Type.String({ examples: [EXAMPLE_ID] }),
      status: Status,
      resolution: Nullable(Resolution),
      reviewNote: Nullable(Type.String({ examples: ['Confirmed: the link is a phishing page.'] })),
    }),
    moderationResult: ModerationResult,
  },
  {
    description: 'The report as saved, and what its moderation action did',
    examples: [
      {
        success: true,
        message: 'Report updated',
        data: {
          id: EXAMPLE_ID,
          status: 'resolved',
          resolution: 'user_suspended',
          reviewNote: 'Third spam listing this month.',
        },
        moderationResult: { success: true, message: 'Suspended the content owner' },
      },
    ],
  },
)

export const ClientParams = Type.Object({
  clientId: Type.String({ maxLength: 100, examples: ['4e6a8c0e-2b4d-4f6a-8c0e-2b4d6f8a0c1e'] }),
})

export const ModerationAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({
      clientId: Type.String({ examples: ['4e6a8c0e-2b4d-4f6a-8c0e-2b4d6f8a0c1e'] }),
      userId: Type.String({ examples: ['2b4d6f8a-0c1e-4f3a-9b5d-7e9f1a3c5e70'] }),
      status: Type.String({ description: 'the client’s status', examples: ['suspended'] }),
      warningCount: Type.Integer({ examples: [2] }),
      suspendedAt: NullableTimestamp,
      bannedAt: NullableTimestamp,
      history: Type.Array(
        Type.Object({
          id: Type.String({ examples: ['9d1f3b5d-7f9b-4d1f-8b3d-5f7b9d1f3b5d'] }),
          action: Type.Enum([...MODERATION_ACTIONS], { examples: ['warned'] }),
          reason: Nullable(Type.String({ examples: ['Spam listing'] })),
          reportId: Nullable(Type.String({ examples: [EXAMPLE_ID] })),
          contentType: ContentType,
          contentId: Type.String({ examples: ['blue-bottle-coffee'] }),
          actedBy: Nullable(Type.String({ description: 'the acting admin’s user id' })),
          createdAt: Timestamp,
        }),
        { description: 'newest first' },
      ),
    }),
  },
  {
    description: 'The client’s moderation: warnings, suspension, ban, and every action taken on them',
    examples: [
      {
        success: true,
        data: {
          clientId: '4e6a8c0e-2b4d-4f6a-8c0e-2b4d6f8a0c1e',
          userId: '2b4d6f8a-0c1e-4f3a-9b5d-7e9f1a3c5e70',
          status: 'suspended',
          warningCount: 1,
          suspendedAt: '2026-11-22T12:00:00.000Z',
          bannedAt: null,
          history: [
            {
              id: '9d1f3b5d-7f9b-4d1f-8b3d-5f7b9d1f3b5d',
              action: 'suspended',
              reason: 'Third spam listing this month.',
              reportId: EXAMPLE_ID,
              contentType: 'item',
              contentId: 'blue-bottle-coffee',
              actedBy: EXAMPLE_REVIEWER.id,
              createdAt: '2026-11-22T12:00:00.000Z',
            },
          ],
        },
      },
    ],
  },
)
