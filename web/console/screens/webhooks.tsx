/**
 * Webhooks: the user's subscriptions (where Curio POSTs the events of their works, signed), a new one made
 * with its secret shown once, and the delivery log of all of them, live. Each subscription opens on its
 * own page to be tested, paused, resumed, given a new secret or deleted.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { DataTable } from '../../shared/table.tsx'
import { Button, Notice } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { DeliveryLog, useDeliveries } from '../webhooks/delivery-log.tsx'
import { subscriptionColumns, workNames } from '../webhooks/model.tsx'
import { NewWebhookDialog } from '../webhooks/new-webhook.tsx'

export default function Webhooks() {
  const [creating, setCreating] = useState(false)
  const subscriptions = useResource((signal) => unwrap(api.GET('/api/webhooks', { signal })), [])
  const works = useResource((signal) => unwrap(api.GET('/api/works', { signal })), [])
  const feed = useDeliveries()
  const names = workNames(works.data?.works)

  const columns = subscriptionColumns(names)

  return (
    <Page
      title="Webhooks"
      actions={
        <Button kind="primary" onClick={() => setCreating(true)}>
          New webhook
        </Button>
      }
    >
      <p class="muted">
        Curio POSTs each event of your works to your endpoints as JSON, signed with the subscription’s secret.
        A subscription whose deliveries fail too many times in a row stops and leaves this list; its
        deliveries stay in the log.
      </p>
      <h2>Subscriptions</h2>
      {subscriptions.error !== undefined && <Notice kind="error">{messageOf(subscriptions.error)}</Notice>}
      <DataTable
        caption="Webhook subscriptions"
        columns={columns}
        rows={subscriptions.data?.webhooks}
        rowKey={(subscription) => subscription.id}
        busy={subscriptions.loading}
        empty="No webhooks yet. Create one with New webhook to receive your works’ events."
      />
      <DeliveryLog feed={feed} subscriptions={subscriptions.data?.webhooks} />
      <NewWebhookDialog
        open={creating}
        onClose={() => setCreating(false)}
        works={works.data?.works}
        onCreated={subscriptions.reload}
      />
    </Page>
  )
}
