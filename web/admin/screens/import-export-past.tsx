/**
 * Past imports, newest first, paged on the server; each opens its report through the address
 * (`?import=<id>`), so a reload, the back button and a shared link keep it.
 */
import { useId } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import type { Column } from '../../shared/table.tsx'
import { formatDate } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { countsText, FORMAT_LABELS, type Import, STATUS_LABELS } from './import-export-report.tsx'

const PAGE_SIZE = 10

/** The list; the import shown is marked, and the list is read again when `changed` changes. */
export function PastImports({ shownId, changed }: { shownId: string | null; changed: unknown }) {
  const { page, setPage } = useList()
  const headingId = useId()
  const list = useResource(
    (signal) =>
      unwrap(api.GET('/api/admin/imports', { signal, params: { query: { page, limit: PAGE_SIZE } } })),
    [page, changed],
  )
  const columns: Column<Import>[] = [
    {
      header: 'Queued',
      cell: (imp) => (
        <>
          {formatDate(imp.createdAt, true)}
          {imp.id === shownId && <span class="pill">Shown</span>}
        </>
      ),
    },
    { header: 'Kind', cell: (imp) => (imp.dryRun ? 'Dry run' : 'Import') },
    {
      header: 'Status',
      cell: (imp) => <span class={`status status-${imp.status}`}>{STATUS_LABELS[imp.status]}</span>,
    },
    { header: 'Format', secondary: true, cell: (imp) => FORMAT_LABELS[imp.format] },
    { header: 'Counts', secondary: true, cell: (imp) => countsText(imp) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (imp) => (
        <Link
          class="button"
          href={`/import-export?${new URLSearchParams({ ...(page > 1 ? { page: String(page) } : {}), import: imp.id })}`}
          aria-label={`Show report of the ${imp.dryRun ? 'dry run' : 'import'} queued ${formatDate(imp.createdAt, true)}`}
          aria-current={imp.id === shownId ? 'true' : undefined}
        >
          Show report
        </Link>
      ),
    },
  ]
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Past imports</h2>
      <PagedTable
        caption="Past imports"
        columns={columns}
        rows={list.data?.data}
        rowKey={(imp) => imp.id}
        busy={list.loading}
        empty="No imports yet."
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
    </section>
  )
}
