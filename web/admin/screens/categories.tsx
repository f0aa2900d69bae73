/**
 * Categories: the order the site lists them in (moved up and down here, saved with the API's reorder),
 * created, renamed, deactivated or deleted for good, and how they stand against `categories.json` in the
 * Git data repository, with the differences sent there one by one or all at once.
 */
import { useEffect, useRef, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { EditDialog } from '../../shared/edit-dialog.tsx'
import { sortParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, Select, useToast } from '../../shared/ui.tsx'
import { ActiveStatus } from '../active.tsx'
import { type Answer, api } from '../api.ts'
import { NameForm } from '../name-form.tsx'
import { GitSync } from './categories-git.tsx'
import './catalog.css'

type Category = Answer<'/api/admin/categories'>['categories'][number]

const PAGE_SIZE = 25

const SORTS = [
  { value: 'order:asc', label: 'Site order' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'id:asc', label: 'Id' },
] as const

/** Every category in the site's order, inactive ones too: a reorder names them all. */
async function everyCategory(): Promise<Category[]> {
  const all: Category[] = []
  for (let page = 1; ; page++) {
    const answer = await unwrap(
      api.GET('/api/admin/categories', {
        params: { query: { page, limit: 100, includeInactive: 'true', sortBy: 'order', sortOrder: 'asc' } },
      }),
    )
    all.push(...answer.categories)
    if (page >= answer.totalPages) return all
  }
}

export default function Categories() {
  const { query, setQuery, page, sort, setFilter, setSort, setPage } = useList(SORTS, 'order:asc')
  const [sortBy, sortOrder] = sortParams(sort)
  const includeInactive = query.get('show') === 'all'
  const toast = useToast()
  const act = useRowAction()
  const inOrder = sort === 'order:asc'
  const [editing, setEditing] = useState<Category | 'new' | null>(null)
  const [moving, setMoving] = useState(false)
  const movingNow = useRef(false)
  // After a move, the moved row's button gets the focus back (the row moved in the DOM, maybe to another page).
  const focusAfter = useRef<{ id: string; step: -1 | 1 } | null>(null)
  const [changes, setChanges] = useState(0)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/categories', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              includeInactive: includeInactive ? 'true' : 'false',
              sortBy,
              sortOrder,
            },
          },
        }),
      ),
    [page, includeInactive, sortBy, sortOrder, changes],
  )
  const rows = list.data?.categories
  const total = list.data?.total ?? 0

  useEffect(() => {
    const target = focusAfter.current
    if (!target || list.loading) return
    focusAfter.current = null
    const buttons = [...document.querySelectorAll<HTMLButtonElement>(`[data-move="${target.id}"]`)]
    const preferred = buttons.find((b) => b.dataset.step === String(target.step) && !b.disabled)
    ;(preferred ?? buttons.find((b) => !b.disabled))?.focus()
  }, [list.data, list.loading])

  const changed = async (message: string) => {
    toast('success', message)
    setChanges((n) => n + 1)
  }

  const move = async (category: Category, step: -1 | 1) => {
    if (movingNow.current) return
    movingNow.current = true
    setMoving(true)
    try {
      const all = await everyCategory()
      const shown = all.filter((c) => includeInactive || c.isActive)
      const at = shown.findIndex((c) => c.id === category.id)
      const neighbour = shown[at + step]
      if (at < 0 || !neighbour) return
      const order = all.map((c) => c.id).filter((id) => id !== category.id)
      const next = order.indexOf(neighbour.id)
      order.splice(step < 0 ? next : next + 1, 0, category.id)
      await unwrap(api.PUT('/api/admin/categories/reorder', { body: { categoryIds: order } }))
      const position = at + step
      focusAfter.current = { id: category.id, step }
      toast(
        'success',
        `“${category.name}” moved ${step < 0 ? 'up' : 'down'}: ${position + 1} of ${shown.length}`,
      )
      const onPage = Math.floor(position / PAGE_SIZE) + 1
      if (onPage !== page) setQuery({ page: onPage === 1 ? undefined : onPage })
      else await list.reload()
    } catch (error) {
      toast.failed(error)
    } finally {
      movingNow.current = false
      setMoving(false)
    }
  }

  const reload = async () => setChanges((n) => n + 1)

  const deactivate = (category: Category) =>
    act({
      ask: {
        title: 'Deactivate this category?',
        message: `“${category.name}” leaves the site's listing; its ${category.itemCount} ${
          category.itemCount === 1 ? 'item keeps' : 'items keep'
        } it. The API has no way to activate it again.`,
        confirmLabel: 'Deactivate',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/categories/{id}', { params: { path: { id: category.id } } })),
      done: `“${category.name}” deactivated`,
      reload,
    })

  const remove = (category: Category) =>
    act({
      ask: {
        title: 'Delete this category for good?',
        message:
          category.itemCount > 0
            ? `“${category.name}” still has items: the directory refuses to delete it until they move to another category (deactivating it is allowed).`
            : `“${category.name}” will be deleted for good.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () =>
        unwrap(
          api.DELETE('/api/admin/categories/{id}', {
            params: { path: { id: category.id }, query: { hard: 'true' } },
          }),
        ),
      done: `“${category.name}” deleted`,
      reload,
    })

  const indexOf = (category: Category) => (page - 1) * PAGE_SIZE + (rows ?? []).indexOf(category)

  const columns: Column<Category>[] = [
    ...(inOrder
      ? [{ header: 'Position', class: 'catalog-position', cell: (c: Category) => indexOf(c) + 1 }]
      : []),
    {
      header: 'Name',
      cell: (c) => (
        <>
          <strong>{c.name}</strong>
          <div class="muted small">{c.id}</div>
        </>
      ),
    },
    {
      header: 'Items',
      cell: (c) => <Link href={`/items?category=${encodeURIComponent(c.id)}`}>{c.itemCount}</Link>,
    },
    {
      header: 'State',
      cell: (c) => <ActiveStatus active={c.isActive} />,
    },
    { header: 'Updated', secondary: true, cell: (c) => formatDate(c.updatedAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (c) => {
        const index = indexOf(c)
        return (
          <>
            {inOrder && (
              <>
                <Button
                  aria-label={`Move up ${c.name}`}
                  data-move={c.id}
                  data-step="-1"
                  disabled={index <= 0}
                  onClick={() => move(c, -1)}
                >
                  Move up
                </Button>
                <Button
                  aria-label={`Move down ${c.name}`}
                  data-move={c.id}
                  data-step="1"
                  disabled={index >= total - 1}
                  onClick={() => move(c, 1)}
                >
                  Move down
                </Button>
              </>
            )}
            <RowButton action="Edit" name={c.name} onClick={() => setEditing(c)} />
            {c.isActive && (
              <RowButton action="Deactivate" name={c.name} kind="danger" onClick={() => deactivate(c)} />
            )}
            <RowButton action="Delete" name={c.name} kind="danger" onClick={() => remove(c)} />
          </>
        )
      },
    },
  ]

  return (
    <Page
      title="Categories"
      actions={
        <Button kind="primary" onClick={() => setEditing('new')}>
          New category
        </Button>
      }
    >
      <div class="toolbar">
        <Select
          label="Show"
          value={includeInactive ? 'all' : ''}
          onValue={(value) => setFilter('show', value)}
          options={[
            { value: '', label: 'Active categories' },
            { value: 'all', label: 'Active and inactive' },
          ]}
        />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <p class="muted small">
        {inOrder
          ? 'The site lists categories in this order: move one up or down to change it.'
          : 'Sort by site order to move categories up or down.'}
      </p>
      <PagedTable
        caption="Categories"
        columns={columns}
        rows={rows}
        rowKey={(c) => c.id}
        busy={list.loading || moving}
        empty={includeInactive ? 'No categories yet.' : 'No active categories.'}
        error={list.error}
        meta={list.data}
        page={page}
        onPage={setPage}
      />
      <GitSync changes={changes} onChanged={changed} />
      <EditDialog
        editing={editing}
        title={(category) => (category ? `Rename “${category.name}”` : 'New category')}
        onClose={() => setEditing(null)}
        onSaved={changed}
      >
        {(category, form) => (
          <NameForm
            record={category}
            noun="category"
            nameHint="2 to 100 characters, unique whatever the case"
            save={async (name, id) => {
              if (category) {
                const answer = await unwrap(
                  api.PUT('/api/admin/categories/{id}', {
                    params: { path: { id: category.id } },
                    body: { name },
                  }),
                )
                return `“${answer.data.name}” saved`
              }
              const answer = await unwrap(
                api.POST('/api/admin/categories', { body: { name, ...(id ? { id } : {}) } }),
              )
              return `“${answer.category.name}” created`
            }}
            {...form}
          />
        )}
      </EditDialog>
    </Page>
  )
}
