import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { AnalyticsClient } from '../../integrations/analytics/client.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { PlatformEvents } from '../events.ts'
import { ANALYTICS_FORWARD_JOB, forwardActivity } from './forwarding.ts'
import { registerActivityListeners } from './listeners.ts'
import { createReconciler } from './reconcile.ts'
import { activityLogRoutes } from './routes.ts'
import { createActivityLogService } from './service.ts'
import { createActivityWriter } from './writer.ts'

export interface ActivityLogModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  jobs: Pick<Jobs, 'send'>
  /** Forwarding of every written row to the analytics collector, when configured. */
  analytics: AnalyticsClient | undefined
  deployTimeoutMs: number
}

/**
 * The activity log: rows written from domain events in the transaction of the change, reads, CSV export,
 * reconciliation of runs that ended silently, and forwarding to analytics through a durable job enqueued
 * with each row.
 */
export function activityLogModule({
  db,
  clock,
  log,
  jobs,
  analytics,
  deployTimeoutMs,
}: ActivityLogModuleDeps) {
  const writer = createActivityWriter({
    clock,
    log,
    ...(analytics
      ? { enqueue: (tx, row) => jobs.send(ANALYTICS_FORWARD_JOB, { activityId: row.id }, { tx }) }
      : {}),
  })
  const activityLog = createActivityLogService({ db })
  const reconciler = createReconciler({ db, clock, log, deployTimeoutMs })
  const module: Module<PlatformEvents> = {
    name: 'activity-log',
    routes: (app) => activityLogRoutes(app, { activityLog, reconciler }),
    listeners: (events) => registerActivityListeners(events, writer),
    jobs: analytics
      ? [
          {
            name: ANALYTICS_FORWARD_JOB,
            // A collector outage is ridden out: 8 tries, backing off from 10 s.
            retryLimit: 8,
            retryDelaySeconds: 10,
            handler: forwardActivity({ db, analytics }),
          },
        ]
      : [],
  }
  return { writer, activityLog, reconciler, module }
}
