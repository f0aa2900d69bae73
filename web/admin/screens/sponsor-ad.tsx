/**
 * One sponsor ad: what it is and where it stands, its advertiser, the fields an admin may change (title,
 * description, start and end), every payment the providers reported for it and its subscriptions, and
 * the same review actions as the list.
 */
import { useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { Button, formatDate, Loading, Notice, TextArea, TextField, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import type { ScreenProps } from '../screen.ts'
import { AdStatusBadge, canCancel, canReview, INTERVAL_LABELS, period, useAdActions } from './sponsor-ads.tsx'
import './moderation.css'

type Ad = Answer<'/api/admin/sponsor-ads/{id}'>['data']
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

/** An ISO date-time as a `datetime-local` value, in the user's time zone. */
function toLocalInput(value: string | null): string {
  if (!value) return ''
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

export default function SponsorAd({ params }: ScreenProps) {
  const id = params.id ?? ''
  const ad = useResource(
    async (signal) =>
      (await unwrap(api.GET('/api/admin/sponsor-ads/{id}', { signal, params: { path: { id } } }))).data,
    [id],
  )
  if (ad.error !== undefined && !ad.data) {
    const missing = ad.error instanceof ApiError && (ad.error.status === 404 || ad.error.status === 400)
    return (
      <Page title={missing ? 'Sponsor ad not found' : 'Sponsor ad'}>
        <Notice kind="error">
          {missing ? 'No sponsor ad has this id: it may have been deleted.' : (ad.error as Error).message}
        </Notice>
        <p>
          <Link href="/sponsor-ads">Back to the sponsor ads</Link>
        </p>
      </Page>
    )
  }
  if (!ad.data) return <Loading what="Loading the sponsor ad" />
  return <AdPage ad={ad.data} reload={ad.reload} />
}

function AdPage({ ad, reload }: { ad: Ad; reload: () => Promise<void> }) {
  const toast = useToast()
  const actions = useAdActions({
    changed: async (message) => {
      toast('success', message)
      await reload()
    },
    deleted: (message) => {
      toast('success', message)
      navigate('/sponsor-ads')
    },
    reload,
  })
  return (
    <Page
      title={ad.title}
      actions={
        <>
          {canReview(ad.status) && (
            <Button kind="primary" onClick={() => actions.approve(ad)}>
              Approve
            </Button>
          )}
          {canReview(ad.status) && <Button onClick={() => actions.reject(ad)}>Reject</Button>}
          {canCancel(ad.status) && <Button onClick={() => actions.cancel(ad)}>Cancel ad</Button>}
          <Button kind="danger" onClick={() => actions.remove(ad)}>
            Delete
          </Button>
        </>
      }
    >
      <p>
        <Link href="/sponsor-ads">← All sponsor ads</Link>
        {' · '}
        <AdStatusBadge status={ad.status} />
      </p>
      {ad.status === 'rejected' && ad.rejectionReason && (
        <Notice>
          Rejected {formatDate(ad.rejectedAt, true)}: {ad.rejectionReason}
        </Notice>
      )}
      {ad.status === 'cancelled' && (
        <Notice>
          Cancelled {formatDate(ad.cancelledAt, true)}
          {ad.cancelReason ? `: ${ad.cancelReason}` : ''}
        </Notice>
      )}
      <div class="grid-2">
        <Details ad={ad} />
        <Advertiser ad={ad} />
      </div>
      <Payments payments={ad.payments} />
      <Subscriptions subscriptions={ad.subscriptions} />
      <EditForm key={ad.updatedAt} ad={ad} onSaved={reload} />
      {actions.dialogs}
    </Page>
  )
}

function Details({ ad }: { ad: Ad }) {
  return (
    <section class="card" aria-labelledby="ad-details">
      <h2 id="ad-details">The ad</h2>
      <dl class="details">
        <dt>Item</dt>
        <dd>
          {ad.itemName} <span class="muted">({ad.itemSlug})</span>
        </dd>
        {ad.itemCategory && (
          <>
            <dt>Category</dt>
            <dd>{ad.itemCategory}</dd>
          </>
        )}
        {ad.itemDescription && (
          <>
            <dt>Item description</dt>
            <dd>{ad.itemDescription}</dd>
          </>
        )}
        {ad.itemIconUrl && (
          <>
            <dt>Icon</dt>
            <dd class="break">{ad.itemIconUrl}</dd>
          </>
        )}
        <dt>Interval</dt>
        <dd>{INTERVAL_LABELS[ad.interval]}</dd>
        <dt>Runs</dt>
        <dd>{period(ad)}</dd>
        <dt>Submitted</dt>
        <dd>{formatDate(ad.createdAt, true)}</dd>
        <dt>First paid</dt>
        <dd>
          {formatDate(ad.paidAt, true)}
          {ad.paymentProvider && <span class="muted"> · {ad.paymentProvider}</span>}
        </dd>
        {ad.unusedPeriods > 0 && (
          <>
            <dt>Periods paid in review</dt>
            <dd>{ad.unusedPeriods} (the approval adds them all)</dd>
          </>
        )}
        {ad.approvedAt && (
          <>
            <dt>Approved</dt>
            <dd>{formatDate(ad.approvedAt, true)}</dd>
          </>
        )}
        {ad.subscriptionId && (
          <>
            <dt>Subscription</dt>
            <dd class="break">{ad.subscriptionId}</dd>
          </>
        )}
        {ad.customerId && (
          <>
            <dt>Customer</dt>
            <dd class="break">{ad.customerId}</dd>
          </>
        )}
        {ad.checkoutId && (
          <>
            <dt>Checkout</dt>
            <dd class="break">{ad.checkoutId}</dd>
          </>
        )}
      </dl>
    </section>
  )
}

/** The ad's user as the ad names them, and their account as the users API has it. */
function Advertiser({ ad }: { ad: Ad }) {
  const userId = ad.user?.id
  const account = useResource(
    async (signal) =>
      userId
        ? (await unwrap(api.GET('/api/admin/users/{id}', { signal, params: { path: { id: userId } } }))).data
        : undefined,
    [userId],
  )
  const user = ad.user
  return (
    <section class="card" aria-labelledby="ad-user">
      <h2 id="ad-user">Advertiser</h2>
      {!user ? (
        <p class="muted">The account that bought this ad has been deleted.</p>
      ) : (
        <>
          <dl class="details">
            <dt>Name</dt>
            <dd>{user.name ?? '—'}</dd>
            <dt>Email</dt>
            <dd class="break">
              <a href={`mailto:${user.email}`}>{user.email}</a>
            </dd>
            {account.data && (
              <>
                <dt>Username</dt>
                <dd>{account.data.username}</dd>
                <dt>Account</dt>
                <dd>
                  {account.data.status === 'active' ? 'Active' : 'Inactive'}
                  {account.data.role ? ` · ${account.data.role}` : ''}
                </dd>
                <dt>Last signed in</dt>
                <dd>{formatDate(account.data.last_login, true)}</dd>
              </>
            )}
          </dl>
          {account.error !== undefined && (
            <p class="muted">The account could not be read: {(account.error as Error).message}</p>
          )}
          <p>
            <Link href={`/sponsor-ads?search=${encodeURIComponent(user.email)}`}>Their sponsor ads</Link>
          </p>
        </>
      )}
    </section>
  )
}

const FIELDS = ['title', 'description', 'startDate', 'endDate']

function EditForm({ ad, onSaved }: { ad: Ad; onSaved: () => Promise<void> }) {
  const toast = useToast()
  const initial = {
    title: ad.title,
    description: ad.description ?? '',
    startDate: toLocalInput(ad.startDate),
    endDate: toLocalInput(ad.endDate),
  }
  const [form, setForm] = useState(initial)
  const set = (key: keyof typeof initial) => (value: string) =>
    setForm((current) => ({ ...current, [key]: value }))
  const date = (value: string) => {
    const parsed = new Date(value)
    // An unreadable value goes as typed, so the API names the field.
    return Number.isNaN(parsed.getTime()) ? value : parsed.toISOString()
  }
  const save = useSubmit(async () => {
    const description = form.description.trim()
    await unwrap(
      api.PUT('/api/admin/sponsor-ads/{id}', {
        params: { path: { id: ad.id } },
        body: {
          title: form.title.trim(),
          description: description === '' ? null : description,
          // The dates go only when changed: the field holds minutes, the ad keeps seconds.
          ...(form.startDate !== initial.startDate && form.startDate !== ''
            ? { startDate: date(form.startDate) }
            : {}),
          ...(form.endDate !== initial.endDate && form.endDate !== '' ? { endDate: date(form.endDate) } : {}),
        },
      }),
    )
    toast('success', `“${form.title.trim()}” saved`)
    await onSaved()
  }, FIELDS)
  const f = save.fields
  return (
    <form class="form card" onSubmit={save.submit} noValidate aria-labelledby="ad-edit">
      <h2 id="ad-edit">Edit</h2>
      {save.error && <Notice kind="error">{save.error}</Notice>}
      <TextField
        label="Title"
        value={form.title}
        onValue={set('title')}
        error={f.title}
        hint="Starts as the item’s name"
        maxLength={200}
      />
      <TextArea
        label="Description"
        value={form.description}
        onValue={set('description')}
        error={f.description}
        maxLength={1000}
        rows={3}
      />
      <div class="grid-2">
        <TextField
          label="Start"
          type="datetime-local"
          value={form.startDate}
          onValue={set('startDate')}
          error={f.startDate}
          hint={ad.startDate ? undefined : 'Set by the approval'}
        />
        <TextField
          label="End"
          type="datetime-local"
          value={form.endDate}
          onValue={set('endDate')}
          error={f.endDate}
          hint="After the start. An active ad given an end in the past leaves the site at once."
        />
      </div>
      <div class="actions">
        <Button kind="primary" type="submit" busy={save.busy}>
          Save
        </Button>
      </div>
    </form>
  )
}

function Payments({ payments }: { payments: Payment[] }) {
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

function Subscriptions({ subscriptions }: { subscriptions: Subscription[] }) {
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
