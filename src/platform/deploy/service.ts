import { randomUUID } from 'node:crypto'
import { setTimeout as delay } from 'node:timers/promises'
import { desc, eq } from 'drizzle-orm'
import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import { createGitHubClient, type GitHubClient, gitHostStatus } from '../../integrations/github/client.ts'
import { type HostingProvider, ProviderAuthError } from '../../integrations/hosting.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { badRequest, HttpError, invalidInput, notFound } from '../../lib/errors.ts'
import type { EventContext, PlatformEvents } from '../events.ts'
import type { NotificationService } from '../notifications/service.ts'
import type { PluginService } from '../plugins/service.ts'
import { canEditAs, type WorkAccess, type WorkWithRole, workNotFound } from '../works/access.ts'
import { works } from '../works/tables.ts'
import { createPipeline, PipelineError } from './pipeline.ts'
import { deployments } from './tables.ts'
import { type DeploymentRow, tokenContext, type Verification } from './verification.ts'

/** The git host every deployment goes through (CONTRACT.md: the `github` plugin). */
export const GIT_PLUGIN = 'github'
export const GIT_AUTH_KEY = `git-auth:${GIT_PLUGIN}`
/** The provider a work deploys to unless one of its plugins holds the `deploy` capability. */
export const DEFAULT_PROVIDER = 'vercel'
export const BATCH_MAX_WORKS = 100

export interface DeployServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  envelope: Envelope
  events: PlatformEvents
  access: Pick<WorkAccess, 'requireView'>
  plugins: Pick<PluginService, 'resolveForWork' | 'resolveForUser' | 'list'>
  notifications: Pick<NotificationService, 'notifyGitAuthExpired' | 'clearByDeduplicationKey'>
  providers: ReadonlyMap<string, HostingProvider>
  verification: Verification
  githubApiUrl: string
  /** Octokit's retry base (GITHUB_RETRY_BASE_MS). */
  githubRetryBaseMs: number
  templateRepository: string | undefined
  pollIntervalMs: number
  dispatchRetryDelayMs: number
  batchConcurrency: number
  batchDelayMs: number
}

export interface DeployBody {
  teamScope?: string | undefined
}

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

const providerUnavailable = (provider: HostingProvider, error: unknown) =>
  new HttpError(
    502,
    'DEPLOY_PROVIDER_UNAVAILABLE',
    `${provider.name} could not be asked: ${error instanceof Error ? error.message : String(error)}`,
  )

/**
 * Deploying works: the capability checks, the pipeline against GitHub (pipeline.ts) with the owner's
 * credentials, and the start of the verification (verification.ts) in the transaction that records the
 * deployment and its event.
 */
