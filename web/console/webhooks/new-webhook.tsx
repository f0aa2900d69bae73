/**
 * A new webhook subscription: the endpoint's URL and, unless the screen fixes it, its scope (every work the
 * user owns, or one work). Once the API accepts it, the same dialog shows its signing secret, once.
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Dialog, Notice, Select, TextField } from '../../shared/ui.tsx'
import { api, type Work } from '../api.ts'
import { RevealBody } from '../secrets/secret-reveal.tsx'
import { type Created, EVENTS } from './model.tsx'
import './webhooks.css'

export function NewWebhookDialog({
  open,
  onClose,
  onCreated,
  works,
  work,
}: {
  open: boolean
  onClose: () => void
  /** Called once the subscription exists (the list behind can show it while the secret is on screen). */
  onCreated: (created: Created) => unknown
  /** The works to choose a scope from, when the scope is the user's choice. */
  works?: readonly Pick<Work, 'id' | 'name'>[] | undefined
  /** The work the subscription is for, when the screen is that work's. */
  work?: Pick<Work, 'id' | 'name'>
}) {
  const [created, setCreated] = useState<Created | null>(null)
  const close = () => {
    setCreated(null)
    onClose()
  }
  return (
    <Dialog title={created ? 'Webhook created' : 'New webhook'} open={open} onClose={close} wide>
      {created ? (
        <RevealBody
          label="signing secret"
          value={created.signingSecret}
          onDone={close}
          intro={
            <p>
              Curio now POSTs {created.workId ? 'this work’s' : 'your works’'} events to{' '}
              <strong class="break">{created.url}</strong>, each signed with this secret: the{' '}
              <code>X-Service-Signature-256</code> header is <code>sha256=</code> and the HMAC-SHA256 of the
              body under it.
            </p>
          }
        />
      ) : (
        <NewWebhookForm
          works={works}
          work={work}
          onCancel={close}
          onCreated={async (answer) => {
            setCreated(answer)
            await onCreated(answer)
          }}
        />
      )}
    </Dialog>
  )
}

function NewWebhookForm({
  works,
  work,
  onCancel,
  onCreated,
}: {
  works: readonly Pick<Work, 'id' | 'name'>[] | undefined
  work: Pick<Work, 'id' | 'name'> | undefined
  onCancel: () => void
  onCreated: (created: Created) => Promise<void>
}) {
  const [url, setUrl] = useState('')
  const [scope, setScope] = useState(work?.id ?? '')
  const form = useSubmit(async () => {
    const answer = await unwrap(
      api.POST('/api/webhooks', { body: { url: url.trim(), ...(scope ? { workId: scope } : {}) } }),
    )
    await onCreated(answer)
  }, ['url', 'workId'])
  return (
    <form onSubmit={form.submit} noValidate>
      {form.error && <Notice kind="error">{form.error}</Notice>}
      <TextField
        label="Endpoint URL"
        type="url"
        placeholder="https://example.com/hooks/curio"
        hint="HTTPS, without a user name or password; Curio POSTs each event to it as JSON."
        value={url}
        onValue={setUrl}
        error={form.fields.url}
        required
        autofocus
      />
      {work ? (
        <p>Scope: the events of “{work.name}” only.</p>
      ) : (
        <Select
          label="Scope"
          hint="All the works you own, or one work (works shared with you included)."
          value={scope}
          onValue={setScope}
          error={form.fields.workId}
          options={[
            { value: '', label: 'All the works you own' },
            ...(works ?? []).map((one) => ({ value: one.id, label: `Only “${one.name}”` })),
          ]}
        />
      )}
      <p class="muted small">
        Events: every event of the scope ({EVENTS.join(', ')}), and <code>webhook.test</code> when you send a
        test.
      </p>
      <div class="actions">
        <Button kind="primary" type="submit" busy={form.busy}>
          Create webhook
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  )
}
