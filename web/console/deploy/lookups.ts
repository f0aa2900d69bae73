/**
 * Following deployments live: a work's latest deployment, read again while its verification runs and no
 * longer once it is final (or while the tab is hidden).
 */
import { unwrap } from '../../shared/api.ts'
import { usePolling } from '../../shared/poll.ts'
import { useResource } from '../../shared/resource.ts'
import { api } from '../api.ts'
import { type Deployment, isFinal } from './state.tsx'

/** How often a running deployment is read again. */
export const POLL_MS = 2000

const lookup = (workId: string, signal: AbortSignal) =>
  unwrap(api.POST('/api/deploy/works/{id}/lookup', { signal, params: { path: { id: workId } } }))

const running = (deployment: Deployment | null | undefined) =>
  deployment !== null && deployment !== undefined && !isFinal(deployment.state)

/** One work's latest deployment, followed while it runs. */
export function useLatestDeployment(workId: string) {
  const latest = useResource((signal) => lookup(workId, signal), [workId])
  usePolling(latest.reload, POLL_MS, running(latest.data?.deployment))
  return latest
}

/** A work's latest deployment, or why it could not be read. */
export type Lookup = { deployment: Deployment | null } | { error: unknown }

/**
 * The latest deployment of each of several works, followed while any runs. There is one lookup per work,
 * so the pace slows with their number (a second per work) to stay well within the API's rate limit.
 */
export function useLatestDeployments(workIds: readonly string[]) {
  const key = workIds.join(',')
  const lookups = useResource(
    async (signal) => {
      const settled = await Promise.allSettled(workIds.map((id) => lookup(id, signal)))
      return new Map<string, Lookup>(
        settled.map((outcome, index) => [
          workIds[index] ?? '',
          outcome.status === 'fulfilled'
            ? { deployment: outcome.value.deployment }
            : { error: outcome.reason },
        ]),
      )
    },
    [key],
  )
  const anyRunning = [...(lookups.data?.values() ?? [])].some(
    (found) => 'deployment' in found && running(found.deployment),
  )
  usePolling(lookups.reload, Math.max(POLL_MS, workIds.length * 1000), anyRunning)
  return lookups
}
