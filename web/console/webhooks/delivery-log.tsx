/**
 * The delivery log: the account's newest deliveries (the API answers the 50 newest, newest first), asked
 * again every 3 s while the page is visible so new ones appear by themselves. Filtered by status and, on
 * the account's log, by subscription; paged; the filters and page live in the address. Each delivery
 * shows what its last attempt came to, opens in full, and can be sent again.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useList } from '../../shared/list.ts'
import { usePolling } from '../../shared/poll.ts'
import { Link } from '../../shared/router.tsx'
import { useRowAction } from '../../shared/row-action.ts'
import { RowButton } from '../../shared/row-button.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { formatDate, Notice, Pager, Select } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { DeliveryDetails } from './delivery-details.tsx'
import { DELIVERY_STATUS, type Delivery, DeliveryStatus, responseOf, type Subscription } from './model.tsx'
import './webhooks.css'

const PAGE_SIZE = 20
const POLL_MS = 3000

export interface DeliveryFeed {
  deliveries: readonly Delivery[] | undefined
  error: unknown
  /** Asks again at once (after a test or a redelivery), without marking the table busy. */
  refresh: () => Promise<void>
}

/** The account's deliveries, kept fresh while the page is visible. */
export function useDeliveries(): DeliveryFeed {
  const [state, setState] = useState<{ deliveries?: readonly Delivery[]; error?: unknown }>({})
  const latest = useRef(0)
  const refresh = useCallback(async () => {
    const ticket = ++latest.current
    try {
      const answer = await unwrap(api.GET('/api/webhooks/deliveries'))
      if (ticket === latest.current) setState({ deliveries: answer.deliveries })
    } catch (error) {
      if (ticket === latest.current) setState((previous) => ({ ...previous, error }))
    }
  }, [])
  useEffect(() => {
    refresh()
  }, [refresh])
  usePolling(refresh, POLL_MS)
  return { deliveries: state.deliveries, error: state.error, refresh }
}

export function DeliveryLog({
  feed,
  subscriptions,
  only,
}: {
  feed: DeliveryFeed
  /** The account's listed subscriptions (active and paused), to name them and know which can redeliver. */
  subscriptions: readonly Subscription[] | undefined
  /** One subscription's log: its id (the subscription filter is then not offered). */
  only?: string
}) {
  const act = useRowAction()
  const { query, page, setFilter, setPage } = useList()
  const [shown, setShown] = useState<Delivery | null>(null)
  const status = query.get('status') ?? ''
  const subscription = only ?? query.get('subscription') ?? ''
  const byId = new Map((subscriptions ?? []).map((one) => [one.id, one]))

  const rows = feed.deliveries?.filter(
    (delivery) =>
      (!status || delivery.status === status) && (!subscription || delivery.subscriptionId === subscription),
  )
  const totalPages = Math.max(1, Math.ceil((rows?.length ?? 0) / PAGE_SIZE))
  const current = Math.min(page, totalPages)
  const pageRows = rows?.slice((current - 1) * PAGE_SIZE, current * PAGE_SIZE)
  const nameOf = (delivery: Delivery) => `${delivery.event} of ${formatDate(delivery.createdAt, true)}`

  const columns: Column<Delivery>[] = [
    { header: 'Sent', cell: (delivery) => formatDate(delivery.createdAt, true) },
    { header: 'Event', cell: (delivery) => <code>{delivery.event}</code> },
    { header: 'Status', cell: (delivery) => <DeliveryStatus status={delivery.status} /> },
    {
      header: 'Response',
      cell: (delivery) => (
        <>
          {responseOf(delivery)}
          {delivery.lastError && <div class="muted small delivery-error">{delivery.lastError}</div>}
        </>
      ),
    },
    { header: 'Attempts', secondary: true, cell: (delivery) => delivery.attempts },
    {
      header: 'Duration',
      secondary: true,
      cell: (delivery) => (delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`),
    },
  ]
  if (!only) {
    columns.splice(2, 0, {
      header: 'Subscription',
      cell: (delivery) => {
        if (delivery.subscriptionId === null) return <span class="muted">Deleted</span>
        const target = byId.get(delivery.subscriptionId)
        return (
          <Link href={`/webhooks/${delivery.subscriptionId}`} class="break">
            {target ? target.url : 'Failed subscription'}
          </Link>
        )
      },
    })
  }
  columns.push({
    header: 'Actions',
    class: 'row-actions',
    cell: (delivery) => (
      <>
        <RowButton action="Details" name={nameOf(delivery)} onClick={() => setShown(delivery)} />
        {delivery.subscriptionId !== null && byId.get(delivery.subscriptionId)?.status === 'active' && (
          <RowButton
            action="Redeliver"
            name={nameOf(delivery)}
            onClick={() =>
              act({
                run: () =>
                  unwrap(
                    api.POST('/api/webhooks/deliveries/{deliveryId}/redeliver', {
                      params: { path: { deliveryId: delivery.id } },
                    }),
                  ),
                done: `${delivery.event} queued again as a new delivery`,
                reload: feed.refresh,
              })
            }
          />
        )}
      </>
    ),
  })

  return (
    <section aria-labelledby="deliveries-title" class="deliveries">
      <h2 id="deliveries-title">Deliveries</h2>
      <p class="muted">
        {only ? 'This subscription’s deliveries' : 'Every subscription’s deliveries'} among your account’s 50
        newest, newest first. New ones appear here as they are sent.
      </p>
      <div class="toolbar">
        <Select
          label="Status"
          value={status}
          onValue={(value) => setFilter('status', value)}
          options={[
            { value: '', label: 'Any status' },
            ...Object.entries(DELIVERY_STATUS).map(([value, shownAs]) => ({ value, label: shownAs.label })),
          ]}
        />
        {!only && (
          <Select
            label="Subscription"
            value={subscription}
            onValue={(value) => setFilter('subscription', value)}
            options={[
              { value: '', label: 'Every subscription' },
              ...(subscriptions ?? []).map((one) => ({ value: one.id, label: one.url })),
            ]}
          />
        )}
      </div>
      {feed.error !== undefined && <Notice kind="error">{messageOf(feed.error)}</Notice>}
      <DataTable
        caption={only ? 'Deliveries of this subscription' : 'Deliveries'}
        columns={columns}
        rows={pageRows}
        rowKey={(delivery) => delivery.id}
        busy={feed.deliveries === undefined}
        empty={
          status || (subscription && !only)
            ? 'No deliveries match these filters.'
            : 'No deliveries yet. Send a test, or wait for an event of the scope.'
        }
      />
      {rows && rows.length > 0 && (
        <Pager page={current} totalPages={totalPages} total={rows.length} onPage={setPage} />
      )}
      <DeliveryDetails delivery={shown} onClose={() => setShown(null)} />
    </section>
  )
}
