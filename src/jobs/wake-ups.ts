import { createHash } from 'node:crypto'
import type { PgBoss } from 'pg-boss'
import type { failureLogger } from '../db/outage-log.ts'

/**
 * How idle workers learn that there is work, without each of them polling its queue:
 *
 * - A job enqueued to run now wakes its queue's workers at once. Queues are created with pg-boss's
 *   `notify`, so the statement that inserts a due job also sends its queue's name on the schema's
 *   channel (delivered when the enqueuing transaction commits, to every instance), and the service's
 *   LISTEN connection hands it to the workers: at once, then at most once per polling interval per
 *   queue, so that a job which queues itself again as due at once (with a clock behind the database's,
 *   as a test's is) runs as often as polling ran it rather than in a tight loop.
 * - A job due later (enqueued with `startAfter`, or waiting to be retried) and one whose notification
 *   was missed (the listener was reconnecting) are found by one look every polling interval: a single
 *   statement per service answers which of its queues have a due job, and wakes theirs. Each worker
 *   polling its own queue took a statement per queue per interval instead (about twenty per service).
 * - Workers also look on their own every BACKSTOP_SECONDS, should the looks fail.
 */

/**
 * The shortest interval between two looks, and between two wake-ups of one queue by notifications: a
 * queue asking to be polled more often (a test's deployment verification, every millisecond) is looked
 * at 20 times a second, not in a loop that takes a core.
 */
export const MIN_INTERVAL_MS = 50

/** How often a worker fetches when nothing wakes it. */
export const BACKSTOP_SECONDS = 30

/**
 * pg-boss's notification channel for `schema`: what its insert statements send the queue's name on
 * (`'pgboss_' || left(encode(sha224(schema), 'hex'), 24)`, for an unquoted lower-case schema name).
 */
export function notifyChannel(schema: string): string {
  return `pgboss_${createHash('sha224').update(schema).digest('hex').slice(0, 24)}`
}

/**
 * `wake` for a queue at once, then at most once per `gapMs()` for that queue: calls within the gap are
 * one call at its end.
 */
export function throttledPerQueue(wake: (queue: string) => void, gapMs: () => number) {
  const lastAt = new Map<string, number>()
  const pending = new Map<string, NodeJS.Timeout>()
  const now = (queue: string) => {
    lastAt.set(queue, Date.now())
    wake(queue)
  }
  return {
    wake(queue: string) {
      if (pending.has(queue)) return
      const waitMs = (lastAt.get(queue) ?? Number.NEGATIVE_INFINITY) + gapMs() - Date.now()
      if (waitMs <= 0) return now(queue)
      pending.set(
        queue,
        setTimeout(() => {
          pending.delete(queue)
          now(queue)
        }, waitMs),
      )
    },
    stop() {
      for (const timer of pending.values()) clearTimeout(timer)
      pending.clear()
    },
  }
}

export interface DueScout {
  stop(): Promise<void>
}

/**
 * Every `intervalMs`, asks which of `queues` have a job that a fetch would take now (pending, not blocked,
 * due by the database's clock) and calls `wake` with each such queue. Stops looking on stop().
 */
export function startDueScout(options: {
  boss: PgBoss
  schema: string
  queues: readonly string[]
  intervalMs: number
  wake: (queue: string) => void
  failed: ReturnType<typeof failureLogger>
}): DueScout {
  const { boss, schema, queues, intervalMs, wake, failed } = options
  // One probe of the pending-jobs index per queue, stopping at its first due job.
  const text = `select q.name from unnest($1::text[]) as q(name)
    where exists (
      select 1 from ${schema}.job j
      where j.name = q.name and j.state < 'active' and not j.blocked and j.start_after <= ${schema}.job_now()
    )`
  let stopping = false
  let timer: NodeJS.Timeout | undefined
  let resume = () => {}
  const loop = (async () => {
    while (!stopping) {
      await new Promise<void>((resolve) => {
        resume = resolve
        timer = setTimeout(resolve, intervalMs)
      })
      if (stopping) break
      try {
        const { rows } = await boss.getDb().executeSql(text, [queues])
        for (const row of rows as { name: string }[]) wake(row.name)
      } catch (error) {
        failed(error, {}, 'looking for due jobs failed')
      }
    }
  })()
  return {
    async stop() {
      stopping = true
      clearTimeout(timer)
      resume()
      await loop
    },
  }
}
