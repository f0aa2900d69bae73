/**
 * Clients: the status tabs with their counts and the figures of all clients, search, filters and sort in
 * the query string (clients-filters.tsx), the advanced search's criteria in a disclosure, also in the query
 * string (clients-advanced-search.tsx), paging on the server (clients-load.ts picks the route), creating a
 * client (clients-create.tsx), and changing or deleting the selected clients in bulk (clients-bulk.tsx).
 */
import { useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { Button, formatDate, Tabs, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  ACCOUNT_TYPE_LABELS,
  type Client,
  ClientStatusBadge,
  deleteClient,
  PLAN_LABELS,
} from '../client-profile.tsx'
import { AdvancedSearch } from './clients-advanced-search.tsx'
import { BulkActions } from './clients-bulk.tsx'
import { CreateClient } from './clients-create.tsx'
import { ClientToolbar, readFilters, SORTS } from './clients-filters.tsx'
import { loadClients } from './clients-load.ts'
import './people.css'

export default function Clients() {
  const listing = useList(SORTS, '')
  const { query, setQuery, page, search, sort, setPage } = listing
  const toast = useToast()
  const act = useRowAction()
  const filters = readFilters(query)
  const { status, plan, accountType, provider, createdAfter, createdBefore } = filters
  const { advanced, advancedInUse, advancedSignature } = filters
  const [selected, setSelected] = useState<Set<string>>(new Set())
  const [creating, setCreating] = useState(false)

  const list = useResource(
    (signal) => loadClients({ page, search, sort }, filters, signal),
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
      <ClientToolbar
        list={listing}
        filters={filters}
        providers={Object.keys(figures?.providers ?? {})}
        errors={queryErrors}
      />
      <AdvancedSearch
        key={advancedSignature}
        values={advanced}
        errors={queryErrors}
        onApply={(values) => {
          setSelected(new Set())
          setQuery({ ...values, page: undefined }, { push: true })
        }}
      />
      <BulkActions
        selected={selected}
        names={names}
        onClear={() => setSelected(new Set())}
        onChanged={changed}
      />
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
    </Page>
  )
}
