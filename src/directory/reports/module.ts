import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Clock } from '../../lib/clock.ts'
import type { SessionService } from '../auth/sessions.ts'
import type { ProfileService } from '../clients/profiles.ts'
import type { CommentService } from '../comments/service.ts'
import type { Clearable } from '../content.ts'
import type { ItemService } from '../items/service.ts'
import { reportRoutes } from './routes.ts'
import { createReportService } from './service.ts'

/** Content reports by users, their review by admins, and the moderation actions a resolution runs. */
export function reportsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'error'>
  rateLimit: RateLimit
  items: Pick<ItemService, 'removeWithin'>
  comments: Pick<CommentService, 'removeWithin'>
  profiles: Pick<ProfileService, 'warn' | 'suspend'>
  sessions: Pick<SessionService, 'revokeAll'>
  /** What removing an item or a comment makes stale on this instance. */
  caches: readonly Clearable[]
}) {
  const reports = createReportService(deps)
  const module: Module = {
    name: 'reports',
    routes: (app) => reportRoutes(app, { reports, rateLimit: deps.rateLimit }),
  }
  return { reports, module }
}
