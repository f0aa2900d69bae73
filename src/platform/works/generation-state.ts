import { and, eq, notInArray, type SQL } from 'drizzle-orm'
import type { Db, DbOrTx } from '../../db/index.ts'
import { type GenerateStatus, works } from './tables.ts'

/** The statuses of a generation that is under way: a work in one takes no second run. */
export const GENERATING: GenerateStatus[] = ['PENDING', 'GENERATING']

/**
 * The generation state a work shows (`generateStatus`, `recentLogs`, `itemsCount`), written only here: the
 * generation module moves it through these calls, in its own transactions where a change must be one.
 */
export function createWorkGenerationState({ db }: { db: Db }) {
  return {
    /** A new run's first state: PENDING with its first log, unless one runs already (false then). */
    async claim(tx: DbOrTx, workId: string, recentLogs: string[], at: Date): Promise<boolean> {
      const [claimed] = await tx
        .update(works)
        .set({ generateStatus: 'PENDING', recentLogs, updatedAt: at })
        .where(and(eq(works.id, workId), notInArray(works.generateStatus, GENERATING)))
        .returning({ id: works.id })
      return claimed !== undefined
    },

    /**
     * Locks the work's row for a run's end. Take it before the run's own rows, as deleting a work takes it
     * before its runs and items: the other order deadlocks with a delete of the work.
     */
    async lock(tx: DbOrTx, workId: string): Promise<void> {
      await tx.select({ id: works.id }).from(works).where(eq(works.id, workId)).for('no key update')
    },

    /** A running generation's log, kept while `running` holds (the run is still the worker's); false when not. */
    async log(workId: string, recentLogs: string[], running: SQL): Promise<boolean> {
      const [alive] = await db
        .update(works)
        .set({ recentLogs, generateStatus: 'GENERATING' })
        .where(and(eq(works.id, workId), running))
        .returning({ id: works.id })
      return alive !== undefined
    },

    /** A run's end: its status, its last log lines and, when it stored items, their count; the work now. */
    async recordGeneration(
      tx: DbOrTx,
      workId: string,
      end: { status: GenerateStatus; recentLogs: string[]; itemsCount?: number | undefined; at: Date },
    ): Promise<{ name: string; itemsCount: number } | undefined> {
      const [work] = await tx
        .update(works)
        .set({
          generateStatus: end.status,
          recentLogs: end.recentLogs,
          ...(end.itemsCount === undefined ? {} : { itemsCount: end.itemsCount }),
          updatedAt: end.at,
        })
        .where(eq(works.id, workId))
        .returning({ name: works.name, itemsCount: works.itemsCount })
      return work
    },
  }
}

export type WorkGenerationState = ReturnType<typeof createWorkGenerationState>
