import { sql } from 'drizzle-orm'
import { index, integer, jsonb, text, uniqueIndex, uuid, varchar } from 'drizzle-orm/pg-core'
import { timestamptz } from '../../db/columns.ts'
import { users } from '../auth/tables.ts'
import { platformSchema } from '../schema.ts'
import { type GenerateStatus, works } from '../works/tables.ts'

/**
 * One generation run of a work. At most one run per work is PENDING or GENERATING (the partial unique
 * index); its worker proves it is alive through `heartbeatAt`, so a run whose worker died is found and
 * resumed or ended.
 */
export const workGenerations = platformSchema.table(
  'work_generations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workId: uuid('work_id')
      .notNull()
      .references(() => works.id, { onDelete: 'cascade' }),
    /** Who started it: whose activity log records it. */
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    prompt: text('prompt'),
    status: text('status').$type<GenerateStatus>().notNull(),
    /** Times a worker took the run; more than one means it was resumed after its worker stopped. */
    attempts: integer('attempts').notNull().default(0),
    itemsCount: integer('items_count').notNull().default(0),
    error: text('error'),
    heartbeatAt: timestamptz('heartbeat_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    startedAt: timestamptz('started_at'),
    finishedAt: timestamptz('finished_at'),
  },
  (table) => [
    uniqueIndex('work_generations_one_running')
      .on(table.workId)
      .where(sql`${table.status} in ('PENDING', 'GENERATING')`),
    index('work_generations_running_idx')
      .on(table.heartbeatAt)
      .where(sql`${table.status} in ('PENDING', 'GENERATING')`),
    index('work_generations_work_idx').on(table.workId, table.createdAt),
  ],
)

/** The items of a work: those of its last completed generation, in the provider's order. */
export const workItems = platformSchema.table(
  'work_items',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    workId: uuid('work_id')
      .notNull()
      .references(() => works.id, { onDelete: 'cascade' }),
    generationId: uuid('generation_id').references(() => workGenerations.id, { onDelete: 'set null' }),
    position: integer('position').notNull(),
    name: varchar('name', { length: 200 }).notNull(),
    description: text('description').notNull(),
    url: text('url'),
    category: varchar('category', { length: 100 }).notNull(),
    tags: jsonb('tags').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('work_items_work_idx').on(table.workId, table.position)],
)
