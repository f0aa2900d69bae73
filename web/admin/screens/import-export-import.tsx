/**
 * The import form: a format, the file (uploaded, pasted, or fetched from a URL) and a mode. A dry run comes
 * first; its report offers Apply, which sends the very request the dry run checked, without `dryRun`. The
 * import being followed lives in the address (`?import=<id>`).
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import { ApiError, unwrap } from '../../shared/api.ts'
import { useSubmit } from '../../shared/form.ts'
import { Link, useQuery } from '../../shared/router.tsx'
import { Button, Field, Notice, Select, TextArea, TextField } from '../../shared/ui.tsx'
import { api } from '../api.ts'
import {
  FORMAT_LABELS,
  type Followed,
  type ImportFormat,
  type ImportMode,
  ImportReport,
  MODE_LABELS,
} from './import-export-report.tsx'

interface ImportForm {
  format: ImportFormat
  mode: ImportMode
  content: string
  url: string
}

const EMPTY: ImportForm = { format: 'markdown', mode: 'upsert', content: '', url: '' }

const FIELDS = ['format', 'mode', 'content', 'url']

const FORMAT_OPTIONS = (Object.keys(FORMAT_LABELS) as ImportFormat[]).map((value) => ({
  value,
  label: FORMAT_LABELS[value],
}))
const MODE_OPTIONS = (Object.keys(MODE_LABELS) as ImportMode[]).map((value) => ({
  value,
  label: MODE_LABELS[value],
}))

/** What the form sends: whatever of content and URL is given (the API says when it is not exactly one). */
function bodyOf(form: ImportForm) {
  const url = form.url.trim()
  return {
    format: form.format,
    mode: form.mode,
    ...(form.content !== '' ? { content: form.content } : {}),
    ...(url !== '' ? { url } : {}),
  }
}

type Body = ReturnType<typeof bodyOf>
const keyOf = (body: Body) => JSON.stringify(body)

/** The format a file's name suggests, if any. */
function formatOfFile(name: string): ImportFormat | undefined {
  const extension = name.toLowerCase().split('.').pop()
  if (extension === 'csv') return 'csv'
  if (extension === 'json') return 'json'
  if (extension === 'md' || extension === 'markdown' || extension === 'txt') return 'markdown'
  return undefined
}

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** A 413 is about the content: it is shown next to that field, like a 400's fields. */
function withContentField(error: unknown): unknown {
  if (error instanceof ApiError && error.status === 413)
    return new ApiError(413, error.code, error.message, [
      { field: 'content', message: `${error.message}. Send a smaller file, or split it.` },
    ])
  return error
}