export function createDeployService(deps: DeployServiceDeps) {
  const { db, clock, log, envelope, events, access, plugins, notifications, providers, verification } = deps
  const pipeline = createPipeline({ clock, dispatchRetryDelayMs: deps.dispatchRetryDelayMs })

  /** The work when the caller may deploy it (owner or editor); any other caller gets 404. */
  async function deployable(workId: string, userId: string): Promise<WorkWithRole> {
    const work = await access.requireView(workId, userId).catch(() => undefined)
    if (!work || !canEditAs(work.role)) throw workNotFound()
    return work
  }

  function providerOf(providerId: string): HostingProvider {
    const provider = providers.get(providerId)
    if (!provider)
      throw notFound(
        `No deployment provider has the id "${providerId.slice(0, 64)}"`,
        'DEPLOY_PROVIDER_NOT_FOUND',
      )
    return provider
  }

  /** The owner's provider credentials for the work (work level, owner level, environment). */
  async function providerFor(work: WorkWithRole) {
    const provider = providerOf(DEFAULT_PROVIDER)
    const resolved = await plugins.resolveForWork(work, provider.id)
    const token = resolved.settings.token
    return {
      provider,
      token: typeof token === 'string' && token ? token : undefined,
      teamScope: typeof resolved.settings.teamScope === 'string' ? resolved.settings.teamScope : undefined,
    }
  }

  async function gitFor(work: WorkWithRole) {
    const resolved = await plugins.resolveForWork(work, GIT_PLUGIN)
    const token = resolved.settings.token
    return {
      token: typeof token === 'string' && token ? token : undefined,
      owner:
        typeof resolved.settings.owner === 'string' && resolved.settings.owner
          ? resolved.settings.owner
          : undefined,
    }
  }

  const gitClient = (token: string): GitHubClient =>
    createGitHubClient({
      baseUrl: deps.githubApiUrl,
      token,
      userAgent: 'curio-platform',
      retry: { retries: 3, baseMs: deps.githubRetryBaseMs },
    })

  const sharedNote = (work: WorkWithRole) =>
    work.role === 'owner' ? '' : ' (a shared work deploys with its owner’s)'

  /** A provider call with the work's token: a rejected token is 400, no usable answer 502. */
  async function asking<T>(
    provider: HostingProvider,
    work: WorkWithRole,
    call: () => Promise<T>,
  ): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (error instanceof ProviderAuthError) {
        throw badRequest(
          `${provider.name} rejected the token${sharedNote(work)}: ${error.message}`,
          'DEPLOY_TOKEN_INVALID',
        )
      }
      throw providerUnavailable(provider, error)
    }
  }

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
    const client = gitClient(git.token)
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

    async providers(userId: string) {
      const entries = await plugins.list(userId, 'deployment')
      return {
        status: 'success' as const,
        providers: entries
          .filter((entry) => providers.has(entry.id))
          .map((entry) => ({ id: entry.id, name: entry.name, enabled: entry.enabled })),
      }
    },

    async configured(userId: string, providerId: string) {
      const provider = providerOf(providerId)
      const resolved = await plugins.resolveForUser(userId, provider.id)
      return {
        status: 'success' as const,
        providerId: provider.id,
        name: provider.name,
        available: true,
        enabled: resolved.enabled,
        configured: resolved.configured,
      }
    },

    async validateToken(userId: string) {
      const provider = providerOf(DEFAULT_PROVIDER)
      const resolved = await plugins.resolveForUser(userId, provider.id)
      const token = resolved.settings.token
      if (typeof token !== 'string' || !token) {
        return {
          status: 'success' as const,
          valid: false,
          providerId: provider.id,
          account: null,
          message: `No ${provider.name} token is configured: enable the ${provider.id} plugin with one`,
        }
      }
      try {
        const account = await provider.account(token)
        return {
          status: 'success' as const,
          valid: true,
          providerId: provider.id,
          account: { id: account.id, username: account.username },
          message: `The ${provider.name} token belongs to ${account.username}`,
        }
      } catch (error) {
        if (!(error instanceof ProviderAuthError)) throw providerUnavailable(provider, error)
        return {
          status: 'success' as const,
          valid: false,
          providerId: provider.id,
          account: null,
          message: `${provider.name} rejected the token: ${error.message}`,
        }
      }
    },

    async teams(userId: string, workId: string) {
      const work = await deployable(workId, userId)
      const { provider, token } = await providerFor(work)
      if (!token) {
        throw badRequest(
          `${provider.name} is not configured for this work${sharedNote(work)}`,
          'DEPLOY_NOT_CONFIGURED',
        )
      }
      const teams = await asking(provider, work, () => provider.teams(token))
      return { status: 'success' as const, providerId: provider.id, teams }
    },

    async check(userId: string, workId: string) {
      const work = await deployable(workId, userId)
      const provider = providerOf(DEFAULT_PROVIDER)
      const [owner, own, git] = await Promise.all([
        providerFor(work),
        plugins.resolveForUser(userId, provider.id),
        gitFor(work),
      ])
      const ownerHasToken = owner.token !== undefined
      return {
        status: 'success' as const,
        canDeploy: ownerHasToken && git.token !== undefined,
        isShared: work.role !== 'owner',
        ownerHasToken,
        userHasToken: typeof own.settings.token === 'string' && own.settings.token !== '',
      }
    },

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

    /**
     * Deploys each work, `batchConcurrency` at a time, a group starting `batchDelayMs` after the previous
     * one started (and once it ended), as SPEC.md's 2 s between groups; answers each one's outcome.
     */
    async batch(userId: string, body: BatchBody, context: EventContext) {
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
      for (let start = 0; start < body.works.length; start += deps.batchConcurrency) {
        // Groups start batchDelayMs apart, and never before the previous one ended: at most
        // batchConcurrency deploys at once.
        if (start > 0) await delay(Math.max(0, groupStarted + deps.batchDelayMs - Date.now()))
        groupStarted = Date.now()
        const group = body.works.slice(start, start + deps.batchConcurrency)
        const settled = await Promise.allSettled(
          group.map((item) =>
            deploy(userId, item.workId, { teamScope: item.teamScope ?? body.teamScope }, context),
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
    },
  }

  /** The slug of a work the caller may see, for a batch result; null for one they may not. */
  async function slugOf(userId: string, workId: string): Promise<string | null> {
    const work = await access.requireView(workId, userId).catch(() => undefined)
    return work?.slug ?? null
  }
}

export type DeployService = ReturnType<typeof createDeployService>
