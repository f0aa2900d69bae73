import { and, asc, eq, inArray, lt, notInArray, or, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx, Tx } from '../../db/index.ts'
import { AiProviderError } from '../../integrations/openai/client.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, HttpError } from '../../lib/errors.ts'
import type { EventContext, PlatformEvents } from '../events.ts'
import type { PluginService } from '../plugins/service.ts'
import type { WorkAccess } from '../works/access.ts'
import { type GenerateStatus, works } from '../works/tables.ts'
import {
  type GeneratedItem,
  generationMessages,
  ITEMS_SCHEMA,
  ITEMS_SCHEMA_NAME,
  parseItems,
} from './items.ts'
import type { WorkItem } from './schemas.ts'
import { workGenerations, workItems } from './tables.ts'

export const GENERATION_JOB = 'work-generation'
export const GENERATION_RECOVERY_JOB = 'work-generation-recovery'
/** Lines of a run's log kept on the work (`recentLogs`, the activity entry's `details.liveLogs`). */
export const RECENT_LOG_LINES = 50
const LOG_LINE_MAX_LENGTH = 300
/** A run whose worker stopped this many times is ended as ERROR rather than resumed again. */
export const MAX_RUN_ATTEMPTS = 3
const RUNNING: GenerateStatus[] = ['PENDING', 'GENERATING']

type Run = typeof workGenerations.$inferSelect

/** Who hears about a generation's failures (the notifications service). */
export interface GenerationNotifier {
  notifyAiCreditsDepleted(
    userId: string,
    details: { provider: string; workId?: string },
    executor?: DbOrTx,
  ): Promise<unknown>
  notifyAiProviderError(
    userId: string,
    details: { provider: string; error: string; workId?: string },
    executor?: DbOrTx,
  ): Promise<unknown>
  notifyGenerationAccountError(
    userId: string,
    details: { reason: string; workId?: string },
    executor?: DbOrTx,
  ): Promise<unknown>
  clearByDeduplicationKey(userId: string, key: string, executor?: DbOrTx): Promise<number>
}

export interface GenerationServiceDeps {
  db: Db
  clock: Clock
  log: Logger
  jobs: Pick<Jobs, 'send'>
  events: Pick<PlatformEvents, 'emit'>
  access: Pick<WorkAccess, 'requireEdit' | 'requireView'>
  plugins: Pick<PluginService, 'aiProviderForWork'>
  notifications: GenerationNotifier
  maxItems: number
  staleMs: number
}

/** How a run ends: its status, the reason for an ERROR, and who to tell. */
type Outcome =
  | { status: 'COMPLETED'; items: GeneratedItem[] }
  | { status: 'ERROR'; reason: string; notify?: (tx: Tx) => Promise<unknown> }

class RunStopped extends Error {}

/**
 * Generation of a work's items by its active AI provider, as a durable job: the route records the run and
 * enqueues it in one transaction; a worker runs it, showing it is alive through a heartbeat; a run whose
 * worker died is resumed (or ended) by the recovery pass.
 */
