/**
 * The directory going out (a download per format, through the admin's own session) and its links' health:
 * the latest link check run with its progress, the published items by link status (each a way into the
 * items screen filtered by it), the schedule, and a run on demand.
 */
import { useEffect, useId } from 'preact/hooks'
import { messageOf, unwrap } from '../../shared/api.ts'
import { useResource } from '../../shared/resource.ts'
import { Link } from '../../shared/router.tsx'
import { Button, formatDate, Loading, Notice, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'
import { ProgressBar } from './import-export-report.tsx'

type LinkChecks = Answer<'/api/admin/link-checks'>['data']
type Run = NonNullable<LinkChecks['run']>
type LinkStatus = keyof LinkChecks['counts']

const EXPORTS = [
  { format: 'markdown', name: 'Markdown', holds: 'the published items as an awesome list' },
  { format: 'csv', name: 'CSV', holds: 'every item, whatever its status, for a spreadsheet' },
  { format: 'json', name: 'JSON', holds: 'every item, category and tag, as an import reads them' },
] as const

export function ExportPanel() {
  const headingId = useId()
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Export</h2>
      <p class="muted">The whole directory as a file, named after the site.</p>
      <ul class="transfer-exports">
        {EXPORTS.map((entry) => (
          <li key={entry.format}>
            {/* A plain link: the browser downloads it with the session cookie, the server names the file. */}
            <a class="button" href={`/api/admin/exports?format=${entry.format}`} download>
              Download {entry.name}
            </a>
            <span class="muted small">{entry.holds}</span>
          </li>
        ))}
      </ul>
    </section>
  )
}

const RUN_LABELS: Record<Run['status'], string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
}

const LINK_LABELS: Record<LinkStatus, { label: string; filter: string }> = {
  ok: { label: 'OK', filter: 'OK links' },
  redirected: { label: 'Redirected', filter: 'redirected links' },
  broken: { label: 'Broken', filter: 'broken links' },
  unchecked: { label: 'Not checked yet', filter: 'links not checked yet' },
}

const POLL_MS = 2000

/** `86400000` → `every day`; null → the schedule is off. */
export function intervalText(ms: number | null): string {
  if (ms === null) return 'The schedule is off: links are checked only when a run is started here.'
  const units = [
    { ms: 86_400_000, one: 'day' },
    { ms: 3_600_000, one: 'hour' },
    { ms: 60_000, one: 'minute' },
    { ms: 1000, one: 'second' },
  ]
  const unit = units.find((u) => ms % u.ms === 0) ?? { ms: 1, one: 'millisecond' }
  const count = ms / unit.ms
  return `A run starts on its own when the latest is older than ${count === 1 ? `a ${unit.one}` : `${count} ${unit.one}s`}.`
}

const isActive = (run: Run | null | undefined) => run?.status === 'queued' || run?.status === 'running'

export function LinkHealth() {
  const headingId = useId()
  const toast = useToast()
  const status = useResource((signal) => unwrap(api.GET('/api/admin/link-checks', { signal })), [])
  const data = status.data?.data
  const run = data?.run
  const active = isActive(run)

  // While a run is queued or running, its progress is read again every few seconds.
  useEffect(() => {
    if (!active || status.loading) return
    const timer = window.setTimeout(() => status.reload(), POLL_MS)
    return () => window.clearTimeout(timer)
  }, [active, run?.processed, run?.status, status.loading])

  const start = async () => {
    try {
      await unwrap(api.POST('/api/admin/link-checks'))
      toast('success', 'Link check started')
    } catch (error) {
      toast.failed(error)
    }
    await status.reload()
  }

  return (
    <section class="card" aria-labelledby={headingId} aria-busy={status.loading ? 'true' : 'false'}>
      <h2 id={headingId}>Link health</h2>
      {status.error !== undefined && <Notice kind="error">{messageOf(status.error)}</Notice>}
      {!data && status.error === undefined && <Loading what="Loading the link checks" />}
      {data && (
        <>
          <p class="muted small">Published items with a URL, by the status of their link:</p>
          <ul class="transfer-link-counts">
            {(Object.keys(LINK_LABELS) as LinkStatus[]).map((key) => (
              <li key={key} class="figure">
                <span class="figure-value">{data.counts[key]}</span>
                <span class="figure-label">{LINK_LABELS[key].label}</span>
                <Link
                  href={`/items?linkStatus=${key}`}
                  class="small"
                  aria-label={`Show items with ${LINK_LABELS[key].filter}`}
                >
                  Show items
                </Link>
              </li>
            ))}
          </ul>
          <h3>Latest run</h3>
          {run ? <RunStatus run={run} /> : <p>No link check has run yet.</p>}
          <p class="muted small">{intervalText(data.schedule.intervalMs)}</p>
          <div class="actions">
            <Button kind="primary" onClick={start} disabled={active}>
              Check all links now
            </Button>
            {active && <span class="muted small transfer-inline">A run is under way.</span>}
          </div>
        </>
      )}
    </section>
  )
}

function RunStatus({ run }: { run: Run }) {
  return (
    <div class="transfer-run">
      <p>
        <span class={`status status-${run.status}`}>{RUN_LABELS[run.status]}</span>{' '}
        <span class="muted small">
          {run.trigger === 'admin' ? 'started by an admin' : 'started by the schedule'} ·{' '}
          {formatDate(run.startedAt ?? run.createdAt, true)}
          {run.finishedAt && ` · ended ${formatDate(run.finishedAt, true)}`}
        </span>
      </p>
      <ProgressBar label="Links checked" done={run.processed} total={run.total} active={isActive(run)}>
        {run.processed} of {run.total} checked: {run.ok} OK, {run.redirected} redirected, {run.failed} failed
        {run.newlyBroken > 0 && `, ${run.newlyBroken} newly broken`}
      </ProgressBar>
      {run.status === 'failed' && run.error && <Notice kind="error">The run failed: {run.error}</Notice>}
    </div>
  )
}
