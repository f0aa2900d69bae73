import { type and, eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx, Tx } from '../../db/index.ts'
import { AiProviderError } from '../../integrations/openai/client.ts'
import type { Clock } from '../../lib/clock.ts'
import { HttpError } from '../../lib/errors.ts'
import type { PluginService } from '../plugins/service.ts'
import type { WorkGenerationState } from '../works/generation-state.ts'
import { works } from '../works/tables.ts'
import {
  type GeneratedItem,
  generationMessages,
  ITEMS_SCHEMA,
  ITEMS_SCHEMA_NAME,
  parseItems,
} from './items.ts'
import { workGenerations } from './tables.ts'

/** Lines of a run's log kept on the work (`recentLogs`, the activity entry's `details.liveLogs`). */
export const RECENT_LOG_LINES = 50

export type Run = typeof workGenerations.$inferSelect

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
  notifyAiProviderUnreachable(
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

/** How a run ends: its status, the reason for an ERROR, and who to tell. */
export type Outcome =
  | { status: 'COMPLETED'; items: GeneratedItem[]; resolve?: (tx: Tx) => Promise<unknown> }
  | { status: 'ERROR'; reason: string; notify?: (tx: Tx) => Promise<unknown> }

class RunStopped extends Error {}

/** Failures where the provider never answered: the connection, the time limit, or an address refused here. */
const UNREACHED = new Set<AiProviderError['kind']>(['unavailable', 'timeout', 'blocked'])

export interface RunExecutorDeps {
  db: Db
  clock: Clock
  log: Logger
  plugins: Pick<PluginService, 'aiProviderForWork'>
  notifications: GenerationNotifier
  workState: Pick<WorkGenerationState, 'log'>
  maxItems: number
  staleMs: number
  /** A timestamped log line. */
  line(text: string): string
  /** The condition that the run is still this worker's. */
  heldBy(run: Run): ReturnType<typeof and>
  /** Ends the run if it is still the worker's; false when it was not. */
  finish(run: Run, workName: string, outcome: Outcome, logs: string[]): Promise<boolean>
}

/**
 * The worker's side of a run: ask the work's AI provider, check the answer (asking once more when it is
 * unusable), and end the run; a heartbeat shows the run is alive and notices a cancel meanwhile.
 */
export function createRunExecutor(deps: RunExecutorDeps) {
  const { db, clock, log, plugins, notifications, workState, maxItems, staleMs, line, heldBy, finish } = deps

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
    if (error.status === null && UNREACHED.has(error.kind)) {
      return {
        status: 'ERROR',
        reason: `The AI provider could not be reached: ${error.message}`,
        notify: (tx) =>
          notifications.notifyAiProviderUnreachable(
            run.userId,
            { provider: providerId, error: error.message, workId },
            tx,
          ),
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
      const held = sql`exists (select 1 from ${workGenerations} where ${heldBy(run)})`
      // Cancelled (or ended elsewhere): stop between steps.
      if (!(await workState.log(work.id, logs.slice(-RECENT_LOG_LINES), held))) throw new RunStopped()
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
        // The provider answered: alerts about it are resolved with the run, in its transaction, so that no
        // one reads the run completed and its alert still up.
        const resolve = async (tx: Tx) => {
          for (const key of ['ai-credits', 'ai-provider-error', 'ai-provider-unreachable']) {
            await notifications.clearByDeduplicationKey(run.userId, `${key}:${providerId}`, tx)
          }
        }
        await finish(run, work.name, { ...outcome, resolve }, logs)
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

  return { execute }
}
