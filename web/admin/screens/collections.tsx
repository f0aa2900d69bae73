/**
 * Collections: their figures, the list searched, filtered, sorted and paged on the server, and a
 * collection created, edited, shown or hidden on the site, or deleted. Its items are kept on its own page.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { EditDialog } from '../../shared/edit-dialog.tsx'
import { FigureList } from '../../shared/figures.tsx'
import { useSubmit } from '../../shared/form.ts'
import { listParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import {
  Button,
  Checkbox,
  formatDate,
  Notice,
  SearchBox,
  Select,
  TextArea,
  TextField,
  useToast,
} from '../../shared/ui.tsx'
import { ActiveFilter, ActiveStatus, ActiveToggle, isActiveParam } from '../active.tsx'
import { type Answer, api } from '../api.ts'
import './catalog.css'

export type Collection = Answer<'/api/admin/collections'>['data'][number]

const PAGE_SIZE = 25

const SORTS = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'updatedAt:desc', label: 'Recently updated' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'itemCount:desc', label: 'Most items' },
] as const

export default function Collections() {
  const { query, page, search, sort, setSearch, setFilter, setSort, setPage } = useList(
    SORTS,
    'createdAt:desc',
  )
  const active = query.get('active') ?? ''
  const toast = useToast()
  const act = useRowAction()
  const [editing, setEditing] = useState<Collection | 'new' | null>(null)
  const remove = useRemoveCollection()

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/collections', {
          signal,
          params: {
            query: {
              ...listParams({ page, search, sort }, PAGE_SIZE),
              ...isActiveParam(active),
            },
          },
        }),
      ),
    [page, search, active, sort],
  )
  const stats = useResource(
    (signal) => unwrap(api.GET('/api/admin/collections/stats', { signal })),
    [list.data],
  )
  const figures = stats.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const setActive = (collection: Collection, isActive: boolean) =>
    act({
      run: () =>
        unwrap(
          api.PUT('/api/admin/collections/{id}', {
            params: { path: { id: collection.id } },
            body: { isActive },
          }),
        ),
      done: `“${collection.name}” ${isActive ? 'shown on the site' : 'hidden from the site'}`,
      reload: list.reload,
    })

  const columns: Column<Collection>[] = [
    {
      header: 'Name',
      cell: (c) => (
        <>
          <Link href={`/collections/${c.id}`}>{c.name}</Link>
          <div class="muted small">{c.slug}</div>
        </>
      ),
    },
    { header: 'Items', cell: (c) => c.itemCount },
    {
      header: 'State',
      cell: (c) => <ActiveStatus active={c.isActive} />,
    },
    { header: 'Updated', secondary: true, cell: (c) => formatDate(c.updatedAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (c) => (
        <>
          <Link
            class="button button-secondary"
            href={`/collections/${c.id}`}
            aria-label={`Items of ${c.name}`}
          >
            Items
          </Link>
          <RowButton action="Edit" name={c.name} onClick={() => setEditing(c)} />
          <ActiveToggle name={c.name} active={c.isActive} onChange={(active) => setActive(c, active)} />
          <Button
            kind="danger"
            aria-label={`Delete ${c.name}`}
            onClick={async () => {
              if (await remove(c)) await list.reload()
            }}
          >
            Delete
          </Button>
        </>
      ),
    },
  ]

  return (
    <Page
      title="Collections"
      actions={
        <Button kind="primary" onClick={() => setEditing('new')}>
          New collection
        </Button>
      }
    >
      {stats.error !== undefined && <Notice kind="error">{messageOf(stats.error)}</Notice>}
      <FigureList
        label="Collection figures"
        class="catalog-figures"
        figures={[
          { label: 'Collections', value: figures?.total },
          { label: 'Active', value: figures?.active },
          { label: 'Inactive', value: figures?.inactive },
          { label: 'Empty', value: figures?.empty },
          { label: 'Items in collections', value: figures?.totalItems },
          { label: 'Items per collection', value: figures?.averageItems },
        ]}
      />
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} />
        <ActiveFilter value={active} onValue={(value) => setFilter('active', value)} />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <PagedTable
        caption="Collections"
        columns={columns}
        rows={list.data?.data}
        rowKey={(c) => c.id}
        busy={list.loading}
        empty={search || active ? 'No collection matches these filters.' : 'No collections yet.'}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <CollectionDialog
        collection={editing}
        onClose={() => setEditing(null)}
        onSaved={async (saved, created) => {
          setEditing(null)
          if (created) {
            toast('success', `“${saved.name}” created: now add its items`)
            navigate(`/collections/${saved.id}`)
          } else await changed(`“${saved.name}” saved`)
        }}
      />
    </Page>
  )
}

/** Asks, then deletes a collection (its items stay); true once deleted. */
export function useRemoveCollection() {
  const act = useRowAction()
  return (collection: Collection): Promise<boolean> =>
    act({
      ask: {
        title: 'Delete this collection?',
        message: `“${collection.name}” will be deleted for good; its ${collection.itemCount} ${
          collection.itemCount === 1 ? 'item stays' : 'items stay'
        } in the directory.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () =>
        unwrap(api.DELETE('/api/admin/collections/{id}', { params: { path: { id: collection.id } } })),
      done: `“${collection.name}” deleted`,
    })
}

/** A new collection, or the name, slug, description and state of one, in a dialog. */
export function CollectionDialog({
  collection,
  onClose,
  onSaved,
}: {
  collection: Collection | 'new' | null
  onClose: () => void
  onSaved: (saved: Collection, created: boolean) => Promise<void>
}) {
  return (
    <EditDialog
      editing={collection}
      title={(row) => (row ? `Edit “${row.name}”` : 'New collection')}
      onClose={onClose}
    >
      {(row) => <CollectionForm collection={row} onCancel={onClose} onSaved={onSaved} />}
    </EditDialog>
  )
}

function CollectionForm({
  collection,
  onCancel,
  onSaved,
}: {
  collection: Collection | null
  onCancel: () => void
  onSaved: (saved: Collection, created: boolean) => Promise<void>
}) {
  const [name, setName] = useState(collection?.name ?? '')
  const [slug, setSlug] = useState(collection?.slug ?? '')
  const [description, setDescription] = useState(collection?.description ?? '')
  const [isActive, setIsActive] = useState(collection?.isActive ?? true)
  const save = useSubmit(async () => {
    const body = {
      name: name.trim(),
      ...(slug.trim() ? { slug: slug.trim() } : {}),
      description: description.trim() === '' ? null : description,
      isActive,
    }
    if (collection) {
      const answer = await unwrap(
        api.PUT('/api/admin/collections/{id}', { params: { path: { id: collection.id } }, body }),
      )
      await onSaved(answer.data, false)
    } else {
      const answer = await unwrap(api.POST('/api/admin/collections', { body }))
      await onSaved(answer.data, true)
    }
  }, ['name', 'slug', 'description', 'isActive'])
  return (
    <form onSubmit={save.submit} noValidate>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <TextField
        label="name"
        value={name}
        onValue={setName}
        error={save.fields.name}
        maxLength={200}
        required
        autofocus
      />
      <TextField
        label="slug"
        value={slug}
        onValue={setSlug}
        error={save.fields.slug}
        hint={
          collection
            ? 'Lower-case letters, digits and hyphens; a new name keeps the slug'
            : 'Lower-case letters, digits and hyphens; made from the name when left empty'
        }
        maxLength={200}
      />
      <TextArea
        label="description"
        value={description}
        onValue={setDescription}
        error={save.fields.description}
        maxLength={2000}
      />
      <Checkbox label="isActive (shown on the site)" checked={isActive} onValue={setIsActive} />
      {save.fields.isActive && <p class="field-error">{save.fields.isActive}</p>}
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          {collection ? 'Save' : 'Create collection'}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
