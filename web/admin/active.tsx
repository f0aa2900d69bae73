/** A record's active state (companies, categories, collections, featured items, users, roles): its badge and filters. */
import { RowButton } from '../shared/row-button.tsx'
import { Select } from '../shared/ui.tsx'

/** `Active` or `Inactive`, as a status badge. */
export function ActiveStatus({ active }: { active: boolean }) {
  return (
    <span class={`status status-${active ? 'active' : 'inactive'}`}>{active ? 'Active' : 'Inactive'}</span>
  )
}

/** The `State` select of a list: `true`, `false` or either (empty), as the API's `isActive`. */
export function ActiveFilter({ value, onValue }: { value: string; onValue: (value: string) => void }) {
  return (
    <Select
      label="State"
      value={value}
      onValue={onValue}
      options={[
        { value: '', label: 'Active or not' },
        { value: 'true', label: 'Active' },
        { value: 'false', label: 'Inactive' },
      ]}
    />
  )
}

/** The query string's `active` as the API's `isActive` filter (left out unless `true` or `false`). */
export function isActiveParam(active: string): { isActive?: 'true' | 'false' } {
  return active === 'true' || active === 'false' ? { isActive: active } : {}
}

/** The `Status` select of a list of users or roles: `active`, `inactive` or any (empty). */
export function StatusFilter({ value, onValue }: { value: string; onValue: (value: string) => void }) {
  return (
    <Select
      label="Status"
      value={value}
      onValue={onValue}
      options={[
        { value: '', label: 'Any status' },
        { value: 'active', label: 'Active' },
        { value: 'inactive', label: 'Inactive' },
      ]}
    />
  )
}

/** The row button that deactivates an active record (`Deactivate <name>`) or activates an inactive one. */
export function ActiveToggle({
  name,
  active,
  onChange,
}: {
  name: string
  active: boolean
  onChange: (active: boolean) => unknown
}) {
  return active ? (
    <RowButton action="Deactivate" name={name} onClick={() => onChange(false)} />
  ) : (
    <RowButton action="Activate" name={name} onClick={() => onChange(true)} />
  )
}
