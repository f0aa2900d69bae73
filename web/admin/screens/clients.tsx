/**
 * Clients: the status tabs with their counts and the figures of all clients, search, filters and sort in
 * the query string, the advanced search's criteria in a disclosure (also in the query string), paging on
 * the server, creating a client, and changing or deleting the selected clients in bulk.
 *
 * The list comes from the cheapest route that takes the filters in use: `GET /api/admin/clients` for the
 * plain filters, `/dashboard` when a creation date range is set, and `/advanced-search` as soon as an
 * advanced criterion or a sort other than newest first is.
 */
import { useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { useFields } from '../../shared/fields.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { useSubmit } from '../../shared/form.ts'
import { sortParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import {
  Button,
  Dialog,
  formatDate,
  Notice,
  type Option,
  SearchBox,
  Select,
  Tabs,
  TextArea,
  TextField,
  useConfirm,
  useToast,
} from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  ACCOUNT_TYPE_LABELS,
  type AccountType,
  CLIENT_STATUS_LABELS,
  type Client,
  type ClientChoice,
  ClientChoices,
  type ClientPlan,
  type ClientStatus,
  ClientStatusBadge,
  deleteClient,
  onItsField,
  optionsOf,
  PLAN_LABELS,
} from '../client-profile.tsx'
import './people.css'

const pick = <K extends string>(labels: Record<K, string>, value: string | null): K | undefined =>
  value !== null && Object.hasOwn(labels, value) ? (value as K) : undefined

const PAGE_SIZE = 25

const SORTS = [
  { value: '', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'updatedAt:desc', label: 'Recently updated' },
  { value: 'name:asc', label: 'Name A–Z' },
  { value: 'name:desc', label: 'Name Z–A' },
  { value: 'email:asc', label: 'Email A–Z' },
  { value: 'company:asc', label: 'Company A–Z' },
  { value: 'totalSubmissions:desc', label: 'Most submissions' },
] as const

/** The advanced search's criteria, by their query-string (and API) names. */
const ADVANCED_TEXT = [
  { key: 'emailDomain', label: 'Email domain', hint: 'The part after @, e.g. example.com' },
  { key: 'companySearch', label: 'Company contains' },
  { key: 'locationSearch', label: 'Location contains' },
  { key: 'industrySearch', label: 'Industry contains' },
] as const
const ADVANCED_NUMBERS = [
  { key: 'minSubmissions', label: 'At least this many submissions' },
  { key: 'maxSubmissions', label: 'At most this many submissions' },
] as const
const ADVANCED_FLAGS = [
  { key: 'emailVerified', label: 'Email verified' },
  { key: 'twoFactorEnabled', label: 'Two-factor sign-in' },
  { key: 'hasAvatar', label: 'Has an avatar' },
  { key: 'hasWebsite', label: 'Has a website' },
  { key: 'hasPhone', label: 'Has a phone number' },
] as const
const ADVANCED_KEYS = [
  ...ADVANCED_TEXT.map((f) => f.key),
  ...ADVANCED_NUMBERS.map((f) => f.key),
  ...ADVANCED_FLAGS.map((f) => f.key),
]
type AdvancedKey = (typeof ADVANCED_KEYS)[number]

const YES_NO: Option[] = [
  { value: '', label: 'Either' },
  { value: 'true', label: 'Yes' },
  { value: 'false', label: 'No' },
]

const DATE = /^\d{4}-\d{2}-\d{2}$/
const flag = (value: string | null) => (value === 'true' ? true : value === 'false' ? false : undefined)
const count = (value: string | null) =>
  value !== null && /^\d+$/.test(value) ? Number.parseInt(value, 10) : undefined

/** Leaves out the keys whose value is undefined, as the API's optional parameters want. */
function defined<T extends Record<string, unknown>>(
  object: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>
  }
}

/** A bulk call's failures, each named by its client's name where the page shows it. */
function bulkFailures(
  errors: readonly { index: number; id: string; error: string }[],
  names: ReadonlyMap<string, string>,
): string {
  return errors.map((e) => `${names.get(e.id) ?? e.id}: ${e.error}`).join('; ')
}

