/**
 * A role's permissions, in the roles list's dialog: a checkbox per `area.action` of the directory's
 * catalogue, grouped by area with an "All" box per area, and the role's permissions the catalogue does not
 * know shown apart; saving replaces the role's whole list.
 */
import { useEffect, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import type { FormHandlers } from '../../shared/edit-dialog.tsx'
import { useSubmit } from '../../shared/form.ts'
import { useResource } from '../../shared/resource.ts'
import { Button, Checkbox, Loading, Notice } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import type { Role } from './roles-form.tsx'

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

/** The dialog's title: `Permissions of “<name>”`. */
export const permissionsTitle = (role: Role) => `Permissions of “${role.name}”`

/** The role's permissions, read fresh from the API, a checkbox each; saving replaces the whole list. */
export function PermissionsForm({ role, onCancel, onSaved }: FormHandlers & { role: Role }) {
  const [granted, setGranted] = useState<Set<string> | null>(null)
  // The catalogue is the API's (`GET /api/admin/roles/permissions`): the console never keeps its own copy.
  const catalogue = useResource(
    async (signal) => (await unwrap(api.GET('/api/admin/roles/permissions', { signal }))).data,
    [],
  )
  const known = new Set(catalogue.data?.flatMap((area) => area.permissions) ?? [])
  const current = useResource(
    async (signal) =>
      (
        await unwrap(
          api.GET('/api/admin/roles/{id}/permissions', { signal, params: { path: { id: role.id } } }),
        )
      ).data,
    [role.id],
  )
  useEffect(() => {
    if (current.data && granted === null) setGranted(new Set(current.data.permissions))
  }, [current.data])
  const save = useSubmit(async () => {
    if (!granted) return
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
    <>
      {current.error !== undefined && <Notice kind="error">{(current.error as Error).message}</Notice>}
      {catalogue.error !== undefined && <Notice kind="error">{(catalogue.error as Error).message}</Notice>}
      {(!granted || !catalogue.data) && current.error === undefined && catalogue.error === undefined && (
        <Loading what="Loading the permissions" />
      )}
      {granted && catalogue.data && (
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
            <Button onClick={onCancel}>Cancel</Button>
          </div>
        </form>
      )}
    </>
  )
}
