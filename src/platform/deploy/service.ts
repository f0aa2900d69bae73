import { randomUUID } from 'node:crypto'
import { count, desc, eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import { gitHostStatus } from '../../integrations/github/client.ts'
import type { HostingProvider } from '../../integrations/hosting.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { badRequest, HttpError } from '../../lib/errors.ts'
import type { EventContext, PlatformEvents } from '../events.ts'
import type { NotificationService } from '../notifications/service.ts'
import type { WorkWithRole } from '../works/access.ts'
import { works } from '../works/tables.ts'
import { type DeployCredentials, GIT_AUTH_KEY, GIT_PLUGIN } from './credentials.ts'
import { createPipeline, PipelineError } from './pipeline.ts'
import { deployments } from './tables.ts'
import { type DeploymentRow, tokenContext, type Verification } from './verification.ts'

export interface DeployServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  envelope: Envelope
  events: PlatformEvents
  notifications: Pick<NotificationService, 'notifyGitAuthExpired' | 'clearByDeduplicationKey'>
  credentials: Pick<
    DeployCredentials,
    'deployable' | 'providerFor' | 'gitFor' | 'gitClient' | 'sharedNote' | 'asking'
  >
  verification: Verification
  templateRepository: string | undefined
  pollIntervalMs: number
  dispatchRetryDelayMs: number
}

export interface DeployBody {
  teamScope?: string | undefined
}

/** A deployment as lookup shows it. */
export function deploymentOf(row: DeploymentRow) {
  return {
    id: row.id,
    workId: row.workId,
    providerId: row.providerId,
    providerName: row.providerName,
    repository: row.repository,
    teamScope: row.teamScope,
    trigger: row.trigger,
    state: row.state,
    url: row.url,
    providerDeploymentId: row.providerDeploymentId,
    error: row.error,
    polls: row.polls,
    deployedBy: row.userId,
    dispatchedAt: row.dispatchedAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  }
}

/**
 * Deploying a work: its owner's credentials checked (credentials.ts), the pipeline against GitHub
 * (pipeline.ts), and the start of the verification (verification.ts) in the transaction that records the
 * deployment and its event; and the latest deployment of a work.
 */
