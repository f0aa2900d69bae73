import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import { roleRoutes } from './routes.ts'
import { createRoleService } from './service.ts'

/** Roles and their permissions. */
export function rolesModule({ db, clock }: { db: Db; clock: Clock }) {
  const roles = createRoleService({ db, clock })
  const module: Module = { name: 'roles', routes: (app) => roleRoutes(app, { roles }) }
  return { roles, module }
}
