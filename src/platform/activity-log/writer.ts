import { and, desc, eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { DbOrTx } from '../../db/index.ts'
import { inSavepoint } from '../../db/transactions.ts'
import type { Clock } from '../../lib/clock.ts'
import type { EventContext } from '../events.ts'
import { type ActionType, type ActivityStatus, activityLog } from './tables.ts'

export type ActivityRow = typeof activityLog.$inferSelect

export interface NewActivity {
  userId: string
  workId?: string | null
  actionType: ActionType
  action: string
  status: ActivityStatus
  summary: string
  details?: Record<string, unknown>
  metadata?: Record<string, unknown> | null
  context?: EventContext
}

export interface ActivityWriterDeps {
  clock: Clock
  log: Logger
  /**
   * Enqueues follow-up work (analytics forwarding) for every row written or updated, in the row's
   * transaction; its failures are confined to a savepoint and never undo the row.
   */
  enqueue?: (tx: DbOrTx, row: ActivityRow) => Promise<unknown>
}

/**
 * Writes the activity log inside the caller's transaction, so a row exists exactly when the change it
 * records does. Writes throw like any other: the event bus runs each listener in a savepoint, and direct
 * callers use `inSavepoint`, so an audit failure never breaks the user-facing call (SPEC.md).
 */
export function createActivityWriter({ clock, log, enqueue }: ActivityWriterDeps) {
  async function followUp(executor: DbOrTx, row: ActivityRow): Promise<ActivityRow> {
    if (enqueue) {
      await inSavepoint(
        executor,
        (savepoint) => enqueue(savepoint, row),
        (error) => log.warn({ err: error, activityId: row.id }, 'activity forwarding not enqueued'),
      )
    }
    return row
  }

  async function record(entry: NewActivity, executor: DbOrTx): Promise<ActivityRow> {
    const now = clock.now()
    const [row] = await executor
      .insert(activityLog)
      .values({
        userId: entry.userId,
        workId: entry.workId ?? null,
        actionType: entry.actionType,
        action: entry.action,
        status: entry.status,
        summary: entry.summary,
        details: entry.details ?? {},
        metadata: entry.metadata ?? null,
        ipAddress: entry.context?.ipAddress?.slice(0, 64) ?? null,
        userAgent: entry.context?.userAgent?.slice(0, 512) ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
    return followUp(executor, row!)
  }

  return {
    record,

    /** Records in a savepoint of `executor`'s transaction: a failure is logged and never fails the change. */
    audit: (entry: NewActivity, executor: DbOrTx): Promise<ActivityRow | undefined> =>
      inSavepoint(
        executor,
        (savepoint) => record(entry, savepoint),
        (error) => log.error({ err: error, action: entry.action }, 'activity write failed'),
      ),

    /**
     * Closes the newest `in_progress` row of this kind for the work (generation and deployment runs update
     * their row rather than adding a second one), or with `runId` the one whose `details.<runKey>` is it;
     * records a new row when there is none.
     */
    async complete(
      entry: NewActivity & { workId: string },
      executor: DbOrTx,
      detailsToMerge: Record<string, unknown> = {},
      run?: { key: string; id: string },
    ): Promise<ActivityRow> {
      const [open] = await executor
        .select()
        .from(activityLog)
        .where(
          and(
            eq(activityLog.userId, entry.userId),
            eq(activityLog.workId, entry.workId),
            eq(activityLog.actionType, entry.actionType),
            eq(activityLog.status, 'in_progress'),
            run ? sql`${activityLog.details} ->> ${run.key} = ${run.id}` : undefined,
          ),
        )
        .orderBy(desc(activityLog.createdAt))
        .limit(1)
        .for('update')
      if (!open) return record({ ...entry, details: { ...entry.details, ...detailsToMerge } }, executor)
      const [updated] = await executor
        .update(activityLog)
        .set({
          action: entry.action,
          status: entry.status,
          summary: entry.summary,
          details: { ...open.details, ...entry.details, ...detailsToMerge },
          updatedAt: clock.now(),
        })
        .where(eq(activityLog.id, open.id))
        .returning()
      return followUp(executor, updated!)
    },
  }
}

export type ActivityWriter = ReturnType<typeof createActivityWriter>
