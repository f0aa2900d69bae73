/**
 * Reports: the figures, the status tabs, content type and reason filters and search in the query
 * string, paging on the server, and a review dialog per report that shows the reported content as this
 * database holds it now and its owner, and resolves (running a moderation action), dismisses, marks
 * reviewed or reopens it.
 */
import { useRef, useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { Figure, Figures } from '../../shared/figures.tsx'
import { useSubmit } from '../../shared/form.ts'
import { useList } from '../../shared/list.ts'
import { Page } from '../../shared/page.tsx'
import { PagedTable } from '../../shared/paged-table.tsx'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import type { Column } from '../../shared/table.tsx'
import {
  Button,
  Dialog,
  formatDate,
  Loading,
  Notice,
  SearchBox,
  Select,
  Tabs,
  TextArea,
  useConfirm,
  useToast,
} from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import './moderation.css'

const PAGE_SIZE = 25

type Report = Answer<'/api/admin/reports'>['data']['reports'][number]
type ReportDetail = Answer<'/api/admin/reports/{id}'>['data']
type Status = Report['status']
type ContentType = Report['contentType']
type Reason = Report['reason']
type Resolution = NonNullable<Report['resolution']>

const STATUS_LABELS: Record<Status, string> = {
  pending: 'Pending',
  reviewed: 'Reviewed',
  resolved: 'Resolved',
  dismissed: 'Dismissed',
}
const TYPE_LABELS: Record<ContentType, string> = { item: 'Item', comment: 'Comment' }
const REASON_LABELS: Record<Reason, string> = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate',
  other: 'Other',
}
/** What a resolution did, as the report shows it. */
const RESOLUTION_LABELS: Record<Resolution, string> = {
  content_removed: 'Content removed',
  user_warned: 'Owner warned',
  user_suspended: 'Owner suspended',
  user_banned: 'Owner banned',
  no_action: 'No action',
}
/** The actions a resolution runs, as the review form offers them. */
const RESOLUTION_CHOICES: readonly { value: Resolution; label: string }[] = [
  { value: 'no_action', label: 'No action' },
  { value: 'content_removed', label: 'Remove the content' },
  { value: 'user_warned', label: 'Warn the owner' },
  { value: 'user_suspended', label: 'Suspend the owner' },
  { value: 'user_banned', label: 'Ban the owner for good' },
]
/** The resolutions that cannot be taken back from here: the form asks before running them. */
const DRASTIC: Partial<Record<Resolution, string>> = {
  content_removed: 'The reported content will be deleted for good.',
  user_suspended: 'The owner’s client profile will be suspended and they will be signed out.',
  user_banned: 'The owner will be banned for good; only an admin setting their status lifts it.',
}

const STATUSES = Object.keys(STATUS_LABELS) as Status[]
const isStatus = (value: string | null): value is Status => STATUSES.includes(value as Status)
const isType = (value: string): value is ContentType => value === 'item' || value === 'comment'
const isReason = (value: string): value is Reason => value in REASON_LABELS
const isResolution = (value: string): value is Resolution => value in RESOLUTION_LABELS

const who = (person: { name: string | null; email: string } | null) =>
  person ? (person.name ? `${person.name} (${person.email})` : person.email) : 'a deleted account'

export function ReportStatusBadge({ status }: { status: Status }) {
  return <span class={`status status-${status}`}>{STATUS_LABELS[status]}</span>
}

