import { and, eq, inArray, lt, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx, Tx } from '../../db/index.ts'
import { arrayOf } from '../../db/queries.ts'
import {
  type HostingProvider,
  ProviderAuthError,
  type ProviderDeployment,
  ProviderUnavailableError,
} from '../../integrations/hosting.ts'
import { type Jobs, sendMany } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { coalesced } from '../../lib/coalesce.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { isUuid } from '../../lib/ids.ts'
import type { PlatformEvents } from '../events.ts'
import { works } from '../works/tables.ts'
import { deployments, type FailedState, TERMINAL_STATES, type VerificationState } from './tables.ts'

export const VERIFICATION_JOB = 'deploy-verification'
export const VERIFICATION_RECOVERY_JOB = 'deploy-verification-recovery'
/** A poll whose job has not run this long after it was due lost its job (a crash): it is queued again. */
export const OVERDUE_MARGIN_MS = 60_000

const RUNNING: VerificationState[] = ['INITIALIZING', 'QUEUED', 'BUILDING']

export type DeploymentRow = typeof deployments.$inferSelect

const durationOf = (ms: number) => (ms % 60_000 === 0 ? `${ms / 60_000} minutes` : `${ms} ms`)

export const tokenContext = (deploymentId: string) => `deployment-token:${deploymentId}`

export interface VerificationDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'debug' | 'info' | 'warn'>
  jobs: Pick<Jobs, 'send' | 'boss'>
  envelope: Envelope
  events: PlatformEvents
  providers: ReadonlyMap<string, HostingProvider>
  pollIntervalMs: number
  timeoutMs: number
  notFoundLimit: number
}

/** What one poll found: the state to move to, and what to keep of it. */
interface Outcome {
  state: VerificationState
  providerDeploymentId?: string | null
  url?: string | null
  notFoundPolls?: number
  error?: string | null
}

/** The error a deployment that ended at the provider carries, as the webhook's `error` says it. */
const errorOf = (deployment: ProviderDeployment) =>
  deployment.state === 'CANCELED'
    ? 'The deployment was cancelled at the provider'
    : (deployment.error ?? 'The build failed at the provider')

/**
 * Deployment verification as a state machine kept in `deployments` and advanced by poll jobs: each poll asks
 * the provider about the deployment created after this dispatch (so an earlier READY cannot end a newer
 * deployment), moves the state, and in the same transaction either queues the next poll or ends the
 * verification with its event (activity row, webhook). `polls` numbers the polls: a job run twice (a retry,
 * a recovery racing it, two instances) polls once, and a verification a newer deploy cancelled is left
 * alone.
 */
