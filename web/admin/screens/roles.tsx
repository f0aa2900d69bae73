/**
 * Roles: the figures, the status filter and sort in the query string, paging on the server, creating and
 * editing a role, deactivating or deleting one, and its permissions as a checkbox per `area.action` of the
 * directory's catalogue, grouped by area and saved whole.
 */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useFields } from '../../shared/fields.ts'
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
  Checkbox,
  Dialog,
  formatDate,
  Loading,
  Notice,
  Select,
  TextArea,
  TextField,
  useToast,
} from '../../shared/ui.tsx'
import { ActiveStatus, ActiveToggle, StatusFilter } from '../active.tsx'
import { type Answer, api } from '../api.ts'
import './people.css'

type Role = Answer<'/api/admin/roles'>['roles'][number]
type RoleStatus = Role['status']

const PAGE_SIZE = 25

/** The seeded roles the API protects: `admin` stays active and an admin; `user` is never deleted for good. */
const ADMIN_ROLE = 'admin'
const USER_ROLE = 'user'

/** How the console names each permission area of the API's catalogue (an unknown area shows as it is). */
const AREA_LABELS: Record<string, string> = {
  clients: 'Clients',
  users: 'Users',
  roles: 'Roles',
  categories: 'Categories',
  items: 'Items',
  tags: 'Tags',
  companies: 'Companies',
  comments: 'Comments',
  collections: 'Collections',
  'featured-items': 'Featured items',
  'sponsor-ads': 'Sponsor ads',
  reports: 'Reports',
  settings: 'Settings',
  navigation: 'Navigation',
  notifications: 'Notifications',
  analytics: 'Analytics',
  crm: 'CRM',
  geocode: 'Geocoding',
}

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
  // Each opening of a dialog gets a fresh form; closing keeps the dialog, so focus goes back where it was.
  const [editing, setEditing] = useState<Role | 'new' | null>(null)
  const [granting, setGranting] = useState<Role | null>(null)
  const [opened, setOpened] = useState(0)

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
          <Button
            onClick={() => {
              setOpened((count) => count + 1)
              setGranting(role)
            }}
            aria-label={`Permissions of ${role.name}`}
          >
            Permissions
          </Button>
          <Button
            onClick={() => {
              setOpened((count) => count + 1)
              setEditing(role)
            }}
            aria-label={`Edit ${role.name}`}
          >
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
        <Button
          kind="primary"
          onClick={() => {
            setOpened((count) => count + 1)
            setEditing('new')
          }}
        >
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
      <RoleDialog
        key={`role-${opened}`}
        role={editing}
        onClose={() => setEditing(null)}
        onSaved={async (message) => {
          setEditing(null)
          await changed(message)
        }}
      />
      <PermissionsDialog
        key={`permissions-${opened}`}
        role={granting}
        onClose={() => setGranting(null)}
        onSaved={async (message) => {
          setGranting(null)
          await changed(message)
        }}
      />
    </Page>
  )
}

interface Form {
  name: string
  description: string
  status: RoleStatus
  isAdmin: boolean
}

