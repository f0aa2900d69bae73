/**
 * Sponsor ads: the figures of all ads, the status tabs, search, interval and sort in the query string,
 * paging on the server, and the review actions per row: approve (an unpaid ad only after saying so),
 * reject with a reason, cancel, delete. The actions and their dialogs are shared with the ad's own page.
 */
import { useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { sortParams, useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { ReasonDialog } from '../../shared/reason-dialog.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { RowButton } from '../../shared/row-button.tsx'
import type { Column } from '../../shared/table.tsx'
import { formatDate, SearchBox, Select, Tabs, useConfirm, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import './moderation.css'

const PAGE_SIZE = 25

export type AdminAd = Answer<'/api/admin/sponsor-ads'>['data'][number]
export type AdStatus = AdminAd['status']
type Interval = AdminAd['interval']
/** What an action needs of an ad: the list's rows and the ad's page both have it. */
type AdRef = Pick<AdminAd, 'id' | 'title' | 'status'>

export const AD_STATUS_LABELS: Record<AdStatus, string> = {
  pending_payment: 'Awaiting payment',
  pending: 'In review',
  active: 'Active',
  rejected: 'Rejected',
  expired: 'Expired',
  cancelled: 'Cancelled',
}

export const INTERVAL_LABELS: Record<Interval, string> = { weekly: 'Weekly', monthly: 'Monthly' }

const STATUSES = Object.keys(AD_STATUS_LABELS) as AdStatus[]
const isStatus = (value: string | null): value is AdStatus => STATUSES.includes(value as AdStatus)
const isInterval = (value: string): value is Interval => value === 'weekly' || value === 'monthly'

/** Approve and reject while the ad waits (for payment or review); cancel while it waits or runs. */
export const canReview = (status: AdStatus) => status === 'pending' || status === 'pending_payment'
export const canCancel = (status: AdStatus) => canReview(status) || status === 'active'

const SORTS = [
  { value: 'createdAt:desc', label: 'Newest first' },
  { value: 'createdAt:asc', label: 'Oldest first' },
  { value: 'updatedAt:desc', label: 'Recently updated' },
  { value: 'startDate:desc', label: 'Latest start' },
  { value: 'endDate:asc', label: 'Ending soonest' },
  { value: 'status:asc', label: 'Status' },
] as const

export function AdStatusBadge({ status }: { status: AdStatus }) {
  return <span class={`status status-${status}`}>{AD_STATUS_LABELS[status]}</span>
}

/**
 * The review actions on an ad, with their dialogs (`dialogs` goes into the page once). `changed` runs
 * after an action succeeded, with what to tell the user; `deleted` after a delete (the list reloads, the
 * ad's page leaves). A refused action says why and reloads, as the ad may have moved under the user.
 */
export function useAdActions({
  changed,
  deleted,
  reload,
}: {
  changed: (message: string) => Promise<void>
  deleted: (message: string) => Promise<void> | void
  reload: () => Promise<void>
}) {
  const toast = useToast()
  const confirm = useConfirm()
  const [rejecting, setRejecting] = useState<AdRef | null>(null)
  const [cancelling, setCancelling] = useState<AdRef | null>(null)

  const failed = async (error: unknown) => {
    toast.failed(error)
    await reload()
  }

  const approve = async (ad: AdRef) => {
    const unpaid = ad.status === 'pending_payment'
    if (unpaid) {
      const sure = await confirm({
        title: 'Approve without payment?',
        message: `“${ad.title}” has not been paid for. Approving it now runs it for one period, unpaid.`,
        confirmLabel: 'Approve without payment',
      })
      if (!sure) return
    }
    try {
      const answer = await unwrap(
        api.POST('/api/admin/sponsor-ads/{id}/approve', {
          params: { path: { id: ad.id } },
          body: unpaid ? { forceApprove: true } : {},
        }),
      )
      await changed(`“${ad.title}” approved: running until ${formatDate(answer.data.endDate)}`)
    } catch (error) {
      await failed(error)
    }
  }

  const remove = async (ad: AdRef) => {
    const sure = await confirm({
      title: 'Delete this sponsor ad?',
      message: `“${ad.title}” will be deleted for good. Its payment records stay; a subscription still charged for it is cancelled at the provider.`,
      confirmLabel: 'Delete',
      danger: true,
    })
    if (!sure) return
    try {
      await unwrap(api.DELETE('/api/admin/sponsor-ads/{id}', { params: { path: { id: ad.id } } }))
      await deleted(`“${ad.title}” deleted`)
    } catch (error) {
      await failed(error)
    }
  }

  const dialogs = (
    <>
      <RejectAdDialog
        ad={rejecting}
        onClose={() => setRejecting(null)}
        onDone={async (ad) => {
          setRejecting(null)
          await changed(`“${ad.title}” rejected`)
        }}
      />
      <CancelAdDialog
        ad={cancelling}
        onClose={() => setCancelling(null)}
        onDone={async (ad) => {
          setCancelling(null)
          await changed(`“${ad.title}” cancelled`)
        }}
      />
    </>
  )

  return { approve, reject: setRejecting, cancel: setCancelling, remove, dialogs }
}

/** The reason of a rejection (the API wants 10 to 500 characters); its refusal shows under the field. */
function RejectAdDialog({
  ad,
  onClose,
  onDone,
}: {
  ad: AdRef | null
  onClose: () => void
  onDone: (ad: AdRef) => Promise<void>
}) {
  return (
    <ReasonDialog
      title={`Reject “${ad?.title ?? ''}”`}
      open={ad !== null}
      onClose={onClose}
      label="Reason"
      hint="10 to 500 characters. The advertiser sees it; a subscription already paid is cancelled at the provider."
      maxLength={500}
      field="rejectionReason"
      confirmLabel="Reject"
      keepLabel="Keep in review"
      send={async (rejectionReason) => {
        if (!ad) return
        await unwrap(
          api.POST('/api/admin/sponsor-ads/{id}/reject', {
            params: { path: { id: ad.id } },
            body: { rejectionReason },
          }),
        )
        await onDone(ad)
      }}
    />
  )
}

/** Asks before cancelling, with an optional reason kept on the ad. */
function CancelAdDialog({
  ad,
  onClose,
  onDone,
}: {
  ad: AdRef | null
  onClose: () => void
  onDone: (ad: AdRef) => Promise<void>
}) {
  return (
    <ReasonDialog
      title={`Cancel “${ad?.title ?? ''}”?`}
      open={ad !== null}
      onClose={onClose}
      intro={
        <p>
          The ad stops showing at once and its subscription is cancelled at the provider (refunds are made
          there). This cannot be undone.
        </p>
      }
      label="Reason (optional)"
      hint="Up to 500 characters, kept on the ad."
      maxLength={500}
      rows={3}
      field="cancelReason"
      confirmLabel="Cancel the ad"
      keepLabel="Keep it"
      send={async (cancelReason) => {
        if (!ad) return
        await unwrap(
          api.POST('/api/admin/sponsor-ads/{id}/cancel', {
            params: { path: { id: ad.id } },
            body: cancelReason ? { cancelReason } : {},
          }),
        )
        await onDone(ad)
      }}
    />
  )
}

/** The dates an ad runs, as a range. */
export function period(ad: Pick<AdminAd, 'startDate' | 'endDate'>): string {
  if (!ad.startDate && !ad.endDate) return '—'
  return `${formatDate(ad.startDate)} – ${formatDate(ad.endDate)}`
}

export default function SponsorAds() {
  const { query, setQuery, page, search, sort, setSearch, setFilter, setSort, setPage } = useList(
    SORTS,
    'createdAt:desc',
  )
  const [sortBy, sortOrder] = sortParams(sort)
  const toast = useToast()
  const status = query.get('status')
  const interval = query.get('interval') ?? ''

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/sponsor-ads', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(isStatus(status) ? { status } : {}),
              ...(isInterval(interval) ? { interval } : {}),
              ...(search ? { search } : {}),
              sortBy,
              sortOrder,
            },
          },
        }),
      ),
    [page, status, interval, search, sortBy, sortOrder],
  )
  const actions = useAdActions({
    changed: async (message) => {
      toast('success', message)
      await list.reload()
    },
    deleted: async (message) => {
      toast('success', message)
      await list.reload()
    },
    reload: list.reload,
  })

  const stats = list.data?.stats
  const columns: Column<AdminAd>[] = [
    {
      header: 'Ad',
      cell: (ad) => (
        <>
          <Link href={`/sponsor-ads/${ad.id}`}>{ad.title}</Link>
          <div class="muted small">
            {ad.itemName !== ad.title ? `${ad.itemName} · ` : ''}
            {ad.itemSlug}
          </div>
        </>
      ),
    },
    { header: 'Status', cell: (ad) => <AdStatusBadge status={ad.status} /> },
    {
      header: 'Advertiser',
      secondary: true,
      cell: (ad) =>
        ad.user ? (
          <>
            {ad.user.name ?? ad.user.email}
            {ad.user.name && <div class="muted small">{ad.user.email}</div>}
          </>
        ) : (
          <span class="muted">Account deleted</span>
        ),
    },
    { header: 'Interval', secondary: true, cell: (ad) => INTERVAL_LABELS[ad.interval] },
    { header: 'Runs', secondary: true, cell: period },
    { header: 'Submitted', secondary: true, cell: (ad) => formatDate(ad.createdAt) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (ad) => (
        <>
          {canReview(ad.status) && (
            <RowButton action="Approve" name={ad.title} kind="primary" onClick={() => actions.approve(ad)} />
          )}
          {canReview(ad.status) && (
            <RowButton action="Reject" name={ad.title} onClick={() => actions.reject(ad)} />
          )}
          {canCancel(ad.status) && (
            <RowButton action="Cancel" name={ad.title} onClick={() => actions.cancel(ad)} />
          )}
          <RowButton action="Delete" name={ad.title} kind="danger" onClick={() => actions.remove(ad)} />
        </>
      ),
    },
  ]

  const tabs = [
    { value: '', label: 'All', count: stats?.total },
    { value: 'pending', label: 'In review' },
    { value: 'pending_payment', label: 'Awaiting payment' },
    { value: 'active', label: 'Active', count: stats?.active },
    { value: 'rejected', label: 'Rejected' },
    { value: 'expired', label: 'Expired', count: stats?.expired },
    { value: 'cancelled', label: 'Cancelled', count: stats?.cancelled },
  ]

  return (
    <Page title="Sponsor ads">
      {stats && (
        <Figures label="All sponsor ads">
          <Figure value={stats.total} label="Sponsor ads" />
          <Figure value={stats.pending} label="Waiting for payment or review" />
          <Figure value={stats.active} label="Active" />
          <Figure value={stats.expired} label="Expired" />
          <Figure value={stats.cancelled} label="Cancelled" />
        </Figures>
      )}
      <Tabs
        label="Status"
        tabs={tabs}
        current={isStatus(status) ? status : ''}
        onSelect={(value) => setQuery({ status: value, page: undefined }, { push: true })}
      />
      <div class="toolbar">
        <SearchBox
          value={search}
          onSearch={setSearch}
          placeholder="Title, item, advertiser’s name or email"
        />
        <Select
          label="Interval"
          value={interval}
          onValue={(value) => setFilter('interval', value)}
          options={[
            { value: '', label: 'Weekly or monthly' },
            { value: 'weekly', label: 'Weekly' },
            { value: 'monthly', label: 'Monthly' },
          ]}
        />
        <Select label="Sort" value={sort} onValue={setSort} options={SORTS} />
      </div>
      <PagedTable
        caption="Sponsor ads"
        columns={columns}
        rows={list.data?.data}
        rowKey={(ad) => ad.id}
        busy={list.loading}
        empty={
          search || interval || isStatus(status)
            ? 'No sponsor ad matches these filters.'
            : 'No sponsor ads yet.'
        }
        error={list.error}
        meta={list.data?.pagination}
        page={page}
        onPage={setPage}
      />
      {actions.dialogs}
    </Page>
  )
}