export function createVerification(deps: VerificationDeps) {
  const { db, clock, log, jobs, envelope, events, pollIntervalMs, timeoutMs, notFoundLimit } = deps

  const schedule = (tx: DbOrTx, deploymentId: string, poll: number, at: Date) =>
    jobs.send(VERIFICATION_JOB, { deploymentId, poll }, { tx, startAfter: at })

  /** The terminal event of a verification, in `tx`: its activity row closes and the webhook goes out. */
  async function ended(
    tx: Tx,
    row: DeploymentRow,
    state: VerificationState,
    url: string | null,
    error: string | null,
  ) {
    const [work] = await tx.select({ name: works.name }).from(works).where(eq(works.id, row.workId))
    const common = {
      userId: row.userId,
      workId: row.workId,
      workName: work?.name ?? row.projectName,
      providerId: row.providerId,
      providerName: row.providerName,
      deploymentId: row.id,
    }
    if (state === 'READY') {
      await events.emit({ type: 'DeploymentCompleted', ...common, ...(url ? { url } : {}) }, { tx })
    } else {
      await events.emit(
        {
          type: 'DeploymentFailed',
          ...common,
          terminalState: state as FailedState,
          error: error ?? `The deployment ended as ${state}`,
        },
        { tx },
      )
    }
  }

  /** What the provider says now, as the next state. Never throws for anything the provider does. */
  async function observe(row: DeploymentRow, provider: HostingProvider): Promise<Outcome> {
    const scope = {
      token: envelope.open(row.providerToken, tokenContext(row.id)),
      teamScope: row.teamScope ?? undefined,
    }
    try {
      const found = row.providerDeploymentId
        ? await provider.deployment(scope, row.providerDeploymentId)
        : await provider.latestSince(scope, row.projectName, row.dispatchedAt.getTime())
      if (!found) {
        const notFoundPolls = row.notFoundPolls + 1
        if (notFoundPolls >= notFoundLimit) {
          return {
            state: 'TIMEOUT',
            notFoundPolls,
            error: `${provider.name} reported no deployment of ${row.projectName} after ${notFoundPolls} polls`,
          }
        }
        return { state: row.state, notFoundPolls, error: null }
      }
      const terminal = TERMINAL_STATES.includes(found.state)
      return {
        state: found.state,
        providerDeploymentId: found.id,
        url: found.url ?? null,
        error: terminal && found.state !== 'READY' ? errorOf(found) : null,
      }
    } catch (error) {
      if (error instanceof ProviderAuthError) {
        return { state: 'ERROR', error: `${provider.name} rejected the token: ${error.message}` }
      }
      const reason = error instanceof ProviderUnavailableError ? error.message : String(error)
      log.warn({ deploymentId: row.id, err: error }, 'deployment poll failed')
      // Not the deployment's fault: polling goes on until it answers or the verification times out.
      return { state: row.state, error: `Poll ${row.polls} could not read ${provider.name}: ${reason}` }
    }
  }

  /**
   * Takes polls in one statement: each deployment still running at that poll number moves to the next
   * and is returned; a poll made already (a job run twice, a recovery racing it) or of an ended
   * verification is not.
   */
  const take = coalesced<{ deploymentId: string; poll: number }, DeploymentRow | undefined>(async (asks) => {
    const asked = sql`unnest(${arrayOf(
      asks.map((ask) => ask.deploymentId),
      'uuid',
    )}, ${arrayOf(
      asks.map((ask) => ask.poll),
      'int',
    )}) as asked(id, poll)`
    const rows = await db
      .update(deployments)
      .set({ polls: sql`asked.poll + 1`, updatedAt: clock.now() })
      .from(asked)
      .where(
        and(
          sql`${deployments.id} = asked.id`,
          sql`${deployments.polls} = asked.poll`,
          inArray(deployments.state, RUNNING),
        ),
      )
      .returning()
    const taken = new Map((rows as DeploymentRow[]).map((row) => [row.id, row]))
    // The same poll asked twice in one batch is made once.
    return asks.map((ask) => {
      const row = taken.get(ask.deploymentId)
      if (row?.polls !== ask.poll + 1) return undefined
      taken.delete(ask.deploymentId)
      return row
    })
  })

  /**
   * Records polls that leave their verification running, in one transaction: the state each found and
   * each one's next poll, one interval on. One a newer deploy cancelled meanwhile is left as it is.
   */
  const carryOn = coalesced(async (rows: DeploymentRow[]) => {
    const at = clock.now()
    const nextPollAt = new Date(at.getTime() + pollIntervalMs)
    const found = sql`unnest(${arrayOf(
      rows.map((row) => row.id),
      'uuid',
    )}, ${arrayOf(
      rows.map((row) => row.polls),
      'int',
    )}, ${arrayOf(
      rows.map((row) => row.state),
      'text',
    )}, ${arrayOf(
      rows.map((row) => row.providerDeploymentId),
      'text',
    )}, ${arrayOf(
      rows.map((row) => row.url),
      'text',
    )}, ${arrayOf(
      rows.map((row) => row.notFoundPolls),
      'int',
    )}, ${arrayOf(
      rows.map((row) => row.error),
      'text',
    )}) as found(id, polls, state, provider_deployment_id, url, not_found_polls, error)`
    await db.transaction(async (tx) => {
      const updated = await tx
        .update(deployments)
        .set({
          state: sql`found.state`,
          providerDeploymentId: sql`found.provider_deployment_id`,
          url: sql`found.url`,
          notFoundPolls: sql`found.not_found_polls`,
          error: sql`found.error`,
          nextPollAt,
          updatedAt: at,
        })
        .from(found)
        .where(
          and(
            sql`${deployments.id} = found.id`,
            sql`${deployments.polls} = found.polls`,
            inArray(deployments.state, RUNNING),
          ),
        )
        .returning({ id: deployments.id, polls: deployments.polls })
      await sendMany(
        jobs,
        VERIFICATION_JOB,
        updated.map((row) => ({ deploymentId: row.id, poll: row.polls })),
        { tx, startAfter: nextPollAt },
      )
    })
    return rows.map(() => undefined)
  })

  /** Ends a verification with its event, in one transaction, unless a newer deploy cancelled it meanwhile. */
  async function finish(row: DeploymentRow) {
    const at = clock.now()
    await db.transaction(async (tx) => {
      // The work's row first, as deleting a work takes it before its deployments (and the ending's activity
      // row refers to it): the other order deadlocks with a delete of the work.
      await tx.select({ id: works.id }).from(works).where(eq(works.id, row.workId)).for('no key update')
      const [updated] = await tx
        .update(deployments)
        .set({
          state: row.state,
          providerDeploymentId: row.providerDeploymentId,
          url: row.url,
          notFoundPolls: row.notFoundPolls,
          error: row.error,
          nextPollAt: null,
          finishedAt: at,
          updatedAt: at,
        })
        .where(
          and(
            eq(deployments.id, row.id),
            eq(deployments.polls, row.polls),
            inArray(deployments.state, RUNNING),
          ),
        )
        .returning()
      if (updated) await ended(tx, updated, updated.state, updated.url, updated.error)
    })
  }

  return {
    /**
     * Ends the work's running verification (a newer deploy replaces it), in `tx`: it becomes CANCELED with
     * its event. Answers how many were running (0 or 1).
     */
    async cancelRunning(tx: Tx, workId: string, reason: string): Promise<number> {
      const now = clock.now()
      const cancelled = await tx
        .update(deployments)
        .set({ state: 'CANCELED', error: reason, nextPollAt: null, finishedAt: now, updatedAt: now })
        .where(and(eq(deployments.workId, workId), inArray(deployments.state, RUNNING)))
        .returning()
      for (const row of cancelled) await ended(tx, row, 'CANCELED', null, reason)
      return cancelled.length
    },

    /** Starts the verification of a deployment written in `tx`: its first poll, one interval after dispatch. */
    async start(tx: Tx, row: DeploymentRow) {
      await schedule(tx, row.id, 0, row.nextPollAt ?? new Date(clock.nowMs() + pollIntervalMs))
    },

    /**
     * The poll job: one look at the provider, unless this poll was made already or the verification ended.
     * The polls of one batch of jobs are taken in one statement and, unless they end the verification,
     * recorded with their next jobs in one transaction.
     */
    async poll(deploymentId: string, poll: number): Promise<void> {
      if (!isUuid(deploymentId) || !Number.isInteger(poll)) return
      const row = await take({ deploymentId, poll })
      if (!row) return
      const provider = deps.providers.get(row.providerId)
      let outcome: Outcome
      if (clock.nowMs() - row.dispatchedAt.getTime() > timeoutMs) {
        // A last poll that could not read the provider says why nothing was seen finishing.
        const lastPoll = row.error ? `. ${row.error}` : ''
        outcome = {
          state: 'TIMEOUT',
          error: `${row.providerName} did not finish the deployment within ${durationOf(timeoutMs)}${lastPoll}`,
        }
      } else if (!provider) {
        outcome = { state: 'ERROR', error: `The provider ${row.providerId} is not available on this server` }
      } else {
        outcome = await observe(row, provider)
      }
      const next: DeploymentRow = {
        ...row,
        state: outcome.state,
        providerDeploymentId:
          outcome.providerDeploymentId === undefined
            ? row.providerDeploymentId
            : outcome.providerDeploymentId,
        url: outcome.url === undefined ? row.url : outcome.url,
        notFoundPolls: outcome.notFoundPolls ?? row.notFoundPolls,
        error: outcome.error === undefined ? row.error : outcome.error,
      }
      if (TERMINAL_STATES.includes(next.state)) await finish(next)
      else await carryOn(next)
      const log = next.state === row.state ? deps.log.debug : deps.log.info
      log.call(deps.log, { deploymentId, poll: next.polls, state: next.state }, 'deployment poll')
    },

    /**
     * Queues again the polls whose job was lost (a process killed between taking the job and scheduling the
     * next): a running verification whose next poll is long overdue. Answers how many.
     */
    async recover(): Promise<number> {
      const overdue = await db
        .select({ id: deployments.id, polls: deployments.polls })
        .from(deployments)
        .where(
          and(
            inArray(deployments.state, RUNNING),
            lt(deployments.nextPollAt, new Date(clock.nowMs() - pollIntervalMs - OVERDUE_MARGIN_MS)),
          ),
        )
      if (overdue.length === 0) return 0
      // Each as the poll it is at, due now: a duplicate of a live job polls once (the `polls` check).
      const now = clock.now()
      await db
        .update(deployments)
        .set({ nextPollAt: now, updatedAt: now })
        .where(
          inArray(
            deployments.id,
            overdue.map((row) => row.id),
          ),
        )
      await sendMany(
        jobs,
        VERIFICATION_JOB,
        overdue.map((row) => ({ deploymentId: row.id, poll: row.polls })),
      )
      log.warn({ verifications: overdue.length }, 'deployment polls without a job queued again')
      return overdue.length
    },
  }
}

export type Verification = ReturnType<typeof createVerification>
