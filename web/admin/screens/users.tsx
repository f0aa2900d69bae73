/**
 * Users: the figures, search, role and status filters and sort in the query string, paging on the
 * server, and creating, editing and deleting a user. The form asks the API whether an email or username
 * is free while it is typed, so a taken one is named next to its field before the form is sent.
 */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { orNull, useFields } from '../../shared/fields.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { useSubmit } from '../../shared/form.ts'
import { sortParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import {
  Button,
  Dialog,
  formatDate,
  Notice,
  SearchBox,
  Select,
  TextField,
  useToast,
} from '../../shared/ui.tsx'
import { ActiveStatus, StatusFilter } from '../active.tsx'
import { type Answer, api } from '../api.ts'
import { useUser } from '../session.tsx'
import './people.css'

type User = Answer<'/api/admin/users'>['data'][number]
type UserStatus = User['status']
type Role = Answer<'/api/admin/roles'>['roles'][number]

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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const USERNAME_ON_CREATE = /^[a-zA-Z0-9_-]{3,30}$/
const USERNAME_ON_UPDATE = /^[a-zA-Z0-9_-]{3,50}$/

const nameOf = (user: User) => user.name ?? user.username

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
  // Each opening gets a fresh form; closing keeps the dialog, so focus goes back where it was.
  const [opened, setOpened] = useState(0)
  const edit = (user: User | 'new') => {
    setOpened((count) => count + 1)
    setEditing(user)
  }

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
          <RowButton action="Edit" name={nameOf(user)} onClick={() => edit(user)} />
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
        <Button kind="primary" onClick={() => edit('new')}>
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
      <UserDialog
        key={opened}
        user={editing}
        roles={roleList}
        onClose={() => setEditing(null)}
        onSaved={async (message) => {
          setEditing(null)
          await changed(message)
        }}
      />
    </Page>
  )
}

/**
 * Whether another user holds `value`, asked once the user stops typing: the message to show next to the
 * field, or undefined while it is free, unchecked or not well formed (the form's own checks say why).
 */
function useTaken(
  kind: 'email' | 'username',
  value: string,
  wellFormed: (value: string) => boolean,
  original: string | undefined,
  excludeId: string | undefined,
): string | undefined {
  const [taken, setTaken] = useState<string | null>(null)
  const trimmed = value.trim()
  useEffect(() => {
    if (!wellFormed(trimmed) || trimmed.toLowerCase() === original?.toLowerCase()) return
    const controller = new AbortController()
    const timer = window.setTimeout(async () => {
      try {
        const body = { ...(excludeId ? { excludeId } : {}) }
        const answer =
          kind === 'email'
            ? await unwrap(
                api.POST('/api/admin/users/check-email', {
                  signal: controller.signal,
                  body: { ...body, email: trimmed },
                }),
              )
            : await unwrap(
                api.POST('/api/admin/users/check-username', {
                  signal: controller.signal,
                  body: { ...body, username: trimmed },
                }),
              )
        setTaken(answer.available ? null : trimmed)
      } catch {
        // A failed check says nothing: the API checks again when the form is sent.
      }
    }, 350)
    return () => {
      window.clearTimeout(timer)
      controller.abort()
    }
  }, [kind, trimmed, original, excludeId])
  if (taken === null || taken !== trimmed) return undefined
  return kind === 'email' ? 'This email is already taken by another user.' : 'This username is already taken.'
}

interface Form {
  name: string
  username: string
  email: string
  password: string
  role: string
  title: string
  avatar: string
  status: UserStatus
}

const FIELDS = ['name', 'username', 'email', 'password', 'role', 'title', 'avatar', 'status']