export default function Reports() {
  const { query, setQuery, page, search, setSearch, setFilter, setPage } = useList()
  const status = query.get('status')
  const contentType = query.get('contentType') ?? ''
  const reason = query.get('reason') ?? ''
  const [reviewing, setReviewing] = useState<Report | null>(null)

  const list = useResource(
    (signal) =>
      unwrap(
        api.GET('/api/admin/reports', {
          signal,
          params: {
            query: {
              page,
              limit: PAGE_SIZE,
              ...(isStatus(status) ? { status } : {}),
              ...(isType(contentType) ? { contentType } : {}),
              ...(isReason(reason) ? { reason } : {}),
              ...(search ? { search } : {}),
            },
          },
        }),
      ),
    [page, status, contentType, reason, search],
  )
  const stats = useResource((signal) => unwrap(api.GET('/api/admin/reports/stats', { signal })), [list.data])
  const counts = stats.data?.data
  const pagination = list.data?.data.pagination

  const columns: Column<Report>[] = [
    {
      header: 'Content',
      cell: (report) => (
        <>
          <span class="pill pill-first">{TYPE_LABELS[report.contentType]}</span>{' '}
          <span class="break">{report.contentId}</span>
        </>
      ),
    },
    { header: 'Reason', cell: (report) => REASON_LABELS[report.reason] },
    {
      header: 'Details',
      secondary: true,
      cell: (report) =>
        report.details ? <span class="clamp">{report.details}</span> : <span class="muted">—</span>,
    },
    {
      header: 'Reported by',
      secondary: true,
      cell: (report) =>
        report.reporter ? (
          <>
            {report.reporter.name ?? report.reporter.email}
            {report.reporter.name && <div class="muted small">{report.reporter.email}</div>}
          </>
        ) : (
          <span class="muted">Account deleted</span>
        ),
    },
    {
      header: 'Status',
      cell: (report) => (
        <>
          <ReportStatusBadge status={report.status} />
          {report.resolution && <div class="muted small">{RESOLUTION_LABELS[report.resolution]}</div>}
        </>
      ),
    },
    { header: 'Reported', secondary: true, cell: (report) => formatDate(report.createdAt, true) },
    {
      header: 'Actions',
      class: 'row-actions',
      cell: (report) => (
        <Button
          kind={report.status === 'pending' ? 'primary' : 'secondary'}
          onClick={() => setReviewing(report)}
          aria-label={`Review report on ${report.contentType} ${report.contentId}`}
        >
          Review
        </Button>
      ),
    },
  ]

  const tabs = [
    { value: '', label: 'All', count: counts?.total },
    ...STATUSES.map((s) => ({ value: s, label: STATUS_LABELS[s], count: counts?.byStatus[s] })),
  ]
  const filtered = Boolean(search || isType(contentType) || isReason(reason) || isStatus(status))

  return (
    <Page title="Reports">
      {counts && (
        <Figures label="All reports">
          <Figure value={counts.total} label="Reports" />
          <Figure value={counts.pendingCount} label="Awaiting review" />
          <Figure value={counts.resolvedCount} label="Resolved" />
          <Figure value={counts.byContentType.item} label="About items" />
          <Figure value={counts.byContentType.comment} label="About comments" />
        </Figures>
      )}
      <Tabs
        label="Status"
        tabs={tabs}
        current={isStatus(status) ? status : ''}
        onSelect={(value) => setQuery({ status: value, page: undefined }, { push: true })}
      />
      <div class="toolbar">
        <SearchBox value={search} onSearch={setSearch} placeholder="Content id, details, reporter" />
        <Select
          label="Content type"
          value={contentType}
          onValue={(value) => setFilter('contentType', value)}
          options={[
            { value: '', label: 'Any content' },
            ...(['item', 'comment'] as const).map((t) => ({
              value: t,
              label: `${TYPE_LABELS[t]}s${counts ? ` (${counts.byContentType[t]})` : ''}`,
            })),
          ]}
        />
        <Select
          label="Reason"
          value={reason}
          onValue={(value) => setFilter('reason', value)}
          options={[
            { value: '', label: 'Any reason' },
            ...(Object.keys(REASON_LABELS) as Reason[]).map((r) => ({
              value: r,
              label: `${REASON_LABELS[r]}${counts ? ` (${counts.byReason[r]})` : ''}`,
            })),
          ]}
        />
      </div>
      <PagedTable
        caption="Reports"
        columns={columns}
        rows={list.data?.data.reports}
        rowKey={(report) => report.id}
        busy={list.loading}
        empty={filtered ? 'No report matches these filters.' : 'No reports yet.'}
        error={list.error}
        meta={pagination}
        page={page}
        onPage={setPage}
      />
      <ReviewDialog
        report={reviewing}
        onClose={() => setReviewing(null)}
        onReviewed={async () => {
          setReviewing(null)
          await list.reload()
        }}
      />
    </Page>
  )
}

function ReviewDialog({
  report,
  onClose,
  onReviewed,
}: {
  report: Report | null
  onClose: () => void
  onReviewed: () => Promise<void>
}) {
  return (
    <Dialog
      title={report ? `Report on ${report.contentType} ${report.contentId}` : 'Report'}
      open={report !== null}
      onClose={onClose}
      wide
    >
      {report && <Review key={report.id} id={report.id} onReviewed={onReviewed} />}
    </Dialog>
  )
}

