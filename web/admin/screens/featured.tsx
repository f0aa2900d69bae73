/**
 * The featured shelf: its entries in shelf order (higher `featuredOrder` first), each active or not, with
 * the window it is shown in; an item found by search and put on the shelf with its order and end date,
 * an entry edited, switched on or off, or removed (the item itself stays).
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { EditDialog } from '../../shared/edit-dialog.tsx'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, Dialog, formatDate, useToast } from '../../shared/ui.tsx'
import { ActiveFilter, ActiveToggle, isActiveParam } from '../active.tsx'
import { api } from '../api.ts'
import { AddForm } from './featured-add.tsx'
import { EditForm } from './featured-edit.tsx'
import type { Entry } from './featured-model.ts'
import './catalog.css'

const PAGE_SIZE = 25

/** Where an entry stands now: off, past its end, not begun yet, or on the shelf. */
function stateOf(entry: Entry, now: number): { label: string; css: string } {
  if (!entry.isActive) return { label: 'Inactive', css: 'inactive' }
  if (entry.featuredUntil && new Date(entry.featuredUntil).getTime() <= now)
    return { label: 'Expired', css: 'expired' }
  if (new Date(entry.featuredAt).getTime() > now) return { label: 'Scheduled', css: 'pending' }
  return { label: 'On the shelf', css: 'active' }
}

export default function Featured() {
  const { query, page, setFilter, setPage } = useList()
  const active = query.get('active') ?? ''
  const toast = useToast()
  const act = useRowAction()
  const [adding, setAdding] = useState(false)
  const [editing, setEditing] = useState<Entry | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/featured-items', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...isActiveParam(active),
            },
          },
        }),
      ),
    [page, active],
  )
  const now = Date.now()

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const setActive = (entry: Entry, isActive: boolean) =>
    act({
      run: () =>
        unwrap(
          api.PUT('/api/admin/featured-items/{id}', {
            params: { path: { id: entry.id } },
            body: { isActive },
          }),
        ),
      done: `“${entry.itemName}” ${isActive ? 'activated' : 'deactivated'}`,
      reload: list.reload,
    })

  const remove = (entry: Entry) =>
    act({
      ask: {
        title: 'Remove from the featured shelf?',
        message: `“${entry.itemName}” leaves the shelf for good; the item itself stays in the directory.`,
        confirmLabel: 'Remove',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/featured-items/{id}', { params: { path: { id: entry.id } } })),
      done: `“${entry.itemName}” removed from the shelf`,
      reload: list.reload,
    })

  const columns: Column<Entry>[] = [
    { header: 'Order', class: 'catalog-position', cell: (e) => e.featuredOrder },
    {
      header: 'Item',
      cell: (e) => (
        <>
          <strong>{e.itemName}</strong>
          <div class="muted small">{e.itemSlug}</div>
        </>
      ),
    },
    {
      header: 'State',
      cell: (e) => {
        const state = stateOf(e, now)
        return <span class={`status status-${state.css}`}>{state.label}</span>
      },
    },
    { header: 'From', secondary: true, cell: (e) => formatDate(e.featuredAt, true) },
    {
      header: 'Until',
      cell: (e) => (e.featuredUntil ? formatDate(e.featuredUntil, true) : <span class="muted">No end</span>),
    },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (e) => (
        <>
          <RowButton action="Edit" name={e.itemName} onClick={() => setEditing(e)} />
          <ActiveToggle name={e.itemName} active={e.isActive} onChange={(active) => setActive(e, active)} />
          <RowButton action="Remove" name={e.itemName} kind="danger" onClick={() => remove(e)} />
        </>
      ),
    },
  ]

  return (
    <Page
      title="Featured"
      actions={
        <Button kind="primary" onClick={() => setAdding(true)}>
          Feature an item
        </Button>
      }
    >
      <p class="muted">
        The site's shelf shows active entries that have not ended, the highest <code>featuredOrder</code>{' '}
        first.
      </p>
      <div class="toolbar">
        <ActiveFilter value={active} onValue={(value) => setFilter('active', value)} />
      </div>
      <PagedTable
        caption="Featured items"
        columns={columns}
        rows={list.data?.data}
        rowKey={(e) => e.id}
        busy={list.loading}
        empty={active ? 'No entry matches this filter.' : 'Nothing is featured yet.'}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <Dialog title="Feature an item" open={adding} onClose={() => setAdding(false)} wide>
        {adding && (
          <AddForm
            onCancel={() => setAdding(false)}
            onSaved={async (message) => {
              setAdding(false)
              await changed(message)
            }}
          />
        )}
      </Dialog>
      <EditDialog
        editing={editing}
        title={(entry) => `Edit “${entry.itemName}”`}
        onClose={() => setEditing(null)}
        wide
        onSaved={changed}
      >
        {(entry, form) => <EditForm entry={entry} {...form} />}
      </EditDialog>
    </Page>
  )
}
