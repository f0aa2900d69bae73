/**
 * One sponsor ad: what it is and where it stands, its advertiser (`sponsor-ad-details.tsx`), the fields an
 * admin may change (title, description, start and end; `sponsor-ad-edit.tsx`), every payment the providers
 * reported for it and its subscriptions (`sponsor-ad-payments.tsx`), and the same review actions as the list.
 */
import { ApiError, unwrap } from '../../shared/api.ts'
import { Page } from '../../shared/page.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link, navigate } from '../../shared/router.tsx'
import { Button, formatDate, Loading, Notice, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import type { ScreenProps } from '../screen.ts'
import { type Ad, Advertiser, Details } from './sponsor-ad-details.tsx'
import { EditForm } from './sponsor-ad-edit.tsx'
import { Payments, Subscriptions } from './sponsor-ad-payments.tsx'
import { AdStatusBadge, canCancel, canReview, useAdActions } from './sponsor-ads.tsx'
import './moderation.css'

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
