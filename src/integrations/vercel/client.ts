import type { VercelCore } from '@vercel/sdk/core.js'
import type { VercelError } from '@vercel/sdk/models/vercelerror.js'
import type { Result } from '@vercel/sdk/types/fp.js'
import { loadOnce } from '../../lib/load-once.ts'
import { requestFailure } from '../../lib/safe-http.ts'
import {
  type HostingProvider,
  PROVIDER_STATES,
  ProviderAuthError,
  type ProviderDeployment,
  type ProviderScope,
  ProviderUnavailableError,
} from '../hosting.ts'

export interface VercelProviderOptions {
  /** The REST API's base URL (`VERCEL_API_URL`). */
  serverUrl: string
  /** Cap on each request. */
  timeoutMs?: number
}

/** Vercel's states in SPEC.md's: a blocked or deleted deployment will not become READY. */
function stateOf(raw: string | undefined): ProviderDeployment['state'] {
  if (raw && (PROVIDER_STATES as readonly string[]).includes(raw)) return raw as ProviderDeployment['state']
  if (raw === 'BLOCKED' || raw === 'DELETED') return raw === 'DELETED' ? 'CANCELED' : 'ERROR'
  return 'QUEUED'
}

/** A team scope is a team id (`team_…`) or its slug: the API takes them as `teamId` and `slug`. */
const scopeOf = (teamScope: string | undefined) =>
  !teamScope ? {} : teamScope.startsWith('team_') ? { teamId: teamScope } : { slug: teamScope }

const https = (host: string | undefined | null) =>
  host ? (host.startsWith('http') ? host : `https://${host}`) : undefined

/** Vercel's error code (`{error:{code, message}}`) and message from an error answer, when it has them. */
function said(error: VercelError): { code: string | undefined; message: string | undefined } {
  try {
    const parsed = JSON.parse(error.body) as { error?: { code?: unknown; message?: unknown } }
    return {
      code: typeof parsed.error?.code === 'string' ? parsed.error.code : undefined,
      message: typeof parsed.error?.message === 'string' ? parsed.error.message.slice(0, 300) : undefined,
    }
  } catch {
    return { code: undefined, message: undefined }
  }
}

/** The SDK's core, the four functions used and the error classes a failure is told apart by. */
const vercelSdk = loadOnce(async () => {
  const [core, getDeployment, getDeployments, getTeams, getAuthUser, httpErrors, vercelError] =
    await Promise.all([
      import('@vercel/sdk/core.js'),
      import('@vercel/sdk/funcs/deploymentsGetDeployment.js'),
      import('@vercel/sdk/funcs/deploymentsGetDeployments.js'),
      import('@vercel/sdk/funcs/teamsGetTeams.js'),
      import('@vercel/sdk/funcs/userGetAuthUser.js'),
      import('@vercel/sdk/models/httpclienterrors.js'),
      import('@vercel/sdk/models/vercelerror.js'),
    ])
  return {
    VercelCore: core.VercelCore,
    deploymentsGetDeployment: getDeployment.deploymentsGetDeployment,
    deploymentsGetDeployments: getDeployments.deploymentsGetDeployments,
    teamsGetTeams: getTeams.teamsGetTeams,
    userGetAuthUser: getAuthUser.userGetAuthUser,
    HTTPClientError: httpErrors.HTTPClientError,
    RequestTimeoutError: httpErrors.RequestTimeoutError,
    VercelError: vercelError.VercelError,
  }
})

type VercelSdk = Awaited<ReturnType<typeof vercelSdk>>

/**
 * A failed call as the provider errors verification understands: a refused token (401, 403) is
 * ProviderAuthError; a 404 answers `null` when `notFound` allows it; anything else (5xx, 429, no answer,
 * an answer that is not the API's) is ProviderUnavailableError, naming the cause (the socket's error when
 * there was no answer: `getaddrinfo ENOTFOUND api.vercel.com`).
 */
function classify(
  error: unknown,
  { VercelError, RequestTimeoutError, HTTPClientError }: VercelSdk,
  notFound: boolean,
  timeoutMs: number,
): null {
  if (error instanceof VercelError && error.statusCode >= 400) {
    const { code, message } = said(error)
    if (error.statusCode === 401 || error.statusCode === 403) {
      throw new ProviderAuthError(message ?? `Vercel answered ${error.statusCode}`)
    }
    if (error.statusCode === 404 && notFound) return null
    throw new ProviderUnavailableError(
      `Vercel answered ${error.statusCode}${code ? ` (${code})` : ''}${message ? `: ${message}` : ''}`,
    )
  }
  if (error instanceof RequestTimeoutError) {
    throw new ProviderUnavailableError(`no answer from Vercel within ${timeoutMs} ms`)
  }
  if (error instanceof HTTPClientError) {
    throw new ProviderUnavailableError(`no connection to Vercel (${requestFailure(error).slice(0, 200)})`)
  }
  const reason = error instanceof Error ? error.message : String(error)
  throw new ProviderUnavailableError(`no usable answer from Vercel (${reason.slice(0, 200)})`)
}

