import { and, count, eq, gte, ilike, lt, lte, or, type SQL, sql } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import { csvRow } from '../../lib/csv.ts'
import { badRequest, notFound } from '../../lib/errors.ts'
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

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/
const DAY_MS = 86_400_000
const EXPORT_BATCH = 1000

export const EXPORT_HEADER = 'id,createdAt,actionType,action,status,summary\r\n'

function parseDate(field: string, value: string): Date {
  const date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value)
  if (Number.isNaN(date.getTime())) {
    throw badRequest(`query.${field} is not a valid date`, [
      { field: `query.${field}`, message: 'is not a valid date' },
    ])
  }
  return date
}

/** `%` and `_` in a search are literal characters, not patterns. */
/** Newest first, spelled as the indexes are built (NULLS LAST), so Postgres reads them in order, unsorted. */
const NEWEST_FIRST = [
  sql`${activityLog.createdAt} desc nulls last`,
  sql`${activityLog.id} desc nulls last`,
] as const

const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`

function conditionsFor(userId: string, filters: ActivityFilters): SQL[] {
  const where: SQL[] = [eq(activityLog.userId, userId)]
  if (filters.actionType) where.push(eq(activityLog.actionType, filters.actionType))
  if (filters.workId) where.push(eq(activityLog.workId, filters.workId))
  if (filters.status) where.push(eq(activityLog.status, filters.status))
  if (filters.dateFrom) where.push(gte(activityLog.createdAt, parseDate('dateFrom', filters.dateFrom)))
  if (filters.dateTo) {
    const to = parseDate('dateTo', filters.dateTo)
    // A bare date means the whole of that day.
    where.push(
      DATE_ONLY.test(filters.dateTo)
        ? lt(activityLog.createdAt, new Date(to.getTime() + DAY_MS))
        : lte(activityLog.createdAt, to),
    )
  }
  return where
}

/**
 * The search matches the summary or the work's name. The name is a scalar subquery, which Postgres runs
 * per remaining row by primary key: the cost follows the caller's rows that the other filters left, not
 * the number of works (an EXISTS or a join let the planner hash every work's name on each request).
 */
function searchCondition(filters: ActivityFilters): SQL | undefined {
  if (!filters.search) return undefined
  const pattern = likePattern(filters.search)
  return or(
    ilike(activityLog.summary, pattern),
    sql`(select ${works.name} from ${works} where ${works.id} = ${activityLog.workId}) ilike ${pattern}`,
  )
}

export function createActivityLogService({ db }: { db: Db }) {
  function filtered(userId: string, filters: ActivityFilters, extra: SQL[] = []) {
    const search = searchCondition(filters)
    return and(...conditionsFor(userId, filters), ...(search ? [search] : []), ...extra)
  }

  return {
    async list(userId: string, filters: ActivityFilters & { limit: number; offset: number }) {
      const where = filtered(userId, filters)
      const activities = await db
        .select()
        .from(activityLog)
        .where(where)
        .orderBy(...NEWEST_FIRST)
        .limit(filters.limit)
        .offset(filters.offset)
      // A short page that is not past the end already tells the total: no second query.
      if (activities.length < filters.limit && (activities.length > 0 || filters.offset === 0)) {
        return { activities, total: filters.offset + activities.length }
      }
      const [totals] = await db.select({ total: count() }).from(activityLog).where(where)
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
     * the size. Validation happens before the first chunk, so a bad filter is still a 400.
     */
    exportCsv(userId: string, filters: ActivityFilters): AsyncIterable<string> {
      filtered(userId, filters)
      return (async function* () {
        yield EXPORT_HEADER
        let sent = 0
        let cursor: { createdAt: Date; id: string } | undefined
        while (sent < ACTIVITY_EXPORT_MAX_ROWS) {
          const after = cursor
            ? [sql`(${activityLog.createdAt}, ${activityLog.id}) < (${cursor.createdAt}, ${cursor.id}::uuid)`]
            : []
          const batch = await db
            .select({
              id: activityLog.id,
              createdAt: activityLog.createdAt,
              actionType: activityLog.actionType,
              action: activityLog.action,
              status: activityLog.status,
              summary: activityLog.summary,
            })
            .from(activityLog)
            .where(filtered(userId, filters, after))
            .orderBy(...NEWEST_FIRST)
            .limit(Math.min(EXPORT_BATCH, ACTIVITY_EXPORT_MAX_ROWS - sent))
          if (batch.length === 0) return
          let chunk = ''
          for (const row of batch) {
            chunk += csvRow([row.id, row.createdAt, row.actionType, row.action, row.status, row.summary])
          }
          yield chunk
          sent += batch.length
          const last = batch[batch.length - 1]!
          cursor = { createdAt: last.createdAt, id: last.id }
          if (batch.length < EXPORT_BATCH) return
        }
      })()
    },
  }
}

export type ActivityLogService = ReturnType<typeof createActivityLogService>
