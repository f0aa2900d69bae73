/** An item's history, ten entries a page: each action, when and by whom, its note and what it changed. */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { formatDate, Notice, Pager } from '../../shared/ui.tsx'
import { api } from '../api.ts'

/** The history of item `id`, read again (from page 1) whenever `version` changes. */
export function History({ id, version }: { id: string; version: number }) {
  const [page, setPage] = useState(1)
  useEffect(() => setPage(1), [version])
  const history = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/items/{id}/history', {
          signal,
          params: { path: { id }, query: { page, limit: 10 } },
        }),
      ),
    [id, page, version],
  )
  return (
    <section class="card" aria-labelledby="item-history">
      <h2 id="item-history">History</h2>
      {history.error !== undefined && <Notice kind="error">{(history.error as Error).message}</Notice>}
      <ol class="history" aria-busy={history.loading ? 'true' : 'false'}>
        {history.data?.data.map((entry) => (
          <li key={entry.id}>
            <strong>{entry.action}</strong> {formatDate(entry.createdAt, true)}
            {entry.actor && <span class="muted"> by {entry.actor.name ?? entry.actor.email}</span>}
            {entry.note && <div>Note: {entry.note}</div>}
            {entry.changes.length > 0 && (
              <ul class="changes">
                {entry.changes.map((change) => (
                  <li key={change.field}>
                    {change.field}: {show(change.from)} → {show(change.to)}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>
      {history.data && <Pager page={page} totalPages={history.data.meta.totalPages} onPage={setPage} />}
    </section>
  )
}

function show(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—'
  if (typeof value === 'string') return value.length > 80 ? `${value.slice(0, 80)}…` : value
  return JSON.stringify(value)
}