export function createGenerationService(deps: GenerationServiceDeps) {
  const { db, clock, log, jobs, events, access, plugins, notifications, maxItems, staleMs } = deps

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
            : and(eq(workGenerations.id, run.id), inArray(workGenerations.status, RUNNING)),
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
      const [work] = await tx
        .update(works)
        .set({
          generateStatus: outcome.status,
          recentLogs: logs.slice(-RECENT_LOG_LINES),
          ...(itemsCount === undefined ? {} : { itemsCount }),
          updatedAt: now,
        })
        .where(eq(works.id, run.workId))
        .returning()
      if (outcome.status === 'ERROR' && outcome.notify) await outcome.notify(tx)
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

  /** The provider's failure as the run's outcome, with the notification it calls for. */
  function providerOutcome(error: AiProviderError, run: Run, providerId: string): Outcome {
    const workId = run.workId
    if (error.kind === 'auth') {
      return {
        status: 'ERROR',
        reason: `The AI provider rejected the credentials: ${error.message}`,
        notify: (tx) =>
          notifications.notifyGenerationAccountError(run.userId, { reason: error.message, workId }, tx),
      }
    }
    if (error.kind === 'credits') {
      return {
        status: 'ERROR',
        reason: `The AI provider has no credits left: ${error.message}`,
        notify: (tx) =>
          notifications.notifyAiCreditsDepleted(run.userId, { provider: providerId, workId }, tx),
      }
    }
    return {
      status: 'ERROR',
      reason: `The AI provider failed: ${error.message}`,
      notify: (tx) =>
        notifications.notifyAiProviderError(
          run.userId,
          { provider: providerId, error: error.message, workId },
          tx,
        ),
    }
  }

  /** Runs a claimed run to its end: ask, check (asking once more when the answer is invalid), store. */
  async function execute(run: Run): Promise<void> {
    const [work] = await db.select().from(works).where(eq(works.id, run.workId))
    if (!work) return
    const logs = run.attempts > 1 ? [...work.recentLogs] : []
    const say = async (text: string) => {
      logs.push(line(text))
      const [alive] = await db
        .update(works)
        .set({ recentLogs: logs.slice(-RECENT_LOG_LINES), generateStatus: 'GENERATING' })
        .where(
          and(eq(works.id, work.id), sql`exists (select 1 from ${workGenerations} where ${heldBy(run)})`),
        )
        .returning({ id: works.id })
      // Cancelled (or ended elsewhere): stop between steps.
      if (!alive) throw new RunStopped()
    }

    // The heartbeat also notices a cancel while the provider is thinking, and stops the request.
    const abort = new AbortController()
    const heartbeat = setInterval(
      () => {
        db.update(workGenerations)
          .set({ heartbeatAt: clock.now() })
          .where(heldBy(run))
          .returning({ id: workGenerations.id })
          .then((rows) => {
            if (rows.length === 0) abort.abort()
          })
          .catch((error) => log.warn({ err: error, runId: run.id }, 'generation heartbeat failed'))
      },
      Math.max(250, Math.floor(staleMs / 4)),
    )
    heartbeat.unref()

    let providerId = 'ai-provider'
    try {
      if (run.attempts > 1) await say(`Resuming: the previous worker stopped (attempt ${run.attempts})`)
      let provider: Awaited<ReturnType<typeof plugins.aiProviderForWork>>
      try {
        provider = await plugins.aiProviderForWork(work)
      } catch (error) {
        if (!(error instanceof HttpError)) throw error
        await say(error.message)
        await finish(run, work.name, { status: 'ERROR', reason: error.message }, logs)
        return
      }
      providerId = provider.plugin.id
      const messages = generationMessages(work, run.prompt, maxItems)
      let outcome: Outcome | undefined
      for (let attempt = 1; attempt <= 2 && !outcome; attempt++) {
        await say(
          attempt === 1
            ? `Asking ${provider.plugin.name} (${provider.provider.model}) for up to ${maxItems} items`
            : `Asking ${provider.plugin.name} again`,
        )
        try {
          const answer = await provider.provider.completeJson({
            ...messages,
            schemaName: ITEMS_SCHEMA_NAME,
            schema: ITEMS_SCHEMA,
            signal: abort.signal,
          })
          const parsed = parseItems(answer.content, maxItems)
          if (parsed.ok) {
            await say(
              `Received ${parsed.items.length} items` +
                (parsed.cut > 0 ? ` (kept the first ${maxItems}, ${parsed.cut} more cut)` : '') +
                (parsed.skipped > 0 ? ` (${parsed.skipped} without a name or repeated, skipped)` : ''),
            )
            outcome = { status: 'COMPLETED', items: parsed.items }
          } else {
            await say(`The answer was not usable: ${parsed.reason}`)
            if (attempt === 2) {
              outcome = {
                status: 'ERROR',
                reason: `The AI provider’s answer was not usable twice: ${parsed.reason}`,
              }
            }
          }
        } catch (error) {
          if (abort.signal.aborted) throw new RunStopped()
          if (!(error instanceof AiProviderError)) throw error
          await say(error.message)
          if (error.kind === 'bad_response' && attempt === 1) continue
          outcome = providerOutcome(error, run, providerId)
        }
      }
      if (!outcome) throw new Error('generation ended without an outcome')
      if (outcome.status === 'COMPLETED') {
        logs.push(line(`Stored ${outcome.items.length} items`))
        const done = await finish(run, work.name, outcome, logs)
        if (done) {
          // The provider answered: alerts about it are resolved.
          await notifications.clearByDeduplicationKey(run.userId, `ai-credits:${providerId}`)
          await notifications.clearByDeduplicationKey(run.userId, `ai-provider-error:${providerId}`)
        }
      } else {
        logs.push(line(`Failed: ${outcome.reason}`))
        await finish(run, work.name, outcome, logs)
      }
    } catch (error) {
      if (error instanceof RunStopped) {
        log.info({ runId: run.id, workId: run.workId }, 'generation stopped: it was cancelled')
        return
      }
      // Let a retry of the job take the run at once rather than after the stale delay.
      await db
        .update(workGenerations)
        .set({ heartbeatAt: new Date(0) })
        .where(heldBy(run))
        .catch(() => undefined)
      throw error
    } finally {
      clearInterval(heartbeat)
    }
  }

  return {
    /** Starts a generation: 202 `GENERATING`; 409 while one runs, also when two calls race. */
    async start(userId: string, workId: string, prompt: string | undefined, context: EventContext) {
      const work = await access.requireEdit(workId, userId)
      const { plugin, provider } = await plugins.aiProviderForWork(work)
      const now = clock.now()
      await db.transaction(async (tx) => {
        const [claimed] = await tx
          .update(works)
          .set({
            generateStatus: 'PENDING',
            recentLogs: [line(`Queued: ${plugin.name} (${provider.model}) will generate the items`)],
            updatedAt: now,
          })
          .where(and(eq(works.id, work.id), notInArray(works.generateStatus, RUNNING)))
          .returning({ id: works.id })
        if (!claimed) throw conflict('A generation is already running for this work', 'GENERATION_RUNNING')
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
        .where(and(eq(workGenerations.workId, work.id), inArray(workGenerations.status, RUNNING)))
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
            inArray(workGenerations.status, RUNNING),
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
