/**
 * The New role and Edit role form, in the roles list's dialog: name, description, status and whether it is
 * an admin role. The administrator role always stays active and an admin role.
 */
import { unwrap } from '../../shared/api.ts'
import type { FormHandlers } from '../../shared/edit-dialog.tsx'
import { useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Checkbox, Notice, Select, TextArea, TextField } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'

export type Role = Answer<'/api/admin/roles'>['roles'][number]
type RoleStatus = Role['status']

/** The seeded roles the API protects: `admin` stays active and an admin; `user` is never deleted for good. */
export const ADMIN_ROLE = 'admin'
export const USER_ROLE = 'user'

/** The dialog's title (and the form's name): `Edit “<name>”`, or `New role`. */
export const roleFormTitle = (role: Role | null) => (role ? `Edit “${role.name}”` : 'New role')

interface Form {
  name: string
  description: string
  status: RoleStatus
  isAdmin: boolean
}

/** The form of `role`, or of a new role when `null`. */
export function RoleForm({ role, onCancel, onSaved }: FormHandlers & { role: Role | null }) {
  const existing = role ?? undefined
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
  const protectedRole = existing?.id === ADMIN_ROLE
  const title = roleFormTitle(role)
  return (
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
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
