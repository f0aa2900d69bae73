/**
 * The work's deployments, newest first, whoever deployed them (`GET /api/deploy/works/:id/deployments`):
 * when each started, who deployed it, how it ended, and its site or its error. The page is in the address
 * (`?page=2`).
 */
import { unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { PagedTable } from '../../shared/paged-table.tsx'
import { type Resource, useResource } from '../../shared/resource.ts'
import type { Column } from '../../shared/table.tsx'
import { formatDate } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { useUser } from '../session.tsx'
import { SiteLink } from './latest.tsx'
import { isFinal, StateBadge } from './state.tsx'

const PAGE_SIZE = 10

type HistoryPage = Answer<'/api/deploy/works/{id}/deployments'>
type Deployment = HistoryPage['deployments'][number]

export function useDeploymentHistory(workId: string) {
  const list = useList()
  const history = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/deploy/works/{id}/deployments', {
          signal,
          params: {
            path: { id: workId },
            query: { limit: PAGE_SIZE, offset: (list.page - 1) * PAGE_SIZE },
          },
        }),
      ),
    [workId, list.page],
  )
  // Who deployed: the work's members by id (the owner and editors are the ones who can).
  const members = useResource(
    (signal) => unwrap(api.GET('/api/works/{id}/members', { signal, params: { path: { id: workId } } })),
    [workId],
  )
  const emails = new Map((members.data?.members ?? []).map((member) => [member.userId, member.email]))
  return { history, emails, page: list.page, setPage: list.setPage }
}

export function DeploymentHistory({
  history,
  emails,
  page,
  setPage,
}: {
  history: Resource<HistoryPage>
  emails: ReadonlyMap<string, string>
  page: number
  setPage: (page: number) => void
}) {
  const user = useUser()
  const columns: Column<Deployment>[] = [
    { header: 'Started', cell: (deployment) => formatDate(deployment.createdAt, true) },
    {
      header: 'By',
      cell: (deployment) =>
        deployment.deployedBy === user.id ? 'You' : (emails.get(deployment.deployedBy) ?? 'A former member'),
    },
    { header: 'Result', cell: (deployment) => <StateBadge state={deployment.state} /> },
    {
      header: 'Site or error',
      cell: (deployment) =>
        deployment.state === 'READY' && deployment.url ? (
          <SiteLink url={deployment.url} />
        ) : (
          (deployment.error ?? (isFinal(deployment.state) ? '—' : 'In progress'))
        ),
    },
    {
      header: 'Finished',
      secondary: true,
      cell: (deployment) => (deployment.finishedAt ? formatDate(deployment.finishedAt, true) : '—'),
    },
  ]
  const total = history.data?.total
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">Deployments of this work</h3>
      <PagedTable
        caption="Deployments of this work, newest first"
        columns={columns}
        rows={history.data?.deployments}
        rowKey={(deployment) => deployment.id}
        busy={history.loading}
        empty="No deployments yet."
        error={history.error}
        meta={total === undefined ? undefined : { total, totalPages: Math.ceil(total / PAGE_SIZE) }}
        page={page}
        onPage={setPage}
      />
    </section>
  )
}
