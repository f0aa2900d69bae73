/**
 * One activity entry in full, in a dialog: what happened, when, from where, its details, and for a run
 * still going, its work's latest log lines, asked again every few seconds until it ends.
 */
import { Fragment } from 'preact'
import { useId } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { usePolling } from '../../shared/poll.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Dialog, formatDate, Loading, Notice } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import { type ActivityEntry, ActivityStatusBadge, actionLabel } from './labels.tsx'

/** How often a running entry's details are asked again. */
const LIVE_MS = 3000

export function EntryDialog({ id, onClose }: { id: string | null; onClose: () => void }) {
  return (
    <Dialog title="Activity details" open={id !== null} onClose={onClose} wide>
      {id !== null && <EntryDetails id={id} />}
    </Dialog>
  )
}

function EntryDetails({ id }: { id: string }) {
  const entry = useResource(
    (signal) => unwrap(api.GET('/api/activity-log/{id}', { signal, params: { path: { id } } })),
    [id],
  )
  usePolling(entry.reload, LIVE_MS, entry.data?.status === 'in_progress')
  if (entry.error !== undefined && !entry.data) {
    const missing = entry.error instanceof ApiError && entry.error.status === 404
    return (
      <Notice kind="error">
        {missing ? 'There is no such entry in your activity.' : messageOf(entry.error)}
      </Notice>
    )
  }
  if (!entry.data) return <Loading what="Loading the entry" />
  return <Entry entry={entry.data} />
}

function Entry({ entry }: { entry: ActivityEntry }) {
  const logId = useId()
  const { liveLogs, ...details } = entry.details
  const logs = Array.isArray(liveLogs) ? liveLogs.map(String) : []
  const facts = Object.entries(details)
  return (
    <>
      <p class="activity-summary">{entry.summary}</p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <ActivityStatusBadge status={entry.status} />
        </dd>
        <dt>Action</dt>
        <dd>
          {actionLabel(entry.actionType)} <code>{entry.action}</code>
        </dd>
        <dt>Work</dt>
        <dd>
          {entry.workId ? <Link href={`/works/${entry.workId}`}>Open the work</Link> : 'None, or deleted'}
        </dd>
        <dt>When</dt>
        <dd>{formatDate(entry.createdAt, true)}</dd>
        {entry.updatedAt !== entry.createdAt && (
          <>
            <dt>Last change</dt>
            <dd>{formatDate(entry.updatedAt, true)}</dd>
          </>
        )}
        <dt>IP address</dt>
        <dd>{entry.ipAddress ?? '—'}</dd>
        <dt>Client</dt>
        <dd>{entry.userAgent ?? '—'}</dd>
      </dl>
      {facts.length > 0 && (
        <>
          <h3>Details</h3>
          <dl class="facts">
            {facts.map(([key, value]) => (
              <Fragment key={key}>
                <dt>{key}</dt>
                <dd>{typeof value === 'string' ? value : <code>{JSON.stringify(value)}</code>}</dd>
              </Fragment>
            ))}
          </dl>
        </>
      )}
      {logs.length > 0 && (
        <>
          <h3 id={logId}>{entry.status === 'in_progress' ? 'Log, as it runs' : 'Log'}</h3>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable log must take focus to be scrolled by keys */}
          <section class="activity-log-lines" tabIndex={0} aria-labelledby={logId}>
            <pre>{logs.join('\n')}</pre>
          </section>
        </>
      )}
    </>
  )
}