function UserDialog({
  user,
  roles,
  onClose,
  onSaved,
}: {
  user: User | 'new' | null
  roles: readonly Role[]
  onClose: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const existing = user !== null && user !== 'new' ? user : undefined
  const [form, set] = useFields<Form>({
    name: existing?.name ?? '',
    username: existing?.username ?? '',
    email: existing?.email ?? '',
    password: '',
    role: existing?.role ?? 'user',
    title: existing?.title ?? '',
    avatar: existing?.avatar ?? '',
    status: existing?.status ?? 'active',
  })
  const emailTaken = useTaken(
    'email',
    form.email,
    (value) => EMAIL.test(value),
    existing?.email,
    existing?.id,
  )
  const usernameTaken = useTaken(
    'username',
    form.username,
    (value) => (existing ? USERNAME_ON_UPDATE : USERNAME_ON_CREATE).test(value),
    existing?.username,
    existing?.id,
  )

  const save = useSubmit(async () => {
    const trimmed = (value: string) => value.trim()
    if (existing) {
      // Only what changed is sent: the API changes the given fields and leaves the rest.
      const body = {
        ...(trimmed(form.name) !== (existing.name ?? '') ? { name: trimmed(form.name) } : {}),
        ...(trimmed(form.username) !== existing.username ? { username: trimmed(form.username) } : {}),
        ...(trimmed(form.email) !== existing.email ? { email: trimmed(form.email) } : {}),
        ...(form.role !== (existing.role ?? '') ? { role: form.role } : {}),
        ...(orNull(form.title) !== existing.title ? { title: orNull(form.title) } : {}),
        ...(orNull(form.avatar) !== existing.avatar ? { avatar: orNull(form.avatar) } : {}),
        ...(form.status !== existing.status ? { status: form.status } : {}),
      }
      await unwrap(api.PUT('/api/admin/users/{id}', { params: { path: { id: existing.id } }, body }))
      await onSaved(`“${trimmed(form.name) || trimmed(form.username)}” saved`)
    } else {
      const created = await unwrap(
        api.POST('/api/admin/users', {
          body: {
            name: trimmed(form.name),
            username: trimmed(form.username),
            email: trimmed(form.email),
            password: form.password,
            role: form.role,
            ...(trimmed(form.title) ? { title: trimmed(form.title) } : {}),
            ...(trimmed(form.avatar) ? { avatar: trimmed(form.avatar) } : {}),
          },
        }),
      )
      await onSaved(`User “${created.data.name ?? created.data.username}” created`)
    }
  }, FIELDS)
  const f = save.fields
  const close = () => {
    save.reset()
    onClose()
  }
  const title = existing ? `Edit “${nameOf(existing)}”` : 'New user'
  const roleOptions = [
    ...roles.map((r) => ({ value: r.id, label: r.status === 'inactive' ? `${r.name} (inactive)` : r.name })),
    ...(form.role && !roles.some((r) => r.id === form.role) ? [{ value: form.role, label: form.role }] : []),
    ...(existing?.role === null ? [{ value: '', label: 'No role' }] : []),
  ]

  return (
    <Dialog title={title} open={user !== null} onClose={close} wide>
      <form onSubmit={save.submit} noValidate aria-label={title}>
        {save.error && <Notice kind="error">{save.error}</Notice>}
        <div class="grid-2">
          <TextField
            label="Name"
            value={form.name}
            onValue={set('name')}
            error={f.name}
            required
            maxLength={100}
            autocomplete="off"
          />
          <TextField
            label="Email"
            type="email"
            value={form.email}
            onValue={set('email')}
            error={f.email ?? emailTaken}
            required
            autocomplete="off"
          />
          <TextField
            label="Username"
            value={form.username}
            onValue={set('username')}
            error={f.username ?? usernameTaken}
            required
            autocomplete="off"
            maxLength={existing ? 50 : 30}
            hint={`3 to ${existing ? 50 : 30} letters, digits, _ or -`}
          />
          {!existing && (
            <TextField
              label="Password"
              type="password"
              value={form.password}
              onValue={set('password')}
              error={f.password}
              required
              autocomplete="new-password"
              hint="At least 8 characters"
              maxLength={128}
            />
          )}
          <Select label="Role" value={form.role} onValue={set('role')} error={f.role} options={roleOptions} />
          {existing && (
            <Select
              label="Status"
              value={form.status}
              onValue={(value) => set('status')(value as UserStatus)}
              error={f.status}
              options={[
                { value: 'active', label: 'Active' },
                { value: 'inactive', label: 'Inactive' },
              ]}
            />
          )}
          <TextField
            label="Title"
            value={form.title}
            onValue={set('title')}
            error={f.title}
            maxLength={100}
            hint="A job title, shown with their name"
          />
          <TextField
            label="Avatar URL"
            type="url"
            value={form.avatar}
            onValue={set('avatar')}
            error={f.avatar}
            placeholder="https://"
          />
        </div>
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            {existing ? 'Save' : 'Create user'}
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}
