import { sql } from 'drizzle-orm'
import { index, jsonb, text, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'
import { works } from '../works/tables.ts'

export const ACTIVITY_STATUSES = ['pending', 'in_progress', 'completed', 'failed', 'cancelled'] as const
export type ActivityStatus = (typeof ACTIVITY_STATUSES)[number]

/** SPEC.md "Platform: activity log entry", ActionType values. */
export const ACTION_TYPES = [
  'generation',
  'comparison_generation',
  'deployment',
  'work_created',
  'work_updated',
  'work_deleted',
  'item_added',
  'item_updated',
  'item_removed',
  'plugin_enabled',
  'plugin_disabled',
  'plugin_configured',
  'template_added',
  'template_updated',
  'template_archived',
  'template_forked',
  'template_default_set',
  'member_invited',
  'member_role_changed',
  'member_removed',
  'schedule_created',
  'schedule_updated',
  'schedule_deleted',
  'schedule_executed',
  'import',
  'export',
  'settings_updated',
  'website_settings_updated',
  'prompts_updated',
  'works_config_sync',
  'user_login',
  'user_signup',
  'provider_connected',
  'password_changed',
  'chat_conversation',
  'community_pr_merged',
] as const
export type ActionType = (typeof ACTION_TYPES)[number]

/** A user's record of what happened. Kept when its work is deleted (workId becomes null). */
export const activityLog = platformSchema.table(
  'activity_log',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    workId: uuid('work_id').references(() => works.id, { onDelete: 'set null' }),
    actionType: text('action_type').$type<ActionType>().notNull(),
    action: varchar('action', { length: 100 }).notNull(),
    status: text('status').$type<ActivityStatus>().notNull(),
    summary: text('summary').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    metadata: jsonb('metadata').$type<Record<string, unknown> | null>(),
    ipAddress: varchar('ip_address', { length: 64 }),
    userAgent: varchar('user_agent', { length: 512 }),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    index('activity_log_user_created_idx').on(table.userId, table.createdAt.desc(), table.id.desc()),
    index('activity_log_user_status_idx').on(table.userId, table.status),
    index('activity_log_user_type_created_idx').on(table.userId, table.actionType, table.createdAt.desc()),
    index('activity_log_work_idx').on(table.workId),
  ],
)
