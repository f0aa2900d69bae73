import { sql } from 'drizzle-orm'
import {
  boolean,
  check,
  index,
  integer,
  jsonb,
  primaryKey,
  text,
  uniqueIndex,
  uuid,
  varchar,
} from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../accounts/tables.ts'
import { directorySchema } from '../schema.ts'
import type { TransferItem } from '../transfer/records.ts'

export const IMPORT_FORMATS = ['markdown', 'csv', 'json'] as const
export type ImportFormat = (typeof IMPORT_FORMATS)[number]
export const IMPORT_MODES = ['upsert', 'create-only'] as const
export type ImportMode = (typeof IMPORT_MODES)[number]
export const IMPORT_STATUSES = ['pending', 'running', 'completed', 'failed'] as const
export type ImportStatus = (typeof IMPORT_STATUSES)[number]

/** Something an import could not read or apply: its line in the file, or the item's name. */
export interface ImportIssue {
  line?: number
  item?: string
  message: string
}

/** What a file declares besides its items: the site's name and description, categories and tags in order. */
export interface ImportDeclared {
  site: { name?: string; description?: string }
  categories: string[]
  tags: string[]
}

/**
 * Imports of whole directories. The content is kept until its first step parses it into `import_rows`; each
 * later step applies the next batch of rows in one transaction with the run's progress and the next step's
 * job, so a restart resumes at `cursor` and never half-applies a batch. One runs at a time (the partial
 * unique index); the others wait as `pending` and the one that finishes starts the oldest.
 */
export const imports = directorySchema.table(
  'imports',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    format: varchar('format', { length: 20 }).$type<ImportFormat>().notNull(),
    mode: varchar('mode', { length: 20 }).$type<ImportMode>().notNull(),
    dryRun: boolean('dry_run').notNull(),
    status: varchar('status', { length: 20 }).$type<ImportStatus>().notNull(),
    /** Where the content was fetched from, when it was given as a URL. */
    sourceUrl: text('source_url'),
    /** The content as sent (or fetched), until the first step has parsed it. */
    content: text('content'),
    declared: jsonb('declared').$type<ImportDeclared>(),
    /** Rows read from the file; `done` of them are applied. */
    total: integer('total').notNull().default(0),
    done: integer('done').notNull().default(0),
    created: integer('created').notNull().default(0),
    updated: integer('updated').notNull().default(0),
    unchanged: integer('unchanged').notNull().default(0),
    skipped: integer('skipped').notNull().default(0),
    /** The first issues found (at most `IMPORT_ERRORS_KEPT`); `errorCount` counts them all. */
    errors: jsonb('errors').$type<ImportIssue[]>().notNull().default([]),
    errorCount: integer('error_count').notNull().default(0),
    /** Why a failed import stopped. */
    failure: text('failure'),
    requestedBy: uuid('requested_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamptz('created_at').notNull(),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    check('imports_status_check', sql`${table.status} in ('pending', 'running', 'completed', 'failed')`),
    check('imports_format_check', sql`${table.format} in ('markdown', 'csv', 'json')`),
    check('imports_mode_check', sql`${table.mode} in ('upsert', 'create-only')`),
    uniqueIndex('imports_one_running').on(sql`(true)`).where(sql`${table.status} = 'running'`),
    index('imports_created_idx').on(table.createdAt.desc(), table.id.desc()),
    index('imports_pending_idx').on(table.createdAt).where(sql`${table.status} = 'pending'`),
  ],
)

/** An import's rows as its first step read them, in file order; dropped when the import ends. */
export const importRows = directorySchema.table(
  'import_rows',
  {
    importId: uuid('import_id')
      .notNull()
      .references(() => imports.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    line: integer('line'),
    record: jsonb('record').$type<TransferItem>().notNull(),
  },
  (table) => [primaryKey({ name: 'import_rows_pkey', columns: [table.importId, table.position] })],
)
