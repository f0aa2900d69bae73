import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Clearable } from '../content.ts'
import { adminNotificationRoutes } from './routes.ts'
import { createAdminNotificationService } from './service.ts'

/** The admins' notifications, raised by submissions, comments, contact messages and reports. */
export function notificationsModule({ db, clock, caches }: { db: Db; clock: Clock; caches?: Clearable[] }) {
  const notifications = createAdminNotificationService({ db, clock, ...(caches ? { caches } : {}) })
  const module: Module = {
    name: 'admin-notifications',
    routes: (app) => adminNotificationRoutes(app, { notifications }),
  }
  return { notifications, module }
}
