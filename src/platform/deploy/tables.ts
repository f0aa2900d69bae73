import { sql } from 'drizzle-orm'
import { index, integer, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { PROVIDER_STATES } from '../../integrations/hosting.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'
import { works } from '../works/tables.ts'

/** SPEC.md "Deployment verification": the provider's states, and TIMEOUT when it never settled. */
export const VERIFICATION_STATES = [...PROVIDER_STATES, 'TIMEOUT'] as const
export type VerificationState = (typeof VERIFICATION_STATES)[number]
export const TERMINAL_STATES: readonly VerificationState[] = ['READY', 'ERROR', 'CANCELED', 'TIMEOUT']
export type FailedState = 'ERROR' | 'CANCELED' | 'TIMEOUT'

/**
 * One deployment of a work and its verification, a state machine kept here and advanced by poll jobs
 * (never an in-memory timer): a restart resumes it, and `polls` numbers each poll so that a job run twice
 * (two instances, a retry) polls once. At most one verification per work is running (the partial unique
 * index): a new deploy cancels the earlier one in its transaction.
 */
export const deployments = platformSchema.table(
  'deployments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workId: uuid('work_id')
      .notNull()
      .references(() => works.id, { onDelete: 'cascade' }),
    /** Who deployed: whose activity log follows it. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Whose credentials it used: the work's owner (a shared work deploys with the owner's). */
    ownerId: uuid('owner_id').notNull(),
    providerId: text('provider_id').notNull(),
    providerName: text('provider_name').notNull(),
    /** `<owner>/<slug>-website`. */
    repository: text('repository').notNull(),
    /** The provider's project the workflow deploys to (the repository's name). */
    projectName: text('project_name').notNull(),
    teamScope: text('team_scope'),
    /** The provider token of this deployment, sealed (`enc:v1:`): verification polls with it. */
    providerToken: text('provider_token').notNull(),
    /** How the workflow was started: `workflow_dispatch` of a file, or `push` of the trigger commit. */
    trigger: text('trigger').notNull(),
    state: text('state').$type<VerificationState>().notNull(),
    /** The provider's deployment, once one created after the dispatch is seen. */
    providerDeploymentId: text('provider_deployment_id'),
    url: text('url'),
    polls: integer('polls').notNull().default(0),
    notFoundPolls: integer('not_found_polls').notNull().default(0),
    /** Why it failed, or what the last poll could not read. */
    error: text('error'),
    /** Only a provider deployment created at or after this instant belongs to this deployment. */
    dispatchedAt: timestamptz('dispatched_at').notNull(),
    nextPollAt: timestamptz('next_poll_at'),
    finishedAt: timestamptz('finished_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('deployments_one_running')
      .on(table.workId)
      .where(sql`${table.state} in ('INITIALIZING', 'QUEUED', 'BUILDING')`),
    index('deployments_work_idx').on(table.workId, table.createdAt),
    // The recovery pass looks for running verifications whose poll is overdue.
    index('deployments_running_idx')
      .on(table.nextPollAt)
      .where(sql`${table.state} in ('INITIALIZING', 'QUEUED', 'BUILDING')`),
  ],
)
