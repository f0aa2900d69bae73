/**
 * A work's webhooks: the user's subscriptions that receive this work's events only, and a new one made for
 * it (its signing secret shown once). Each opens on its own page with its delivery log.
 */
import { useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../../shared/api.ts'
import { useResource } from '../../../shared/resource.ts'
import { Link } from '../../../shared/router.tsx'
import { DataTable } from '../../../shared/table.tsx'
import { Button, Notice } from '../../../shared/ui.tsx'
import { api } from '../../api.ts'
import { subscriptionColumns } from '../../webhooks/model.tsx'
import { NewWebhookDialog } from '../../webhooks/new-webhook.tsx'
import type { WorkTabProps } from '../../work-tab.ts'

export default function WorkWebhooks({ work }: WorkTabProps) {
  const [creating, setCreating] = useState(false)
  const subscriptions = useResource((signal) => unwrap(api.GET('/api/webhooks', { signal })), [])
  const all = subscriptions.data?.webhooks
  const scoped = all?.filter((subscription) => subscription.workId === work.id)
  const accountWide = all?.filter((subscription) => subscription.workId === null).length ?? 0

  const columns = subscriptionColumns()

  return (
    <section aria-labelledby="webhooks-title">
      <div class="section-header">
        <h2 id="webhooks-title">Webhooks</h2>
        <Button kind="primary" onClick={() => setCreating(true)}>
          New webhook for this work
        </Button>
      </div>
      <p class="muted">
        Your subscriptions to this work’s events only; open one for its deliveries.
        {work.role === 'owner' && accountWide > 0 && (
          <>
            {' '}
            {accountWide === 1
              ? 'Your account-wide subscription receives them too'
              : `Your ${accountWide} account-wide subscriptions receive them too`}{' '}
            (<Link href="/webhooks">all webhooks</Link>).
          </>
        )}
      </p>
      {subscriptions.error !== undefined && <Notice kind="error">{messageOf(subscriptions.error)}</Notice>}
      <DataTable
        caption={`Webhooks of ${work.name}`}
        columns={columns}
        rows={scoped}
        rowKey={(subscription) => subscription.id}
        busy={subscriptions.loading}
        empty="No webhooks for this work yet. New webhook for this work sends its events to your endpoint."
      />
      <NewWebhookDialog
        open={creating}
        onClose={() => setCreating(false)}
        work={work}
        onCreated={subscriptions.reload}
      />
    </section>
  )
}
