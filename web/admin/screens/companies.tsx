/**
 * Companies: their figures, the list searched, filtered, sorted and paged on the server, and a company
 * created, edited, activated or deactivated, or deleted (the directory refuses to delete one that items
 * still name: deactivating it is the way to retire it).
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

type Company = Answer<'/api/admin/companies'>['data'][number]

const PAGE_SIZE = 25

const SORTS = [
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'itemCount:desc', label: 'Most items' },
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
] as const

export default function Companies() {
  const { query, page, search, sort, setSearch, setFilter, setSort, setPage } = useList(SORTS, 'name:asc')
  const active = query.get('active') ?? ''
  const toast = useToast()
  const act = useRowAction()
  const [editing, setEditing] = useState<Company | 'new' | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/companies', {
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
    (signal) => unwrap(api.GET('/api/admin/companies/stats', { signal })),
    [list.data],
  )
  const figures = stats.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const setActive = (company: Company, isActive: boolean) =>
    act({
      run: () =>
        unwrap(
          api.PUT('/api/admin/companies/{id}', { params: { path: { id: company.id } }, body: { isActive } }),
        ),
      done: `“${company.name}” ${isActive ? 'activated' : 'deactivated'}`,
      reload: list.reload,
    })

  const remove = (company: Company) =>
    act({
      ask: {
        title: 'Delete this company?',
        message:
          company.itemCount > 0
            ? `${company.itemCount} ${company.itemCount === 1 ? 'item names' : 'items name'} “${company.name}”: the directory deletes a company only once no item names it. Deactivate it instead to retire it.`
            : `“${company.name}” will be deleted for good.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/companies/{id}', { params: { path: { id: company.id } } })),
      done: `“${company.name}” deleted`,
      reload: list.reload,
    })

  const columns: Column<Company>[] = [
    {
      header: 'Name',
      cell: (c) => (
        <>
          <strong>{c.name}</strong>
          <div class="muted small">{c.slug}</div>
        </>
      ),
    },
    {
      header: 'Website',
      secondary: true,
      cell: (c) =>
        c.website ? (
          <a href={c.website} rel="noopener noreferrer" target="_blank" class="catalog-url">
            {c.website.replace(/^https?:\/\//, '')}
          </a>
        ) : (
          '—'
        ),
    },
    { header: 'Items', cell: (c) => c.itemCount },
    {
      header: 'State',
      cell: (c) => <ActiveStatus active={c.isActive} />,
    },
    { header: 'Created', secondary: true, cell: (c) => formatDate(c.createdAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (c) => (
        <>
          <RowButton action="Edit" name={c.name} onClick={() => setEditing(c)} />
          <ActiveToggle name={c.name} active={c.isActive} onChange={(active) => setActive(c, active)} />
          <RowButton action="Delete" name={c.name} kind="danger" onClick={() => remove(c)} />
        </>
      ),
    },
  ]

  return (
    <Page
      title="Companies"
      actions={
        <Button kind="primary" onClick={() => setEditing('new')}>
          New company
        </Button>
      }
    >
      {stats.error !== undefined && <Notice kind="error">{messageOf(stats.error)}</Notice>}
      <FigureList
        label="Company figures"
        class="catalog-figures"
        figures={[
          { label: 'Companies', value: figures?.total },
          { label: 'Active', value: figures?.active },
          { label: 'Inactive', value: figures?.inactive },
          { label: 'With items', value: figures?.withItems },
          { label: 'Without items', value: figures?.withoutItems },
        ]}
      />
      {figures && figures.topCompanies.length > 0 && (
        <p class="catalog-top">
          <span class="muted">Most items:</span>{' '}
          {figures.topCompanies.map((company, i) => (
            <span key={company.id}>
              {i > 0 && ', '}
              {company.name} <span class="muted">({company.itemCount})</span>
            </span>
          ))}
        </p>
      )}
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} />
        <ActiveFilter value={active} onValue={(value) => setFilter('active', value)} />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <PagedTable
        caption="Companies"
        columns={columns}
        rows={list.data?.data}
        rowKey={(c) => c.id}
        busy={list.loading}
        empty={search || active ? 'No company matches these filters.' : 'No companies yet.'}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
      <EditDialog
        editing={editing}
        title={(company) => (company ? `Edit “${company.name}”` : 'New company')}
        onClose={() => setEditing(null)}
        wide
        onSaved={changed}
      >
        {(company, form) => <CompanyForm company={company} {...form} />}
      </EditDialog>
    </Page>
  )
}

/** Every field of a company, named as the API names them; empty text clears a field (`null`). */
function CompanyForm({
  company,
  onCancel,
  onSaved,
}: {
  company: Company | null
  onCancel: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const [name, setName] = useState(company?.name ?? '')
  const [slug, setSlug] = useState(company?.slug ?? '')
  const [description, setDescription] = useState(company?.description ?? '')
  const [website, setWebsite] = useState(company?.website ?? '')
  const [logoUrl, setLogoUrl] = useState(company?.logoUrl ?? '')
  const [isActive, setIsActive] = useState(company?.isActive ?? true)
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim())
  const save = useSubmit(async () => {
    const body = {
      name: name.trim(),
      ...(slug.trim() ? { slug: slug.trim() } : {}),
      description: description.trim() === '' ? null : description,
      website: orNull(website),
      logoUrl: orNull(logoUrl),
      isActive,
    }
    if (company) {
      const answer = await unwrap(
        api.PUT('/api/admin/companies/{id}', { params: { path: { id: company.id } }, body }),
      )
      await onSaved(`“${answer.data.name}” saved`)
    } else {
      const answer = await unwrap(api.POST('/api/admin/companies', { body }))
      await onSaved(`“${answer.data.name}” created`)
    }
  }, ['name', 'slug', 'description', 'website', 'logoUrl', 'isActive'])
  const f = save.fields
  return (
    <form onSubmit={save.submit} noValidate>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <div class="grid-2">
        <TextField
          label="name"
          value={name}
          onValue={setName}
          error={f.name}
          hint="2 to 200 characters, unique whatever the case"
          maxLength={200}
          required
          autofocus
        />
        <TextField
          label="slug"
          value={slug}
          onValue={setSlug}
          error={f.slug}
          hint={
            company
              ? 'Lower-case letters, digits and hyphens'
              : 'Lower-case letters, digits and hyphens; made from the name when left empty'
          }
          maxLength={200}
        />
      </div>
      <TextArea
        label="description"
        value={description}
        onValue={setDescription}
        error={f.description}
        rows={3}
      />
      <div class="grid-2">
        <TextField
          label="website"
          type="url"
          value={website}
          onValue={setWebsite}
          error={f.website}
          placeholder="https://"
        />
        <TextField
          label="logoUrl"
          type="url"
          value={logoUrl}
          onValue={setLogoUrl}
          error={f.logoUrl}
          placeholder="https://"
        />
      </div>
      <Checkbox label="isActive" checked={isActive} onValue={setIsActive} />
      {f.isActive && <p class="field-error">{f.isActive}</p>}
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          {company ? 'Save' : 'Create company'}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
