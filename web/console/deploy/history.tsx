/**
 * The user's past deployments of a work, newest first, from their activity log (`actionType=deployment`):
 * when each started, how it ended, and its site or its error. The page is in the address (`?page=2`).
 */
import { unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { PagedTable } from '../../shared/paged-table.tsx'
import { type Resource, useResource } from '../../shared/resource.ts'
import type { Column } from '../../shared/table.tsx'
import { formatDate } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { SiteLink } from './latest.tsx'
import { type DeploymentState, StateBadge } from './state.tsx'

const PAGE_SIZE = 10

type ActivityPage = Answer<'/api/activity-log'>
type Entry = ActivityPage['activities'][number]

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined)

/** Where the deployment ended, as a verification state; undefined while it runs. */
function endOf(entry: Entry): DeploymentState | undefined {
  if (entry.status === 'completed') return 'READY'
  if (entry.status === 'cancelled') return 'CANCELED'
  if (entry.status === 'failed') {
    const state = text(entry.details.terminalState)
    return state === 'TIMEOUT' || state === 'CANCELED' ? state : 'ERROR'
  }
  return undefined
}

export function useDeploymentHistory(workId: string) {
  const list = useList()
  const history = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/activity-log', {
          signal,
          params: {
            query: {
              workId,
              actionType: 'deployment',
              limit: PAGE_SIZE,
              offset: (list.page - 1) * PAGE_SIZE,
            },
          },
        }),
      ),
    [workId, list.page],
  )
  return { history, page: list.page, setPage: list.setPage }
}

const columns: Column<Entry>[] = [
  { header: 'Started', cell: (entry) => formatDate(entry.createdAt, true) },
  {
    header: 'Result',
    cell: (entry) => {
      const end = endOf(entry)
      return end ? <StateBadge state={end} /> : <span class="status status-running">In progress</span>
    },
  },
  {
    header: 'Site or error',
    cell: (entry) => {
      const url = text(entry.details.url)
      if (url) return <SiteLink url={url} />
      return text(entry.details.error) ?? entry.summary
    },
  },
  {
    header: 'Finished',
    secondary: true,
    cell: (entry) => (endOf(entry) ? formatDate(entry.updatedAt, true) : '—'),
  },
]

export function DeploymentHistory({
  history,
  page,
  setPage,
}: {
  history: Resource<ActivityPage>
  page: number
  setPage: (page: number) => void
}) {
  const total = history.data?.total
  return (
    <section aria-labelledby="history-title">
      <h3 id="history-title">Your deployments of this work</h3>
      <PagedTable
        caption="Your deployments of this work, newest first"
        columns={columns}
        rows={history.data?.activities}
        rowKey={(entry) => entry.id}
        busy={history.loading}
        empty="You have not deployed this work yet."
        error={history.error}
        meta={total === undefined ? undefined : { total, totalPages: Math.ceil(total / PAGE_SIZE) }}
        page={page}
        onPage={setPage}
      />
    </section>
  )
}
