import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { PlatformEvents } from '../events.ts'
import { notificationRoutes } from './routes.ts'
import { createNotificationService } from './service.ts'

export const NOTIFICATION_CLEANUP_JOB = 'notification-cleanup'
/** SPEC.md: the cleanup runs daily at 03:00 (UTC, as every schedule). */
export const NOTIFICATION_CLEANUP_CRON = '0 3 * * *'

export interface NotificationsModuleDeps {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'error'>
}

/**
 * In-app notifications: the service other modules create them through (generation, deploy), the
 * caller's routes, and the daily cleanup job.
 */
export function notificationsModule({ db, clock, log }: NotificationsModuleDeps) {
  const notifications = createNotificationService({ db, clock, log })
  const module: Module<PlatformEvents> = {
    name: 'notifications',
    routes: (app) => notificationRoutes(app, { notifications }),
    jobs: [
      {
        name: NOTIFICATION_CLEANUP_JOB,
        cron: NOTIFICATION_CLEANUP_CRON,
        handler: async () => {
          const removed = await notifications.cleanup()
          log.info(removed, 'old notifications removed')
        },
      },
    ],
  }
  return { notifications, module }
}
