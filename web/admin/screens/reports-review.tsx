/**
 * The review dialog of a report: the reported content as this database holds it now and its owner,
 * the report itself and its last review, and the review form.
 */
import { ApiError, unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Dialog, formatDate, Loading, Notice } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  REASON_LABELS,
  RESOLUTION_LABELS,
  type Report,
  type ReportDetail,
  ReportStatusBadge,
  who,
} from './reports-labels.tsx'
import { ReviewForm } from './reports-review-form.tsx'

/** Open while `report` is one; a review saved calls `onReviewed`. */
export function ReviewDialog({
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
