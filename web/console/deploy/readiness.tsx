/**
 * Whether a work can be deployed, in words: the API's capability check, and when it says no, what is
 * missing (the hosting provider's token, the Git host's token) and where to set it. A shared work deploys
 * with its owner's credentials, so its editor is told to ask the owner instead.
 */
import { messageOf, unwrap } from '../../shared/api.ts'
import type { Resource } from '../../shared/resource.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Loading, Notice } from '../../shared/ui.tsx'
import { type Answer, api, type Work } from '../api.ts'

/** The Git host every deployment goes through (CONTRACT.md: the `github` plugin). */
const GIT_PLUGIN = { id: 'github', name: 'GitHub' }

export type CapabilityCheck = Answer<'/api/deploy/works/{id}/check', 'post'>

/** One thing missing before the work can be deployed, and where to fix it. */
interface Problem {
  title: string
  text: string
  link?: { href: string; label: string }
}

export interface Readiness {
  check: CapabilityCheck
  /** The hosting provider the work deploys to, by name (`Vercel`). */
  providerName: string
  problems: Problem[]
}

const noHost = (provider: { id: string; name: string }, enabled: boolean): Problem => ({
  title: 'No hosting provider',
  text: enabled
    ? `the ${provider.name} plugin has no token: set one under`
    : `enable the ${provider.name} plugin with a token under`,
  link: { href: `/plugins/${provider.id}`, label: `Plugins › ${provider.name}` },
})

const noGitHost = (enabled: boolean): Problem => ({
  title: 'No Git host',
  text: enabled
    ? `the ${GIT_PLUGIN.name} plugin has no token: set one under`
    : `enable the ${GIT_PLUGIN.name} plugin with a token under`,
  link: { href: `/plugins/${GIT_PLUGIN.id}`, label: `Plugins › ${GIT_PLUGIN.name}` },
})

async function readinessOf(work: Work, signal: AbortSignal): Promise<Readiness> {
  const [check, list] = await Promise.all([
    unwrap(api.POST('/api/deploy/works/{id}/check', { signal, params: { path: { id: work.id } } })),
    unwrap(api.GET('/api/deploy/providers', { signal })),
  ])
  const provider = list.providers.find((candidate) => candidate.enabled) ??
    list.providers[0] ?? { id: 'vercel', name: 'Vercel', enabled: false }
  const ready = { check, providerName: provider.name }
  if (check.canDeploy) return { ...ready, problems: [] }

  if (check.isShared) {
    // The owner's settings are theirs: an editor can only say what to ask for.
    const missing = check.ownerHasToken ? GIT_PLUGIN.name : provider.name
    return {
      ...ready,
      problems: [
        {
          title: check.ownerHasToken ? 'No Git host' : 'No hosting provider',
          text: `this work deploys with its owner’s credentials, and the owner has no ${missing} token set. Ask the owner to enable the ${missing} plugin with a token.`,
        },
      ],
    }
  }

  const [configured, git] = await Promise.all([
    unwrap(
      api.GET('/api/deploy/providers/{providerId}/configured', {
        signal,
        params: { path: { providerId: provider.id } },
      }),
    ),
    unwrap(api.GET('/api/plugins/{pluginId}', { signal, params: { path: { pluginId: GIT_PLUGIN.id } } })),
  ])
  const problems: Problem[] = []
  if (!check.ownerHasToken) problems.push(noHost(provider, configured.enabled))
  // With the provider's token set, the check says no only for want of the Git host's.
  if (check.ownerHasToken || !git.configured) problems.push(noGitHost(git.enabled))
  if (problems.length === 0) {
    problems.push({
      title: 'Not set up for this work',
      text: 'the work’s own plugin settings leave it without a token: check them under',
      link: { href: `/works/${work.id}/plugins`, label: 'the work’s Plugins tab' },
    })
  }
  return { ...ready, problems }
}

export function useReadiness(work: Work): Resource<Readiness> {
  return useResource((signal) => readinessOf(work, signal), [work.id])
}

export function ReadinessNotice({ readiness }: { readiness: Resource<Readiness> }) {
  if (readiness.error !== undefined && !readiness.data)
    return (
      <Notice kind="error">
        Whether the work can be deployed could not be checked: {messageOf(readiness.error)}
      </Notice>
    )
  if (!readiness.data) return <Loading what="Checking whether the work can be deployed" />
  const { check, providerName, problems } = readiness.data
  if (check.canDeploy)
    return (
      <Notice kind="success">
        Ready to deploy: {providerName} and {GIT_PLUGIN.name} are set up
        {check.isShared ? ' by the owner, whose credentials a shared work deploys with' : ''}.
      </Notice>
    )
  return (
    <Notice>
      <p class="notice-title">
        <strong>This work cannot be deployed yet.</strong>
      </p>
      <ul class="deploy-problems">
        {problems.map((problem) => (
          <li key={problem.title}>
            <strong>{problem.title}</strong>: {problem.text}
            {problem.link && (
              <>
                {' '}
                <Link href={problem.link.href}>{problem.link.label}</Link>.
              </>
            )}
          </li>
        ))}
      </ul>
    </Notice>
  )
}
