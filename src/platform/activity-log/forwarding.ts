import { eq } from 'drizzle-orm'
import type { Db } from '../../db/index.ts'
import type { AnalyticsClient, AnalyticsEvent } from '../../integrations/analytics/client.ts'
import { activityLog } from './tables.ts'
import type { ActivityRow } from './writer.ts'

export const ANALYTICS_FORWARD_JOB = 'analytics-forward'

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype

/** SPEC.md: the row's metadata (when a plain object) merged with the row's own fields. */
export function analyticsEventOf(row: ActivityRow): AnalyticsEvent {
  return {
    event: row.action,
    distinctId: row.userId,
    timestamp: row.updatedAt.toISOString(),
    properties: {
      ...(isPlainObject(row.metadata) ? row.metadata : {}),
      activityId: row.id,
      userId: row.userId,
      workId: row.workId,
      actionType: row.actionType,
      action: row.action,
      status: row.status,
      summary: row.summary,
      details: row.details,
      createdAt: row.createdAt.toISOString(),
    },
  }
}

/** The job that forwards one persisted row; a row deleted meanwhile is skipped. */
export function forwardActivity({ db, analytics }: { db: Db; analytics: AnalyticsClient }) {
  return async ({ activityId }: { activityId: string }) => {
    const [row] = await db.select().from(activityLog).where(eq(activityLog.id, activityId))
    if (row) await analytics.capture(analyticsEventOf(row))
  }
}
