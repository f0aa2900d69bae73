/**
 * The filters of the reports list, all kept in the query string: the status tabs, the search, and the
 * content type and reason selects, each with its count from the figures once they are in.
 */
import type { ListState } from '../../shared/list.ts'
import { SearchBox, Select, Tabs } from '../../shared/ui.tsx'
import type { Answer } from '../api.ts'
import {
  isStatus,
  REASON_LABELS,
  type Reason,
  STATUS_LABELS,
  STATUSES,
  TYPE_LABELS,
} from './reports-labels.tsx'

type Counts = Answer<'/api/admin/reports/stats'>['data']

/** The status, content type and reason the address asks for, as typed there. */
export function reportFilters(query: URLSearchParams) {
  return {
    status: query.get('status'),
    contentType: query.get('contentType') ?? '',
    reason: query.get('reason') ?? '',
  }
}

/** The status tabs (a new history entry each) and the toolbar's search and selects, from page 1. */
export function ReportFilters({
  list: { query, setQuery, search, setSearch, setFilter },
  counts,
}: {
  list: ListState<''>
  counts: Counts | undefined
}) {
  const { status, contentType, reason } = reportFilters(query)

  const tabs = [
    { value: '', label: 'All', count: counts?.total },
    ...STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s], count: counts?.byStatus[s] })),
  ]

  return (
    <>
      <Tabs
        label="Status"
        tabs={tabs}
        current={isStatus(status) ? status : ''}
        onSelect={(value) => setQuery({ status: value, page: undefined }, { push: true })}
      />
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} placeholder="Content id, details, reporter" />
        <Select
          label="Content type"
          value={contentType}
          onValue={(value) => setFilter('contentType', value)}
          options={[
            { value: '', label: 'Any content' },
            ...(['item', 'comment'] as const).map((t) => ({
              value: t,
              label: `${TYPE_LABELS[t]}s${counts ? ` (${counts.byContentType[t]})` : ''}`,
            })),
          ]}
        />
        <Select
          label="Reason"
          value={reason}
          onValue={(value) => setFilter('reason', value)}
          options={[
            { value: '', label: 'Any reason' },
            ...(Object.keys(REASON_LABELS) as Reason[]).map((r) => ({
              value: r,
              label: `${REASON_LABELS[r]}${counts ? ` (${counts.byReason[r]})` : ''}`,
            })),
          ]}
        />
      </div>
    </>
  )
}