export default function Clients() {
  const { query, setQuery, page, search, sort, setSearch, setFilter, setSort, setPage } = useList(SORTS, '')
  const toast = useToast()
  const confirm = useConfirm()
  const act = useRowAction()
  const status = pick(CLIENT_STATUS_LABELS, query.get('status'))
  const plan = pick(PLAN_LABELS, query.get('plan'))
  const accountType = pick(ACCOUNT_TYPE_LABELS, query.get('accountType'))
  const provider = query.get('provider') ?? ''
  const createdAfter = DATE.test(query.get('createdAfter') ?? '') ? (query.get('createdAfter') ?? '') : ''
  const createdBefore = DATE.test(query.get('createdBefore') ?? '') ? (query.get('createdBefore') ?? '') : ''
  const advanced = Object.fromEntries(ADVANCED_KEYS.map((key) => [key, query.get(key) ?? ''])) as Record<
    AdvancedKey,
    string
  >
  const advancedInUse = ADVANCED_KEYS.some((key) => advanced[key] !== '')
  const advancedSignature = ADVANCED_KEYS.map((key) => advanced[key]).join('|')
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [creating, setCreating] = useState(false)
  const [bulkEditing, setBulkEditing] = useState(false)

  const list = useResource(
    async (signal) => {
      const filters = defined({
        page,
        limit: PAGE_SIZE,
        search: search || undefined,
        status,
        plan,
        accountType,
        provider: provider || undefined,
      })
      const range = defined({
        createdAfter: createdAfter || undefined,
        createdBefore: createdBefore || undefined,
      })
      if (advancedInUse || sort) {
        const [sortBy, sortOrder] = sortParams(sort || 'createdAt:desc')
        const answer = await unwrap(
          api.GET('/api/admin/clients/advanced-search', {
            signal,
            params: {
              query: {
                ...filters,
                ...range,
                sortBy,
                sortOrder,
                ...defined({
                  emailDomain: advanced.emailDomain || undefined,
                  companySearch: advanced.companySearch || undefined,
                  locationSearch: advanced.locationSearch || undefined,
                  industrySearch: advanced.industrySearch || undefined,
                  minSubmissions: count(advanced.minSubmissions),
                  maxSubmissions: count(advanced.maxSubmissions),
                  emailVerified: flag(advanced.emailVerified),
                  twoFactorEnabled: flag(advanced.twoFactorEnabled),
                  hasAvatar: flag(advanced.hasAvatar),
                  hasWebsite: flag(advanced.hasWebsite),
                  hasPhone: flag(advanced.hasPhone),
                }),
              },
            },
          }),
        )
        return { clients: answer.data.clients, meta: answer.data.pagination }
      }
      if (createdAfter || createdBefore) {
        const answer = await unwrap(
          api.GET('/api/admin/clients/dashboard', { signal, params: { query: { ...filters, ...range } } }),
        )
        return { clients: answer.data.clients, meta: answer.data.meta }
      }
      const answer = await unwrap(api.GET('/api/admin/clients', { signal, params: { query: filters } }))
      return { clients: answer.data.clients, meta: answer.meta }
    },
    [page, search, status, plan, accountType, provider, createdAfter, createdBefore, sort, advancedSignature],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/clients/stats', { signal })), [list.data])

  const rows = list.data?.clients
  const figures = stats.data?.data
  const names = new Map((rows ?? []).map((row) => [row.id, row.displayName]))
  // A refused query's fields (an out-of-range bound, a malformed date) are shown next to their inputs.
  const queryErrors = list.error instanceof ApiError ? list.error.fieldErrors() : {}

  const changed = async (message: string) => {
    toast('success', message)
    setSelected(new Set())
    await list.reload()
  }

  const remove = (client: Client) =>
    act({
      ...deleteClient(client),
      reload: async () => {
        setSelected(new Set())
        await list.reload()
      },
    })

  const bulkDelete = async () => {
    const ids = [...selected]
    const sure = await confirm({
      title: `Delete ${ids.length} ${ids.length === 1 ? 'client' : 'clients'}?`,
      message: 'Their client profiles will be deleted for good. Their sign-in accounts stay.',
      confirmLabel: 'Delete',
      danger: true,
    })
    if (!sure) return
    try {
      const answer = await unwrap(
        api.DELETE('/api/admin/clients/bulk', { body: { clients: ids.map((id) => ({ id })) } }),
      )
      if (answer.errors.length > 0) toast('error', bulkFailures(answer.errors, names))
      await changed(answer.message)
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<Client>[] = [
    {
      header: 'Name',
      cell: (client) => (
        <>
          <Link href={`/clients/${client.id}`}>{client.displayName}</Link>
          <div class="muted small">{client.email}</div>
        </>
      ),
    },
    {
      header: 'Status',
      cell: (client) => <ClientStatusBadge status={client.status} />,
    },
    { header: 'Plan', cell: (client) => PLAN_LABELS[client.plan] },
    { header: 'Account', secondary: true, cell: (client) => ACCOUNT_TYPE_LABELS[client.accountType] },
    { header: 'Company', secondary: true, cell: (client) => client.company ?? '—' },
    { header: 'Submissions', secondary: true, cell: (client) => client.totalSubmissions },
    { header: 'Joined', secondary: true, cell: (client) => formatDate(client.joinedAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (client) => (
        <>
          <Link
            class="button button-secondary"
            href={`/clients/${client.id}`}
            aria-label={`Edit ${client.displayName}`}
          >
            Edit
          </Link>
          <RowButton action="Delete" name={client.displayName} kind="danger" onClick={() => remove(client)} />
        </>
      ),
    },
  ]

  const overview = figures?.overview
  const tabs = [
    { value: '', label: 'All', count: overview?.totalClients },
    { value: 'active', label: 'Active', count: overview?.activeClients },
    { value: 'trial', label: 'Trial', count: overview?.trialClients },
    { value: 'inactive', label: 'Inactive', count: overview?.inactiveClients },
    { value: 'suspended', label: 'Suspended', count: overview?.suspendedClients },
  ]
  const providers = Object.keys(figures?.providers ?? {}).sort()
  if (provider && !providers.includes(provider)) providers.push(provider)
  const filtering =
    search || plan || accountType || provider || createdAfter || createdBefore || advancedInUse

  return (
    <Page
      title="Clients"
      actions={
        <Button kind="primary" onClick={() => setCreating(true)}>
          New client
        </Button>
      }
    >
      {figures && (
        <Figures label="Client figures">
          <Figure value={figures.overview.totalClients} label="Clients" />
          <Figure
            value={figures.growth.newClientsThisMonth}
            label={
              <>
                New this month ({figures.growth.growthRate >= 0 ? '+' : ''}
                {figures.growth.growthRate}% on last month)
              </>
            }
          />
          <Figure
            value={figures.plans.standard + figures.plans.premium}
            label={`On a paid plan (${figures.plans.conversionRate}%)`}
          />
          <Figure value={figures.engagement.activeThisWeek} label="Active this week" />
          <Figure
            value={figures.engagement.totalSubmissions}
            label={`Submissions (${figures.engagement.averageSubmissions} per client)`}
          />
        </Figures>
      )}
      <Tabs
        label="Status"
        tabs={tabs}
        current={status ?? ''}
        onSelect={(value) => {
          setSelected(new Set())
          setQuery({ status: value, page: undefined }, { push: true })
        }}
      />
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
          error={queryErrors.createdAfter}
          onValue={(value) => setFilter('createdAfter', value)}
        />
        <TextField
          label="Created to"
          type="date"
          value={createdBefore}
          min={createdAfter || undefined}
          error={queryErrors.createdBefore}
          onValue={(value) => setFilter('createdBefore', value)}
        />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <AdvancedSearch
        key={advancedSignature}
        values={advanced}
        errors={queryErrors}
        onApply={(values) => {
          setSelected(new Set())
          setQuery({ ...values, page: undefined }, { push: true })
        }}
      />
      {selected.size > 0 && (
        <section class="bulkbar" aria-label="Bulk actions">
          <span>{selected.size} selected</span>
          <Button kind="primary" onClick={() => setBulkEditing(true)}>
            Change selected
          </Button>
          <Button kind="danger" onClick={bulkDelete}>
            Delete selected
          </Button>
          <Button kind="link" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </section>
      )}
      <PagedTable
        caption="Clients"
        columns={columns}
        rows={rows}
        rowKey={(client) => client.id}
        busy={list.loading}
        empty={filtering || status ? 'No client matches these filters.' : 'No clients yet.'}
        selection={{ selected, onChange: setSelected, rowLabel: (client) => client.displayName }}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={(next) => {
          setSelected(new Set())
          setPage(next)
        }}
      />
      <CreateClient
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={async (name) => {
          setCreating(false)
          await changed(`Client “${name}” created`)
        }}
      />
      <BulkUpdate
        clients={bulkEditing ? [...selected] : null}
        names={names}
        onClose={() => setBulkEditing(false)}
        onUpdated={async (message) => {
          setBulkEditing(false)
          await changed(message)
        }}
      />
    </Page>
  )
}

/**
 * The advanced criteria, open while any is in use. They are edited here and applied together, so the
 * list does not reload on every keystroke; applied, they live in the query string like every filter.
 */
function AdvancedSearch({
  values,
  errors,
  onApply,
}: {
  values: Record<AdvancedKey, string>
  errors: Record<string, string>
  onApply: (values: Record<AdvancedKey, string>) => void
}) {
  const [form, setForm] = useState(values)
  const inUse = ADVANCED_KEYS.filter((key) => values[key] !== '').length
  const set = (key: AdvancedKey) => (value: string) => setForm((current) => ({ ...current, [key]: value }))
  const empty = Object.fromEntries(ADVANCED_KEYS.map((key) => [key, ''])) as Record<AdvancedKey, string>
  return (
    <details class="card advanced-search" open={inUse > 0}>
      <summary>Advanced search{inUse > 0 ? ` (${inUse} in use)` : ''}</summary>
      <form
        aria-label="Advanced search"
        noValidate
        onSubmit={(event) => {
          event.preventDefault()
          onApply(
            Object.fromEntries(ADVANCED_KEYS.map((key) => [key, form[key].trim()])) as Record<
              AdvancedKey,
              string
            >,
          )
        }}
      >
        <div class="grid-3">
          {ADVANCED_TEXT.map((field) => (
            <TextField
              key={field.key}
              label={field.label}
              value={form[field.key]}
              onValue={set(field.key)}
              error={errors[field.key]}
              maxLength={100}
              {...('hint' in field ? { hint: field.hint } : {})}
            />
          ))}
          {ADVANCED_NUMBERS.map((field) => (
            <TextField
              key={field.key}
              label={field.label}
              type="number"
              min={0}
              inputMode="numeric"
              value={form[field.key]}
              onValue={set(field.key)}
              error={errors[field.key]}
            />
          ))}
          {ADVANCED_FLAGS.map((field) => (
            <Select
              key={field.key}
              label={field.label}
              value={form[field.key]}
              onValue={set(field.key)}
              error={errors[field.key]}
              options={YES_NO}
            />
          ))}
        </div>
        <div class="actions">
          <Button kind="primary" type="submit">
            Apply advanced search
          </Button>
          {inUse > 0 && (
            <Button
              onClick={() => {
                setForm(empty)
                onApply(empty)
              }}
            >
              Clear advanced search
            </Button>
          )}
        </div>
      </form>
    </details>
  )
}

interface NewClient {
  email: string
  displayName: string
  username: string
  status: ClientStatus
  plan: ClientPlan
  accountType: AccountType
  company: string
  jobTitle: string
  industry: string
  website: string
  phone: string
  location: string
  bio: string
}

const NEW_CLIENT: NewClient = {
  email: '',
  displayName: '',
  username: '',
  status: 'active',
  plan: 'free',
  accountType: 'individual',
  company: '',
  jobTitle: '',
  industry: '',
  website: '',
  phone: '',
  location: '',
  bio: '',
}

const CLIENT_FIELDS = Object.keys(NEW_CLIENT)

function CreateClient({
  open,
  onClose,
  onCreated,
}: {
  open: boolean
  onClose: () => void
  onCreated: (name: string) => Promise<void>
}) {
  const [form, set, setForm] = useFields<NewClient>(NEW_CLIENT)
  const save = useSubmit(async () => {
    const text = (value: string) => (value.trim() === '' ? undefined : value.trim())
    const body = {
      email: form.email.trim(),
      status: form.status,
      plan: form.plan,
      accountType: form.accountType,
      ...defined({
        displayName: text(form.displayName),
        username: text(form.username),
        company: text(form.company),
        jobTitle: text(form.jobTitle),
        industry: text(form.industry),
        website: text(form.website),
        phone: text(form.phone),
        location: text(form.location),
        bio: text(form.bio),
      }),
    }
    const created = await unwrap(api.POST('/api/admin/clients', { body })).catch(onItsField)
    setForm(NEW_CLIENT)
    await onCreated(created.data.displayName)
  }, CLIENT_FIELDS)
  const f = save.fields
  const close = () => {
    save.reset()
    onClose()
  }
  return (
    <Dialog title="New client" open={open} onClose={close} wide>
      <form onSubmit={save.submit} noValidate aria-label="New client">
        {save.error && <Notice kind="error">{save.error}</Notice>}
        <div class="grid-2">
          <TextField
            label="Email"
            type="email"
            value={form.email}
            onValue={set('email')}
            error={f.email}
            required
            autocomplete="off"
            hint="An email without an account gets one, with a temporary password."
          />
          <TextField
            label="Display name"
            value={form.displayName}
            onValue={set('displayName')}
            error={f.displayName}
            maxLength={100}
            hint="The part of the email before @ when left empty"
          />
          <TextField
            label="Username"
            value={form.username}
            onValue={set('username')}
            error={f.username}
            maxLength={50}
            autocomplete="off"
            hint="3 to 50 letters, digits, _ or -"
          />
          <TextField
            label="Company"
            value={form.company}
            onValue={set('company')}
            error={f.company}
            maxLength={200}
          />
        </div>
        <div class="grid-3">
          <ClientChoices
            values={form}
            onValue={(choice, value) => set(choice)(value as NewClient[typeof choice])}
            errors={f}
          />
          <TextField
            label="Job title"
            value={form.jobTitle}
            onValue={set('jobTitle')}
            error={f.jobTitle}
            maxLength={100}
          />
          <TextField
            label="Industry"
            value={form.industry}
            onValue={set('industry')}
            error={f.industry}
            maxLength={100}
          />
          <TextField
            label="Location"
            value={form.location}
            onValue={set('location')}
            error={f.location}
            maxLength={200}
          />
          <TextField
            label="Website"
            type="url"
            value={form.website}
            onValue={set('website')}
            error={f.website}
            placeholder="https://"
          />
          <TextField
            label="Phone"
            type="tel"
            value={form.phone}
            onValue={set('phone')}
            error={f.phone}
            maxLength={50}
          />
        </div>
        <TextArea label="Bio" value={form.bio} onValue={set('bio')} error={f.bio} maxLength={2000} />
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            Create client
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}

const UNCHANGED: Record<ClientChoice, string> = { status: '', plan: '', accountType: '' }

/** Sets the status, plan or account type of the selected clients; what is left "as it is" stays. */
function BulkUpdate({
  clients,
  names,
  onClose,
  onUpdated,
}: {
  clients: string[] | null
  names: ReadonlyMap<string, string>
  onClose: () => void
  onUpdated: (message: string) => Promise<void>
}) {
  const toast = useToast()
  const [choices, setChoices] = useState<Record<ClientChoice, string>>(UNCHANGED)
  const { status, plan, accountType } = choices
  const [unchanged, setUnchanged] = useState(false)
  const save = useSubmit(async () => {
    if (!clients) return
    if (!status && !plan && !accountType) {
      setUnchanged(true)
      return
    }
    const changes = defined({
      status: pick(CLIENT_STATUS_LABELS, status || null),
      plan: pick(PLAN_LABELS, plan || null),
      accountType: pick(ACCOUNT_TYPE_LABELS, accountType || null),
    })
    const answer = await unwrap(
      api.PUT('/api/admin/clients/bulk', { body: { clients: clients.map((id) => ({ id, ...changes })) } }),
    )
    if (answer.errors.length > 0) toast('error', bulkFailures(answer.errors, names))
    setChoices(UNCHANGED)
    await onUpdated(answer.message)
  })
  const close = () => {
    save.reset()
    setUnchanged(false)
    onClose()
  }
  const size = clients?.length ?? 0
  const noun = size === 1 ? 'client' : 'clients'
  return (
    <Dialog title={`Change ${size} ${noun}`} open={clients !== null} onClose={close}>
      <form onSubmit={save.submit} noValidate aria-label={`Change ${size} ${noun}`}>
        {save.error && <Notice kind="error">{save.error}</Notice>}
        {unchanged && <Notice kind="error">Choose at least one change to make.</Notice>}
        <p>The changes below apply to every selected client; each one is changed on its own.</p>
        <ClientChoices
          values={choices}
          first={{ value: '', label: 'Leave as it is' }}
          onValue={(choice, value) => {
            setUnchanged(false)
            setChoices((current) => ({ ...current, [choice]: value }))
          }}
        />
        <div class="actions">
          <Button kind="primary" type="submit" busy={save.busy}>
            Change {size} {noun}
          </Button>
          <Button onClick={close}>Cancel</Button>
        </div>
      </form>
    </Dialog>
  )
}
