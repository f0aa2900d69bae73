import { and, count, eq, getTableColumns, gte, ilike, lt, lte, or, type SQL, sql } from 'drizzle-orm'
import { substringPattern } from '../../db/filters.ts'
import type { Db } from '../../db/index.ts'
import { type FlatSelection, prepareMapped } from '../../db/prepared.ts'
import { csvRow } from '../../lib/csv.ts'
import { parseDateRange } from '../../lib/dates.ts'
import { notFound } from '../../lib/errors.ts'
import { isUuid } from '../../lib/ids.ts'
import { works } from '../works/tables.ts'
import { ACTIVITY_EXPORT_MAX_ROWS } from './schemas.ts'
import { ACTIVITY_STATUSES, type ActionType, type ActivityStatus, activityLog } from './tables.ts'
import type { ActivityRow } from './writer.ts'

export interface ActivityFilters {
  actionType?: ActionType | undefined
  workId?: string | undefined
  status?: ActivityStatus | undefined
  dateFrom?: string | undefined
  dateTo?: string | undefined
  search?: string | undefined
}

const EXPORT_BATCH = 1000

export const EXPORT_HEADER = 'id,createdAt,actionType,action,status,summary\r\n'

/** Newest first, spelled as the indexes are built (NULLS LAST), so Postgres reads them in order, unsorted. */
const NEWEST_FIRST = [
  sql`${activityLog.createdAt} desc nulls last`,
  sql`${activityLog.id} desc nulls last`,
] as const

const slot = (name: string) => sql.placeholder(name)

const ENTRY_COLUMNS = getTableColumns(activityLog)

/** A row of the list's page statement: an entry, and the total when the statement counted it. */
type PageRow = ActivityRow & { total: string | null }

/**
 * The filters split into the statement's shape (which conditions there are, one letter each) and the
 * values for their placeholders. Requests with the same shape share one prepared statement, so the
 * conditions themselves are built only when a shape is first seen (`whereOf`).
 */
interface Bound {
  shape: string
  values: Record<string, string>
}

function bind(userId: string, filters: ActivityFilters): Bound {
  const values: Record<string, string> = { userId }
  let shape = ''
  if (filters.actionType) {
    values.actionType = filters.actionType
    shape += 'a'
  }
  if (filters.workId) {
    values.workId = filters.workId
    shape += 'w'
  }
  if (filters.status) {
    values.status = filters.status
    shape += 's'
  }
  const range = parseDateRange(
    { from: filters.dateFrom, to: filters.dateTo },
    { from: 'dateFrom', to: 'dateTo' },
  )
  if (range.from) {
    values.dateFrom = range.from.toISOString()
    shape += 'f'
  }
  // A bare date as dateTo means the whole of that day.
  if (range.before) {
    values.dateTo = range.before.toISOString()
    shape += 'd'
  } else if (range.until) {
    values.dateTo = range.until.toISOString()
    shape += 't'
  }
  if (filters.search) {
    values.pattern = substringPattern(filters.search)
    shape += 'q'
  }
  return { shape, values }
}

/** The condition each shape letter stands for, on its placeholder. */
const CONDITIONS: Record<string, () => SQL> = {
  a: () => eq(activityLog.actionType, slot('actionType')),
  w: () => eq(activityLog.workId, slot('workId')),
  s: () => eq(activityLog.status, slot('status')),
  f: () => gte(activityLog.createdAt, slot('dateFrom')),
  d: () => lt(activityLog.createdAt, slot('dateTo')),
  t: () => lte(activityLog.createdAt, slot('dateTo')),
  // The work's name is a scalar subquery, which Postgres runs per remaining row by primary key: the
  // cost follows the caller's rows that the other filters left, not the number of works (an EXISTS or
  // a join let the planner hash every work's name on each request).
  q: () =>
    or(
      ilike(activityLog.summary, slot('pattern')),
      sql`(select ${works.name} from ${works} where ${works.id} = ${activityLog.workId}) ilike ${slot('pattern')}`,
    )!,
}

/** The WHERE of a shape: the caller's rows, then each filter's condition in the shape's order. */
function whereOf(shape: string): SQL {
  return and(eq(activityLog.userId, slot('userId')), ...[...shape].map((letter) => CONDITIONS[letter]!()))!
}

/** A prepared statement per shape, built on first use; at most 2^7 shapes per statement kind. */
function memo<T>(build: (shape: string, where: SQL) => T) {
  const statements = new Map<string, T>()
  return ({ shape }: Bound) => {
    let statement = statements.get(shape)
    if (!statement) {
      statement = build(shape, whereOf(shape))
      statements.set(shape, statement)
    }
    return statement
  }
}

