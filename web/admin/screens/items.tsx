/**
 * Items: the status tabs with their counts, search, filters and sort in the query string, paging on the
 * server (the API pages and counts; the console never holds more than a page), and the review actions
 * per row and in bulk.
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { sortParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { ReasonDialog } from '../../shared/reason-dialog.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, SearchBox, Select, Tabs, useConfirm, useToast } from '../../shared/ui.tsx'
import { type AdminItem, api, type ItemStatus } from '../api.ts'
import { ItemStatusBadge } from '../item-status.tsx'

const PAGE_SIZE = 25

const SORTS = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'updatedAt:desc', label: 'Recently updated' },
  { value: 'publishedAt:desc', label: 'Recently published' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'status:asc', label: 'Status' },
] as const

type LinkStatus = 'ok' | 'redirected' | 'broken' | 'unchecked'

const isStatus = (value: string | null): value is ItemStatus =>
  value === 'draft' || value === 'pending' || value === 'published' || value === 'rejected'

export default function Items() {
  const { query, setQuery, page, search, sort, setSearch, setFilter, setSort, setPage } = useList(
    SORTS,
    'createdAt:desc',
  )
  const act = useRowAction()
  const toast = useToast()
  const confirm = useConfirm()
  const status = query.get('status')
  const category = query.get('category') ?? ''
  const tag = query.get('tag') ?? ''
  const featured = query.get('featured') ?? ''
  const linkStatus = query.get('linkStatus') ?? ''
  const [sortBy, sortOrder] = sortParams(sort)
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [rejecting, setRejecting] = useState<AdminItem[] | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/items', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(isStatus(status) ? { status } : {}),
              ...(search ? { search } : {}),
              ...(category ? { category } : {}),
              ...(tag ? { tag } : {}),
              ...(featured === 'true' || featured === 'false' ? { featured } : {}),
              ...(linkStatus ? { linkStatus: linkStatus as LinkStatus } : {}),
              sortBy,
              sortOrder,
            },
          },
        }),
      ),
    [page, status, search, category, tag, featured, linkStatus, sortBy, sortOrder],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/items/stats', { signal })), [list.data])
  const categories = useResource((signal) => unwrap(api.GET('/api/admin/categories/all', { signal })), [])
  const tags = useResource((signal) => unwrap(api.GET('/api/admin/tags/all', { signal })), [])

  const rows = list.data?.data
  const counts = stats.data?.data
  const changed = async (message: string) => {
    toast('success', message)
    setSelected(new Set())
    await list.reload()
  }

  const review = async (item: AdminItem, action: 'approve' | 'reject', note?: string) => {
    await unwrap(
      api.POST('/api/admin/items/{id}/review', {
        params: { path: { id: item.id } },
        body: { action, ...(note ? { note } : {}) },
      }),
    )
  }

  const reload = async () => {
    setSelected(new Set())
    await list.reload()
  }

  const approve = (item: AdminItem) =>
    act({ run: () => review(item, 'approve'), done: `“${item.name}” approved`, reload })

  const remove = (item: AdminItem) =>
    act({
      ask: {
        title: 'Delete this item?',
        message: `“${item.name}” will be deleted for good, with its history.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/items/{id}', { params: { path: { id: item.id } } })),
      done: `“${item.name}” deleted`,
      reload,
    })

  const bulk = async (action: 'approve' | 'reject' | 'delete') => {
    const ids = [...selected]
    if (action === 'delete') {
      const sure = await confirm({
        title: `Delete ${ids.length} ${ids.length === 1 ? 'item' : 'items'}?`,
        message: 'They will be deleted for good, with their history.',
        confirmLabel: 'Delete',
        danger: true,
      })
      if (!sure) return
    }
    try {
      const answer = await unwrap(api.POST('/api/admin/items/bulk', { body: { action, ids } }))
      // Each id succeeds or fails on its own: the message counts both, and the failures are named.
      if (answer.errors.length > 0) toast('error', answer.errors.map((e) => e.error).join('; '))
      await changed(answer.message)
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<AdminItem>[] = [
    {
      header: 'Name',
      cell: (item) => (
        <>
          <Link href={`/items/${item.id}`}>{item.name}</Link>
          {item.featured && <span class="pill">Featured</span>}
          <div class="muted small">{item.slug}</div>
        </>
      ),
    },
    {
      header: 'Status',
      cell: (item) => <ItemStatusBadge status={item.status} />,
    },
    { header: 'Category', secondary: true, cell: (item) => item.category?.name ?? '—' },
    {
      header: 'Link',
      secondary: true,
      cell: (item) =>
        item.url ? <span class={`status link-${item.link.status}`}>{item.link.status}</span> : '—',
    },
    { header: 'Updated', secondary: true, cell: (item) => formatDate(item.updatedAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (item) => (
        <>
          {item.status !== 'published' && (
            <RowButton action="Approve" name={item.name} kind="primary" onClick={() => approve(item)} />
          )}
          {item.status !== 'rejected' && (
            <RowButton action="Reject" name={item.name} onClick={() => setRejecting([item])} />
          )}
          <RowButton action="Delete" name={item.name} kind="danger" onClick={() => remove(item)} />
        </>
      ),
    },
  ]

  const tabs = [
    { value: '', label: 'All', count: counts?.total },
    { value: 'draft', label: 'Draft', count: counts?.draft },
    { value: 'pending', label: 'Pending', count: counts?.pending },
    { value: 'published', label: 'Approved', count: counts?.published },
    { value: 'rejected', label: 'Rejected', count: counts?.rejected },
  ]

  return (
    <Page
      title="Items"
      actions={
        <Link class="button button-primary" href="/items/new">
          New item
        </Link>
      }
    >
      <Tabs
        label="Status"
        tabs={tabs}
        current={isStatus(status) ? status : ''}
        onSelect={(value) => {
          setSelected(new Set())
          setQuery({ status: value, page: undefined }, { push: true })
        }}
      />
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} />
        <Select
          label="Category"
          value={category}
          onValue={(value) => setFilter('category', value)}
          options={[
            { value: '', label: 'Any category' },
            ...(categories.data?.data ?? []).map((c) => ({ value: c.id, label: c.name })),
          ]}
        />
        <Select
          label="Tag"
          value={tag}
          onValue={(value) => setFilter('tag', value)}
          options={[
            { value: '', label: 'Any tag' },
            ...(tags.data?.data ?? []).map((t) => ({ value: t.id, label: t.name })),
          ]}
        />
        <Select
          label="Featured"
          value={featured}
          onValue={(value) => setFilter('featured', value)}
          options={[
            { value: '', label: 'Featured or not' },
            { value: 'true', label: 'Featured' },
            { value: 'false', label: 'Not featured' },
          ]}
        />
        <Select
          label="Link health"
          value={linkStatus}
          onValue={(value) => setFilter('linkStatus', value)}
          options={[
            { value: '', label: 'Any link' },
            { value: 'ok', label: 'OK' },
            { value: 'redirected', label: 'Redirected' },
            { value: 'broken', label: 'Broken' },
            { value: 'unchecked', label: 'Not checked yet' },
          ]}
        />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      {selected.size > 0 && (
        <section class="bulkbar" aria-label="Bulk actions">
          <span>{selected.size} selected</span>
          <Button kind="primary" onClick={() => bulk('approve')}>
            Approve selected
          </Button>
          <Button onClick={() => setRejecting((rows ?? []).filter((row) => selected.has(row.id)))}>
            Reject selected
          </Button>
          <Button kind="danger" onClick={() => bulk('delete')}>
            Delete selected
          </Button>
          <Button kind="link" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </section>
      )}
      <PagedTable
        caption="Items"
        columns={columns}
        rows={rows}
        rowKey={(item) => item.id}
        busy={list.loading}
        empty={
          search || category || tag || featured || linkStatus
            ? 'No item matches these filters.'
            : 'No items here yet.'
        }
        selection={{ selected, onChange: setSelected, rowLabel: (item) => item.name }}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={(next) => {
          setSelected(new Set())
          setPage(next)
        }}
      />
      <RejectDialog
        items={rejecting}
        onClose={() => setRejecting(null)}
        onRejected={async (count, name) => {
          setRejecting(null)
          await changed(count === 1 ? `“${name}” rejected` : `${count} items rejected`)
        }}
        reject={async (items, note) => {
          if (items.length === 1 && items[0]) await review(items[0], 'reject', note)
          else {
            // The bulk route takes no reason: each item is reviewed with it, so every one keeps the note.
            for (const item of items) await review(item, 'reject', note)
          }
        }}
      />
    </Page>
  )
}

/** Asks for the reason of a rejection (kept on the item and in its history), then rejects. */
export function RejectDialog({
  items,
  onClose,
  onRejected,
  reject,
}: {
  items: AdminItem[] | null
  onClose: () => void
  onRejected: (count: number, name: string) => Promise<void>
  reject: (items: AdminItem[], note: string) => Promise<void>
}) {
  return (
    <ReasonDialog
      title={items?.length === 1 ? `Reject “${items[0]?.name}”` : `Reject ${items?.length ?? 0} items`}
      open={items !== null}
      onClose={onClose}
      label="Reason"
      hint="Kept on the item and in its history, so whoever submitted it can see why."
      maxLength={1000}
      field="note"
      confirmLabel="Reject"
      keepLabel="Cancel"
      send={async (reason) => {
        if (!items) return
        await reject(items, reason)
        await onRejected(items.length, items[0]?.name ?? '')
      }}
    />
  )
}
