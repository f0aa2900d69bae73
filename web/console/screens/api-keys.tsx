/**
 * API keys: the keys the user's scripts and CI call the API with, each with when it was last used and when
 * it expires. A new key is shown once, with a Copy button; revoking one refuses it from the next request.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, Dialog, formatDate, Notice, Select, TextField } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { RevealBody } from '../secrets/secret-reveal.tsx'

type ApiKey = Answer<'/api/auth/api-keys'>[number]
type Created = Answer<'/api/auth/api-keys', 'post'>

/** SPEC.md: at most 10 keys per user, expired ones included, until revoked. */
const MAX_KEYS = 10
const DAY_MS = 24 * 60 * 60 * 1000

const EXPIRY = [
  { value: 'never', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'date', label: 'On a date…' },
]

const expired = (key: ApiKey) => key.expiresAt !== null && new Date(key.expiresAt).getTime() <= Date.now()

export default function ApiKeys() {
  const act = useRowAction()
  const [creating, setCreating] = useState(false)
  const keys = useResource((signal) => unwrap(api.GET('/api/auth/api-keys', { signal })), [])
  const full = (keys.data?.length ?? 0) >= MAX_KEYS

  const columns: Column<ApiKey>[] = [
    { header: 'Name', cell: (key) => <strong>{key.name}</strong> },
    { header: 'Key', cell: (key) => <code>{key.prefix}…</code> },
    { header: 'Last used', cell: (key) => (key.lastUsedAt ? formatDate(key.lastUsedAt, true) : 'Never') },
    {
      header: 'Expires',
      cell: (key) =>
        key.expiresAt === null ? (
          'Never'
        ) : expired(key) ? (
          <span class="status status-failed">Expired {formatDate(key.expiresAt)}</span>
        ) : (
          formatDate(key.expiresAt, true)
        ),
    },
    { header: 'Created', secondary: true, cell: (key) => formatDate(key.createdAt, true) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (key) => (
        <RowButton
          action="Revoke"
          name={key.name}
          kind="danger"
          onClick={() =>
            act({
              ask: {
                title: 'Revoke this API key?',
                message: `“${key.name}” (${key.prefix}…) is refused from the next request on: scripts using it get 401. This cannot be undone.`,
                confirmLabel: 'Revoke key',
                danger: true,
              },
              run: () => unwrap(api.DELETE('/api/auth/api-keys/{id}', { params: { path: { id: key.id } } })),
              done: `“${key.name}” revoked`,
              reload: keys.reload,
            })
          }
        />
      ),
    },
  ]

  return (
    <Page
      title="API keys"
      actions={
        <Button kind="primary" onClick={() => setCreating(true)} disabled={full}>
          New API key
        </Button>
      }
    >
      <p class="muted">
        Scripts and CI call the API with a key instead of signing in: send it as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code> or <code>x-api-key: &lt;key&gt;</code>. A key acts as
        you on your works and webhooks, but cannot manage keys.
      </p>
      {full && (
        <Notice>
          You have {MAX_KEYS} keys, the most an account may hold (expired ones count): revoke one to make
          another.
        </Notice>
      )}
      {keys.error !== undefined && <Notice kind="error">{messageOf(keys.error)}</Notice>}
      <DataTable
        caption="Your API keys"
        columns={columns}
        rows={keys.data}
        rowKey={(key) => key.id}
        busy={keys.loading}
        empty="No API keys yet. Create one with New API key for a script or CI."
      />
      {keys.data && keys.data.length > 0 && (
        <p class="pager-total">
          {keys.data.length} of {MAX_KEYS} keys
        </p>
      )}
      <NewKeyDialog open={creating} onClose={() => setCreating(false)} onCreated={keys.reload} />
    </Page>
  )
}

function NewKeyDialog({
  open,
  onClose,
  onCreated,
}: {
  open: boolean
  onClose: () => void
  onCreated: () => Promise<void>
}) {
  const [created, setCreated] = useState<Created | null>(null)
  const close = () => {
    setCreated(null)
    onClose()
  }
  return (
    <Dialog title={created ? 'API key created' : 'New API key'} open={open} onClose={close} wide>
      {created ? (
        <RevealBody
          label="API key"
          value={created.key}
          onDone={close}
          intro={
            <p>
              “{created.name}” works from now on
              {created.expiresAt ? ` until ${formatDate(created.expiresAt, true)}` : ', until you revoke it'}.
              Send it as <code>Authorization: Bearer &lt;key&gt;</code>.
            </p>
          }
        />
      ) : (
        <NewKeyForm
          onCancel={close}
          onCreated={async (key) => {
            setCreated(key)
            await onCreated()
          }}
        />
      )}
    </Dialog>
  )
}

/** When the key expires, as the API takes it: an ISO date-time, or nothing for never. */
function expiryOf(choice: string, date: string): string | undefined {
  if (choice === 'never') return undefined
  if (choice === 'date') return date ? new Date(`${date}T23:59:59`).toISOString() : ''
  return new Date(Date.now() + Number(choice) * DAY_MS).toISOString()
}

function NewKeyForm({
  onCancel,
  onCreated,
}: {
  onCancel: () => void
  onCreated: (key: Created) => Promise<void>
}) {
  const [name, setName] = useState('')
  const [choice, setChoice] = useState('never')
  const [date, setDate] = useState('')
  const [dateMissing, setDateMissing] = useState<string | undefined>()
  const form = useSubmit(async () => {
    const expiresAt = expiryOf(choice, date)
    if (expiresAt === '') {
      setDateMissing('Choose the day the key stops working')
      return
    }
    setDateMissing(undefined)
    const key = await unwrap(
      api.POST('/api/auth/api-keys', {
        body: { name: name.trim(), ...(expiresAt ? { expiresAt } : {}) },
      }),
    )
    await onCreated(key)
  }, ['name', 'expiresAt'])
  const tomorrow = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10)
  return (
    <form onSubmit={form.submit} noValidate>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <TextField
        label="Name"
        hint="What uses it, e.g. “CI deploys”: up to 100 characters."
        value={name}
        onValue={setName}
        error={form.fields.name}
        maxLength={100}
        required
        autofocus
      />
      <Select
        label="Expires"
        value={choice}
        options={EXPIRY}
        onValue={setChoice}
        error={choice === 'date' ? undefined : form.fields.expiresAt}
      />
      {choice === 'date' && (
        <TextField
          label="Expiry date"
          type="date"
          hint="The key stops working at the end of this day."
          min={tomorrow}
          value={date}
          onValue={setDate}
          error={dateMissing ?? form.fields.expiresAt}
          required
        />
      )}
      <div class="actions">
        <Button kind="primary" type="submit" busy={form.busy}>
          Create key
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
