import { setTimeout as delay } from 'node:timers/promises'
import type { Logger } from 'pino'
import { HttpError, invalidInput } from '../../lib/errors.ts'
import type { EventContext } from '../events.ts'
import type { WorkAccess } from '../works/access.ts'
import type { DeployService } from './service.ts'

export const BATCH_MAX_WORKS = 100

export interface BatchBody {
  works: { workId: string; teamScope?: string | undefined }[]
  teamScope?: string | undefined
}

export interface BatchResult {
  workId: string
  slug: string | null
  status: 'pending' | 'error'
  message: string
}

export interface DeployBatchDeps {
  log: Pick<Logger, 'warn'>
  access: Pick<WorkAccess, 'requireView'>
  deploy: Pick<DeployService, 'deploy'>
  batchConcurrency: number
  batchDelayMs: number
}

/**
 * Deploys each work, `batchConcurrency` at a time, a group starting `batchDelayMs` after the previous one
 * started (and once it ended), as SPEC.md's 2 s between groups; answers each one's outcome.
 */
export function createDeployBatch({ log, access, deploy, batchConcurrency, batchDelayMs }: DeployBatchDeps) {
  /** The slug of a work the caller may see, for a batch result; null for one they may not. */
  async function slugOf(userId: string, workId: string): Promise<string | null> {
    const work = await access.requireView(workId, userId).catch(() => undefined)
    return work?.slug ?? null
  }

  return async function batch(userId: string, body: BatchBody, context: EventContext) {
    const first = new Map<string, number>()
    const repeated = body.works.flatMap(({ workId }, index) => {
      const earlier = first.get(workId)
      if (earlier === undefined) first.set(workId, index)
      return earlier === undefined
        ? []
        : [
            {
              field: `body.works.${index}.workId`,
              message: `repeats body.works.${earlier}.workId: each work once`,
            },
          ]
    })
    if (repeated.length > 0) throw invalidInput(repeated)
    const results: BatchResult[] = []
    let groupStarted = 0
    for (let start = 0; start < body.works.length; start += batchConcurrency) {
      // Groups start batchDelayMs apart, and never before the previous one ended: at most
      // batchConcurrency deploys at once.
      if (start > 0) await delay(Math.max(0, groupStarted + batchDelayMs - Date.now()))
      groupStarted = Date.now()
      const group = body.works.slice(start, start + batchConcurrency)
      const settled = await Promise.allSettled(
        group.map((item) =>
          deploy.deploy(userId, item.workId, { teamScope: item.teamScope ?? body.teamScope }, context),
        ),
      )
      for (const [index, outcome] of settled.entries()) {
        const { workId } = group[index]!
        if (outcome.status === 'fulfilled') {
          results.push({
            workId,
            slug: outcome.value.slug,
            status: 'pending',
            message: outcome.value.message,
          })
        } else {
          const error = outcome.reason
          if (!(error instanceof HttpError)) log.warn({ workId, err: error }, 'batch deploy failed')
          results.push({
            workId,
            slug: await slugOf(userId, workId),
            status: 'error',
            message: error instanceof HttpError ? error.message : 'The deployment could not be started',
          })
        }
      }
    }
    const started = results.filter((result) => result.status === 'pending').length
    const failed = results.length - started
    return {
      status: failed === 0 ? ('success' as const) : started > 0 ? ('partial' as const) : ('error' as const),
      message: `Started ${started} of ${results.length} deployment${results.length === 1 ? '' : 's'}${failed ? `; ${failed} failed` : ''}`,
      totalRequested: results.length,
      successfullyStarted: started,
      failed,
      results,
    }
  }
}

export type DeployBatch = ReturnType<typeof createDeployBatch>
