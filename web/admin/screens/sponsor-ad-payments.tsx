/** Every payment the providers reported for a sponsor ad, with what each did, and its subscriptions. */
import { type Column, DataTable } from '../../shared/table.tsx'
import { formatDate } from '../../shared/ui.tsx'
import type { Ad } from './sponsor-ad-details.tsx'

type Payment = Ad['payments'][number]
type Subscription = Ad['subscriptions'][number]

const PAYMENT_KINDS: Record<Payment['kind'], string> = {
  initial: 'First payment',
  renewal: 'Renewal',
  failed: 'Failed',
  refund: 'Refund',
}

const EFFECTS: Record<Payment['effect'], string> = {
  submitted: 'Sent the ad for review',
  renewed: 'Added a period',
  credited: 'Credited a period to the approval',
  none: 'None',
}

/** An amount in minor units, in its currency when it has one. */
export function money(amount: number | null, currency: string | null): string {
  if (amount === null) return '—'
  if (!currency) return String(amount)
  try {
    const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() })
    return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2))
  } catch {
    return `${amount} ${currency}`
  }
}

/** The payments as the API lists them, and what they came to less refunds (when all are in one currency). */
export function Payments({ payments }: { payments: Payment[] }) {
  const columns: Column<Payment>[] = [
    { header: 'Date', cell: (p) => formatDate(p.createdAt, true) },
    {
      header: 'Kind',
      cell: (p) => (
        <span class={p.kind === 'failed' || p.kind === 'refund' ? `status status-${p.kind}` : undefined}>
          {PAYMENT_KINDS[p.kind]}
        </span>
      ),
    },
    { header: 'Amount', class: 'number', cell: (p) => money(p.amount, p.currency) },
    { header: 'Effect', secondary: true, cell: (p) => EFFECTS[p.effect] },
    { header: 'Provider', secondary: true, cell: (p) => p.provider },
    {
      header: 'Reference',
      secondary: true,
      cell: (p) => (
        <>
          <span class="break">{p.reference}</span>
          <div class="muted small">{p.eventType}</div>
        </>
      ),
    },
  ]
  const total = payments.reduce(
    (sum, p) =>
      p.amount === null || p.kind === 'failed' ? sum : sum + (p.kind === 'refund' ? -p.amount : p.amount),
    0,
  )
  const currencies = new Set(payments.map((p) => p.currency).filter(Boolean))
  const [currency] = currencies
  return (
    <section class="card" aria-labelledby="ad-payments">
      <h2 id="ad-payments">Payments</h2>
      {payments.length > 0 && currencies.size === 1 && currency && (
        <p>
          Received, less refunds: <strong>{money(total, currency)}</strong>
        </p>
      )}
      <DataTable
        caption="Payments"
        columns={columns}
        rows={payments}
        rowKey={(p) => p.id}
        empty="No payment has been reported for this ad."
      />
    </section>
  )
}

/** The ad's subscriptions at its providers; nothing when it has none. */
export function Subscriptions({ subscriptions }: { subscriptions: Subscription[] }) {
  if (subscriptions.length === 0) return null
  const columns: Column<Subscription>[] = [
    {
      header: 'Subscription',
      cell: (s) => (
        <>
          <span class="break">{s.subscriptionId}</span>
          <div class="muted small">{s.provider}</div>
        </>
      ),
    },
    { header: 'Status', cell: (s) => <span class={`status status-${s.status}`}>{s.status}</span> },
    {
      header: 'Price',
      secondary: true,
      cell: (s) => `${money(s.amount, s.currency)}${s.interval ? ` / ${s.interval}` : ''}`,
    },
    {
      header: 'Current period ends',
      secondary: true,
      cell: (s) => (
        <>
          {formatDate(s.endDate)}
          {s.cancelAtPeriodEnd && <div class="muted small">Ends then</div>}
        </>
      ),
    },
    { header: 'Cancelled', secondary: true, cell: (s) => formatDate(s.cancelledAt) },
  ]
  return (
    <section class="card" aria-labelledby="ad-subscriptions">
      <h2 id="ad-subscriptions">Subscriptions</h2>
      <DataTable
        caption="Subscriptions"
        columns={columns}
        rows={subscriptions}
        rowKey={(s) => s.id}
        empty="No subscription."
      />
    </section>
  )
}
