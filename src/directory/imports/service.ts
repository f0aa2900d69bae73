import { setImmediate } from 'node:timers/promises'
import { and, asc, count, desc, eq, gte, lt, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { uniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import { notify } from '../../db/notifications.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { HttpError, invalidInput, notFound } from '../../lib/errors.ts'
import { fetchPage, type PageOf } from '../../lib/pagination.ts'
import { type AddressPolicy, safeRequest } from '../../lib/safe-http.ts'
import type { CategoryService } from '../categories/service.ts'
import {
  CATEGORIES_CONTENT,
  type Clearable,
  COMPANIES_CONTENT,
  CONTENT_CHANGED_CHANNEL,
  ITEMS_CONTENT,
  SETTINGS_CONTENT,
  TAGS_CONTENT,
} from '../content.ts'
import type { SiteService } from '../site/service.ts'
import type { ParsedFile } from '../transfer/records.ts'
import { addItemsOf, applyBatch, loadKnown } from './apply.ts'
import { parseFile } from './parsers.ts'
import { type Known, type Planned, planRow } from './plan.ts'
import { type CreateImportBody, IMPORT_ERRORS_KEPT, type Import, type ImportListQuery } from './schemas.ts'
import { type ImportIssue, importRows, imports } from './tables.ts'

export const IMPORT_STEP_JOB = 'directory-import-step'
export const IMPORT_DRY_RUN_JOB = 'directory-import-dry-run'
export const IMPORT_SWEEP_JOB = 'directory-import-sweep'

/** A step of a real run: apply the rows from `position` on (a job for another position is stale). */
export interface ImportStepJob {
  importId: string
  position: number
}
export interface ImportDryRunJob {
  importId: string
}

/**
 * A running import without progress for this long belonged to a process that died (or its job was lost):
 * the sweep sends its step again, which resumes from the last whole batch.
 */
export const IMPORT_STALLED_MS = 2 * 60 * 1000
/** How long a step applies batch after batch before it hands over to the next step's job. */
export const IMPORT_STEP_MS = 20_000
/** Redirects followed when fetching an import's `url`, each hop checked like the first. */
const MAX_REDIRECTS = 5
/** Rows a dry run works out between two saves of its progress. */
const DRY_RUN_BATCH = 1000
const USER_AGENT = 'Curio-Import/1 (+https://github.com/curio)'

type Row = typeof imports.$inferSelect

export interface ImportServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  /** Rows a step applies in one transaction. */
  batchSize: number
  maxBytes: number
  fetchTimeoutMs: number
  policy: AddressPolicy
  categories: Pick<CategoryService, 'adjustCounts'>
  site: Pick<SiteService, 'adoptWithin' | 'caches'>
  /** What an import makes stale on this instance; the others hear the notification. */
  caches: readonly Clearable[]
}

const importOf = (row: Row): Import => ({
  id: row.id,
  format: row.format,
  mode: row.mode,
  dryRun: row.dryRun,
  status: row.status,
  sourceUrl: row.sourceUrl,
  progress: { done: row.done, total: row.total },
  ...(row.status === 'pending'
    ? {}
    : {
        result: {
          created: row.created,
          updated: row.updated,
          unchanged: row.unchanged,
          skipped: row.skipped,
          errors: row.errors,
          errorCount: row.errorCount,
        },
      }),
  failure: row.failure,
  createdAt: row.createdAt,
  startedAt: row.startedAt,
  finishedAt: row.finishedAt,
})

const importNotFound = () => notFound('Import not found', 'IMPORT_NOT_FOUND')
const isUuid = (value: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)

/** Counts of what a batch did. */
interface Tally {
  created: number
  updated: number
  unchanged: number
  skipped: number
  issues: ImportIssue[]
}

function tallyOf(plans: readonly Planned[]): Tally {
  const tally: Tally = { created: 0, updated: 0, unchanged: 0, skipped: 0, issues: [] }
  for (const plan of plans) {
    if (plan.kind === 'create') tally.created++
    else if (plan.kind === 'update') tally.updated++
    else if (plan.kind === 'unchanged') tally.unchanged++
    else {
      tally.skipped++
      if (plan.issue) tally.issues.push(plan.issue)
    }
  }
  return tally
}

/** The columns that add a batch's tally to a run's, keeping the first issues. */
type Progress = Pick<Row, 'done' | 'created' | 'updated' | 'unchanged' | 'skipped' | 'errors' | 'errorCount'>
const progressOf = (row: Progress, rows: number, tally: Tally): Progress => ({
  done: row.done + rows,
  created: row.created + tally.created,
  updated: row.updated + tally.updated,
  unchanged: row.unchanged + tally.unchanged,
  skipped: row.skipped + tally.skipped,
  errors: [...row.errors, ...tally.issues].slice(0, IMPORT_ERRORS_KEPT),
  errorCount: row.errorCount + tally.issues.length,
})

/**
 * Imports of whole directories: queued by an admin, run as durable jobs one at a time, each real run's
 * batch applied in one transaction with its progress and the next step's job.
 */
export function createImportService(deps: ImportServiceDeps) {
  const { db, clock, log, jobs, batchSize } = deps

  async function read(id: string): Promise<Row> {
    if (!isUuid(id)) throw importNotFound()
    const [row] = await db.select().from(imports).where(eq(imports.id, id))
    if (!row) throw importNotFound()
    return row
  }

  /** Sends the first job of the oldest pending import, in `tx` (when one ends, the next may start). */
  async function startNextPending(tx: DbOrTx) {
    const [next] = await tx
      .select({ id: imports.id, dryRun: imports.dryRun })
      .from(imports)
      .where(eq(imports.status, 'pending'))
      .orderBy(asc(imports.createdAt), asc(imports.id))
      .limit(1)
    if (next) await sendFirst(tx, next)
  }

  const sendFirst = (tx: DbOrTx, row: { id: string; dryRun: boolean }) =>
    row.dryRun
      ? jobs.send<ImportDryRunJob>(IMPORT_DRY_RUN_JOB, { importId: row.id }, { tx })
      : jobs.send<ImportStepJob>(IMPORT_STEP_JOB, { importId: row.id, position: 0 }, { tx })

  /**
   * Makes `id` the running import: false when another runs (this one waits as pending; the one running
   * starts it when it ends) or it is no longer pending.
   */
  async function claim(id: string): Promise<Row | null> {
    const now = clock.now()
    try {
      const [row] = await db
        .update(imports)
        .set({ status: 'running', startedAt: now, updatedAt: now })
        .where(and(eq(imports.id, id), eq(imports.status, 'pending')))
        .returning()
      return row ?? null
    } catch (error) {
      if (uniqueViolation(error)?.constraint === 'imports_one_running') return null
      throw error
    }
  }

  /** Ends a run as failed, in its own transaction, and starts the next. */
  async function fail(id: string, failure: string) {
    const now = clock.now()
    await db.transaction(async (tx) => {
      await tx
        .update(imports)
        .set({ status: 'failed', failure, content: null, finishedAt: now, updatedAt: now })
        .where(and(eq(imports.id, id), eq(imports.status, 'running')))
      await tx.delete(importRows).where(eq(importRows.importId, id))
      await startNextPending(tx)
    })
    log.warn({ importId: id, failure }, 'import failed')
  }

  /** The file's bytes: the content sent, or fetched from the URL through the SSRF-safe client. */
  async function contentOf(row: Row): Promise<{ ok: true; text: string } | { ok: false; failure: string }> {
    if (row.content !== null) return { ok: true, text: row.content }
    if (!row.sourceUrl) return { ok: false, failure: 'the import has neither content nor a URL' }
    let url = row.sourceUrl
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const answer = await safeRequest({
        url,
        method: 'GET',
        headers: {
          'user-agent': USER_AGENT,
          accept: 'text/markdown, text/csv, application/json, text/plain, */*',
        },
        timeoutMs: deps.fetchTimeoutMs,
        maxResponseBytes: deps.maxBytes + 1,
        policy: deps.policy,
        requireHttps: false,
      })
      if (answer.kind === 'blocked') return { ok: false, failure: `the URL is refused: ${answer.reason}` }
      if (answer.kind === 'timeout') {
        return { ok: false, failure: `the file could not be fetched within ${deps.fetchTimeoutMs} ms` }
      }
      if (answer.kind === 'failed')
        return { ok: false, failure: `the file could not be fetched: ${answer.reason}` }
      const location = answer.headers.location
      if (answer.status >= 300 && answer.status < 400 && typeof location === 'string') {
        url = new URL(location, url).href
        continue
      }
      if (answer.status < 200 || answer.status >= 300) {
        return { ok: false, failure: `the file could not be fetched: HTTP ${answer.status}` }
      }
      if (answer.bodyTruncated || Buffer.byteLength(answer.body) > deps.maxBytes) {
        return { ok: false, failure: `the file is larger than ${deps.maxBytes} bytes (IMPORT_MAX_BYTES)` }
      }
      return { ok: true, text: answer.body }
    }
    return { ok: false, failure: `the file could not be fetched: more than ${MAX_REDIRECTS} redirects` }
  }

  /** The run's file, read: fetched and parsed, or why it could not be. */
  async function parsed(row: Row): Promise<{ ok: true; file: ParsedFile } | { ok: false; failure: string }> {
    const content = await contentOf(row)
    if (!content.ok) return content
    return { ok: true, file: await parseFile(row.format, content.text) }
  }

  const issuesOf = (file: ParsedFile): ImportIssue[] =>
    file.issues.map((issue) => ({
      ...(issue.line === undefined ? {} : { line: issue.line }),
      ...(issue.item === undefined ? {} : { item: issue.item }),
      message: issue.message,
    }))

  /** New published items without a date of their own: the run's start less their row, so the file's order is the site's. */
  const publishedAtOf = (row: Row) => {
    const start = (row.startedAt ?? row.createdAt).getTime()
    return (position: number) => new Date(start - position)
  }

  /** The categories and tags the file declares, made first and in its order (a batch's plan writes them). */
  function declare(known: Known, declared: { categories: string[]; tags: string[] }) {
    for (const name of declared.categories) {
      const trimmed = name.trim()
      if (trimmed.length >= 2 && trimmed.length <= 100) known.categories.ensure(trimmed)
    }
    for (const name of declared.tags) {
      const trimmed = name.trim()
      if (trimmed.length >= 1 && trimmed.length <= 100) known.tags.ensure(trimmed)
    }
  }

  /** The content channel payloads an import's end announces, once for the whole import. */
  async function announce(tx: DbOrTx, settingsChanged: boolean) {
    const payloads = [ITEMS_CONTENT, CATEGORIES_CONTENT, TAGS_CONTENT, COMPANIES_CONTENT]
    if (settingsChanged) payloads.push(SETTINGS_CONTENT)
    for (const payload of payloads) await notify(tx, CONTENT_CHANGED_CHANNEL, payload)
  }

  /** What the end of a real run does in its last transaction: the site adopts the file's, every cache hears. */
  async function finish(tx: DbOrTx, row: Row) {
    await tx.delete(importRows).where(eq(importRows.importId, row.id))
    const site = row.declared?.site ?? {}
    const settingsChanged = await deps.site.adoptWithin(tx, site, row.requestedBy)
    await announce(tx, settingsChanged)
    await startNextPending(tx)
  }

  function clearCaches() {
    for (const cache of [...deps.caches, ...deps.site.caches]) cache.clear()
  }

  /** The first step of a real run: the file parsed into rows, saved with the next step's job. */
  async function prepare(row: Row): Promise<boolean> {
    const file = await parsed(row)
    if (!file.ok) {
      await fail(row.id, file.failure)
      return false
    }
    const issues = issuesOf(file.file)
    const items = file.file.items
    const now = clock.now()
    let finished = false
    let saved = false
    await db.transaction(async (tx) => {
      const [current] = await tx.select().from(imports).where(eq(imports.id, row.id)).for('update')
      if (current?.status !== 'running' || current.declared !== null) return
      saved = true
      // Each chunk of rows as one JSON parameter, taken apart by Postgres: one serialization, not a
      // parameter per cell for the driver to handle.
      for (let start = 0; start < items.length; start += 2000) {
        const chunk = items
          .slice(start, start + 2000)
          .map((parsedItem) => [parsedItem.line ?? null, parsedItem.item])
        await tx.execute(sql`
          insert into ${importRows} (import_id, position, line, record)
          select ${row.id}::uuid, ${start} + (entry.ordinality - 1)::int, (entry.value->>0)::int, entry.value->1
          from jsonb_array_elements(${JSON.stringify(chunk)}::jsonb) with ordinality as entry`)
      }
      finished = items.length === 0 && file.file.categories.length === 0 && file.file.tags.length === 0
      await tx
        .update(imports)
        .set({
          content: null,
          declared: { site: file.file.site, categories: file.file.categories, tags: file.file.tags },
          total: items.length,
          errors: issues.slice(0, IMPORT_ERRORS_KEPT),
          errorCount: issues.length,
          updatedAt: now,
          ...(finished ? { status: 'completed' as const, finishedAt: now } : {}),
        })
        .where(eq(imports.id, row.id))
      if (finished) await startNextPending(tx)
      else await jobs.send<ImportStepJob>(IMPORT_STEP_JOB, { importId: row.id, position: 0 }, { tx })
    })
    // The rows are saved with the first step's job (a restart starts there); this attempt goes on at once,
    // and that job then finds the run moved on.
    return saved && !finished
  }

  /**
   * A step of a real run: batches from `position` on, each applied in its own transaction with the run's
   * progress, one after the other for up to `IMPORT_STEP_MS`; then the next step is queued in the last
   * batch's transaction (a job per batch would wait for a worker's wake-up between each two).
   */
  async function step({ importId, position }: ImportStepJob): Promise<void> {
    let [row] = await db.select().from(imports).where(eq(imports.id, importId))
    if (!row || row.status === 'completed' || row.status === 'failed') return
    if (row.status === 'pending') {
      row = (await claim(importId)) ?? undefined
      if (!row) return
    }
    if (row.declared === null) {
      if (!(await prepare(row))) return
    } else if (row.done !== position) {
      // A job for a position already done is an earlier attempt's, or the sweep's twin: the run moved on.
      return
    }
    const started = performance.now()
    let at = position
    for (;;) {
      const outcome = await applyNext(importId, at, performance.now() - started < IMPORT_STEP_MS)
      if (outcome.kind === 'completed') {
        clearCaches()
        log.info({ importId }, 'import completed')
      }
      if (outcome.kind !== 'continue') return
      at = outcome.done
      // What waits for the database goes first (the embedded database runs one statement at a time).
      await setImmediate()
    }
  }

  /**
   * The batch after `position`, applied in one transaction with the run's progress: `continue` when there is
   * more and `goOn`; else the next step's job goes in the same transaction.
   */
  async function applyNext(
    importId: string,
    position: number,
    goOn: boolean,
  ): Promise<{ kind: 'continue'; done: number } | { kind: 'queued' | 'completed' | 'stale' }> {
    return db.transaction(async (tx) => {
      const [current] = await tx.select().from(imports).where(eq(imports.id, importId)).for('update')
      // Another attempt got here first: its batch stands, and it goes on.
      if (current?.status !== 'running' || current.done !== position || !current.declared) {
        return { kind: 'stale' as const }
      }
      const batch = await tx
        .select()
        .from(importRows)
        .where(and(eq(importRows.importId, importId), gte(importRows.position, position)))
        .orderBy(asc(importRows.position))
        .limit(batchSize)
      const now = clock.now()
      const known = await loadKnown(tx)
      if (position === 0) declare(known, current.declared)
      await addItemsOf(
        tx,
        known,
        batch.map((entry) => entry.record),
      )
      const context = { mode: current.mode, publishedAt: publishedAtOf(current) }
      const plans = batch.map((entry) => planRow(known, entry.record, entry.position, entry.line, context))
      await applyBatch(tx, known, plans, {
        actorId: current.requestedBy,
        at: now,
        note: `Imported (import ${importId})`,
        categories: deps.categories,
      })
      const progress = progressOf(current, batch.length, tallyOf(plans))
      const completed = progress.done >= current.total || batch.length < batchSize
      await tx
        .update(imports)
        .set({
          ...progress,
          failure: null,
          updatedAt: now,
          ...(completed ? { status: 'completed' as const, finishedAt: now } : {}),
        })
        .where(eq(imports.id, importId))
      if (completed) {
        await finish(tx, current)
        return { kind: 'completed' as const }
      }
      if (goOn) return { kind: 'continue' as const, done: progress.done }
      await jobs.send<ImportStepJob>(IMPORT_STEP_JOB, { importId, position: progress.done }, { tx })
      return { kind: 'queued' as const }
    })
  }

  /**
   * A dry run, whole in one job: the same planner over what the directory holds and what its own earlier
   * rows would have made, writing nothing but its progress. Run again from the start if it is interrupted.
   */
  async function dryRun({ importId }: ImportDryRunJob): Promise<void> {
    let [row] = await db.select().from(imports).where(eq(imports.id, importId))
    if (!row || row.status === 'completed' || row.status === 'failed') return
    if (row.status === 'pending') {
      row = (await claim(importId)) ?? undefined
      if (!row) return
    }
    const file = await parsed(row)
    if (!file.ok) return fail(importId, file.failure)
    const issues = issuesOf(file.file)
    const items = file.file.items
    const known = await loadKnown(db)
    declare(known, file.file)
    const context = { mode: row.mode, publishedAt: publishedAtOf(row) }
    let progress: Progress = {
      done: 0,
      created: 0,
      updated: 0,
      unchanged: 0,
      skipped: 0,
      errors: issues.slice(0, IMPORT_ERRORS_KEPT),
      errorCount: issues.length,
    }
    for (let start = 0; start === 0 || start < items.length; start += DRY_RUN_BATCH) {
      const batch = items.slice(start, start + DRY_RUN_BATCH)
      await addItemsOf(
        db,
        known,
        batch.map((entry) => entry.item),
      )
      const plans = batch.map((entry, index) =>
        planRow(known, entry.item, start + index, entry.line ?? null, context),
      )
      progress = progressOf(progress, batch.length, tallyOf(plans))
      const last = start + DRY_RUN_BATCH >= items.length
      const now = clock.now()
      const [saved] = await db
        .update(imports)
        .set({
          ...progress,
          total: items.length,
          ...(last ? { content: null } : {}),
          declared: { site: file.file.site, categories: file.file.categories, tags: file.file.tags },
          updatedAt: now,
          ...(last ? { status: 'completed' as const, finishedAt: now } : {}),
        })
        .where(and(eq(imports.id, importId), eq(imports.status, 'running')))
        .returning({ id: imports.id })
      if (!saved) return
      if (last) break
    }
    await db.transaction((tx) => startNextPending(tx))
  }

  return {
    step,
    dryRun,

    /** Queues an import: it runs at once, or after the one running. */
    async create(body: CreateImportBody, actorId: string): Promise<Import> {
      if ((body.content === undefined) === (body.url === undefined)) {
        throw invalidInput([
          { field: 'content', message: 'give exactly one of content and url' },
          { field: 'url', message: 'give exactly one of content and url' },
        ])
      }
      if (body.content !== undefined && Buffer.byteLength(body.content) > deps.maxBytes) {
        throw new HttpError(
          413,
          'PAYLOAD_TOO_LARGE',
          `The content is larger than ${deps.maxBytes} bytes (IMPORT_MAX_BYTES)`,
        )
      }
      const now = clock.now()
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(imports)
          .values({
            format: body.format,
            mode: body.mode ?? 'upsert',
            dryRun: body.dryRun ?? false,
            status: 'pending',
            sourceUrl: body.url ?? null,
            content: body.content ?? null,
            requestedBy: actorId,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
        if (!row) throw new Error('import insert returned no row')
        await sendFirst(tx, row)
        return importOf(row)
      })
    },

    get: async (id: string) => importOf(await read(id)),

    async list(query: ImportListQuery): Promise<PageOf<Import>> {
      return fetchPage(query, {
        rows: async (limit, offset) =>
          (
            await db
              .select()
              .from(imports)
              .orderBy(desc(imports.createdAt), desc(imports.id))
              .limit(limit)
              .offset(offset)
          ).map(importOf),
        total: async () => (await db.select({ total: count() }).from(imports))[0]?.total ?? 0,
      })
    },

    /**
     * Notes that an attempt of a running import's job failed on something unexpected (logged with its cause;
     * the answer says no more). A later attempt that succeeds clears it; if none does, the sweep fails the run.
     */
    async noteFailure(importId: string, error: unknown): Promise<void> {
      log.warn({ err: error, importId }, 'import: an attempt failed')
      await db
        .update(imports)
        .set({ failure: 'the import stopped on an unexpected error; the server log has its cause' })
        .where(and(eq(imports.id, importId), eq(imports.status, 'running')))
        .catch(() => undefined)
    },

    /**
     * Sends again the job of a running import that made no progress for `IMPORT_STALLED_MS` (its process
     * died: a real run resumes after its last whole batch, a dry run starts over), and starts the oldest
     * pending one when none runs.
     */
    async sweep(): Promise<void> {
      const stalledBefore = new Date(clock.now().getTime() - IMPORT_STALLED_MS)
      await db.transaction(async (tx) => {
        const stalled = await tx
          .select()
          .from(imports)
          .where(and(eq(imports.status, 'running'), lt(imports.updatedAt, stalledBefore)))
        for (const row of stalled) {
          if (row.failure !== null) {
            // Its job failed every attempt: the error stands as the run's end.
            await tx
              .update(imports)
              .set({ status: 'failed', content: null, finishedAt: clock.now(), updatedAt: clock.now() })
              .where(eq(imports.id, row.id))
            await tx.delete(importRows).where(eq(importRows.importId, row.id))
            log.warn({ importId: row.id }, 'import failed: its job failed every attempt')
            continue
          }
          await tx.update(imports).set({ updatedAt: clock.now() }).where(eq(imports.id, row.id))
          if (row.dryRun) await jobs.send<ImportDryRunJob>(IMPORT_DRY_RUN_JOB, { importId: row.id }, { tx })
          else {
            await jobs.send<ImportStepJob>(IMPORT_STEP_JOB, { importId: row.id, position: row.done }, { tx })
          }
          log.warn({ importId: row.id, done: row.done }, 'import stalled: its step is sent again')
        }
        const [running] = await tx
          .select({ id: imports.id })
          .from(imports)
          .where(eq(imports.status, 'running'))
        if (!running) await startNextPending(tx)
      })
    },
  }
}

export type ImportService = ReturnType<typeof createImportService>