function RoleDialog({
  role,
  onClose,
  onSaved,
}: {
  role: Role | 'new' | null
  onClose: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const existing = role !== null && role !== 'new' ? role : undefined
  const [form, set] = useFields<Form>({
    name: existing?.name ?? '',
    description: existing?.description ?? '',
    status: existing?.status ?? 'active',
    isAdmin: existing?.isAdmin ?? false,
  })
  const save = useSubmit(async () => {
    const body = {
      name: form.name.trim(),
      description: form.description.trim(),
      status: form.status,
      isAdmin: form.isAdmin,
    }
    if (existing) {
      await unwrap(api.PUT('/api/admin/roles/{id}', { params: { path: { id: existing.id } }, body }))
      await onSaved(`“${body.name}” saved`)
    } else {
      const created = await unwrap(api.POST('/api/admin/roles', { body }))
      await onSaved(`Role “${created.data.name}” created`)
    }
  }, ['name', 'description', 'status', 'isAdmin'])
  const f = save.fields
  const close = () => {
    save.reset()
    onClose()
  }
  const protectedRole = existing?.id === ADMIN_ROLE
  const title = existing ? `Edit “${existing.name}”` : 'New role'
  return (
    <Dialog title={title} open={role !== null} onClose={close}>
      <form onSubmit={save.submit} noValidate aria-label={title}>
        {save.error && <Notice kind="error">{save.error}</Notice>}
        <TextField
          label="Name"
          value={form.name}
          onValue={set('name')}
          error={f.name}
          required
          maxLength={100}
          hint={existing ? `Its id stays ${existing.id}` : 'Its id is made from the name'}
        />
        <TextArea
          label="Description"
          value={form.description}
          onValue={set('description')}
          error={f.description}
          maxLength={500}
          rows={3}
        />
        <Select
          label="Status"
          value={form.status}
          onValue={(value) => set('status')(value as RoleStatus)}
          error={f.status}
          disabled={protectedRole}
          options={[
            { value: 'active', label: 'Active' },
            { value: 'inactive', label: 'Inactive' },
          ]}
        />
        <Checkbox
          label="Admin: may use the admin console and API, whatever its permissions"
          checked={form.isAdmin}
          onValue={set('isAdmin')}
          disabled={protectedRole}
        />
        {f.isAdmin && <p class="field-error">{f.isAdmin}</p>}
        {protectedRole && (
          <p class="muted small">The administrator role always stays active and an admin role.</p>
        )}
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            {existing ? 'Save' : 'Create role'}
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}

/** The role's permissions, read fresh from the API, a checkbox each; saving replaces the whole list. */
function PermissionsDialog({
  role,
  onClose,
  onSaved,
}: {
  role: Role | null
  onClose: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const [granted, setGranted] = useState<Set<string> | null>(null)
  // The catalogue is the API's (`GET /api/admin/roles/permissions`): the console never keeps its own copy.
  const catalogue = useResource(
    async (signal) => (await unwrap(api.GET('/api/admin/roles/permissions', { signal }))).data,
    [],
  )
  const known = new Set(catalogue.data?.flatMap((area) => area.permissions) ?? [])
  const current = useResource(
    async (signal) =>
      role
        ? (
            await unwrap(
              api.GET('/api/admin/roles/{id}/permissions', { signal, params: { path: { id: role.id } } }),
            )
          ).data
        : undefined,
    [role?.id],
  )
  useEffect(() => {
    if (current.data && granted === null) setGranted(new Set(current.data.permissions))
  }, [current.data])
  const save = useSubmit(async () => {
    if (!role || !granted) return
    const permissions = [...granted].sort()
    await unwrap(
      api.PUT('/api/admin/roles/{id}/permissions', {
        params: { path: { id: role.id } },
        body: { permissions },
      }),
    )
    await onSaved(
      `“${role.name}” now has ${permissions.length} ${permissions.length === 1 ? 'permission' : 'permissions'}`,
    )
  })
  const close = () => {
    save.reset()
    onClose()
  }
  const toggle = (names: readonly string[], on: boolean) =>
    setGranted((previous) => {
      const next = new Set(previous)
      for (const name of names) {
        if (on) next.add(name)
        else next.delete(name)
      }
      return next
    })
  // Permissions the role has that the catalogue above does not know are shown, so saving keeps them
  // in view (the API would name them if it refuses them).
  const unknown = catalogue.data ? [...(granted ?? [])].filter((name) => !known.has(name)).sort() : []

  return (
    <Dialog
      title={role ? `Permissions of “${role.name}”` : 'Permissions'}
      open={role !== null}
      onClose={close}
      wide
    >
      {current.error !== undefined && <Notice kind="error">{(current.error as Error).message}</Notice>}
      {catalogue.error !== undefined && <Notice kind="error">{(catalogue.error as Error).message}</Notice>}
      {(!granted || !catalogue.data) && current.error === undefined && catalogue.error === undefined && (
        <Loading what="Loading the permissions" />
      )}
      {granted && role && catalogue.data && (
        <form onSubmit={save.submit} noValidate aria-label={`Permissions of ${role.name}`}>
          {save.error && <Notice kind="error">{save.error}</Notice>}
          {role.isAdmin && (
            <Notice>This is an admin role: its users may do everything, whatever is checked here.</Notice>
          )}
          <p class="muted">
            {granted.size} of {known.size} permissions granted.
          </p>
          <div class="permission-groups">
            {catalogue.data.map(({ area, actions, permissions: names }) => {
              const label = AREA_LABELS[area] ?? area
              const all = names.every((name) => granted.has(name))
              return (
                <fieldset key={area} class="permission-group">
                  <legend>{label}</legend>
                  <Checkbox
                    label={`All ${label.toLowerCase()} permissions`}
                    checked={all}
                    onValue={(on) => toggle(names, on)}
                  />
                  <div class="permission-actions">
                    {actions.map((action, i) => {
                      const name = names[i] ?? `${area}.${action}`
                      return (
                        <Checkbox
                          key={name}
                          label={name}
                          checked={granted.has(name)}
                          onValue={(on) => toggle([name], on)}
                        />
                      )
                    })}
                  </div>
                </fieldset>
              )
            })}
            {unknown.length > 0 && (
              <fieldset class="permission-group">
                <legend>Not in the catalogue</legend>
                {unknown.map((name) => (
                  <Checkbox key={name} label={name} checked onValue={(on) => toggle([name], on)} />
                ))}
              </fieldset>
            )}
          </div>
          <div class="actions">
            <Button kind="primary" type="submit" busy={save.busy}>
              Save permissions
            </Button>
            <Button onClick={close}>Cancel</Button>
          </div>
        </form>
      )}
    </Dialog>
  )
}
