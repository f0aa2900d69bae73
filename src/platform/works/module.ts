import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { PlatformEvents } from '../events.ts'
import { createWorkAccess } from './access.ts'
import { workRoutes } from './routes.ts'
import { createWorkService, type WorkAuditor } from './service.ts'

export interface WorksModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  events: Pick<PlatformEvents, 'emit'>
  activity: WorkAuditor
}

/** Works and their members; `access` is the permission helper every module that touches works uses. */
export function worksModule(deps: WorksModuleDeps) {
  const access = createWorkAccess({ db: deps.db })
  const works = createWorkService({ ...deps, access })
  const module: Module<PlatformEvents> = {
    name: 'works',
    routes: (app) => workRoutes(app, { works }),
  }
  return { works, access, module }
}
