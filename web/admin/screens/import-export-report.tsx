/**
 * One import as the screen follows it: read again every second while it waits or runs (and never after it
 * ended, the screen left or another import was opened), then its report: the counts, the progress, the
 * errors with their line, why it failed.
 */
import type { ComponentChildren } from 'preact'
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { ApiError, messageOf, unwrap } from '../../shared/api.ts'
import { Link } from '../../shared/router.tsx'
import { type Column, DataTable } from '../../shared/table.tsx'
import { formatDate, Notice, useToast } from '../../shared/ui.tsx'
import { type Answer, api } from '../api.ts'

export type Import = Answer<'/api/admin/imports/{id}'>['data']
export type ImportFormat = Import['format']
export type ImportMode = Import['mode']
type ImportStatus = Import['status']

export const FORMAT_LABELS: Record<ImportFormat, string> = {
  markdown: 'Markdown awesome list',
  csv: 'CSV',
  json: 'JSON',
}

export const MODE_LABELS: Record<ImportMode, string> = {
  upsert: 'Upsert: create new items, update existing ones',
  'create-only': 'Create only: leave existing items as they are',
}

export const STATUS_LABELS: Record<ImportStatus, string> = {
  pending: 'Waiting for its turn',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
}

const POLL_MS = 1000
const RETRY_MS = 3000

export const isActive = (status: ImportStatus) => status === 'pending' || status === 'running'

export interface Followed {
  id: string
  data: Import | undefined
  error: unknown
}

/**
 * Follows the import `id`: its latest state, read again while it is pending or running. A passing
 * failure (the network, a 5xx) is shown and tried again; a 4xx (no such import) ends the following.
 */
export function useFollowedImport(id: string | null): Followed | null {
  const [state, setState] = useState<Followed | null>(null)
  useEffect(() => {
    if (!id) {
      setState(null)
      return
    }
    let stopped = false
    let timer: number | undefined
    const controller = new AbortController()
    setState((previous) => (previous?.id === id ? previous : { id, data: undefined, error: undefined }))
    const read = async () => {
      try {
        const answer = await unwrap(
          api.GET('/api/admin/imports/{id}', { params: { path: { id } }, signal: controller.signal }),
        )
        if (stopped) return
        setState({ id, data: answer.data, error: undefined })
        if (isActive(answer.data.status)) timer = window.setTimeout(read, POLL_MS)
      } catch (error) {
        if (stopped || (error as Error)?.name === 'AbortError') return
        setState((previous) => ({ id, data: previous?.id === id ? previous.data : undefined, error }))
        const final = error instanceof ApiError && error.status >= 400 && error.status < 500
        if (!final) timer = window.setTimeout(read, RETRY_MS)
      }
    }
    read()
    return () => {
      stopped = true
      controller.abort()
      window.clearTimeout(timer)
    }
  }, [id])
  return state?.id === id ? state : null
}

/**
 * Says so when an import ends that was started here or watched running (not when a finished one is
 * opened); once per import.
 */
export function useEndToast(followed: Followed | null, startedHere: ReadonlySet<string>) {
  const toast = useToast()
  const watched = useRef(new Set<string>())
  const told = useRef(new Set<string>())
  const data = followed?.data
  useEffect(() => {
    if (!data) return
    if (isActive(data.status)) {
      watched.current.add(data.id)
      return
    }
    if (told.current.has(data.id)) return
    if (!watched.current.has(data.id) && !startedHere.has(data.id)) return
    told.current.add(data.id)
    const what = data.dryRun ? 'Dry run' : 'Import'
    if (data.status === 'completed') toast('success', `${what} completed: ${countsText(data)}`)
    else toast('error', `${what} failed${data.failure ? `: ${data.failure}` : ''}`)
  }, [data?.id, data?.status])
}

export function countsText(imp: Import): string {
  const r = imp.result
  if (!r) return 'nothing done yet'
  const errors = r.errorCount === 1 ? '1 error' : `${r.errorCount} errors`
  return `${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged, ${r.skipped} skipped, ${errors}`
}

function Figure({ label, value }: { label: string; value: number | undefined }) {
  return (
    <div class="figure">
      <span class="figure-value">{value ?? '—'}</span>
      <span class="figure-label">{label}</span>
    </div>
  )
}

/** A labelled `<progress>`: indeterminate while the total is not known yet. */
export function ProgressBar({
  label,
  done,
  total,
  active,
  children,
}: {
  label: string
  done: number
  total: number
  /** Still going: with no total yet, the bar says it is working rather than empty. */
  active: boolean
  children: ComponentChildren
}) {
  const id = useId()
  return (
    <div class="transfer-progress">
      <label for={id}>{label}</label>
      {total === 0 && active ? (
        <progress id={id} />
      ) : (
        <progress id={id} max={Math.max(total, 1)} value={total === 0 ? 0 : Math.min(done, total)} />
      )}
      <span class="muted small">{children}</span>
    </div>
  )
}

