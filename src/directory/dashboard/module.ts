import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { ClientService } from '../clients/service.ts'
import type { CommentService } from '../comments/service.ts'
import type { ItemService } from '../items/service.ts'
import { createDashboardActivity } from './activity.ts'
import { dashboardRoutes } from './routes.ts'
import { createDashboardCache, createDashboardService, figureClears } from './service.ts'

/** The admin dashboard's figures. Its cache is made first, so the modules whose writes clear it can take it. */
export function dashboardCache(clock: Clock) {
  const cache = createDashboardCache(clock)
  return { cache, clears: figureClears(cache) }
}

export function dashboardModule(deps: {
  db: Db
  clock: Clock
  cache: ReturnType<typeof createDashboardCache>
  items: Pick<ItemService, 'stats'>
  comments: Pick<CommentService, 'stats'>
  clients: Pick<ClientService, 'stats'>
}) {
  const dashboard = createDashboardService(deps)
  const activity = createDashboardActivity(deps)
  const module: Module = {
    name: 'dashboard',
    routes: (app) => dashboardRoutes(app, { dashboard, activity }),
    caches: [deps.cache],
  }
  return { dashboard, module }
}
