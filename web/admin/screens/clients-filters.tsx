/**
 * The clients list's filters, kept in the query string: the status (its tabs are the screen's), plan,
 * account type, sign-in provider, creation date range and sort, read back with each value checked, and
 * the toolbar where the user sets them beside the search.
 */
import type { ListState } from '../../shared/list.ts'
import { SearchBox, Select, TextField } from '../../shared/ui.tsx'
import {
  ACCOUNT_TYPE_LABELS,
  type AccountType,
  CLIENT_STATUS_LABELS,
  type ClientPlan,
  type ClientStatus,
  optionsOf,
  PLAN_LABELS,
} from '../client-profile.tsx'
import { ADVANCED_KEYS, type AdvancedKey, readAdvanced } from './clients-advanced-search.tsx'
import { pick } from './clients-params.ts'

export const SORTS = [
  { value: '', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'updatedAt:desc', label: 'Recently updated' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'email:asc', label: 'Email A–Z' },
  { value: 'company:asc', label: 'Company A–Z' },
  { value: 'totalSubmissions:desc', label: 'Most submissions' },
] as const

export type ClientSort = (typeof SORTS)[number]['value']

/** The filters in use; a value the address gives that is not one of the choices is no filter. */
export interface ClientFilters {
  status: ClientStatus | undefined
  plan: ClientPlan | undefined
  accountType: AccountType | undefined
  provider: string
  createdAfter: string
  createdBefore: string
  advanced: Record<AdvancedKey, string>
  advancedInUse: boolean
  /** The advanced criteria as one string, which changes when any of them does. */
  advancedSignature: string
}

const DATE = /^\d{4}-\d{2}-\d{2}$/

export function readFilters(query: URLSearchParams): ClientFilters {
  const advanced = readAdvanced(query)
  return {
    status: pick(CLIENT_STATUS_LABELS, query.get('status')),
    plan: pick(PLAN_LABELS, query.get('plan')),
    accountType: pick(ACCOUNT_TYPE_LABELS, query.get('accountType')),
    provider: query.get('provider') ?? '',
    createdAfter: DATE.test(query.get('createdAfter') ?? '') ? (query.get('createdAfter') ?? '') : '',
    createdBefore: DATE.test(query.get('createdBefore') ?? '') ? (query.get('createdBefore') ?? '') : '',
    advanced,
    advancedInUse: ADVANCED_KEYS.some((key) => advanced[key] !== ''),
    advancedSignature: ADVANCED_KEYS.map((key) => advanced[key]).join('|'),
  }
}

/** The search box and the filter selects, dates and sort above the list. */
export function ClientToolbar({
  list: { search, sort, setSearch, setFilter, setSort },
  filters: { plan, accountType, provider, createdAfter, createdBefore },
  providers: known,
  errors,
}: {
  list: ListState<ClientSort>
  filters: ClientFilters
  /** The providers the clients' figures name. */
  providers: readonly string[]
  /** A refused query's messages by parameter (an out-of-range bound, a malformed date). */
  errors: Record<string, string>
}) {
  const providers = [...known].sort()
  if (provider && !providers.includes(provider)) providers.push(provider)
  return (
    <div class="toolbar">
      <SearchBox value={search} placeholder="Name or email" onSearch={setSearch} />
      <Select
        label="Plan"
        value={plan ?? ''}
        onValue={(value) => setFilter('plan', value)}
        options={[{ value: '', label: 'Any plan' }, ...optionsOf(PLAN_LABELS)]}
      />
      <Select
        label="Account type"
        value={accountType ?? ''}
        onValue={(value) => setFilter('accountType', value)}
        options={[{ value: '', label: 'Any type' }, ...optionsOf(ACCOUNT_TYPE_LABELS)]}
      />
      <Select
        label="Provider"
        value={provider}
        onValue={(value) => setFilter('provider', value)}
        options={[
          { value: '', label: 'Any provider' },
          ...providers.map((name) => ({ value: name, label: name })),
        ]}
      />
      <TextField
        label="Created from"
        type="date"
        value={createdAfter}
        max={createdBefore || undefined}
        error={errors.createdAfter}
        onValue={(value) => setFilter('createdAfter', value)}
      />
      <TextField
        label="Created to"
        type="date"
        value={createdBefore}
        min={createdAfter || undefined}
        error={errors.createdBefore}
        onValue={(value) => setFilter('createdBefore', value)}
      />
      <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
    </div>
  )
}