type ImportError = NonNullable<Import['result']>['errors'][number]

const errorColumns: Column<ImportError>[] = [
  {
    header: 'Line or item',
    class: 'transfer-where',
    cell: (error) => (error.line !== undefined ? `Line ${error.line}` : (error.item ?? '—')),
  },
  { header: 'Message', cell: (error) => error.message },
]

/** The report of one import: what it is, how far it got, what it did, and what it could not read. */
export function ImportReport({
  followed,
  applyArea,
  reveal,
  onRevealed,
}: {
  followed: Followed
  /** Under a completed dry run: the Apply button, or why it is not offered. */
  applyArea?: ComponentChildren
  /** Just queued from the form: focus moves to the report (and the page scrolls to it) once it is read. */
  reveal?: boolean
  onRevealed?: () => void
}) {
  const headingId = useId()
  const heading = useRef<HTMLHeadingElement>(null)
  const imp = followed.data
  useEffect(() => {
    if (!reveal || !imp) return
    heading.current?.scrollIntoView({ block: 'start' })
    heading.current?.focus({ preventScroll: true })
    onRevealed?.()
  }, [reveal, imp?.id])
  if (!imp) {
    return (
      <section class="card" aria-labelledby={headingId}>
        <h2 id={headingId}>Import report</h2>
        {followed.error === undefined ? (
          <p class="loading" role="status">
            Loading the import…
          </p>
        ) : (
          <Notice kind="error">
            {followed.error instanceof ApiError && followed.error.status === 404
              ? 'There is no import with this id: it may have been opened from an old link.'
              : messageOf(followed.error)}
          </Notice>
        )}
      </section>
    )
  }
  const result = imp.result
  const active = isActive(imp.status)
  const { done, total } = imp.progress
  return (
    <section class="card transfer-report" aria-labelledby={headingId} aria-busy={active ? 'true' : 'false'}>
      <header class="transfer-report-header">
        <h2 id={headingId} ref={heading} tabIndex={-1}>
          {imp.dryRun ? 'Dry run report' : 'Import report'}
        </h2>
        <span class={`status status-${imp.status}`}>{STATUS_LABELS[imp.status]}</span>
      </header>
      <p class="muted small">
        {FORMAT_LABELS[imp.format]} · {imp.mode} ·{' '}
        {imp.sourceUrl ? <span class="transfer-source">{imp.sourceUrl}</span> : 'sent content'} · queued{' '}
        {formatDate(imp.createdAt, true)}
        {imp.finishedAt && ` · ended ${formatDate(imp.finishedAt, true)}`}
      </p>
      {followed.error !== undefined && (
        <Notice kind="error">The import could not be read again: {messageOf(followed.error)}</Notice>
      )}
      <p role="status" class="transfer-summary">
        {imp.status === 'pending'
          ? 'Waiting: another import is running, this one starts after it.'
          : imp.status === 'running' && total === 0
            ? 'Reading the file…'
            : `${imp.dryRun && imp.status === 'completed' ? 'It would give: ' : ''}${countsText(imp)}.`}
      </p>
      {(active || !imp.dryRun) && (
        <ProgressBar
          label={imp.dryRun ? 'Rows worked out' : 'Rows imported'}
          done={done}
          total={total}
          active={active}
        >
          {total > 0 || !active ? `${done} of ${total} rows` : 'The file is being read'}
        </ProgressBar>
      )}
      <div class="figures">
        <Figure label="Created" value={result?.created} />
        <Figure label="Updated" value={result?.updated} />
        <Figure label="Unchanged" value={result?.unchanged} />
        <Figure label="Skipped" value={result?.skipped} />
        <Figure label="Errors" value={result?.errorCount} />
      </div>
      {imp.status === 'failed' && (
        <Notice kind="error">
          The {imp.dryRun ? 'dry run' : 'import'} failed: {imp.failure ?? 'no reason was given'}
        </Notice>
      )}
      {imp.status === 'running' && imp.failure && (
        <Notice>An attempt failed and is being tried again: {imp.failure}</Notice>
      )}
      {imp.status === 'completed' &&
        (imp.dryRun ? (
          <Notice>Nothing was written: this is what an import of the file would do.</Notice>
        ) : (
          <Notice kind="success">
            The import is complete. <Link href="/items">See the items</Link>
          </Notice>
        ))}
      {applyArea}
      {result && result.errors.length > 0 && (
        <>
          <h3>Errors</h3>
          {result.errorCount > result.errors.length && (
            <p class="muted">
              The first {result.errors.length} of {result.errorCount} errors.
            </p>
          )}
          <DataTable
            caption="Errors"
            columns={errorColumns}
            rows={result.errors}
            rowKey={(error) => `${error.line ?? error.item ?? ''}:${error.message}`}
            empty="No errors."
          />
        </>
      )}
    </section>
  )
}
