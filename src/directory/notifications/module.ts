import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import { adminNotificationRoutes } from './routes.ts'
import { createAdminNotificationService } from './service.ts'

/** The admins' notifications, raised by submissions, comments, contact messages and reports. */
export function notificationsModule({ db, clock }: { db: Db; clock: Clock }) {
  const notifications = createAdminNotificationService({ db, clock })
  const module: Module = {
    name: 'admin-notifications',
    routes: (app) => adminNotificationRoutes(app, { notifications }),
  }
  return { notifications, module }
}
