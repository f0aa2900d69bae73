/**
 * Reports: the figures, the status tabs, content type and reason filters and search in the query
 * string, paging on the server, and a review button per report that opens its review dialog
 * (`reports-review.tsx`), where it is resolved (running a moderation action), dismissed, marked
 * reviewed or reopened (`reports-review-form.tsx`).
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { ReportFilters, reportFilters } from './reports-filters.tsx'
import {
  isReason,
  isStatus,
  isType,
  REASON_LABELS,
  RESOLUTION_LABELS,
  type Report,
  ReportStatusBadge,
  TYPE_LABELS,
} from './reports-labels.tsx'
import { ReviewDialog } from './reports-review.tsx'
import './moderation.css'

const PAGE_SIZE = 25

export default function Reports() {
  const list = useList()
  const { query, page, search, setPage } = list
  const { status, contentType, reason } = reportFilters(query)
  const [reviewing, setReviewing] = useState<Report | null>(null)
  const reports = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/reports', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(isStatus(status) ? { status } : {}),
              ...(isType(contentType) ? { contentType } : {}),
              ...(isReason(reason) ? { reason } : {}),
              ...(search ? { search } : {}),
            },
          },
        }),
      ),
    [page, status, contentType, reason, search],
  )
  const stats = useResource(
    (signal) => unwrap(api.GET('/api/admin/reports/stats', { signal })),
    [reports.data],
  )
  const counts = stats.data?.data
  const pagination = reports.data?.data.pagination

  const columns: Column<Report>[] = [
    {
      header: 'Content',
      cell: (report) => (
        <>
          <span class="pill pill-first">{TYPE_LABELS[report.contentType]}</span>{' '}
          <span class="break">{report.contentId}</span>
        </>
      ),
    },
    { header: 'Reason', cell: (report) => REASON_LABELS[report.reason] },
    {
      header: 'Details',
      secondary: true,
      cell: (report) =>
        report.details ? <span class="clamp">{report.details}</span> : <span class="muted">—</span>,
    },
    {
      header: 'Reported by',
      secondary: true,
      cell: (report) =>
        report.reporter ? (
          <>
            {report.reporter.name ?? report.reporter.email}
            {report.reporter.name && <div class="muted small">{report.reporter.email}</div>}
          </>
        ) : (
          <span class="muted">Account deleted</span>
        ),
    },
    {
      header: 'Status',
      cell: (report) => (
        <>
          <ReportStatusBadge status={report.status} />
          {report.resolution && <div class="muted small">{RESOLUTION_LABELS[report.resolution]}</div>}
        </>
      ),
    },
    { header: 'Reported', secondary: true, cell: (report) => formatDate(report.createdAt, true) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (report) => (
        <Button
          kind={report.status === 'pending' ? 'primary' : 'secondary'}
          onClick={() => setReviewing(report)}
          aria-label={`Review report on ${report.contentType} ${report.contentId}`}
        >
          Review
        </Button>
      ),
    },
  ]

  const filtered = Boolean(search || isType(contentType) || isReason(reason) || isStatus(status))

  return (
    <Page title="Reports">
      {counts && (
        <Figures label="All reports">
          <Figure value={counts.total} label="Reports" />
          <Figure value={counts.pendingCount} label="Awaiting review" />
          <Figure value={counts.resolvedCount} label="Resolved" />
          <Figure value={counts.byContentType.item} label="About items" />
          <Figure value={counts.byContentType.comment} label="About comments" />
        </Figures>
      )}
      <ReportFilters list={list} counts={counts} />
      <PagedTable
        caption="Reports"
        columns={columns}
        rows={reports.data?.data.reports}
        rowKey={(report) => report.id}
        busy={reports.loading}
        empty={filtered ? 'No report matches these filters.' : 'No reports yet.'}
        error={reports.error}
        meta={pagination}
        page={page}
        onPage={setPage}
      />
      <ReviewDialog
        report={reviewing}
        onClose={() => setReviewing(null)}
        onReviewed={async () => {
          setReviewing(null)
          await reports.reload()
        }}
      />
    </Page>
  )
}