export function createActivityLogService({ db }: { db: Db }) {
  // Named statements are parsed once per connection, and Postgres may keep their plan: the request
  // neither rebuilds the SQL here nor re-plans it there.
  //
  // Without a search, the page carries the total when it is full: a scalar subquery that Postgres runs
  // once (an InitPlan), and only when the CASE reaches it, so a short page, whose size already tells the
  // total, never counts. With a search the two statements stay apart: planning the search twice in one
  // statement cost more than the second round trip it saves (searches mostly give short pages).
  const pageOf = memo((shape, where) => {
    const name = `activity_page_${shape}`
    if (shape.includes('q')) {
      return prepareMapped<PageRow, FlatSelection>(
        db,
        { ...ENTRY_COLUMNS, total: sql<string | null>`null` },
        (selection) =>
          db
            .select(selection)
            .from(activityLog)
            .where(where)
            .orderBy(...NEWEST_FIRST)
            .limit(slot('limit'))
            .offset(slot('offset')),
        name,
      )
    }
    const page = db
      .select()
      .from(activityLog)
      .where(where)
      .orderBy(...NEWEST_FIRST)
      .limit(slot('limit'))
      .offset(slot('offset'))
      .as('page')
    return prepareMapped<PageRow, FlatSelection>(
      db,
      {
        // Every column of the page under its own name (drizzle selects a subquery's columns one by one).
        ...Object.fromEntries(
          Object.keys(ENTRY_COLUMNS).map((column) => [column, page[column as keyof typeof page]]),
        ),
        total: sql<string | null>`case when count(*) over () < ${slot('limit')} then null
          else (select count(*) from ${activityLog} where ${where}) end`,
      },
      (selection) =>
        db
          .select(selection)
          .from(page)
          .orderBy(sql`${page.createdAt} desc nulls last`, sql`${page.id} desc nulls last`),
      name,
    )
  })
  const countOf = memo((shape, where) =>
    db.select({ total: count() }).from(activityLog).where(where).prepare(`activity_count_${shape}`),
  )
  const exportBatchOf = memo((shape, where) =>
    db
      .select({
        id: activityLog.id,
        createdAt: activityLog.createdAt,
        actionType: activityLog.actionType,
        action: activityLog.action,
        status: activityLog.status,
        summary: activityLog.summary,
      })
      .from(activityLog)
      .where(
        and(
          where,
          sql`(${activityLog.createdAt}, ${activityLog.id}) < (${slot('afterAt')}::timestamptz, ${slot('afterId')}::uuid)`,
        ),
      )
      .orderBy(...NEWEST_FIRST)
      .limit(slot('limit'))
      .prepare(`activity_export_${shape}`),
  )

  return {
    async list(userId: string, filters: ActivityFilters & { limit: number; offset: number }) {
      const bound = bind(userId, filters)
      const rows = await pageOf(bound).execute({
        ...bound.values,
        limit: filters.limit,
        offset: filters.offset,
      })
      const activities = rows.map(({ total: _, ...entry }) => entry)
      const counted = rows[0]?.total
      if (counted != null) return { activities, total: Number(counted) }
      // A short page that is not past the end already tells the total.
      if (activities.length < filters.limit && (activities.length > 0 || filters.offset === 0)) {
        return { activities, total: filters.offset + activities.length }
      }
      // A full page of a search, or past the end: no row carried the total.
      const [totals] = await countOf(bound).execute(bound.values)
      return { activities, total: totals?.total ?? 0 }
    },

    async runningCount(userId: string): Promise<number> {
      const [row] = await db
        .select({ total: count() })
        .from(activityLog)
        .where(and(eq(activityLog.userId, userId), eq(activityLog.status, 'in_progress')))
      return row?.total ?? 0
    },

    async summary(userId: string): Promise<Record<ActivityStatus, number>> {
      const rows = await db
        .select({ status: activityLog.status, total: count() })
        .from(activityLog)
        .where(eq(activityLog.userId, userId))
        .groupBy(activityLog.status)
      const counts = Object.fromEntries(ACTIVITY_STATUSES.map((status) => [status, 0])) as Record<
        ActivityStatus,
        number
      >
      for (const row of rows) counts[row.status] = row.total
      return counts
    },

    /** One entry of the user's; an in-progress run carries its work's recent log lines as `details.liveLogs`. */
    async get(userId: string, id: string): Promise<ActivityRow> {
      if (!isUuid(id)) throw notFound('Activity entry not found', 'ACTIVITY_NOT_FOUND')
      const [row] = await db
        .select({ entry: activityLog, recentLogs: works.recentLogs })
        .from(activityLog)
        .leftJoin(works, eq(works.id, activityLog.workId))
        .where(and(eq(activityLog.id, id), eq(activityLog.userId, userId)))
      if (!row) throw notFound('Activity entry not found', 'ACTIVITY_NOT_FOUND')
      if (row.entry.status === 'in_progress' && row.entry.workId) {
        return { ...row.entry, details: { ...row.entry.details, liveLogs: row.recentLogs ?? [] } }
      }
      return row.entry
    },

    /**
     * The CSV export, newest first, at most 10,000 rows, produced in batches so memory stays flat whatever
     * the size. The filters are validated and the first batch read before this resolves, so a bad filter or
     * a failing query is still an error answer; a failure after that rejects the stream mid-way, which the
     * HTTP layer turns into a broken connection rather than a file that looks complete.
     */
    async exportCsv(userId: string, filters: ActivityFilters): Promise<AsyncIterable<string>> {
      const bound = bind(userId, filters)
      const batchOf = exportBatchOf(bound)
      const read = (after: { at: string; id: string }, sent: number) =>
        batchOf.execute({
          ...bound.values,
          afterAt: after.at,
          afterId: after.id,
          limit: Math.min(EXPORT_BATCH, ACTIVITY_EXPORT_MAX_ROWS - sent),
        })
      const csvOf = (batch: Awaited<ReturnType<typeof read>>) =>
        batch
          .map((row) => csvRow([row.id, row.createdAt, row.actionType, row.action, row.status, row.summary]))
          .join('')
      // Keyset paging from after the newest possible row.
      const first = await read({ at: 'infinity', id: 'ffffffff-ffff-ffff-ffff-ffffffffffff' }, 0)
      const start = EXPORT_HEADER + csvOf(first)
      return (async function* () {
        yield start
        let batch = first
        let sent = first.length
        while (batch.length === EXPORT_BATCH && sent < ACTIVITY_EXPORT_MAX_ROWS) {
          const last = batch[batch.length - 1]!
          batch = await read({ at: last.createdAt.toISOString(), id: last.id }, sent)
          if (batch.length > 0) yield csvOf(batch)
          sent += batch.length
        }
      })()
    },
  }
}

export type ActivityLogService = ReturnType<typeof createActivityLogService>
