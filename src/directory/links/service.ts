import { and, asc, count, desc, eq, gt, inArray, isNotNull, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { uniqueViolation } from '../../db/errors.ts'
import type { Db, DbOrTx } from '../../db/index.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import { conflict, HttpError } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { MINUTE_MS } from '../../lib/time.ts'
import { clip } from '../../lib/values.ts'
import { itemNotFound } from '../items/read.ts'
import { LINK_STATUSES, type LinkStatus } from '../items/relations.ts'
import { items } from '../items/tables.ts'
import { notifyAdmins } from '../notifications/service.ts'
import type { LinkChecker, LinkOutcome } from './checker.ts'
import { itemLinks, linkCheckRuns } from './tables.ts'

export const LINK_CHECK_JOB = 'link-check-step'
export const LINK_CHECK_SCHEDULE_JOB = 'link-check-schedule'
export interface LinkCheckJob {
  runId: string
}

/**
 * How long one step may take at worst: every item of the batch on one host, two requests each (HEAD and GET),
 * each taking a host's place for the delay or half a timeout (two places), whichever is longer. A step still
 * running after this belonged to a process that died; at least 30 minutes.
 */
export function stepLimitMs(rules: { batchSize: number; delayMs: number; timeoutMs: number }): number {
  return Math.max(30 * MINUTE_MS, rules.batchSize * 2 * Math.max(rules.delayMs, rules.timeoutMs / 2))
}
/** Items a run's notification names; the admin list filtered by `linkStatus=broken` has them all. */
const NOTICE_ITEMS = 20
/** Serialises the schedule's look at the latest run across instances (any constant, ours alone). */
const SCHEDULE_LOCK = 7_351_031

export interface LinkServiceDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  checker: LinkChecker
  /** Consecutive failures that make a link `broken` (LINK_CHECK_FAILURES). */
  failureLimit: number
  /** Items a run's step checks (LINK_CHECK_BATCH_SIZE). */
  batchSize: number
  /** How old the latest run must be before the schedule starts one; null: the schedule is off. */
  intervalMs: number | null
  /** A run without progress for this long is taken as dead (its step failed for good): a new one may start. */
  stalledMs: number
}

type Run = typeof linkCheckRuns.$inferSelect
type LinkRow = typeof itemLinks.$inferSelect

/** A run as its status shows it. */
export const runOf = (run: Run) => ({
  id: run.id,
  status: run.status,
  trigger: run.requestedBy === null ? ('schedule' as const) : ('admin' as const),
  total: run.total,
  processed: run.processed,
  ok: run.ok,
  redirected: run.redirected,
  failed: run.failed,
  newlyBroken: run.newlyBroken,
  error: run.error,
  requestedBy: run.requestedBy,
  createdAt: run.createdAt,
  startedAt: run.startedAt,
  finishedAt: run.finishedAt,
  updatedAt: run.updatedAt,
})
export type RunStatus = ReturnType<typeof runOf>

/** An item's link record as the check route answers it. */
export const linkRecordOf = (row: LinkRow) => ({
  itemId: row.itemId,
  url: row.url,
  status: row.status,
  httpStatus: row.httpStatus,
  finalUrl: row.finalUrl,
  reason: row.reason,
  checkedAt: row.checkedAt,
  failures: row.failures,
})
export type LinkRecord = ReturnType<typeof linkRecordOf>

/** Published items with a URL: what a run checks. */
const checkable = and(eq(items.status, 'published'), isNotNull(items.url))

interface Checked {
  itemId: string
  url: string
  outcome: LinkOutcome
}

/**
 * Link health: one item's check now, and runs over every published item's URL in durable steps, started
 * by the schedule or an admin. A link is `broken` after `failureLimit` consecutive failed checks of its URL;
 * the run's last step tells the admins which links it broke, in one notification.
 */
