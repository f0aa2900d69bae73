/** A list paged on the server, as the list screens show it: the error of its last load, its table, its pager. */
import { messageOf } from './api.ts'
import { DataTable } from './table.tsx'
import { Notice, Pager } from './ui.tsx'

export function PagedTable<Row>({
  error,
  meta,
  page,
  onPage,
  ...table
}: Parameters<typeof DataTable<Row>>[0] & {
  /** Why the list could not be loaded, if it could not. */
  error: unknown
  /** The answer's paging, once there is one (the pager shows from then on). */
  meta: { totalPages: number; total: number } | undefined
  page: number
  onPage: (page: number) => void
}) {
  return (
    <>
      {error !== undefined && <Notice kind="error">{messageOf(error)}</Notice>}
      <DataTable {...table} />
      {meta && <Pager page={page} totalPages={meta.totalPages} total={meta.total} onPage={onPage} />}
    </>
  )
}
