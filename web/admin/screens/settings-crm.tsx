/**
 * The CRM (Twenty) connection: whether client changes are sent, where, with which key (write-only: the
 * console shows whether one is saved and its masked end, never the key), which records; `Test connection`
 * with what is typed or saved; and the sync records with their status, filter, paging and retries.
 */
import { useEffect, useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { useFields } from '../../shared/fields.ts'
import { useSubmit } from '../../shared/form.ts'
import { useList } from '../../shared/list.ts'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import type { Column } from '../../shared/table.tsx'
import {
  Button,
  Checkbox,
  formatDate,
  Loading,
  Notice,
  Select,
  TextField,
  useConfirm,
  useToast,
} from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'

type CrmConfig = Answer<'/api/admin/crm/config'>['data']
type SyncAnswer = Answer<'/api/admin/crm/sync'>
type SyncRecord = SyncAnswer['data'][number]
type SyncStatus = SyncRecord['status']

const SYNC_PAGE_SIZE = 10
/** How often the list is read again while records wait to be sent. */
const POLL_MS = 3000

const SYNC_LABELS: Record<SyncStatus, string> = {
  pending: 'Pending',
  synced: 'Synced',
  failed: 'Failed',
  skipped: 'Skipped',
}

const isSyncStatus = (value: string | null): value is SyncStatus =>
  value === 'pending' || value === 'synced' || value === 'failed' || value === 'skipped'

export function CrmSettings() {
  const config = useResource((signal) => unwrap(api.GET('/api/admin/crm/config', { signal })), [])
  return (
    <>
      {config.error !== undefined && !config.data && (
        <Notice kind="error">
          The CRM settings could not be loaded: {messageOf(config.error)}{' '}
          <Button onClick={config.reload}>Try again</Button>
        </Notice>
      )}
      {!config.data && config.error === undefined && <Loading what="Loading the CRM settings" />}
      {config.data && (
        <CrmForm
          key={config.data.data.updatedAt ?? 'defaults'}
          config={config.data.data}
          onSaved={config.reload}
        />
      )}
      <CrmSync enabled={config.data?.data.enabled ?? false} />
    </>
  )
}

interface Form {
  enabled: boolean
  baseUrl: string
  apiKey: string
  clients: boolean
  companies: boolean
}

type Outcome = { ok: boolean; text: string }

function CrmForm({ config, onSaved }: { config: CrmConfig; onSaved: () => Promise<void> }) {
  const toast = useToast()
  const confirm = useConfirm()
  // A base URL never saved is the instance's TWENTY_API_URL: the field stays empty and says so.
  const savedBaseUrl = config.usesDefaultBaseUrl ? '' : config.baseUrl
  const [form, set] = useFields<Form>({
    enabled: config.enabled,
    baseUrl: savedBaseUrl,
    apiKey: '',
    clients: config.sync.clients,
    companies: config.sync.companies,
  })
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [testFields, setTestFields] = useState<Record<string, string>>({})

  const baseUrlChange = () => {
    const typed = form.baseUrl.trim()
    return typed === savedBaseUrl ? {} : { baseUrl: typed === '' ? null : typed }
  }
  const typedKey = () => (form.apiKey.trim() ? { apiKey: form.apiKey.trim() } : {})

  const save = useSubmit(async () => {
    setTestFields({})
    await unwrap(
      api.PUT('/api/admin/crm/config', {
        body: {
          enabled: form.enabled,
          sync: { clients: form.clients, companies: form.companies },
          ...baseUrlChange(),
          ...typedKey(),
        },
      }),
    )
    toast('success', 'CRM settings saved')
    await onSaved()
  }, ['enabled', 'baseUrl', 'apiKey', 'sync'])

  const test = async () => {
    setOutcome(null)
    setTestFields({})
    save.reset()
    const baseUrl = baseUrlChange().baseUrl
    try {
      const answer = await unwrap(
        api.POST('/api/admin/crm/test-connection', {
          body: { ...(baseUrl ? { baseUrl } : {}), ...typedKey() },
        }),
      )
      const { ok, status, message } = answer.data
      setOutcome({
        ok,
        // Twenty's message says what happened, its status included ("Twenty answered 401: Token invalid.").
        text: ok ? `${message}${status ? ` (HTTP ${status})` : ''}` : `The connection failed: ${message}`,
      })
    } catch (error) {
      if (error instanceof ApiError) setTestFields(error.fieldErrors())
      setOutcome({ ok: false, text: `The connection could not be tried: ${messageOf(error)}` })
    }
  }

  const removeKey = async () => {
    const sure = await confirm({
      title: 'Remove the API key?',
      message: config.enabled
        ? 'The saved key is deleted. The sync is on and needs a key: turn it off first, or save a new key.'
        : 'The saved key is deleted; the sync cannot be turned on again until a new one is saved.',
      confirmLabel: 'Remove key',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.PUT('/api/admin/crm/config', { body: { apiKey: null } }))
      toast('success', 'API key removed')
      await onSaved()
    } catch (error) {
      toast.failed(error)
    }
  }

  const f = save.fields
  return (
    <form class="form card" onSubmit={save.submit} noValidate aria-labelledby="crm-connection">
      <h2 id="crm-connection">Twenty CRM</h2>
      <p class="muted">
        Clients created or changed in this console, and the companies they work for, are sent to a Twenty CRM
        through its REST API.
      </p>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <Checkbox label="Send client changes to the CRM" checked={form.enabled} onValue={set('enabled')} />
      {f.enabled && <p class="field-error">{f.enabled}</p>}
      <div class="grid-2">
        <TextField
          label="Base URL"
          type="url"
          value={form.baseUrl}
          onValue={set('baseUrl')}
          error={f.baseUrl ?? testFields.baseUrl}
          placeholder={config.usesDefaultBaseUrl ? config.baseUrl : 'https://'}
          hint={
            config.usesDefaultBaseUrl
              ? `Empty: the instance’s TWENTY_API_URL (${config.baseUrl})`
              : 'Empty it to go back to the instance’s TWENTY_API_URL'
          }
          maxLength={2048}
        />
        <TextField
          label="API key"
          type="password"
          value={form.apiKey}
          onValue={set('apiKey')}
          error={f.apiKey ?? testFields.apiKey}
          autocomplete="new-password"
          hint={
            config.apiKeySet
              ? 'Leave empty to keep the saved key; type one to replace it'
              : 'From Twenty: Settings → APIs & Webhooks'
          }
          maxLength={1024}
        />
      </div>
      <p class="crm-key-state">
        <strong>API key:</strong>{' '}
        {config.apiKeySet ? (
          <>
            <span class="status status-active">Saved</span>{' '}
            {config.apiKey && <span class="muted">ending {config.apiKey.replace(/^•+/, '')}</span>}{' '}
            <Button kind="link" onClick={removeKey}>
              Remove API key
            </Button>
          </>
        ) : (
          <span class="status status-off">Not set</span>
        )}
      </p>
      <fieldset>
        <legend>What is sent</legend>
        <Checkbox label="Clients, as people" checked={form.clients} onValue={set('clients')} />
        <Checkbox
          label="The companies clients work for, as companies"
          checked={form.companies}
          onValue={set('companies')}
        />
        {f.sync && <p class="field-error">{f.sync}</p>}
      </fieldset>
      {outcome && (
        <Notice kind={outcome.ok ? 'success' : 'error'}>
          <strong>Test connection:</strong> {outcome.text}
        </Notice>
      )}
      <div class="actions settings-save">
        <Button kind="primary" type="submit" busy={save.busy}>
          Save CRM settings
        </Button>
        <Button onClick={test}>Test connection</Button>
        <span class="muted small">
          {config.updatedAt ? `Last saved ${formatDate(config.updatedAt, true)}` : 'Never saved'}
        </span>
      </div>
    </form>
  )
}

function CrmSync({ enabled }: { enabled: boolean }) {
  const toast = useToast()
  const { query, page, setFilter, setPage } = useList()
  const asked = query.get('status')
  const status = isSyncStatus(asked) ? asked : undefined
  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/crm/sync', {
          signal,
          params: { query: { page, limit: SYNC_PAGE_SIZE, ...(status ? { status } : {}) } },
        }),
      ),
    [page, status],
  )
  const counts = list.data?.counts
  const pending = counts?.pending ?? 0

  // Records waiting to be sent are followed until they are sent or fail.
  useEffect(() => {
    if (pending === 0) return undefined
    const timer = window.setTimeout(list.reload, POLL_MS)
    return () => window.clearTimeout(timer)
  }, [list.data])

  const retry = async (record?: SyncRecord) => {
    try {
      const answer = await unwrap(
        api.POST('/api/admin/crm/sync/retry', {
          body: record ? { clientIds: [record.clientId] } : {},
        }),
      )
      const queued = answer.data.queued
      toast(
        'success',
        record
          ? `${record.client.displayName} queued again`
          : `${queued} ${queued === 1 ? 'record' : 'records'} queued again`,
      )
      await list.reload()
    } catch (error) {
      toast.failed(error)
    }
  }

  const columns: Column<SyncRecord>[] = [
    {
      header: 'Client',
      cell: (record) => (
        <>
          <Link href={`/clients/${record.clientId}`}>{record.client.displayName}</Link>
          <div class="muted small">{record.client.email}</div>
        </>
      ),
    },
    {
      header: 'Status',
      cell: (record) => <span class={`status status-${record.status}`}>{SYNC_LABELS[record.status]}</span>,
    },
    { header: 'Attempts', secondary: true, cell: (record) => record.attempts },
    {
      header: 'Last error',
      secondary: true,
      cell: (record) => (record.lastError ? <span class="crm-error">{record.lastError}</span> : '—'),
    },
    {
      header: 'When',
      secondary: true,
      cell: (record) =>
        record.status === 'pending' && record.nextAttemptAt
          ? `Next attempt ${formatDate(record.nextAttemptAt, true)}`
          : record.syncedAt
            ? `Synced ${formatDate(record.syncedAt, true)}`
            : formatDate(record.updatedAt, true),
    },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (record) =>
        record.status === 'failed' || record.status === 'skipped' ? (
          <Button onClick={() => retry(record)} aria-label={`Retry ${record.client.displayName}`}>
            Retry
          </Button>
        ) : null,
    },
  ]

  const retryable = (counts?.failed ?? 0) + (counts?.skipped ?? 0)
  return (
    <section class="card" aria-labelledby="crm-sync">
      <div class="settings-heading-row">
        <h2 id="crm-sync">Sync</h2>
        <Button onClick={() => retry()} disabled={retryable === 0}>
          Retry failed syncs
        </Button>
      </div>
      {!enabled && <p class="muted">The sync is off: nothing is recorded or sent until it is turned on.</p>}
      {counts && (
        <div class="figures">
          {(Object.keys(SYNC_LABELS) as SyncStatus[]).map((key) => (
            <div class="figure" key={key}>
              <span class="figure-value">{counts[key].toLocaleString()}</span>
              <span class="figure-label">{SYNC_LABELS[key]}</span>
            </div>
          ))}
        </div>
      )}
      <div class="toolbar">
        <Select
          label="Sync status"
          value={status ?? ''}
          onValue={(value) => setFilter('status', value)}
          options={[
            { value: '', label: 'Any status' },
            ...(Object.keys(SYNC_LABELS) as SyncStatus[]).map((key) => ({
              value: key,
              label: SYNC_LABELS[key],
            })),
          ]}
        />
      </div>
      <PagedTable
        caption="CRM sync records"
        columns={columns}
        rows={list.data?.data}
        rowKey={(record) => record.clientId}
        busy={list.loading}
        empty={status ? `No ${SYNC_LABELS[status].toLowerCase()} records.` : 'No client has been sent yet.'}
        error={list.error}
        meta={list.data?.meta}
        page={page}
        onPage={setPage}
      />
    </section>
  )
}