/** The value of an SDK call, or its error thrown. */
async function answerOf<T>(result: Promise<Result<T, unknown>>): Promise<T> {
  const answered = await result
  if (!answered.ok) throw answered.error
  return answered.value
}

/** Clients kept for the tokens in use: a verification polls with one every few seconds. */
const CLIENTS_KEPT = 1000

/**
 * Vercel through its official SDK: the token's account and teams, and the deployments of a project, which
 * the website repository's workflow creates (the project is named after the repository). The SDK's core
 * and the four functions used, not its whole client, which keeps about 400 MB of schemas in memory.
 */
export function createVercelProvider({
  serverUrl,
  timeoutMs = 10_000,
}: VercelProviderOptions): HostingProvider {
  const clients = new Map<string, VercelCore>()
  const clientOf = (sdk: VercelSdk, token: string) => {
    let found = clients.get(token)
    if (!found) {
      if (clients.size >= CLIENTS_KEPT) clients.delete(clients.keys().next().value!)
      found = new sdk.VercelCore({
        bearerToken: token,
        serverURL: serverUrl,
        timeoutMs,
        retryConfig: { strategy: 'none' },
      })
      clients.set(token, found)
    }
    return found
  }

  return {
    id: 'vercel',
    name: 'Vercel',

    async account(token) {
      const sdk = await vercelSdk()
      try {
        const answer = await answerOf(sdk.userGetAuthUser(clientOf(sdk, token)))
        const user = answer?.user
        if (!user?.id) throw new ProviderUnavailableError('Vercel answered without the user')
        return { id: user.id, username: user.username }
      } catch (error) {
        if (error instanceof ProviderUnavailableError) throw error
        throw classify(error, sdk, false, timeoutMs)
      }
    },

    async teams(token) {
      const sdk = await vercelSdk()
      try {
        const { teams } = await answerOf(sdk.teamsGetTeams(clientOf(sdk, token), { limit: 100 }))
        return teams.flatMap((team) =>
          'slug' in team && typeof team.slug === 'string'
            ? [{ id: team.id, slug: team.slug, name: ('name' in team && team.name) || team.slug }]
            : [],
        )
      } catch (error) {
        throw classify(error, sdk, false, timeoutMs)
      }
    },

    async latestSince({ token, teamScope }: ProviderScope, project: string, since: number) {
      const sdk = await vercelSdk()
      try {
        // `since` is strict at the API: one millisecond earlier lets a deployment of the dispatch's instant in.
        const { deployments } = await answerOf(
          sdk.deploymentsGetDeployments(clientOf(sdk, token), {
            projectId: project,
            since: since - 1,
            limit: 20,
            ...scopeOf(teamScope),
          }),
        )
        const newest = deployments
          .filter((deployment) => deployment.created >= since)
          .sort((a, b) => b.created - a.created)[0]
        if (!newest) return null
        return {
          id: newest.uid,
          state: stateOf(newest.readyState ?? newest.state),
          url: https(newest.url),
          error: newest.errorMessage ?? undefined,
          createdAt: newest.created,
        }
      } catch (error) {
        return classify(error, sdk, true, timeoutMs)
      }
    },

    async deployment({ token, teamScope }: ProviderScope, id: string) {
      const sdk = await vercelSdk()
      try {
        const found = await answerOf(
          sdk.deploymentsGetDeployment(clientOf(sdk, token), { idOrUrl: id, ...scopeOf(teamScope) }),
        )
        const full = 'url' in found ? found : undefined
        const alias = 'alias' in found && Array.isArray(found.alias) ? found.alias[0] : undefined
        return {
          id: found.id,
          state: stateOf(found.readyState),
          url: https(alias ?? full?.url),
          error: full && 'errorMessage' in full ? (full.errorMessage ?? undefined) : undefined,
          createdAt: full && 'createdAt' in full ? Number(full.createdAt) : 0,
        }
      } catch (error) {
        return classify(error, sdk, true, timeoutMs)
      }
    },
  }
}
