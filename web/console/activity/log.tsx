/**
 * The activity log: what the user did and what ran for them, newest first, narrowed by action, status,
 * work, dates and a search, a page at a time, each entry's details in a dialog, and the same filters as a
 * CSV file. While anything runs, the list asks again every few seconds. The global Activity screen and a
 * work's Activity tab (its work fixed) both show it.
 */
import { useRef } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { PagedTable } from '../../shared/paged-table.tsx'
import { usePolling } from '../../shared/poll.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, Notice, SearchBox, Select, TextField, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { EntryDialog } from './details.tsx'
import { downloadActivityCsv } from './export.ts'
import {
  ACTION_OPTIONS,
  type ActivityEntry,
  ActivityStatusBadge,
  actionLabel,
  STATUS_OPTIONS,
} from './labels.tsx'
import { PAGE_SIZE, useActivityQuery } from './query.ts'
import './activity.css'

/** How often the list is asked again while something runs. */
const LIVE_MS = 5000

export function ActivityLog({
  workId,
  fileName,
  onRefresh,
}: {
  /** The work whose entries these are; without it, every entry of the user. */
  workId?: string
  /** The CSV file's name. */
  fileName: string
  /** Also asked again whenever the list is (figures beside it). */
  onRefresh?: () => Promise<unknown>
}) {
  const view = useActivityQuery(workId)
  const { filters, page, setFilter, setQuery } = view
  const toast = useToast()
  const key = JSON.stringify(filters)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/activity-log', {
          signal,
          params: { query: { ...filters, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE } },
        }),
      ),
    [key, page],
  )
  const running = useResource((signal) => unwrap(api.GET('/api/activity-log/running-count', { signal })), [])
  // The works, for the Work filter and to name each entry's work (a work's own tab needs neither).
  const works = useResource(
    (signal) => (workId ? Promise.resolve(undefined) : unwrap(api.GET('/api/works', { signal }))),
    [workId],
  )
  const workNames = new Map(works.data?.works.map((work) => [work.id, work.name]))
  const runs = running.data?.count ?? 0

  // A reload the poll makes does not dim the table: only what the user asked for shows as loading.
  const polling = useRef(false)
  usePolling(
    async () => {
      polling.current = true
      try {
        // The count first: once it says nothing runs, the list read after it shows how the runs ended.
        await running.reload()
        await Promise.all([list.reload(), onRefresh?.()])
      } finally {
        polling.current = false
      }
    },
    LIVE_MS,
    runs > 0,
  )

  const queryErrors = list.error instanceof ApiError ? list.error.fieldErrors() : {}
  const columns: Column<ActivityEntry>[] = [
    {
      header: 'What happened',
      cell: (entry) => (
        <>
          <div class="activity-summary">{entry.summary}</div>
          <div class="muted small">
            {actionLabel(entry.actionType)} ·{' '}
            <time dateTime={entry.createdAt}>{formatDate(entry.createdAt, true)}</time>
          </div>
        </>
      ),
    },
  ]
  if (!workId) {
    columns.push({
      header: 'Work',
      secondary: true,
      cell: (entry) =>
        entry.workId ? (
          <Link href={`/works/${entry.workId}/activity`}>
            {workNames.get(entry.workId) ?? 'Open the work'}
          </Link>
        ) : (
          '—'
        ),
    })
  }
  columns.push(
    { header: 'Status', cell: (entry) => <ActivityStatusBadge status={entry.status} /> },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (entry) => (
        <RowButton action="Details" name={entry.summary} onClick={() => view.openEntry(entry.id)} />
      ),
    },
  )

  return (
    <>
      {runs > 0 && (
        <Notice>
          {runs === 1 ? '1 activity is running' : `${runs} activities are running`}: this list updates by
          itself.
        </Notice>
      )}
      <div class="toolbar">
        <SearchBox value={view.search} placeholder="Summary or work name" onSearch={view.setSearch} />
        <Select
          label="Action"
          value={filters.actionType ?? ''}
          options={ACTION_OPTIONS}
          onValue={(value) => setFilter('actionType', value)}
        />
        <Select
          label="Status"
          value={filters.status ?? ''}
          options={STATUS_OPTIONS}
          onValue={(value) => setFilter('status', value)}
        />
        {!workId && (
          <Select
            label="Work"
            value={filters.workId ?? ''}
            options={[
              { value: '', label: 'Any work' },
              ...(works.data?.works ?? []).map((work) => ({ value: work.id, label: work.name })),
            ]}
            onValue={(value) => setFilter('workId', value)}
            error={queryErrors.workId}
          />
        )}
        <TextField
          label="From"
          type="date"
          value={filters.dateFrom ?? ''}
          max={filters.dateTo || undefined}
          error={queryErrors.dateFrom}
          onValue={(value) => setFilter('dateFrom', value)}
        />
        <TextField
          label="To"
          type="date"
          value={filters.dateTo ?? ''}
          min={filters.dateFrom || undefined}
          error={queryErrors.dateTo}
          onValue={(value) => setFilter('dateTo', value)}
        />
        <div class="actions activity-actions">
          <Button
            onClick={() => downloadActivityCsv(filters, fileName).catch(toast.failed)}
            disabled={list.data?.total === 0}
          >
            Export CSV
          </Button>
          {view.filtered && (
            <Button
              kind="link"
              onClick={() =>
                setQuery({
                  actionType: '',
                  status: '',
                  workId: '',
                  dateFrom: '',
                  dateTo: '',
                  search: '',
                  page: '',
                })
              }
            >
              Clear filters
            </Button>
          )}
        </div>
      </div>
      <PagedTable
        caption={workId ? 'Activity of this work' : 'Your activity'}
        columns={columns}
        rows={list.data?.activities}
        rowKey={(entry) => entry.id}
        busy={list.loading && !polling.current}
        empty={
          view.filtered
            ? 'No activity matches these filters.'
            : workId
              ? 'Nothing has happened in this work yet.'
              : 'No activity yet: what you do and what runs for you (generations, deployments) is listed here.'
        }
        error={list.error}
        meta={list.data && { total: list.data.total, totalPages: Math.ceil(list.data.total / PAGE_SIZE) }}
        page={page}
        onPage={view.setPage}
      />
      <EntryDialog id={view.entry} onClose={() => view.openEntry(undefined)} />
    </>
  )
}
