/**
 * Tags: how many there are and which are used most, the list searched, sorted and paged on the server,
 * and a tag created, renamed or deleted (the directory refuses to delete one that items still carry).
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { EditDialog } from '../../shared/edit-dialog.tsx'
import { FigureList } from '../../shared/figures.tsx'
import { listParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, Notice, SearchBox, Select, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { NameForm } from '../name-form.tsx'
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

export default function Tags() {
  const { page, search, sort, setSearch, setSort, setPage } = useList(SORTS, 'name:asc')
  const toast = useToast()
  const act = useRowAction()
  const [editing, setEditing] = useState<Tag | 'new' | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/tags', {
          signal,
          params: { query: listParams({ page, search, sort }, PAGE_SIZE) },
        }),
      ),
    [page, search, sort],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/tags/stats', { signal })), [list.data])
  const figures = stats.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const remove = (tag: Tag) =>
    act({
      ask: {
        title: 'Delete this tag?',
        message:
          tag.itemCount > 0
            ? `${tag.itemCount} ${tag.itemCount === 1 ? 'item carries' : 'items carry'} “${tag.name}”: the directory deletes a tag only once no item carries it.`
            : `“${tag.name}” will be deleted for good.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/tags/{id}', { params: { path: { id: tag.id } } })),
      done: `“${tag.name}” deleted`,
      reload: list.reload,
    })

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
          <RowButton action="Edit" name={tag.name} onClick={() => setEditing(tag)} />
          <RowButton action="Delete" name={tag.name} kind="danger" onClick={() => remove(tag)} />
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
      <FigureList
        label="Tag figures"
        class="catalog-figures"
        figures={[
          { label: 'Tags', value: figures?.total },
          { label: 'Carried by an item', value: figures?.used },
          { label: 'Unused', value: figures?.unused },
        ]}
      />
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
        <SearchBox value={search} onSearch={setSearch} />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <PagedTable
        caption="Tags"
        columns={columns}
        rows={list.data?.data}
        rowKey={(tag) => tag.id}
        busy={list.loading}
        empty={search ? 'No tag matches this search.' : 'No tags yet.'}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <EditDialog
        editing={editing}
        title={(tag) => (tag ? `Rename “${tag.name}”` : 'New tag')}
        onClose={() => setEditing(null)}
        onSaved={changed}
      >
        {(tag, form) => (
          <NameForm
            record={tag}
            noun="tag"
            nameHint="Up to 100 characters, unique whatever the case"
            save={async (name, id) => {
              if (tag) {
                const answer = await unwrap(
                  api.PUT('/api/admin/tags/{id}', { params: { path: { id: tag.id } }, body: { name } }),
                )
                return `“${answer.data.name}” saved`
              }
              const answer = await unwrap(
                api.POST('/api/admin/tags', { body: { name, ...(id ? { id } : {}) } }),
              )
              return `“${answer.data.name}” created`
            }}
            {...form}
          />
        )}
      </EditDialog>
    </Page>
  )
}
