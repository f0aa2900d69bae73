import { sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'

export interface ApiKeyUsageDeps {
  db: Db
  log: Logger
  flushIntervalMs: number
}

/**
 * Coalesces `lastUsedAt` updates in this process, so a request authenticated by an API key costs no write:
 * the latest use of each key is kept in memory and written for all keys in one statement per interval.
 */
export function createApiKeyUsage({ db, log, flushIntervalMs }: ApiKeyUsageDeps) {
  const pending = new Map<string, Date>()
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> | undefined
  let writing = false

  async function write(): Promise<void> {
    if (pending.size === 0) return
    const batch = [...pending]
    const ids = batch.map(([id]) => id)
    const times = batch.map(([, at]) => at.toISOString())
    writing = true
    try {
      // greatest(): another instance may already have written a later use of the same key.
      await db.execute(sql`
        update platform.api_keys as k
        set last_used_at = greatest(coalesce(k.last_used_at, v.at), v.at)
        from (select unnest(${sql.param(ids)}::uuid[]) as id, unnest(${sql.param(times)}::timestamptz[]) as at) v
        where k.id = v.id`)
    } finally {
      writing = false
    }
    // A use recorded while the statement ran is newer than what was written: keep it for the next flush.
    for (const [id, at] of batch) if (pending.get(id) === at) pending.delete(id)
  }

  function flush(): Promise<void> {
    const next = (flushing ?? Promise.resolve()).catch(() => {}).then(write)
    flushing = next
    return next
  }

  return {
    /** Records a successful use of a key at `at`; only the latest time per key is kept. */
    touch(keyId: string, at: Date): void {
      const known = pending.get(keyId)
      if (!known || known.getTime() < at.getTime()) pending.set(keyId, at)
    },

    /** The latest use of a key not yet written to the database, if any. */
    pending(keyId: string): Date | undefined {
      return pending.get(keyId)
    },

    /** Writes every pending use in one statement; a failed write keeps them for the next flush. */
    flush,

    start(): void {
      if (timer) return
      timer = setInterval(() => {
        // A slow database must not pile up flushes: the running one is followed by the next tick.
        if (pending.size === 0 || writing) return
        flush().catch((error: unknown) => log.warn({ err: error }, 'API key usage flush failed'))
      }, flushIntervalMs)
      timer.unref()
    },

    /** Stops the interval and writes what is pending; failures are logged, never thrown into shutdown. */
    async stop(): Promise<void> {
      clearInterval(timer)
      timer = undefined
      await flush().catch((error: unknown) => log.error({ err: error }, 'final API key usage flush failed'))
    },
  }
}

export type ApiKeyUsage = ReturnType<typeof createApiKeyUsage>
