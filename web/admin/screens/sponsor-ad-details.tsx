/**
 * A sponsor ad's own facts (its item, interval, run, payment and provider ids) and its advertiser: the
 * user the ad names and their account as the users API has it.
 */
import { unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { formatDate } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { INTERVAL_LABELS, period } from './sponsor-ads.tsx'

/** A sponsor ad as its screen reads it. */
export type Ad = Answer<'/api/admin/sponsor-ads/{id}'>['data']

/** What the ad is and where it stands. */
export function Details({ ad }: { ad: Ad }) {
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
export function Advertiser({ ad }: { ad: Ad }) {
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
