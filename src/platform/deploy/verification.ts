import { and, eq, inArray, lt } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db, DbOrTx, Tx } from '../../db/index.ts'
import { type Jobs, sendMany } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { isUuid } from '../../lib/ids.ts'
import type { PlatformEvents } from '../events.ts'
import { works } from '../works/tables.ts'
import {
  type HostingProvider,
  ProviderAuthError,
  type ProviderDeployment,
  ProviderUnavailableError,
} from './provider.ts'
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
  log: Pick<Logger, 'info' | 'warn'>
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

    /** The poll job: one look at the provider, unless this poll was made already or the verification ended. */
    async poll(deploymentId: string, poll: number): Promise<void> {
      if (!isUuid(deploymentId) || !Number.isInteger(poll)) return
      const now = clock.now()
      // Takes this poll: a second run of the same job (or a stale one) finds `polls` moved on.
      const [row] = await db
        .update(deployments)
        .set({ polls: poll + 1, updatedAt: now })
        .where(
          and(
            eq(deployments.id, deploymentId),
            eq(deployments.polls, poll),
            inArray(deployments.state, RUNNING),
          ),
        )
        .returning()
      if (!row) return
      const provider = deps.providers.get(row.providerId)
      let outcome: Outcome
      if (now.getTime() - row.dispatchedAt.getTime() > timeoutMs) {
        outcome = {
          state: 'TIMEOUT',
          error: `${row.providerName} did not finish the deployment within ${durationOf(timeoutMs)}`,
        }
      } else if (!provider) {
        outcome = { state: 'ERROR', error: `The provider ${row.providerId} is not available on this server` }
      } else {
        outcome = await observe({ ...row, polls: poll + 1 }, provider)
      }
      const terminal = TERMINAL_STATES.includes(outcome.state)
      const after = clock.now()
      const nextPollAt = terminal ? null : new Date(after.getTime() + pollIntervalMs)
      await db.transaction(async (tx) => {
        const [updated] = await tx
          .update(deployments)
          .set({
            state: outcome.state,
            ...(outcome.providerDeploymentId === undefined
              ? {}
              : { providerDeploymentId: outcome.providerDeploymentId }),
            ...(outcome.url === undefined ? {} : { url: outcome.url }),
            ...(outcome.notFoundPolls === undefined ? {} : { notFoundPolls: outcome.notFoundPolls }),
            ...(outcome.error === undefined ? {} : { error: outcome.error }),
            nextPollAt,
            ...(terminal ? { finishedAt: after } : {}),
            updatedAt: after,
          })
          // Cancelled by a newer deploy while the provider was asked: that is the end of it.
          .where(
            and(
              eq(deployments.id, row.id),
              eq(deployments.polls, poll + 1),
              inArray(deployments.state, RUNNING),
            ),
          )
          .returning()
        if (!updated) return
        if (terminal) await ended(tx, updated, outcome.state, updated.url, updated.error)
        else await schedule(tx, updated.id, poll + 1, nextPollAt!)
      })
      log.info({ deploymentId, poll: poll + 1, state: outcome.state }, 'deployment poll')
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
