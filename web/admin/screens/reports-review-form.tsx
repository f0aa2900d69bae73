/**
 * The review form of a report: the moderation action to run and a note, then Resolve (asking first
 * before an action that cannot be taken back), Dismiss, Mark as reviewed or Reopen.
 */
import { useRef, useState } from 'preact/hooks'
import { unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Button, Notice, Select, TextArea, useConfirm, useToast } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { isResolution, type ReportDetail, type Resolution } from './reports-labels.tsx'

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

type Intent = 'resolved' | 'dismissed' | 'reviewed' | 'pending'

const DONE: Record<Intent, string> = {
  resolved: 'Report resolved',
  dismissed: 'Report dismissed',
  reviewed: 'Report marked as reviewed',
  pending: 'Report reopened',
}

/** Saves the review with the button's status; a resolution's action that failed is said in the toast. */
export function ReviewForm({
  report,
  onReviewed,
}: {
  report: ReportDetail
  onReviewed: () => Promise<void>
}) {
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
