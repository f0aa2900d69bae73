import { and, desc, eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx } from '../../db/index.ts'
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
  db: Db
  clock: Clock
  log: Logger
  /**
   * Enqueues follow-up work (analytics forwarding) for every row written or updated, inside the write's
   * transaction; its failures are confined to a savepoint and never fail the write.
   */
  enqueue?: (tx: DbOrTx, row: ActivityRow) => Promise<unknown>
}

/**
 * Writes the activity log. Audit writes never break the user-facing call: `record` and `complete` log
 * their own failures and answer null.
 */
export function createActivityWriter({ db, clock, log, enqueue }: ActivityWriterDeps) {
  /** Runs `write` and, when configured, enqueues its row's follow-up in the same transaction. */
  async function persist(write: (executor: DbOrTx) => Promise<ActivityRow | undefined>) {
    if (!enqueue) return write(db)
    return db.transaction(async (tx) => {
      const row = await write(tx)
      if (row) {
        try {
          await tx.transaction((savepoint) => enqueue(savepoint, row))
        } catch (error) {
          log.warn({ err: error, activityId: row.id }, 'activity forwarding not enqueued')
        }
      }
      return row
    })
  }

  async function record(entry: NewActivity): Promise<ActivityRow | null> {
    try {
      const now = clock.now()
      const row = await persist(async (executor) => {
        const [inserted] = await executor
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
        return inserted
      })
      return row ?? null
    } catch (error) {
      log.error({ err: error, action: entry.action }, 'activity write failed')
      return null
    }
  }

  return {
    record,

    /**
     * Closes the newest `in_progress` row of this kind for the work (generation and deployment runs update
     * their row rather than adding a second one); records a new row when there is none.
     */
    async complete(
      entry: NewActivity & { workId: string },
      detailsToMerge: Record<string, unknown> = {},
    ): Promise<ActivityRow | null> {
      try {
        const [open] = await db
          .select()
          .from(activityLog)
          .where(
            and(
              eq(activityLog.userId, entry.userId),
              eq(activityLog.workId, entry.workId),
              eq(activityLog.actionType, entry.actionType),
              eq(activityLog.status, 'in_progress'),
            ),
          )
          .orderBy(desc(activityLog.createdAt))
          .limit(1)
        if (!open) return await record({ ...entry, details: { ...entry.details, ...detailsToMerge } })
        const row = await persist(async (executor) => {
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
          return updated
        })
        return row ?? null
      } catch (error) {
        log.error({ err: error, action: entry.action }, 'activity write failed')
        return null
      }
    },
  }
}

export type ActivityWriter = ReturnType<typeof createActivityWriter>
