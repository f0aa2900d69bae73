/**
 * Roles: the figures, the status filter and sort in the query string, paging on the server, creating and
 * editing a role (roles-form.tsx), deactivating or deleting one, and its permissions as a checkbox per
 * `area.action` of the directory's catalogue, grouped by area and saved whole (roles-permissions.tsx).
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { EditDialog } from '../../shared/edit-dialog.tsx'
import { Figure, Figures } from '../../shared/figures.tsx'
import { sortParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, Select, useToast } from '../../shared/ui.tsx'
import { ActiveStatus, ActiveToggle, StatusFilter } from '../active.tsx'
import { api } from '../api.ts'
import { ADMIN_ROLE, type Role, RoleForm, roleFormTitle, USER_ROLE } from './roles-form.tsx'
import { PermissionsForm, permissionsTitle } from './roles-permissions.tsx'
import './people.css'

const PAGE_SIZE = 25

const SORTS = [
  { value: '', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'id:asc', label: 'Id A–Z' },
  { value: 'created_at:desc', label: 'Newest first' },
  { value: 'created_at:asc', label: 'Oldest first' },
] as const

export default function Roles() {
  const { query, page, sort, setFilter, setSort, setPage } = useList(SORTS, '')
  const [sortBy, sortOrder] = sortParams(sort || 'name:asc')
  const statusParam = query.get('status')
  const status = statusParam === 'active' || statusParam === 'inactive' ? statusParam : undefined
  const toast = useToast()
  const act = useRowAction()
  // null: closed; 'new': creating; a role: editing it (or its permissions).
  const [editing, setEditing] = useState<Role | 'new' | null>(null)
  const [granting, setGranting] = useState<Role | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/roles', {
          signal,
          params: { query: { page, limit: PAGE_SIZE, sortBy, sortOrder, ...(status ? { status } : {}) } },
        }),
      ),
    [page, status, sortBy, sortOrder],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/roles/stats', { signal })), [list.data])
  const figures = stats.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const setActive = (role: Role, active: boolean) =>
    act({
      ask: active
        ? undefined
        : {
            title: 'Deactivate this role?',
            message: `“${role.name}” will be kept but marked inactive. Its users keep it until it is deleted.`,
            confirmLabel: 'Deactivate',
            danger: true,
          },
      run: () =>
        active
          ? unwrap(
              api.PUT('/api/admin/roles/{id}', {
                params: { path: { id: role.id } },
                body: { status: 'active' },
              }),
            )
          : unwrap(api.DELETE('/api/admin/roles/{id}', { params: { path: { id: role.id } } })),
      done: `“${role.name}” ${active ? 'activated' : 'deactivated'}`,
      reload: list.reload,
    })

  const remove = (role: Role) =>
    act({
      ask: {
        title: 'Delete this role for good?',
        message: `“${role.name}” will be deleted, and every user who has it will be left without a role.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () =>
        unwrap(
          api.DELETE('/api/admin/roles/{id}', {
            params: { path: { id: role.id }, query: { hard: true } },
          }),
        ),
      done: `“${role.name}” deleted`,
      reload: list.reload,
    })

  const columns: Column<Role>[] = [
    {
      header: 'Name',
      cell: (role) => (
        <>
          {role.name}
          {role.isAdmin && <span class="pill">Admin</span>}
          <div class="muted small">{role.id}</div>
        </>
      ),
    },
    { header: 'Description', secondary: true, cell: (role) => role.description || '—' },
    {
      header: 'Status',
      cell: (role) => <ActiveStatus active={role.status === 'active'} />,
    },
    {
      header: 'Permissions',
      cell: (role) => (role.isAdmin ? 'All (admin)' : role.permissions.length),
    },
    { header: 'Updated', secondary: true, cell: (role) => formatDate(role.updated_at) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (role) => (
        <>
          <Button onClick={() => setGranting(role)} aria-label={`Permissions of ${role.name}`}>
            Permissions
          </Button>
          <Button onClick={() => setEditing(role)} aria-label={`Edit ${role.name}`}>
            Edit
          </Button>
          {role.id !== ADMIN_ROLE && (
            <ActiveToggle
              name={role.name}
              active={role.status === 'active'}
              onChange={(active) => setActive(role, active)}
            />
          )}
          {role.id !== ADMIN_ROLE && role.id !== USER_ROLE && (
            <RowButton action="Delete" name={role.name} kind="danger" onClick={() => remove(role)} />
          )}
        </>
      ),
    },
  ]

  return (
    <Page
      title="Roles"
      actions={
        <Button kind="primary" onClick={() => setEditing('new')}>
          New role
        </Button>
      }
    >
      {figures && (
        <Figures label="Role figures">
          <Figure value={figures.total} label="Roles" />
          <Figure value={figures.active} label="Active" />
          <Figure value={figures.inactive} label="Inactive" />
          <Figure value={figures.averagePermissions} label="Permissions per role" />
        </Figures>
      )}
      <div class="toolbar">
        <StatusFilter value={status ?? ''} onValue={(value) => setFilter('status', value)} />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <PagedTable
        caption="Roles"
        columns={columns}
        rows={list.data?.roles}
        rowKey={(role) => role.id}
        busy={list.loading}
        empty={status ? 'No role has this status.' : 'No roles yet.'}
        error={list.error}
        meta={list.data}
        page={page}
        onPage={setPage}
      />
      <EditDialog editing={editing} title={roleFormTitle} onClose={() => setEditing(null)} onSaved={changed}>
        {(role, form) => <RoleForm role={role} {...form} />}
      </EditDialog>
      <EditDialog
        editing={granting}
        title={permissionsTitle}
        onClose={() => setGranting(null)}
        wide
        onSaved={changed}
      >
        {(role, form) => <PermissionsForm role={role} {...form} />}
      </EditDialog>
    </Page>
  )
}