export function createLinkService(deps: LinkServiceDeps) {
  const { db, clock, log, jobs, checker, failureLimit, batchSize } = deps

  /**
   * Records checks in the caller's transaction: the item rows are share-locked so none is deleted under
   * the write (a deleted item's check is dropped), the link rows locked so a concurrent check of one item
   * counts its failure once. Answers the records written and how many became `broken`.
   */
  async function record(tx: DbOrTx, checked: readonly Checked[], at: Date, runId: string | null) {
    if (checked.length === 0) return { rows: [] as LinkRow[], newlyBroken: 0 }
    const ids = checked.map((check) => check.itemId)
    const present = await tx
      .select({ id: items.id })
      .from(items)
      .where(inArray(items.id, ids))
      .orderBy(asc(items.id))
      .for('key share')
    const existing = new Set(present.map((row) => row.id))
    const previous = new Map(
      (
        await tx
          .select()
          .from(itemLinks)
          .where(inArray(itemLinks.itemId, ids))
          .orderBy(asc(itemLinks.itemId))
          .for('update')
      ).map((row) => [row.itemId, row]),
    )
    let newlyBroken = 0
    const values = checked
      .filter((check) => existing.has(check.itemId))
      .map(({ itemId, url, outcome }) => {
        const before = previous.get(itemId)
        const same = before?.url === url
        const statusBefore: LinkStatus = same ? before.status : 'unchecked'
        const common = {
          itemId,
          url,
          httpStatus: outcome.httpStatus,
          finalUrl: outcome.finalUrl,
          checkedAt: at,
        }
        if (outcome.ok) {
          return { ...common, status: outcome.status, reason: null, failures: 0, brokenRunId: null }
        }
        const failures = (same ? before.failures : 0) + 1
        const broken = statusBefore === 'broken' || failures >= failureLimit
        const nowBroken = broken && statusBefore !== 'broken'
        if (nowBroken) newlyBroken++
        return {
          ...common,
          status: broken ? ('broken' as const) : statusBefore,
          reason: outcome.reason,
          failures,
          brokenRunId: nowBroken ? runId : same ? before.brokenRunId : null,
        }
      })
    if (values.length === 0) return { rows: [], newlyBroken }
    const rows = await tx
      .insert(itemLinks)
      .values(values)
      .onConflictDoUpdate({
        target: itemLinks.itemId,
        set: {
          url: sql`excluded.url`,
          status: sql`excluded.status`,
          httpStatus: sql`excluded.http_status`,
          finalUrl: sql`excluded.final_url`,
          reason: sql`excluded.reason`,
          failures: sql`excluded.failures`,
          checkedAt: sql`excluded.checked_at`,
          brokenRunId: sql`excluded.broken_run_id`,
        },
      })
      .returning()
    return { rows, newlyBroken }
  }

  /** Tells the admins which links the run broke, in the transaction that ends it. */
  async function notifyBroken(tx: DbOrTx, runId: string, count: number, at: Date) {
    if (count === 0) return
    const named = await tx
      .select({
        id: items.id,
        slug: items.slug,
        name: items.name,
        url: itemLinks.url,
        reason: itemLinks.reason,
      })
      .from(itemLinks)
      .innerJoin(items, eq(items.id, itemLinks.itemId))
      .where(and(eq(itemLinks.brokenRunId, runId), eq(itemLinks.status, 'broken')))
      .orderBy(asc(items.name), asc(items.id))
      .limit(NOTICE_ITEMS)
    const list = named.map((item) => `${item.name} (${item.reason ?? 'failed'})`).join(', ')
    const more = count > named.length ? ` and ${count - named.length} more` : ''
    await notifyAdmins(tx, at, {
      type: 'links_broken',
      title: count === 1 ? 'A link is broken' : `${count} links are broken`,
      message: clip(
        `The link check found ${count === 1 ? 'a newly broken link' : `${count} newly broken links`} ` +
          `(${failureLimit} failed checks in a row): ${list}${more}.`,
        2000,
      ),
      data: {
        runId,
        count,
        items: named.map((item) => ({
          itemId: item.id,
          itemSlug: item.slug,
          name: item.name,
          url: item.url,
          reason: item.reason,
        })),
      },
    })
  }

  async function latestRun(executor: DbOrTx = db): Promise<Run | null> {
    // The active run, if any (at most one); else the newest.
    const [run] = await executor
      .select()
      .from(linkCheckRuns)
      .orderBy(
        desc(sql`${linkCheckRuns.status} in ('queued', 'running')`),
        desc(linkCheckRuns.createdAt),
        desc(linkCheckRuns.id),
      )
      .limit(1)
    return run ?? null
  }

  /** Queues a run in `tx`, failing first an active one that stalled; a unique violation if one is active. */
  async function queueRun(tx: DbOrTx, requestedBy: string | null, now: Date): Promise<Run> {
    await tx
      .update(linkCheckRuns)
      .set({
        status: 'failed',
        error: `stalled: no progress for ${Math.round(deps.stalledMs / MINUTE_MS)} minutes`,
        finishedAt: now,
        updatedAt: now,
      })
      .where(
        and(
          inArray(linkCheckRuns.status, ['queued', 'running']),
          sql`${linkCheckRuns.updatedAt} < ${new Date(now.getTime() - deps.stalledMs)}`,
        ),
      )
    const [run] = await tx
      .insert(linkCheckRuns)
      .values({ status: 'queued', requestedBy, createdAt: now, updatedAt: now })
      .returning()
    if (!run) throw new Error('link check run insert returned no row')
    await jobs.send<LinkCheckJob>(LINK_CHECK_JOB, { runId: run.id }, { tx })
    return run
  }

  /** One step of a run: the next batch after its cursor, checked and recorded with the next step's job. */
  async function step(runId: string): Promise<void> {
    let run = (await db.select().from(linkCheckRuns).where(eq(linkCheckRuns.id, runId)))[0]
    if (!run || run.status === 'completed' || run.status === 'failed') return
    if (run.status === 'queued') {
      const [{ total } = { total: 0 }] = await db.select({ total: count() }).from(items).where(checkable)
      const now = clock.now()
      ;[run] = await db
        .update(linkCheckRuns)
        .set({ status: 'running', total, startedAt: now, updatedAt: now })
        .where(and(eq(linkCheckRuns.id, runId), eq(linkCheckRuns.status, 'queued')))
        .returning()
      if (!run) return
    }
    const cursor = run.cursor
    const batch = await db
      .select({ id: items.id, url: items.url })
      .from(items)
      .where(and(checkable, cursor ? gt(items.id, cursor) : undefined))
      .orderBy(asc(items.id))
      .limit(batchSize)
    const checked = await Promise.all(
      batch.map(async ({ id, url }) => ({
        itemId: id,
        url: url as string,
        outcome: await checker.check(url as string),
      })),
    )
    const done = batch.length < batchSize
    await db.transaction(async (tx) => {
      const [current] = await tx.select().from(linkCheckRuns).where(eq(linkCheckRuns.id, runId)).for('update')
      // Another attempt of this step got here first: its progress stands.
      if (current?.status !== 'running' || current.cursor !== cursor) return
      const now = clock.now()
      const { newlyBroken } = await record(tx, checked, now, runId)
      const passed = (status: string) =>
        checked.filter(({ outcome }) => outcome.ok && outcome.status === status).length
      const totalBroken = current.newlyBroken + newlyBroken
      await tx
        .update(linkCheckRuns)
        .set({
          processed: current.processed + batch.length,
          ok: current.ok + passed('ok'),
          redirected: current.redirected + passed('redirected'),
          failed: current.failed + checked.filter(({ outcome }) => !outcome.ok).length,
          newlyBroken: totalBroken,
          cursor: batch.at(-1)?.id ?? cursor,
          ...(done ? { status: 'completed' as const, finishedAt: now } : {}),
          total: Math.max(current.total, current.processed + batch.length),
          updatedAt: now,
        })
        .where(eq(linkCheckRuns.id, runId))
      if (done) await notifyBroken(tx, runId, totalBroken, now)
      else await jobs.send<LinkCheckJob>(LINK_CHECK_JOB, { runId }, { tx })
    })
    if (done) log.info({ runId }, 'link check run completed')
  }

  return {
    step,

    /**
     * The schedule's look: starts a run when the latest one is older than the interval. The look and the
     * start hold a transaction-scoped lock, so instances whose schedules fire together start one run.
     */
    async tick(): Promise<RunStatus | null> {
      if (deps.intervalMs === null) return null
      const intervalMs = deps.intervalMs
      const now = clock.now()
      try {
        return await db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(${SCHEDULE_LOCK})`)
          const [latest] = await tx
            .select({ createdAt: linkCheckRuns.createdAt })
            .from(linkCheckRuns)
            .orderBy(desc(linkCheckRuns.createdAt))
            .limit(1)
          if (latest && latest.createdAt.getTime() > now.getTime() - intervalMs) return null
          return runOf(await queueRun(tx, null, now))
        })
      } catch (error) {
        // A run an admin started is still going: the schedule looks again at its next tick.
        if (uniqueViolation(error)?.constraint === 'link_check_runs_one_active') return null
        throw error
      }
    },

    /** Queues a run now: 409 while one is queued or running. */
    async requestRun(actorId: string): Promise<RunStatus> {
      try {
        return runOf(await db.transaction((tx) => queueRun(tx, actorId, clock.now())))
      } catch (error) {
        if (uniqueViolation(error)?.constraint !== 'link_check_runs_one_active') throw error
        const active = await latestRun()
        const progress = active ? ` (${active.processed} of ${active.total} items done)` : ''
        throw conflict(`A link check is already ${active?.status ?? 'running'}${progress}`, 'LINK_CHECK_BUSY')
      }
    },

    /** The latest run, and how many published items with a URL have each link status now. */
    async status() {
      const run = await latestRun()
      const rows = await db
        .select({
          status: sql<LinkStatus>`coalesce(${itemLinks.status}, 'unchecked')`,
          items: count(),
        })
        .from(items)
        .leftJoin(itemLinks, and(eq(itemLinks.itemId, items.id), eq(itemLinks.url, items.url)))
        .where(checkable)
        .groupBy(sql`1`)
      const counts = Object.fromEntries(LINK_STATUSES.map((status) => [status, 0])) as Record<
        LinkStatus,
        number
      >
      for (const row of rows) counts[row.status] = row.items
      return { run: run ? runOf(run) : null, counts, schedule: { intervalMs: deps.intervalMs } }
    },

    /** Checks one item's URL now, whatever its status, and records it (no notification: the admin sees it). */
    async checkItem(itemId: string): Promise<LinkRecord> {
      if (!isUuid(itemId)) throw itemNotFound()
      const [item] = await db.select({ id: items.id, url: items.url }).from(items).where(eq(items.id, itemId))
      if (!item) throw itemNotFound()
      if (!item.url) throw new HttpError(400, 'ITEM_HAS_NO_URL', 'The item has no URL to check')
      const outcome = await checker.check(item.url, { urgent: true })
      const { rows } = await db.transaction((tx) =>
        record(tx, [{ itemId, url: item.url as string, outcome }], clock.now(), null),
      )
      const [row] = rows
      if (!row) throw itemNotFound()
      return linkRecordOf(row)
    },
  }
}

export type LinkService = ReturnType<typeof createLinkService>
