/**
 * What a Postgres server's background processes do, done for the embedded one. PGlite runs Postgres in
 * single-user mode, which has no checkpointer and no autovacuum: left alone, the WAL grows with every
 * write until the process stops (in memory with DATA_DIR=memory: 336 MB after a million small rows were
 * written and deleted), dead rows are never cleared (pg-boss's job tables churn all day) and the planner
 * never learns how big a table has become. Every minute, one pass:
 *
 * - `VACUUM (ANALYZE)` of each table with more dead rows than autovacuum would allow (50 + 20 % of its
 *   live rows), and `ANALYZE` of each changed by more than autoanalyze would allow (50 + 10 %);
 * - `CHECKPOINT` once 16 MB of WAL were written since the last one, which then keeps at most
 *   `max_wal_size` of old segments for reuse (db/pglite.ts).
 *
 * PGlite runs one statement at a time and never inside another caller's transaction, so a pass waits
 * its turn like any query; on an idle instance it costs two small queries.
 */
import type { PGlite } from '@electric-sql/pglite'
import type { Logger } from 'pino'

export const UPKEEP_INTERVAL_MS = 60_000
export const CHECKPOINT_AFTER_WAL_BYTES = 16 * 1024 * 1024

export interface UpkeepOptions {
  /** WAL written since the last checkpoint that makes a pass checkpoint. */
  checkpointAfterWalBytes?: number
}

export interface UpkeepPass {
  /** Tables vacuumed (and analysed), as `schema.table`. */
  vacuumed: string[]
  /** Tables only analysed. */
  analyzed: string[]
  /** Whether the pass checkpointed, and the WAL written since the last checkpoint before it did. */
  checkpointed: boolean
  walBytes: number
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`

async function walSinceCheckpoint(pglite: PGlite): Promise<number> {
  const { rows } = await pglite.query<{ bytes: string }>(
    `select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::bigint::text as bytes
       from pg_control_checkpoint()`,
  )
  return Number(rows[0]?.bytes ?? 0)
}

/** One pass of upkeep: vacuums and analyses what needs it, then checkpoints if enough WAL was written. */
export async function upkeepOnce(pglite: PGlite, options: UpkeepOptions = {}): Promise<UpkeepPass> {
  const checkpointAfter = options.checkpointAfterWalBytes ?? CHECKPOINT_AFTER_WAL_BYTES
  const { rows } = await pglite.query<{ schema: string; table: string; vacuum: boolean }>(
    `select schemaname as schema, relname as table,
            n_dead_tup > 50 + 0.2 * n_live_tup as vacuum
       from pg_stat_user_tables
      where n_dead_tup > 50 + 0.2 * n_live_tup or n_mod_since_analyze > 50 + 0.1 * n_live_tup
      order by schemaname, relname`,
  )
  const pass: UpkeepPass = { vacuumed: [], analyzed: [], checkpointed: false, walBytes: 0 }
  for (const { schema, table, vacuum } of rows) {
    const name = `${quote(schema)}.${quote(table)}`
    try {
      await pglite.exec(vacuum ? `vacuum (analyze) ${name}` : `analyze ${name}`)
    } catch (error) {
      // 42P01: dropped since the statistics were read.
      if ((error as { code?: unknown }).code === '42P01') continue
      throw error
    }
    ;(vacuum ? pass.vacuumed : pass.analyzed).push(`${schema}.${table}`)
  }
  pass.walBytes = await walSinceCheckpoint(pglite)
  if (pass.walBytes >= checkpointAfter) {
    await pglite.exec('checkpoint')
    pass.checkpointed = true
  }
  return pass
}

export interface EmbeddedUpkeep {
  /** Stops the timer and waits for a pass under way. */
  stop(): Promise<void>
}

/** Runs upkeep every `intervalMs` (a timer that never keeps the process alive) until stopped. */
export function startEmbeddedUpkeep(
  pglite: PGlite,
  log: Pick<Logger, 'debug' | 'warn'>,
  options: UpkeepOptions & { intervalMs?: number } = {},
): EmbeddedUpkeep {
  let running: Promise<void> | undefined
  const timer = setInterval(() => {
    if (running || pglite.closed) return
    running = upkeepOnce(pglite, options)
      .then((pass) => {
        if (pass.checkpointed || pass.vacuumed.length || pass.analyzed.length) {
          log.debug(pass, 'embedded database upkeep')
        }
      })
      .catch((error: unknown) => {
        if (!pglite.closed) log.warn({ err: error }, 'embedded database upkeep failed; trying again later')
      })
      .finally(() => {
        running = undefined
      })
  }, options.intervalMs ?? UPKEEP_INTERVAL_MS)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
