import { sql } from 'drizzle-orm'
import { check, index, jsonb, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'

export const REPORT_CONTENT_TYPES = ['item', 'comment'] as const
export const REPORT_REASONS = ['spam', 'harassment', 'inappropriate', 'other'] as const
export const REPORT_STATUSES = ['pending', 'reviewed', 'resolved', 'dismissed'] as const
export const REPORT_RESOLUTIONS = [
  'content_removed',
  'user_warned',
  'user_suspended',
  'user_banned',
  'no_action',
] as const
export type ReportContentType = (typeof REPORT_CONTENT_TYPES)[number]
export type ReportReason = (typeof REPORT_REASONS)[number]
export type ReportStatus = (typeof REPORT_STATUSES)[number]
export type ReportResolution = (typeof REPORT_RESOLUTIONS)[number]

/** What the last moderation action of a report did, as the update answered it. */
export interface ModerationOutcome {
  success: boolean
  message: string
}

const listed = (values: readonly string[]) => sql.raw(values.map((value) => `'${value}'`).join(', '))

/**
 * A user's report of an item or a comment (SPEC.md "Directory: report"). `contentId` is what the reporter
 * sent (an id or, for items, a slug); `targetId` the content it named when the report was made, null when
 * this database did not hold it. One report per reporter and content, whichever way they named it.
 */
export const reports = directorySchema.table(
  'reports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    contentType: varchar('content_type', { length: 20 }).$type<ReportContentType>().notNull(),
    contentId: varchar('content_id', { length: 200 }).notNull(),
    targetId: uuid('target_id'),
    reason: varchar('reason', { length: 20 }).$type<ReportReason>().notNull(),
    details: text('details'),
    status: varchar('status', { length: 20 }).$type<ReportStatus>().notNull().default('pending'),
    resolution: varchar('resolution', { length: 30 }).$type<ReportResolution>(),
    reviewNote: text('review_note'),
    /** Null once the reporter's account is gone: the report stays for the record. */
    reportedBy: uuid('reported_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedBy: uuid('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
    reviewedAt: timestamptz('reviewed_at'),
    moderationResult: jsonb('moderation_result').$type<ModerationOutcome>(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check('reports_content_type_check', sql`${table.contentType} in (${listed(REPORT_CONTENT_TYPES)})`),
    check('reports_reason_check', sql`${table.reason} in (${listed(REPORT_REASONS)})`),
    check('reports_status_check', sql`${table.status} in (${listed(REPORT_STATUSES)})`),
    check(
      'reports_resolution_check',
      sql`${table.resolution} is null or ${table.resolution} in (${listed(REPORT_RESOLUTIONS)})`,
    ),
    // The second report of the same content by the same user is refused by the database, also when two
    // arrive at once, and whether it names an item by id or by slug.
    uniqueIndex('reports_reporter_content_unique').on(
      table.reportedBy,
      table.contentType,
      sql`coalesce(${table.targetId}::text, lower(${table.contentId}))`,
    ),
    index('reports_created_idx').on(table.createdAt.desc(), table.id.desc()),
    index('reports_status_created_idx').on(table.status, table.createdAt.desc()),
    index('reports_target_idx').on(table.contentType, table.targetId),
  ],
)

export const MODERATION_ACTIONS = ['warned', 'suspended', 'banned', 'content_removed'] as const
export type ModerationAction = (typeof MODERATION_ACTIONS)[number]

/**
 * What moderation did to whom, why and at whose hand: one row per action a report's resolution ran. It
 * outlives the report and the acting admin (set null), and goes with the user it is about.
 */
export const moderationActions = directorySchema.table(
  'moderation_actions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The content owner acted on; null for a removal of content nobody owned. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    action: varchar('action', { length: 20 }).$type<ModerationAction>().notNull(),
    /** The review note of the report that ran it. */
    reason: text('reason'),
    reportId: uuid('report_id').references(() => reports.id, { onDelete: 'set null' }),
    contentType: varchar('content_type', { length: 20 }).$type<ReportContentType>().notNull(),
    contentId: varchar('content_id', { length: 200 }).notNull(),
    actedBy: uuid('acted_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    check('moderation_actions_action_check', sql`${table.action} in (${listed(MODERATION_ACTIONS)})`),
    index('moderation_actions_user_idx').on(table.userId, table.createdAt.desc()),
  ],
)
