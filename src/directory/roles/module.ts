import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { DirectoryGuards } from '../auth/guard.ts'
import { roleRoutes } from './routes.ts'
import { createRoleService } from './service.ts'

/** Roles and their permissions. */
export function rolesModule({ db, clock, guards }: { db: Db; clock: Clock; guards: DirectoryGuards }) {
  const roles = createRoleService({ db, clock })
  const module: Module = { name: 'roles', routes: (app) => roleRoutes(app, { roles, guards }) }
  return { roles, module }
}
