/**
 * The New user and Edit user form, in the users list's dialog: name, email, username, password (a new
 * user's), role, status (an existing user's), title and avatar. A taken email or username is named next to
 * its field while it is typed; an edit sends only what changed.
 */

import { unwrap } from '../../shared/api.ts'
import type { FormHandlers } from '../../shared/edit-dialog.tsx'
import { orNull, useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Notice, Select, TextField } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { useTaken } from './users-taken.ts'

export type User = Answer<'/api/admin/users'>['data'][number]
type UserStatus = User['status']
export type Role = Answer<'/api/admin/roles'>['roles'][number]

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
const USERNAME_ON_CREATE = /^[a-zA-Z0-9_-]{3,30}$/
const USERNAME_ON_UPDATE = /^[a-zA-Z0-9_-]{3,50}$/

/** How the console names a user: their name, or their username without one. */
export const nameOf = (user: User) => user.name ?? user.username

/** The dialog's title (and the form's name): `Edit “<name>”`, or `New user`. */
export const userFormTitle = (user: User | null) => (user ? `Edit “${nameOf(user)}”` : 'New user')

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

/** The form of `user`, or of a new user when `null`. */
export function UserForm({
  user,
  roles,
  onCancel,
  onSaved,
}: FormHandlers & {
  user: User | null
  roles: readonly Role[]
}) {
  const existing = user ?? undefined
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
  const title = userFormTitle(user)
  const roleOptions = [
    ...roles.map((r) => ({ value: r.id, label: r.status === 'inactive' ? `${r.name} (inactive)` : r.name })),
    ...(form.role && !roles.some((r) => r.id === form.role) ? [{ value: form.role, label: form.role }] : []),
    ...(existing?.role === null ? [{ value: '', label: 'No role' }] : []),
  ]

  return (
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
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
