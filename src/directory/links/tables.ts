import { sql } from 'drizzle-orm'
import { check, index, integer, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import type { LinkStatus } from '../items/relations.ts'
import { items } from '../items/tables.ts'
import { directorySchema } from '../schema.ts'

/**
 * The latest check of each item's URL. It names the URL it checked, so an item write need not touch it: an
 * item whose URL is another reads as `unchecked`, and its next check starts counting failures afresh.
 */
export const itemLinks = directorySchema.table(
  'item_links',
  {
    itemId: uuid('item_id')
      .primaryKey()
      .references(() => items.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** `ok`, `redirected`, `broken`; `unchecked` while failures have not reached the limit and nothing succeeded. */
    status: varchar('status', { length: 20 }).$type<LinkStatus>().notNull(),
    /** The status code of the latest check's last answer; null when there was none (timeout, DNS, refused). */
    httpStatus: integer('http_status'),
    /** Where the latest check's redirects led. */
    finalUrl: text('final_url'),
    /** Why the latest check failed (`timeout`, `HTTP 404`, `DNS: …`, `blocked address: …`); null when it passed. */
    reason: varchar('reason', { length: 300 }),
    /** Consecutive failed checks of this URL; a success resets it. */
    failures: integer('failures').notNull().default(0),
    checkedAt: timestamptz('checked_at').notNull(),
    /** The scheduled run in which the link became `broken`: the run's notification lists these. */
    brokenRunId: uuid('broken_run_id'),
  },
  (table) => [
    check('item_links_status_check', sql`${table.status} in ('ok', 'redirected', 'broken', 'unchecked')`),
    index('item_links_status_idx').on(table.status),
    index('item_links_broken_run_idx').on(table.brokenRunId).where(sql`${table.brokenRunId} is not null`),
  ],
)

export const LINK_CHECK_RUN_STATUSES = ['queued', 'running', 'completed', 'failed'] as const
export type LinkCheckRunStatus = (typeof LINK_CHECK_RUN_STATUSES)[number]

/**
 * A check of every published item's URL, step by step: each step checks a batch of items after `cursor` and
 * saves its results and progress with the next step's job, so a restart resumes where it stopped. One is
 * queued or running at a time (the partial unique index); the schedule starts one when the latest is older
 * than `LINK_CHECK_INTERVAL`, under a lock, so instances sharing the database start it once.
 */
export const linkCheckRuns = directorySchema.table(
  'link_check_runs',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    status: varchar('status', { length: 20 }).$type<LinkCheckRunStatus>().notNull(),
    /** The admin who asked for it; null for a scheduled run. */
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    /** Items to check, counted when the run starts. */
    total: integer('total').notNull().default(0),
    processed: integer('processed').notNull().default(0),
    ok: integer('ok').notNull().default(0),
    redirected: integer('redirected').notNull().default(0),
    /** Checks that failed in this run (the item may not be `broken` yet). */
    failed: integer('failed').notNull().default(0),
    /** Items that became `broken` in this run. */
    newlyBroken: integer('newly_broken').notNull().default(0),
    /** The last item id done; the next step reads the ids after it. */
    cursor: uuid('cursor'),
    error: text('error'),
    createdAt: timestamptz('created_at').notNull(),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check(
      'link_check_runs_status_check',
      sql`${table.status} in ('queued', 'running', 'completed', 'failed')`,
    ),
    uniqueIndex('link_check_runs_one_active')
      .on(sql`(true)`)
      .where(sql`${table.status} in ('queued', 'running')`),
    index('link_check_runs_created_idx').on(table.createdAt.desc()),
  ],
)
