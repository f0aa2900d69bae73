/** What the clients list and a client's page share: the client's types and labels, its choices, its deletion. */
import { ApiError, unwrap } from '../shared/api.ts'
import type { RowAction } from '../shared/row-action.ts'
import { type Option, Select } from '../shared/ui.tsx'
import { type Answer, api } from './api.ts'

export type Client = Answer<'/api/admin/clients'>['data']['clients'][number]
export type ClientStatus = Client['status']
export type ClientPlan = Client['plan']
export type AccountType = Client['accountType']

export const CLIENT_STATUS_LABELS: Record<ClientStatus, string> = {
  active: 'Active',
  trial: 'Trial',
  inactive: 'Inactive',
  suspended: 'Suspended',
}
export const PLAN_LABELS: Record<ClientPlan, string> = {
  free: 'Free',
  standard: 'Standard',
  premium: 'Premium',
}
export const ACCOUNT_TYPE_LABELS: Record<AccountType, string> = {
  individual: 'Individual',
  business: 'Business',
  enterprise: 'Enterprise',
}

/** A label map as a select's options. */
export const optionsOf = <K extends string>(labels: Record<K, string>): Option[] =>
  (Object.entries(labels) as [K, string][]).map(([value, label]) => ({ value, label }))

/** The client's status as a badge. */
export function ClientStatusBadge({ status }: { status: ClientStatus }) {
  return <span class={`status status-${status}`}>{CLIENT_STATUS_LABELS[status]}</span>
}

/** The three choices of a client, by their API names. */
export type ClientChoice = 'status' | 'plan' | 'accountType'

/**
 * The Status, Plan and Account type selects of a client's form; `first` is an option put before each
 * one's (the bulk change's "Leave as it is").
 */
export function ClientChoices({
  values,
  onValue,
  errors = {},
  first,
}: {
  values: Record<ClientChoice, string>
  onValue: (choice: ClientChoice, value: string) => void
  errors?: Partial<Record<string, string>>
  first?: Option
}) {
  const options = (labels: Record<string, string>) => [...(first ? [first] : []), ...optionsOf(labels)]
  return (
    <>
      <Select
        label="Status"
        value={values.status}
        onValue={(value) => onValue('status', value)}
        error={errors.status}
        options={options(CLIENT_STATUS_LABELS)}
      />
      <Select
        label="Plan"
        value={values.plan}
        onValue={(value) => onValue('plan', value)}
        error={errors.plan}
        options={options(PLAN_LABELS)}
      />
      <Select
        label="Account type"
        value={values.accountType}
        onValue={(value) => onValue('accountType', value)}
        error={errors.accountType}
        options={options(ACCOUNT_TYPE_LABELS)}
      />
    </>
  )
}

/** Deleting a client's profile (their sign-in account stays), asked first, for `useRowAction`. */
export function deleteClient(client: Client): Omit<RowAction, 'reload'> {
  return {
    ask: {
      title: 'Delete this client?',
      message: `The client profile of “${client.displayName}” will be deleted for good. Their sign-in account stays.`,
      confirmLabel: 'Delete',
      danger: true,
    },
    run: () =>
      unwrap(api.DELETE('/api/admin/clients/{clientId}', { params: { path: { clientId: client.id } } })),
    done: `“${client.displayName}” deleted`,
  }
}

/**
 * The client routes answer a taken email or username with a 409 and no field: it is put back on its
 * field, where the admin can fix it.
 */
export function onItsField(error: unknown): never {
  if (error instanceof ApiError && error.status === 409) {
    const field =
      error.code === 'USERNAME_TAKEN' ? 'username' : error.code === 'CLIENT_EXISTS' ? 'email' : undefined
    if (field) throw new ApiError(409, error.code, error.message, [{ field, message: error.message }])
  }
  throw error
}
