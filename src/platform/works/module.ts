import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { PlatformEvents } from '../events.ts'
import { createWorkAccess } from './access.ts'
import { createWorkGenerationState } from './generation-state.ts'
import { workRoutes } from './routes.ts'
import { createWorkService, type WorkAuditor } from './service.ts'

export interface WorksModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  events: Pick<PlatformEvents, 'emit'>
  activity: WorkAuditor
}

/**
 * Works and their members; `access` is the permission helper every module that touches works uses, and
 * `generationState` the one writer of a work's generation status, log and item count.
 */
export function worksModule(deps: WorksModuleDeps) {
  const access = createWorkAccess({ db: deps.db })
  const works = createWorkService({ ...deps, access })
  const generationState = createWorkGenerationState({ db: deps.db })
  const module: Module<PlatformEvents> = {
    name: 'works',
    routes: (app) => workRoutes(app, { works }),
  }
  return { works, access, generationState, module }
}
