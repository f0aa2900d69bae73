/**
 * Users: the figures, search, role and status filters and sort in the query string, paging on the
 * server, and creating, editing (the form is users-form.tsx) and deleting a user.
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
import { Button, formatDate, SearchBox, Select, useToast } from '../../shared/ui.tsx'
import { ActiveStatus, StatusFilter } from '../active.tsx'
import { api } from '../api.ts'
import { useUser } from '../session.tsx'
import { nameOf, type User, UserForm, userFormTitle } from './users-form.tsx'
import './people.css'

const PAGE_SIZE = 25

const SORTS = [
  { value: '', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'username:asc', label: 'Username A–Z' },
  { value: 'email:asc', label: 'Email A–Z' },
  { value: 'role:asc', label: 'Role' },
  { value: 'created_at:desc', label: 'Newest first' },
  { value: 'created_at:asc', label: 'Oldest first' },
] as const

export default function Users() {
  const { query, page, search, sort, setSearch, setFilter, setSort, setPage } = useList(SORTS, '')
  const [sortBy, sortOrder] = sortParams(sort || 'name:asc')
  const role = query.get('role') ?? ''
  const statusParam = query.get('status')
  const status = statusParam === 'active' || statusParam === 'inactive' ? statusParam : undefined
  const toast = useToast()
  const act = useRowAction()
  const me = useUser()
  // null: closed; 'new': creating; a user: editing them.
  const [editing, setEditing] = useState<User | 'new' | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/users', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              sortBy,
              sortOrder,
              ...(search ? { search } : {}),
              ...(role ? { role } : {}),
              // Without a status the API leaves inactive users out; the console shows every user then.
              ...(status ? { status } : { includeInactive: true }),
            },
          },
        }),
      ),
    [page, search, role, status, sortBy, sortOrder],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/users/stats', { signal })), [list.data])
  const roles = useResource(
    (signal) => unwrap(api.GET('/api/admin/roles', { signal, params: { query: { limit: 100 } } })),
    [],
  )

  const roleList = roles.data?.roles ?? []
  const roleName = (id: string | null) =>
    id === null ? '—' : (roleList.find((candidate) => candidate.id === id)?.name ?? id)
  const figures = stats.data?.data
  const rows = list.data?.data

  const changed = async (message: string) => {
    toast('success', message)
    await list.reload()
  }

  const remove = (user: User) =>
    act({
      ask: {
        title: 'Delete this user?',
        message: `“${nameOf(user)}” (${user.email}) will be deleted for good, with their client profile and sessions.`,
        confirmLabel: 'Delete',
        danger: true,
      },
      run: () => unwrap(api.DELETE('/api/admin/users/{id}', { params: { path: { id: user.id } } })),
      done: `“${nameOf(user)}” deleted`,
      reload: list.reload,
    })

  const columns: Column<User>[] = [
    {
      header: 'Name',
      cell: (user) => (
        <>
          {nameOf(user)}
          {user.id === me.id && <span class="pill">You</span>}
          <div class="muted small">{user.email}</div>
        </>
      ),
    },
    { header: 'Username', secondary: true, cell: (user) => user.username },
    { header: 'Role', cell: (user) => roleName(user.role) },
    {
      header: 'Status',
      cell: (user) => <ActiveStatus active={user.status === 'active'} />,
    },
    { header: 'Last sign-in', secondary: true, cell: (user) => formatDate(user.last_login, true) },
    { header: 'Created', secondary: true, cell: (user) => formatDate(user.created_at) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (user) => (
        <>
          <RowButton action="Edit" name={nameOf(user)} onClick={() => setEditing(user)} />
          {/* The API refuses an admin's deleting their own account: the button is not offered. */}
          {user.id !== me.id && (
            <RowButton action="Delete" name={nameOf(user)} kind="danger" onClick={() => remove(user)} />
          )}
        </>
      ),
    },
  ]

  return (
    <Page
      title="Users"
      actions={
        <Button kind="primary" onClick={() => setEditing('new')}>
          New user
        </Button>
      }
    >
      {figures && (
        <Figures label="User figures">
          <Figure value={figures.totalUsers} label="Users" />
          <Figure value={figures.activeUsers} label="Active" />
          <Figure value={figures.inactiveUsers} label="Inactive" />
          <Figure value={figures.recentRegistrations} label="New in the last 30 days" />
          <Figure value={figures.averageLoginFrequency} label="Sign-ins per user" />
        </Figures>
      )}
      <div class="toolbar">
        <SearchBox value={search} placeholder="Name, username or email" onSearch={setSearch} />
        <Select
          label="Role"
          value={role}
          onValue={(value) => setFilter('role', value)}
          options={[
            { value: '', label: 'Any role' },
            ...roleList.map((r) => {
              const users = figures?.roleDistribution[r.id]
              return { value: r.id, label: users === undefined ? r.name : `${r.name} (${users})` }
            }),
            ...(role && !roleList.some((r) => r.id === role) ? [{ value: role, label: role }] : []),
          ]}
        />
        <StatusFilter value={status ?? ''} onValue={(value) => setFilter('status', value)} />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <PagedTable
        caption="Users"
        columns={columns}
        rows={rows}
        rowKey={(user) => user.id}
        busy={list.loading}
        empty={search || role || status ? 'No user matches these filters.' : 'No users yet.'}
        error={list.error}
        meta={list.data}
        page={page}
        onPage={setPage}
      />
      <EditDialog
        editing={editing}
        title={userFormTitle}
        onClose={() => setEditing(null)}
        wide
        onSaved={changed}
      >
        {(user, form) => <UserForm user={user} roles={roleList} {...form} />}
      </EditDialog>
    </Page>
  )
}