export function createDeployService(deps: DeployServiceDeps) {
  const { db, clock, log, envelope, events, notifications, credentials, verification } = deps
  const { deployable, providerFor, gitFor, gitClient, sharedNote, asking } = credentials
  const pipeline = createPipeline({ clock, dispatchRetryDelayMs: deps.dispatchRetryDelayMs })

  /** Records a deploy that failed before its dispatch: a deployment in ERROR with its event, in one transaction. */
  async function recordFailure(
    work: WorkWithRole,
    userId: string,
    provider: HostingProvider,
    repository: string,
    teamScope: string | undefined,
    error: string,
    context: EventContext,
  ) {
    await db.transaction(async (tx) => {
      const now = clock.now()
      const [row] = await tx
        .insert(deployments)
        .values({
          workId: work.id,
          userId,
          ownerId: work.ownerId,
          providerId: provider.id,
          providerName: provider.name,
          repository,
          projectName: repository.split('/')[1] ?? `${work.slug}-website`,
          teamScope: teamScope ?? null,
          providerToken: '',
          trigger: 'none',
          state: 'ERROR',
          error,
          dispatchedAt: now,
          finishedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: deployments.id })
      await events.emit(
        {
          type: 'DeploymentFailed',
          userId,
          workId: work.id,
          workName: work.name,
          providerId: provider.id,
          providerName: provider.name,
          terminalState: 'ERROR',
          error,
          deploymentId: row!.id,
          context,
        },
        { tx },
      )
    })
  }

  async function deploy(userId: string, workId: string, body: DeployBody, context: EventContext) {
    const work = await deployable(workId, userId)
    const { provider, token, teamScope: configuredScope } = await providerFor(work)
    if (!token) {
      throw badRequest(
        `${provider.name} is not configured for this work${sharedNote(work)}: enable the ${provider.id} plugin with a token`,
        'DEPLOY_NOT_CONFIGURED',
      )
    }
    await asking(provider, work, () => provider.account(token))
    const git = await gitFor(work)
    if (!git.token) {
      throw badRequest(
        `GitHub is not configured for this work${sharedNote(work)}: enable the ${GIT_PLUGIN} plugin with a token`,
        'GIT_HOST_NOT_CONFIGURED',
      )
    }
    const teamScope = body.teamScope ?? configuredScope
    const client = await gitClient(git.token)
    let login: string
    try {
      login = (await client.rest.users.getAuthenticated()).data.login
    } catch (error) {
      const status = gitHostStatus(error)
      if (status === 401) {
        await notifications.notifyGitAuthExpired(work.ownerId, { provider: GIT_PLUGIN })
        throw badRequest(
          `GitHub rejected the token${sharedNote(work)}: reconnect GitHub with a token that has the repo and workflow scopes`,
          'GIT_TOKEN_REJECTED',
        )
      }
      throw new HttpError(
        502,
        'DEPLOY_STEP_FAILED',
        `GitHub could not be asked who the token belongs to: ${status ? `it answered ${status}` : 'no answer'}`,
      )
    }
    // The token works again: an earlier "access expired" notice is resolved.
    await notifications.clearByDeduplicationKey(work.ownerId, GIT_AUTH_KEY)
    const owner = git.owner ?? login
    let result: Awaited<ReturnType<typeof pipeline>>
    try {
      result = await pipeline({
        work,
        provider: { id: provider.id, name: provider.name, token, teamScope },
        git: { client, token: git.token, owner },
        templateRepository: deps.templateRepository,
      })
    } catch (error) {
      if (!(error instanceof PipelineError)) throw error
      if (error.authFailed) await notifications.notifyGitAuthExpired(work.ownerId, { provider: GIT_PLUGIN })
      await recordFailure(
        work,
        userId,
        provider,
        `${owner}/${work.slug}-website`,
        teamScope,
        error.message,
        context,
      )
      log.warn({ workId, step: error.step, status: error.status }, 'deploy pipeline failed')
      const status = error.status !== undefined && error.status < 500 ? 400 : 502
      throw new HttpError(
        status,
        error.authFailed ? 'GIT_TOKEN_REJECTED' : 'DEPLOY_STEP_FAILED',
        error.message,
      )
    }

    const row = await db.transaction(async (tx) => {
      // Deploys of one work take turns on its row, so the earlier verification ends here and only this one
      // runs after.
      await tx.select({ id: works.id }).from(works).where(eq(works.id, work.id)).for('update')
      await verification.cancelRunning(tx, work.id, 'A newer deployment of the work replaced it')
      const now = clock.now()
      const id = randomUUID()
      const [inserted] = await tx
        .insert(deployments)
        .values({
          id,
          workId: work.id,
          userId,
          ownerId: work.ownerId,
          providerId: provider.id,
          providerName: provider.name,
          repository: result.repository,
          projectName: result.repository.split('/')[1]!,
          teamScope: teamScope ?? null,
          // Sealed under the deployment's id: the copy opens for this deployment's polls only.
          providerToken: envelope.seal(token, tokenContext(id)),
          trigger: result.trigger,
          state: 'INITIALIZING',
          dispatchedAt: result.dispatchedAt,
          nextPollAt: new Date(now.getTime() + deps.pollIntervalMs),
          createdAt: now,
          updatedAt: now,
        })
        .returning()
      await events.emit(
        {
          type: 'DeploymentDispatched',
          userId,
          workId: work.id,
          workName: work.name,
          providerId: provider.id,
          providerName: provider.name,
          deploymentId: id,
          context,
        },
        { tx },
      )
      await verification.start(tx, inserted!)
      return inserted!
    })
    const how = result.trigger === 'push' ? 'the push of a trigger commit' : `the ${result.trigger} workflow`
    return {
      status: 'pending' as const,
      slug: work.slug,
      owner: result.owner,
      repository: result.repository,
      message: `Deploying "${work.name}" to ${provider.name} through ${how} of ${result.repository}${result.created ? ' (created from the template)' : ''}`,
      deploymentId: row.id,
    }
  }

  return {
    deploy,

    async lookup(userId: string, workId: string) {
      const work = await deployable(workId, userId)
      const [row] = await db
        .select()
        .from(deployments)
        .where(eq(deployments.workId, work.id))
        .orderBy(desc(deployments.createdAt))
        .limit(1)
      return { status: 'success' as const, deployment: row ? deploymentOf(row) : null }
    },

    /** A page of the work's deployments, whoever deployed them, newest first, and how many there are. */
    async history(userId: string, workId: string, page: { limit: number; offset: number }) {
      const work = await deployable(workId, userId)
      const rows = await db
        .select()
        .from(deployments)
        .where(eq(deployments.workId, work.id))
        .orderBy(desc(deployments.createdAt), desc(deployments.id))
        .limit(page.limit)
        .offset(page.offset)
      const [counted] = await db
        .select({ total: count() })
        .from(deployments)
        .where(eq(deployments.workId, work.id))
      return { status: 'success' as const, deployments: rows.map(deploymentOf), total: counted?.total ?? 0 }
    },
  }
}

export type DeployService = ReturnType<typeof createDeployService>
