import { and, asc, eq, inArray, lt, or, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict } from '../../lib/errors.ts'
import type { EventContext, PlatformEvents } from '../events.ts'
import type { PluginService } from '../plugins/service.ts'
import type { WorkAccess } from '../works/access.ts'
import { GENERATING, type WorkGenerationState } from '../works/generation-state.ts'
import { works } from '../works/tables.ts'
import type { WorkItem } from './schemas.ts'
import { workGenerations, workItems } from './tables.ts'
import {
  createRunExecutor,
  type GenerationNotifier,
  type Outcome,
  RECENT_LOG_LINES,
  type Run,
} from './worker.ts'

export type { GenerationNotifier } from './worker.ts'

export const GENERATION_JOB = 'work-generation'
export const GENERATION_RECOVERY_JOB = 'work-generation-recovery'
const LOG_LINE_MAX_LENGTH = 300
/** A run whose worker stopped this many times is ended as ERROR rather than resumed again. */
export const MAX_RUN_ATTEMPTS = 3

export interface GenerationServiceDeps {
  db: Db
  clock: Clock
  log: Logger
  jobs: Pick<Jobs, 'send'>
  events: Pick<PlatformEvents, 'emit'>
  access: Pick<WorkAccess, 'requireEdit' | 'requireView'>
  /** The work's generation state (its status, log and item count), which the works module writes. */
  workState: WorkGenerationState
  plugins: Pick<PluginService, 'aiProviderForWork'>
  notifications: GenerationNotifier
  maxItems: number
  staleMs: number
}

/**
 * Generation of a work's items by its active AI provider, as a durable job: the route records the run and
 * enqueues it in one transaction; a worker runs it, showing it is alive through a heartbeat; a run whose
 * worker died is resumed (or ended) by the recovery pass.
 */
