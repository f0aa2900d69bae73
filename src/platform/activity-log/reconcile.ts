import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { MINUTE_MS } from '../../lib/time.ts'
import { works } from '../works/tables.ts'
import { activityLog } from './tables.ts'

/** SPEC.md: a completed pass is reused for 5 seconds. */
export const RECONCILE_REUSE_MS = 5000
const DEPLOY_GRACE_MS = MINUTE_MS

export interface Reconciler {
  /** Runs (or joins, or reuses) the user's pass; never throws. */
  run(userId: string): Promise<void>
}

/**
 * Closes activity rows left `in_progress` by runs that ended without saying so (a crash, a lost event).
 * A generation row whose work is no longer GENERATING or PENDING takes the work's outcome; one whose work
 * was deleted is cancelled. A deployment row open for longer than verification can last is failed as
 * TIMEOUT. Debounced per user: a pass in flight is shared, and one that finished within
 * the last 5 seconds is reused. The debounce is per instance; the pass itself is idempotent.
 */
export function createReconciler({
  db,
  clock,
  log,
  deployTimeoutMs,
}: {
  db: Db
  clock: Clock
  log: Logger
  /** Verification gives up on a deployment after this long (DEPLOY_TIMEOUT_MS). */
  deployTimeoutMs: number
}): Reconciler {
  const inFlight = new Map<string, Promise<void>>()
  const finishedAt = new Map<string, number>()

  async function pass(userId: string) {
    await db.execute(sql`
      update ${activityLog} as a
      set status = case
          when w.id is null or w.generate_status = 'CANCELLED' then 'cancelled'
          when w.generate_status = 'ERROR' then 'failed'
          else 'completed'
        end,
        updated_at = ${clock.now()}
      from ${activityLog} as open
      left join ${works} as w on w.id = open.work_id
      where a.id = open.id
        and open.user_id = ${userId}
        and open.status = 'in_progress'
        and open.action_type in ('generation', 'comparison_generation')
        and (w.id is null or w.generate_status not in ('GENERATING', 'PENDING'))`)

    // Verification ends every deployment within DEPLOY_TIMEOUT_MS; a row still open well past that lost
    // its ending event, and the deployment it stands for has finished without reporting back.
    const cutoff = new Date(clock.nowMs() - deployTimeoutMs - DEPLOY_GRACE_MS)
    await db.execute(sql`
      update ${activityLog}
      set status = 'failed',
        action = 'deployment.failed',
        summary = summary || ' (no result reported: timed out)',
        details = details || ${JSON.stringify({ terminalState: 'TIMEOUT', error: 'No result was reported before the verification timeout' })}::jsonb,
        updated_at = ${clock.now()}
      where user_id = ${userId}
        and status = 'in_progress'
        and action_type = 'deployment'
        and created_at < ${cutoff}`)
  }

  function forget(now: number) {
    // Keeps the map from growing with every user ever seen.
    if (finishedAt.size < 10_000) return
    for (const [userId, at] of finishedAt) if (now - at >= RECONCILE_REUSE_MS) finishedAt.delete(userId)
  }

  return {
    run(userId) {
      const running = inFlight.get(userId)
      if (running) return running
      const last = finishedAt.get(userId)
      if (last !== undefined && clock.nowMs() - last < RECONCILE_REUSE_MS) return Promise.resolve()
      const run = pass(userId)
        .catch((error: unknown) => log.warn({ err: error, userId }, 'activity reconciliation failed'))
        .finally(() => {
          inFlight.delete(userId)
          finishedAt.set(userId, clock.nowMs())
          forget(clock.nowMs())
        })
      inFlight.set(userId, run)
      return run
    },
  }
}
