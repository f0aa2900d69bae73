/**
 * A work's Items tab (the page's first): the items its last completed generation stored, as a table to
 * check them, with a search over name, description, category and tags, a category filter and pages of
 * 50, all in the address. While a generation runs it says so, and shows the new items when it completes.
 * With none yet, it says how to generate them.
 */
import { unwrap } from '../../../shared/api.ts'
import { useList } from '../../../shared/list.ts'
import { PagedTable } from '../../../shared/paged-table.tsx'
import { usePolling } from '../../../shared/poll.ts'
import { useResource } from '../../../shared/resource.ts'
import { Link } from '../../../shared/router.tsx'
import type { Column } from '../../../shared/table.tsx'
import { formatDate, Loading, Notice, SearchBox, Select } from '../../../shared/ui.tsx'
import { api, type Work } from '../../api.ts'
import { ITEMS_PER_PAGE, useItemSearch, type WorkItem } from '../../generation/item-search.ts'
import { isRunning, useRunEnd } from '../../generation/running.ts'
import { canEdit, type WorkTabProps } from '../../work-tab.ts'
import '../../generation/generation.css'

const POLL_MS = 2000

const COLUMNS: Column<WorkItem>[] = [
  { header: 'Name', cell: (item) => <strong>{item.name}</strong> },
  { header: 'Description', cell: (item) => <span class="item-description">{item.description}</span> },
  { header: 'Category', cell: (item) => item.category },
  {
    header: 'Tags',
    secondary: true,
    cell: (item) =>
      item.tags.length === 0 ? (
        <span class="muted">—</span>
      ) : (
        <span class="item-tags">
          {item.tags.map((tag) => (
            <span key={tag} class="pill">
              {tag}
            </span>
          ))}
        </span>
      ),
  },
  { header: 'Website', secondary: true, class: 'item-url', cell: (item) => <Website url={item.url} /> },
  { header: 'Added', secondary: true, cell: (item) => formatDate(item.createdAt) },
]

export default function Items({ work, reload }: WorkTabProps) {
  const { query, page, search, setSearch, setFilter, setPage } = useList()
  const category = query.get('category') ?? ''
  const running = isRunning(work)
  const items = useResource(
    (signal) => unwrap(api.GET('/api/works/{id}/items', { signal, params: { path: { id: work.id } } })),
    [work.id],
  )
  const found = useItemSearch(items.data?.items, { search, category, page })

  // A run that completes while the tab is open replaces the items: follow it, then read them again.
  usePolling(reload, POLL_MS, running)
  useRunEnd(work, (status) => {
    if (status === 'COMPLETED') items.reload()
  })

  const total = items.data?.items.length
  return (
    <section aria-labelledby="items-title">
      <h2 id="items-title">
        Items{total !== undefined && <span class="muted"> ({total.toLocaleString()})</span>}
      </h2>
      {running && (
        <Notice kind="info">
          A generation is running: its items replace these when it completes.{' '}
          <Link href={`/works/${work.id}/generation`}>Follow it in Generation</Link>
        </Notice>
      )}
      {total === undefined && items.error === undefined ? (
        <Loading what="Loading the items" />
      ) : total === 0 && !running ? (
        <NoItems work={work} />
      ) : (
        <>
          <div class="toolbar">
            <SearchBox value={search} onSearch={setSearch} placeholder="Name, description, category or tag" />
            <Select
              label="Category"
              value={category}
              options={[
                { value: '', label: 'All categories' },
                ...found.categories.map((name) => ({ value: name, label: name })),
              ]}
              onValue={(value) => setFilter('category', value)}
            />
          </div>
          {(search || category) && total !== undefined && (
            <p class="muted" role="status">
              {found.matching.length.toLocaleString()} of {total.toLocaleString()} items match.
            </p>
          )}
          <PagedTable
            caption={`Items of ${work.name}, page ${found.page} of ${found.totalPages}`}
            columns={COLUMNS}
            rows={items.data ? found.rows : undefined}
            rowKey={(item) => item.id}
            busy={items.loading}
            empty={search || category ? 'No item matches this search.' : 'No items yet.'}
            error={items.error}
            meta={
              found.matching.length > ITEMS_PER_PAGE
                ? { totalPages: found.totalPages, total: found.matching.length }
                : undefined
            }
            page={found.page}
            onPage={setPage}
          />
        </>
      )}
    </section>
  )
}

/** An item's website as a link that opens apart from the console (only web addresses are stored). */
function Website({ url }: { url: string | null }) {
  if (!url || !/^https?:\/\//i.test(url)) return <span class="muted">—</span>
  return (
    <a href={url} target="_blank" rel="noopener noreferrer">
      {url.replace(/^https?:\/\/(www\.)?/i, '').replace(/\/$/, '')}
    </a>
  )
}

function NoItems({ work }: { work: Work }) {
  const failed = work.generateStatus.status === 'ERROR'
  return (
    <div class="card">
      <h3>No items yet</h3>
      <p>
        {failed
          ? 'The last generation failed, so no items were stored. '
          : 'Items appear here once a generation completes: an AI provider lists them from the work’s name and description. '}
        {canEdit(work) ? (
          <Link href={`/works/${work.id}/generation`}>
            {failed ? 'See why, and generate again' : 'Generate the items'}
          </Link>
        ) : (
          'An owner or editor of the work generates them.'
        )}
      </p>
    </div>
  )
}
