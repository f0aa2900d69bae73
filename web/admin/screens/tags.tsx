/**
 * Tags: how many there are and which are used most, the list searched, sorted and paged on the server,
 * and a tag created, renamed or deleted (the directory refuses to delete one that items still carry).
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, useQuery } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import {
  Button,
  Dialog,
  formatDate,
  Notice,
  Pager,
  SearchBox,
  Select,
  TextField,
  useConfirm,
  useToast,
} from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import './catalog.css'

type Tag = Answer<'/api/admin/tags'>['data'][number]

const PAGE_SIZE = 25

const SORTS = [
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'itemCount:desc', label: 'Most used' },
  { value: 'itemCount:asc', label: 'Least used' },
  { value: 'createdAt:desc', label: 'Newest first' },
] as const

type SortValue = (typeof SORTS)[number]['value']

export default function Tags() {
  const [query, setQuery] = useQuery()
  const toast = useToast()
  const confirm = useConfirm()
  const search = query.get('search') ?? ''
  const page = Math.max(1, Number(query.get('page')) || 1)
  const sort: SortValue = SORTS.find((s) => s.value === query.get('sort'))?.value ?? 'name:asc'
  const [sortBy, sortOrder] = sort.split(':') as ['name' | 'createdAt' | 'itemCount', 'asc' | 'desc']
  const [editing, setEditing] = useState<Tag | 'new' | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/tags', {
          signal,
          params: { query: { page, limit: PAGE_SIZE, sortBy, sortOrder, ...(search ? { search } : {}) } },
        }),
      ),
    [page, search, sortBy, sortOrder],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/tags/stats', { signal })), [list.data])
  const figures = stats.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const remove = async (tag: Tag) => {
    const sure = await confirm({
      title: 'Delete this tag?',
      message:
        tag.itemCount > 0
          ? `${tag.itemCount} ${tag.itemCount === 1 ? 'item carries' : 'items carry'} “${tag.name}”: the directory deletes a tag only once no item carries it.`
          : `“${tag.name}” will be deleted for good.`,
      confirmLabel: 'Delete',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.DELETE('/api/admin/tags/{id}', { params: { path: { id: tag.id } } }))
      await changed(`“${tag.name}” deleted`)
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<Tag>[] = [
    {
      header: 'Name',
      cell: (tag) => (
        <>
          <strong>{tag.name}</strong>
          <div class="muted small">{tag.id}</div>
        </>
      ),
    },
    {
      header: 'Items',
      cell: (tag) => <Link href={`/items?tag=${encodeURIComponent(tag.id)}`}>{tag.itemCount}</Link>,
    },
    { header: 'Created', secondary: true, cell: (tag) => formatDate(tag.createdAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (tag) => (
        <>
          <Button aria-label={`Edit ${tag.name}`} onClick={() => setEditing(tag)}>
            Edit
          </Button>
          <Button kind="danger" aria-label={`Delete ${tag.name}`} onClick={() => remove(tag)}>
            Delete
          </Button>
        </>
      ),
    },
  ]

  return (
    <Page
      title="Tags"
      actions={
        <Button kind="primary" onClick={() => setEditing('new')}>
          New tag
        </Button>
      }
    >
      {stats.error !== undefined && <Notice kind="error">{messageOf(stats.error)}</Notice>}
      <ul class="figures catalog-figures" aria-label="Tag figures">
        <li class="figure">
          <span class="figure-value">{figures?.total ?? '—'}</span>
          <span class="figure-label">Tags</span>
        </li>
        <li class="figure">
          <span class="figure-value">{figures?.used ?? '—'}</span>
          <span class="figure-label">Carried by an item</span>
        </li>
        <li class="figure">
          <span class="figure-value">{figures?.unused ?? '—'}</span>
          <span class="figure-label">Unused</span>
        </li>
      </ul>
      {figures && figures.topTags.length > 0 && (
        <p class="catalog-top">
          <span class="muted">Used most:</span>{' '}
          {figures.topTags.map((tag, i) => (
            <span key={tag.id}>
              {i > 0 && ', '}
              <Link href={`/items?tag=${encodeURIComponent(tag.id)}`}>{tag.name}</Link>{' '}
              <span class="muted">({tag.itemCount})</span>
            </span>
          ))}
        </p>
      )}
      <div class="toolbar">
        <SearchBox value={search} onSearch={(value) => setQuery({ search: value, page: undefined })} />
        <Select
          label="Sort"
          value={sort}
          onValue={(value) => setQuery({ sort: value === 'name:asc' ? undefined : value, page: undefined })}
          options={SORTS}
        />
      </div>
      {list.error !== undefined && <Notice kind="error">{messageOf(list.error)}</Notice>}
      <DataTable
        caption="Tags"
        columns={columns}
        rows={list.data?.data}
        rowKey={(tag) => tag.id}
        busy={list.loading}
        empty={search ? 'No tag matches this search.' : 'No tags yet.'}
      />
      {list.data && (
        <Pager
          page={page}
          totalPages={list.data.meta.totalPages}
          total={list.data.meta.total}
          onPage={(next) => setQuery({ page: next === 1 ? undefined : next }, { push: true })}
        />
      )}
      <Dialog
        title={editing === 'new' ? 'New tag' : `Rename “${editing?.name ?? ''}”`}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing !== null && (
          <TagForm
            tag={editing === 'new' ? null : editing}
            onCancel={() => setEditing(null)}
            onSaved={async (message) => {
              setEditing(null)
              await changed(message)
            }}
          />
        )}
      </Dialog>
    </Page>
  )
}

/** A new tag (`name`, and an `id` made from it unless given) or a new name for one; the id stays. */
function TagForm({
  tag,
  onCancel,
  onSaved,
}: {
  tag: Tag | null
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const [name, setName] = useState(tag?.name ?? '')
  const [id, setId] = useState('')
  const save = useSubmit(async () => {
    if (tag) {
      const answer = await unwrap(
        api.PUT('/api/admin/tags/{id}', { params: { path: { id: tag.id } }, body: { name: name.trim() } }),
      )
      await onSaved(`“${answer.data.name}” saved`)
    } else {
      const answer = await unwrap(
        api.POST('/api/admin/tags', { body: { name: name.trim(), ...(id.trim() ? { id: id.trim() } : {}) } }),
      )
      await onSaved(`“${answer.data.name}” created`)
    }
  }, ['name', 'id'])
  return (
    <form onSubmit={save.submit} noValidate>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <TextField
        label="name"
        value={name}
        onValue={setName}
        error={save.fields.name}
        hint="Up to 100 characters, unique whatever the case"
        maxLength={100}
        required
        autofocus
      />
      {tag ? (
        <p class="muted">
          id: <code>{tag.id}</code> (an id does not change)
        </p>
      ) : (
        <TextField
          label="id"
          value={id}
          onValue={setId}
          error={save.fields.id}
          hint="Lower-case letters, digits and hyphens; made from the name when left empty"
          maxLength={100}
        />
      )}
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          {tag ? 'Save' : 'Create tag'}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
