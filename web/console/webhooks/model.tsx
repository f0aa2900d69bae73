/**
 * What the webhook screens say about a subscription and a delivery: their types as the API answers them,
 * a subscription's scope in words, and each status and outcome as a person reads it.
 */
import { Link } from '../../shared/router.tsx'
import type { Column } from '../../shared/table.tsx'
import { formatDate } from '../../shared/ui.tsx'
import type { Answer, Work } from '../api.ts'

export type Subscription = Answer<'/api/webhooks'>['webhooks'][number]
export type Delivery = Answer<'/api/webhooks/deliveries'>['deliveries'][number]
export type Created = Answer<'/api/webhooks', 'post'>

/** The events a subscription receives (the API has no per-subscription filter: every event of its scope). */
export const EVENTS = [
  'work.created',
  'work.generation.completed',
  'deployment.dispatched',
  'deployment.completed',
  'deployment.failed',
] as const

export const SUBSCRIPTION_STATUS: Record<Subscription['status'], { label: string; class: string }> = {
  active: { label: 'Active', class: 'status-active' },
  paused: { label: 'Paused', class: 'status-paused' },
  failed: { label: 'Failed', class: 'status-failed' },
}

export const DELIVERY_STATUS: Record<Delivery['status'], { label: string; class: string }> = {
  pending: { label: 'Pending', class: 'status-pending' },
  delivering: { label: 'Delivering', class: 'status-delivering' },
  succeeded: { label: 'Succeeded', class: 'status-completed' },
  failed: { label: 'Failed', class: 'status-failed' },
  cancelled: { label: 'Cancelled', class: 'status-cancelled' },
}

export const OUTCOME: Record<NonNullable<Delivery['lastOutcome']>, string> = {
  success: 'Success',
  redirect_refused: 'Redirect refused',
  client_error: 'Client error',
  server_error: 'Server error',
  timeout: 'Timed out',
  payload_too_large: 'Body too large',
  ssrf_blocked: 'Address refused',
}

export function SubscriptionStatus({ status }: { status: Subscription['status'] }) {
  const shown = SUBSCRIPTION_STATUS[status]
  return <span class={`status ${shown.class}`}>{shown.label}</span>
}

export function DeliveryStatus({ status }: { status: Delivery['status'] }) {
  const shown = DELIVERY_STATUS[status]
  return <span class={`status ${shown.class}`}>{shown.label}</span>
}

/** What the endpoint answered, in short: `200 · Success`, `Timed out`, or `—` before the first attempt. */
export function responseOf(delivery: Pick<Delivery, 'lastResponseStatus' | 'lastOutcome'>): string {
  const outcome = delivery.lastOutcome ? OUTCOME[delivery.lastOutcome] : null
  if (delivery.lastResponseStatus !== null)
    return outcome ? `${delivery.lastResponseStatus} · ${outcome}` : String(delivery.lastResponseStatus)
  return outcome ?? '—'
}

/** The works a subscription's scope is named by: id → name. */
export type WorkNames = ReadonlyMap<string, string>

export const workNames = (works: readonly Pick<Work, 'id' | 'name'>[] | undefined): WorkNames =>
  new Map((works ?? []).map((work) => [work.id, work.name]))

/** A subscription's scope in words: every work the account owns, or one work. */
export function scopeOf(subscription: Pick<Subscription, 'workId'>, names: WorkNames): string {
  if (subscription.workId === null) return 'All the works you own'
  const name = names.get(subscription.workId)
  return name ? `Work “${name}”` : 'A work no longer shared with you'
}

/**
 * A subscriptions table's columns: its endpoint (a link to its page and deliveries), its scope when
 * `names` is given (the account's list; a work's own tab leaves it out), its status, failures and creation.
 */
export function subscriptionColumns(names?: WorkNames): Column<Subscription>[] {
  return [
    {
      header: 'Endpoint',
      cell: (subscription) => (
        <Link href={`/webhooks/${subscription.id}`} class="break">
          {subscription.url}
        </Link>
      ),
    },
    ...(names
      ? [{ header: 'Scope', cell: (subscription: Subscription) => scopeOf(subscription, names) }]
      : []),
    { header: 'Status', cell: (subscription) => <SubscriptionStatus status={subscription.status} /> },
    {
      header: 'Failures in a row',
      secondary: true,
      cell: (subscription) => subscription.consecutiveFailures,
    },
    { header: 'Created', secondary: true, cell: (subscription) => formatDate(subscription.createdAt, true) },
  ]
}