function Review({ id, onReviewed }: { id: string; onReviewed: () => Promise<void> }) {
  const detail = useResource(
    async (signal) =>
      (await unwrap(api.GET('/api/admin/reports/{id}', { signal, params: { path: { id } } }))).data,
    [id],
  )
  if (detail.error !== undefined) return <Notice kind="error">{(detail.error as Error).message}</Notice>
  if (!detail.data) return <Loading what="Loading the report" />
  const report = detail.data
  return (
    <div class="review">
      <ReportedContent report={report} />
      <section aria-labelledby="report-about">
        <h3 id="report-about">The report</h3>
        <dl class="details">
          <dt>Reason</dt>
          <dd>{REASON_LABELS[report.reason]}</dd>
          <dt>Details</dt>
          <dd>{report.details ?? <span class="muted">None given</span>}</dd>
          <dt>Reported by</dt>
          <dd>
            {who(report.reporter)}, {formatDate(report.createdAt, true)}
          </dd>
          <dt>Status</dt>
          <dd>
            <ReportStatusBadge status={report.status} />
            {report.resolution && ` · ${RESOLUTION_LABELS[report.resolution]}`}
          </dd>
          {report.reviewedAt && (
            <>
              <dt>Last reviewed</dt>
              <dd>
                {formatDate(report.reviewedAt, true)} by {who(report.reviewer)}
              </dd>
            </>
          )}
          {report.reviewNote && (
            <>
              <dt>Review note</dt>
              <dd>{report.reviewNote}</dd>
            </>
          )}
          {report.moderationResult && (
            <>
              <dt>Last action</dt>
              <dd>
                {report.moderationResult.success ? '' : 'Failed: '}
                {report.moderationResult.message}
              </dd>
            </>
          )}
        </dl>
      </section>
      <ReviewForm report={report} onReviewed={onReviewed} />
    </div>
  )
}

/** The reported item or comment as the directory holds it now, with its owner. */
function ReportedContent({ report }: { report: ReportDetail }) {
  const { content } = report
  const contentId = content.found ? content.id : null
  const held = useResource(
    async (signal) => {
      if (!contentId) return undefined
      if (report.contentType === 'comment') {
        const { data } = await unwrap(
          api.GET('/api/admin/comments/{id}', { signal, params: { path: { id: contentId } } }),
        )
        return { kind: 'comment' as const, comment: data }
      }
      const { data } = await unwrap(
        api.GET('/api/admin/items/{id}', { signal, params: { path: { id: contentId } } }),
      )
      return { kind: 'item' as const, item: data }
    },
    [contentId, report.contentType],
  )
  const gone = held.error instanceof ApiError && held.error.status === 404
  return (
    <section aria-labelledby="report-content" class="reported">
      <h3 id="report-content">Reported {report.contentType}</h3>
      {!content.found || gone ? (
        <p class="muted">
          This {report.contentType} ({report.contentId}) is not in the directory: it was removed, or it is the
          site’s own.
        </p>
      ) : held.error !== undefined ? (
        <>
          <p>{content.title}</p>
          <Notice kind="error">{(held.error as Error).message}</Notice>
        </>
      ) : !held.data ? (
        <Loading what={`Loading the ${report.contentType}`} />
      ) : held.data.kind === 'comment' ? (
        <>
          <blockquote class="quote">{held.data.comment.body}</blockquote>
          <p class="small">
            By {who(held.data.comment.author)} on{' '}
            <Link href={`/items/${held.data.comment.item.id}`}>{held.data.comment.item.name}</Link>,{' '}
            {formatDate(held.data.comment.createdAt, true)} ·{' '}
            <span class={`status status-${held.data.comment.status}`}>{held.data.comment.status}</span>
          </p>
        </>
      ) : (
        <>
          <p>
            <Link href={`/items/${held.data.item.id}`}>
              <strong>{held.data.item.name}</strong>
            </Link>{' '}
            <span class={`status status-${held.data.item.status}`}>{held.data.item.status}</span>
          </p>
          {held.data.item.url && <p class="break small">{held.data.item.url}</p>}
          {held.data.item.description && <p class="clamp">{held.data.item.description}</p>}
          <p class="small">
            Submitted by{' '}
            {held.data.item.submittedBy ? who(held.data.item.submittedBy) : 'an admin (no owner to act on)'}
          </p>
        </>
      )}
    </section>
  )
}