export function createGenerationService(deps: GenerationServiceDeps) {
  const { db, clock, log, jobs, events, access, plugins, staleMs, workState } = deps

  const line = (text: string) =>
    `${clock.now().toISOString().slice(11, 19)} ${text.replace(/\s+/g, ' ')}`.slice(0, LOG_LINE_MAX_LENGTH)

  const enqueue = (runId: string, tx?: DbOrTx) =>
    jobs.send(GENERATION_JOB, { runId }, tx ? { tx, singletonKey: runId } : { singletonKey: runId })

  /** The run while this worker holds it: a resumed run belongs to the worker that took it last. */
  const heldBy = (run: Run) =>
    and(
      eq(workGenerations.id, run.id),
      eq(workGenerations.status, 'GENERATING'),
      eq(workGenerations.attempts, run.attempts),
    )

  /**
   * Ends the run if it is still running (for a worker: still its own) and tells the activity log and the
   * bus; false when it was not.
   */
  async function finish(
    run: Run,
    workName: string,
    outcome: Outcome | { status: 'CANCELLED' },
    logs: string[],
    byWorker = true,
  ) {
    return db.transaction(async (tx) => {
      const now = clock.now()
      await workState.lock(tx, run.workId)
      const [ended] = await tx
        .update(workGenerations)
        .set({
          status: outcome.status,
          finishedAt: now,
          itemsCount: outcome.status === 'COMPLETED' ? outcome.items.length : 0,
          error: outcome.status === 'ERROR' ? outcome.reason : null,
        })
        .where(
          byWorker
            ? heldBy(run)
            : and(eq(workGenerations.id, run.id), inArray(workGenerations.status, GENERATING)),
        )
        .returning()
      if (!ended) return false
      let itemsCount: number | undefined
      if (outcome.status === 'COMPLETED') {
        await tx.delete(workItems).where(eq(workItems.workId, run.workId))
        // One statement whatever the count: the items travel as one JSON parameter, and Postgres makes the rows.
        await tx.execute(sql`
          insert into ${workItems}
            (work_id, generation_id, position, name, description, url, category, tags, created_at)
          select ${run.workId}, ${run.id}, item.ordinality - 1, item.name, item.description, item.url,
                 item.category, item.tags, ${now.toISOString()}::timestamptz
          from rows from (
            jsonb_to_recordset(${JSON.stringify(outcome.items)}::jsonb)
              as (name text, description text, url text, category text, tags jsonb)
          ) with ordinality as item(name, description, url, category, tags, ordinality)`)
        itemsCount = outcome.items.length
      }
      const work = await workState.recordGeneration(tx, run.workId, {
        status: outcome.status,
        recentLogs: logs.slice(-RECENT_LOG_LINES),
        itemsCount,
        at: now,
      })
      if (outcome.status === 'ERROR' && outcome.notify) await outcome.notify(tx)
      if (outcome.status === 'COMPLETED' && outcome.resolve) await outcome.resolve(tx)
      await events.emit(
        {
          type: 'WorkGenerationCompleted',
          userId: run.userId,
          workId: run.workId,
          workName: work?.name ?? workName,
          generateStatus: outcome.status,
          itemsCount: work?.itemsCount ?? 0,
          ...(outcome.status === 'ERROR' ? { error: outcome.reason } : {}),
          logs: logs.slice(-RECENT_LOG_LINES),
        },
        { tx },
      )
      return true
    })
  }

  /** Takes the run for this worker: a new one, or one whose worker went silent; null when it is not ours. */
  async function claim(runId: string): Promise<Run | null> {
    const now = clock.now()
    const [run] = await db
      .update(workGenerations)
      .set({
        status: 'GENERATING',
        attempts: sql`${workGenerations.attempts} + 1`,
        heartbeatAt: now,
        startedAt: sql`coalesce(${workGenerations.startedAt}, ${now.toISOString()}::timestamptz)`,
      })
      .where(
        and(
          eq(workGenerations.id, runId),
          or(
            eq(workGenerations.status, 'PENDING'),
            and(
              eq(workGenerations.status, 'GENERATING'),
              lt(workGenerations.heartbeatAt, new Date(now.getTime() - staleMs)),
            ),
          ),
        ),
      )
      .returning()
    return run ?? null
  }

  const { execute } = createRunExecutor({ ...deps, line, heldBy, finish })

  return {
    /** Starts a generation: 202 `GENERATING`; 409 while one runs, also when two calls race. */
    async start(userId: string, workId: string, prompt: string | undefined, context: EventContext) {
      const work = await access.requireEdit(workId, userId)
      const { plugin, provider } = await plugins.aiProviderForWork(work)
      const now = clock.now()
      await db.transaction(async (tx) => {
        const firstLog = line(`Queued: ${plugin.name} (${provider.model}) will generate the items`)
        if (!(await workState.claim(tx, work.id, [firstLog], now)))
          throw conflict('A generation is already running for this work', 'GENERATION_RUNNING')
        const [run] = await tx
          .insert(workGenerations)
          .values({
            workId: work.id,
            userId,
            prompt: prompt?.trim() || null,
            status: 'PENDING',
            heartbeatAt: now,
            createdAt: now,
          })
          .returning()
        await events.emit(
          { type: 'WorkGenerationStarted', userId, workId: work.id, workName: work.name, context },
          { tx },
        )
        await enqueue(run!.id, tx)
      })
      return { status: 'GENERATING' as const }
    },

    /** Cancels the running generation: the worker stops between steps and stores nothing. */
    async cancel(userId: string, workId: string) {
      const work = await access.requireEdit(workId, userId)
      const [run] = await db
        .select()
        .from(workGenerations)
        .where(and(eq(workGenerations.workId, work.id), inArray(workGenerations.status, GENERATING)))
      const cancelled =
        run &&
        (await finish(
          run,
          work.name,
          { status: 'CANCELLED' },
          [...work.recentLogs, line('Cancelled')],
          false,
        ))
      if (!cancelled) throw conflict('No generation is running for this work', 'GENERATION_NOT_RUNNING')
      return { status: 'CANCELLED' as const }
    },

    /** The items of the work's last completed generation, in order. */
    async items(userId: string, workId: string): Promise<WorkItem[]> {
      const work = await access.requireView(workId, userId)
      return db
        .select({
          id: workItems.id,
          name: workItems.name,
          description: workItems.description,
          url: workItems.url,
          category: workItems.category,
          tags: workItems.tags,
          createdAt: workItems.createdAt,
        })
        .from(workItems)
        .where(eq(workItems.workId, work.id))
        .orderBy(asc(workItems.position))
    },

    /** The job: runs the generation unless it is finished, cancelled or alive with another worker. */
    async run(runId: string): Promise<void> {
      const run = await claim(runId)
      if (!run) return
      if (run.attempts > MAX_RUN_ATTEMPTS) {
        const [work] = await db.select().from(works).where(eq(works.id, run.workId))
        const reason = `The generation was interrupted ${MAX_RUN_ATTEMPTS} times (its worker stopped); giving up`
        await finish(run, work?.name ?? '', { status: 'ERROR', reason }, [
          ...(work?.recentLogs ?? []),
          line(reason),
        ])
        return
      }
      await execute(run)
    },

    /**
     * Finds the runs whose worker went silent (a crash, a kill, a lost connection) and queues them again;
     * the job resumes each, or ends it as ERROR once it was interrupted too often. Returns how many.
     */
    async recover(): Promise<number> {
      const silent = await db
        .select({ id: workGenerations.id })
        .from(workGenerations)
        .where(
          and(
            inArray(workGenerations.status, GENERATING),
            lt(workGenerations.heartbeatAt, new Date(clock.now().getTime() - staleMs)),
          ),
        )
      for (const run of silent) await jobs.send(GENERATION_JOB, { runId: run.id })
      if (silent.length > 0)
        log.warn({ runs: silent.length }, 'generation runs without a worker queued again')
      return silent.length
    },
  }
}

export type GenerationService = ReturnType<typeof createGenerationService>
