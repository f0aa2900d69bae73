import { createGitHubClient, type GitHubClient } from '../../integrations/github/client.ts'
import { type HostingProvider, ProviderAuthError } from '../../integrations/hosting.ts'
import { badRequest, HttpError, notFound } from '../../lib/errors.ts'
import type { PluginService } from '../plugins/service.ts'
import { canEditAs, type WorkAccess, type WorkWithRole, workNotFound } from '../works/access.ts'

/** The git host every deployment goes through (CONTRACT.md: the `github` plugin). */
export const GIT_PLUGIN = 'github'
export const GIT_AUTH_KEY = `git-auth:${GIT_PLUGIN}`
/** The provider a work deploys to unless one of its plugins holds the `deploy` capability. */
export const DEFAULT_PROVIDER = 'vercel'

export interface DeployCredentialsDeps {
  access: Pick<WorkAccess, 'requireView'>
  plugins: Pick<PluginService, 'resolveForWork' | 'resolveForUser' | 'list'>
  providers: ReadonlyMap<string, HostingProvider>
  githubApiUrl: string
  /** Octokit's retry base (GITHUB_RETRY_BASE_MS). */
  githubRetryBaseMs: number
}

export const providerUnavailable = (provider: HostingProvider, error: unknown) =>
  new HttpError(
    502,
    'DEPLOY_PROVIDER_UNAVAILABLE',
    `${provider.name} could not be asked: ${error instanceof Error ? error.message : String(error)}`,
  )

/**
 * Whose credentials a deploy of a work uses and whether they work: who may deploy it, the owner's provider
 * and GitHub settings (work level, owner level, environment), and the read routes that check them before a
 * deploy (providers, configured, validate-token, teams, check).
 */
export function createDeployCredentials(deps: DeployCredentialsDeps) {
  const { access, plugins, providers } = deps

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

  const gitClient = (token: string): Promise<GitHubClient> =>
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

  return {
    deployable,
    providerFor,
    gitFor,
    gitClient,
    sharedNote,
    asking,

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
  }
}

export type DeployCredentials = ReturnType<typeof createDeployCredentials>