type Intent = 'resolved' | 'dismissed' | 'reviewed' | 'pending'

const DONE: Record<Intent, string> = {
  resolved: 'Report resolved',
  dismissed: 'Report dismissed',
  reviewed: 'Report marked as reviewed',
  pending: 'Report reopened',
}

function ReviewForm({ report, onReviewed }: { report: ReportDetail; onReviewed: () => Promise<void> }) {
  const toast = useToast()
  const confirm = useConfirm()
  const [resolution, setResolution] = useState<string>(report.resolution ?? '')
  const [note, setNote] = useState(report.reviewNote ?? '')
  const intent = useRef<Intent>('resolved')
  const submission = useSubmit(async () => {
    const status = intent.current
    const chosen = status === 'resolved' && isResolution(resolution) ? resolution : undefined
    const reviewNote = note.trim()
    const answer = await unwrap(
      api.PUT('/api/admin/reports/{id}', {
        params: { path: { id: report.id } },
        body: {
          status,
          ...(chosen ? { resolution: chosen } : {}),
          ...(reviewNote ? { reviewNote } : {}),
        },
      }),
    )
    // The report is saved either way; an action that failed says why.
    const result = chosen && chosen !== report.resolution ? answer.moderationResult : undefined
    if (result && !result.success) toast('error', `${DONE[status]}, but the action failed: ${result.message}`)
    else toast('success', result ? `${DONE[status]}: ${result.message}` : DONE[status])
    await onReviewed()
  }, ['status', 'resolution', 'reviewNote'])

  const run = async (next: Intent) => {
    if (next === 'resolved' && isResolution(resolution) && resolution !== report.resolution) {
      const warning = DRASTIC[resolution]
      if (warning) {
        const label = RESOLUTION_CHOICES.find((c) => c.value === resolution)?.label ?? 'Resolve'
        const sure = await confirm({
          title: `${label}?`,
          message: warning,
          confirmLabel: label,
          danger: true,
        })
        if (!sure) return
      }
    }
    intent.current = next
    await submission.submit()
  }

  const chosenHint =
    resolution === 'content_removed'
      ? 'Deletes the reported content.'
      : resolution === 'user_warned'
        ? 'Adds a warning to the owner’s moderation history.'
        : resolution === 'user_suspended'
          ? 'Suspends the owner’s client profile and signs them out.'
          : resolution === 'user_banned'
            ? 'Bans the owner for good.'
            : 'Runs when you resolve the report; the note is its reason.'

  return (
    <form
      class="review-form"
      aria-labelledby="report-review"
      noValidate
      onSubmit={(event) => {
        event.preventDefault()
        void run('resolved')
      }}
    >
      <h3 id="report-review">Your review</h3>
      {submission.error && <Notice kind="error">{submission.error}</Notice>}
      <Select
        label="Action"
        value={resolution}
        onValue={setResolution}
        error={submission.fields.resolution}
        hint={chosenHint}
        options={[{ value: '', label: 'Choose an action' }, ...RESOLUTION_CHOICES]}
      />
      <TextArea
        label="Review note"
        value={note}
        onValue={setNote}
        error={submission.fields.reviewNote}
        hint="Kept on the report, and the reason recorded with the action (up to 1000 characters)."
        maxLength={1000}
        rows={3}
      />
      {submission.fields.status && <p class="field-error">{submission.fields.status}</p>}
      <div class="actions">
        <Button kind="primary" type="submit" busy={submission.busy}>
          Resolve
        </Button>
        <Button onClick={() => run('dismissed')} disabled={submission.busy}>
          Dismiss
        </Button>
        {report.status !== 'reviewed' && (
          <Button onClick={() => run('reviewed')} disabled={submission.busy}>
            Mark as reviewed
          </Button>
        )}
        {report.status !== 'pending' && (
          <Button onClick={() => run('pending')} disabled={submission.busy}>
            Reopen
          </Button>
        )}
      </div>
    </form>
  )
}