export function ImportPanel({
  followed,
  onStarted,
}: {
  followed: Followed | null
  /** Told the id of each import queued here. */
  onStarted: (id: string) => void
}) {
  const [, setQuery] = useQuery()
  const headingId = useId()
  const [form, setForm] = useState<ImportForm>(EMPTY)
  const [fileNote, setFileNote] = useState<{ text: string; error: boolean } | null>(null)
  // Bumped to empty the file input when the form is cleared.
  const [fileKey, setFileKey] = useState(0)
  // The request each dry run of this visit checked, by its id: Apply sends it again without `dryRun`.
  const [checked, setChecked] = useState<Record<string, Body>>({})
  const applying = useRef(false)
  const [lastWasApply, setLastWasApply] = useState(false)
  const [reveal, setReveal] = useState<string | null>(null)
  // Each dry run applied from here, and the import that applied it: it is not offered twice.
  const [applied, setApplied] = useState<Record<string, string>>({})
  const set = (patch: Partial<ImportForm>) => setForm((previous) => ({ ...previous, ...patch }))

  const submission = useSubmit(async () => {
    const apply = applying.current
    const dryRunId = followed?.data?.id
    const body = apply && dryRunId ? checked[dryRunId] : bodyOf(form)
    if (!body) return
    try {
      const answer = await unwrap(
        api.POST('/api/admin/imports', { body: apply ? body : { ...body, dryRun: true } }),
      )
      if (!apply) setChecked((previous) => ({ ...previous, [answer.data.id]: body }))
      else if (dryRunId) setApplied((previous) => ({ ...previous, [dryRunId]: answer.data.id }))
      onStarted(answer.data.id)
      setReveal(answer.data.id)
      setQuery({ import: answer.data.id, page: undefined }, { push: true })
    } catch (error) {
      throw withContentField(error)
    }
  }, FIELDS)

  const run = (apply: boolean, event?: Event) => {
    applying.current = apply
    setLastWasApply(apply)
    return submission.submit(event)
  }

  // A dry run of a URL opened from the address (a reload, a link) fills an untouched form with its
  // request, so it can be applied; one of sent content cannot be, the content is not kept.
  const shown = followed?.data
  useEffect(() => {
    if (!shown?.dryRun || !shown.sourceUrl || checked[shown.id]) return
    if (form.content !== '' || form.url !== '') return
    const filled: ImportForm = { format: shown.format, mode: shown.mode, content: '', url: shown.sourceUrl }
    setForm(filled)
    setChecked((previous) => ({ ...previous, [shown.id]: bodyOf(filled) }))
  }, [shown?.id])

  const readFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0]
    if (!file) return
    try {
      const text = await file.text()
      const format = formatOfFile(file.name)
      set({ content: text, ...(format ? { format } : {}) })
      setFileNote({
        text: `“${file.name}” (${sizeOf(file.size)}) is in the content below${format ? `, read as ${FORMAT_LABELS[format]}` : ''}.`,
        error: false,
      })
    } catch {
      setFileNote({ text: `“${file.name}” could not be read.`, error: true })
    }
  }

  const applyArea = (() => {
    if (!shown?.dryRun || shown.status !== 'completed') return undefined
    const body = checked[shown.id]
    const same = body !== undefined && keyOf(body) === keyOf(bodyOf(form))
    const appliedAs = applied[shown.id]
    if (appliedAs)
      return (
        <p class="transfer-apply">
          This dry run has been applied:{' '}
          <Link href={`/import-export?import=${appliedAs}`}>see the import</Link>.
        </p>
      )
    return (
      <div class="transfer-apply">
        {!body ? (
          <p class="muted">
            To apply it, give the file again in the form above and make a new dry run: the content of a past
            dry run is not kept.
          </p>
        ) : !same ? (
          <p class="muted">
            The form has changed since this dry run. Make a dry run of it again before applying.
          </p>
        ) : null}
        {lastWasApply && submission.error && <Notice kind="error">{submission.error}</Notice>}
        <div class="actions">
          <Button kind="primary" disabled={!same} busy={submission.busy} onClick={() => run(true)}>
            Apply
          </Button>
        </div>
      </div>
    )
  })()

  return (
    <>
      <section class="card" aria-labelledby={headingId}>
        <h2 id={headingId}>Import</h2>
        <p class="muted">
          Items are matched by slug, else by URL. A dry run shows what the import would do and writes nothing;
          Apply then imports it.
        </p>
        <form onSubmit={(event) => run(false, event)} noValidate>
          {!lastWasApply && submission.error && <Notice kind="error">{submission.error}</Notice>}
          <div class="grid-2">
            <Select
              label="Format"
              value={form.format}
              options={FORMAT_OPTIONS}
              onValue={(value) => set({ format: value as ImportFormat })}
              error={submission.fields.format}
            />
            <Select
              label="Mode"
              value={form.mode}
              options={MODE_OPTIONS}
              onValue={(value) => set({ mode: value as ImportMode })}
              error={submission.fields.mode}
            />
          </div>
          <Field
            label="Upload a file"
            error={fileNote?.error ? fileNote.text : undefined}
            hint={
              fileNote && !fileNote.error
                ? fileNote.text
                : 'A .md, .csv or .json file: it is read here and sent as the content.'
            }
          >
            {({ id, describedBy, invalid }) => (
              <input
                key={fileKey}
                type="file"
                id={id}
                accept=".md,.markdown,.txt,.csv,.json,text/markdown,text/csv,application/json,text/plain"
                aria-describedby={describedBy}
                aria-invalid={invalid ? 'true' : undefined}
                onChange={(event) => readFile(event.currentTarget)}
              />
            )}
          </Field>
          <TextArea
            label="Content"
            class="transfer-content"
            rows={10}
            spellcheck={false}
            value={form.content}
            onValue={(content) => set({ content })}
            error={submission.fields.content}
            hint="Paste the file here, or upload it above. Give either the content or a URL."
          />
          <TextField
            label="URL"
            type="url"
            inputMode="url"
            placeholder="https://raw.githubusercontent.com/owner/repo/main/README.md"
            value={form.url}
            onValue={(url) => set({ url })}
            error={submission.fields.url}
            hint="Or where to fetch the file from when the import starts."
          />
          <div class="actions">
            <Button
              kind="primary"
              type="submit"
              busy={submission.busy && !lastWasApply}
              disabled={submission.busy}
            >
              Dry run
            </Button>
            {(form.content !== '' || form.url !== '') && (
              <Button
                kind="link"
                onClick={() => {
                  setForm({ ...EMPTY, format: form.format, mode: form.mode })
                  setFileNote(null)
                  setFileKey((key) => key + 1)
                  submission.reset()
                }}
              >
                Clear the file
              </Button>
            )}
          </div>
        </form>
      </section>
      {followed && (
        <ImportReport
          followed={followed}
          applyArea={applyArea}
          reveal={reveal !== null && reveal === followed.id}
          onRevealed={() => setReveal(null)}
        />
      )}
    </>
  )
}
