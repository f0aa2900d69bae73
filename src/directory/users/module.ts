import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AccountService } from '../accounts/service.ts'
import type { ProfileService } from '../clients/profiles.ts'
import type { RoleService } from '../roles/service.ts'
import { adminUserRoutes } from './routes.ts'
import { createUserService } from './service.ts'

export interface UsersModuleDeps {
  db: Db
  clock: Clock
  accounts: AccountService
  profiles: Pick<ProfileService, 'openAccount' | 'mirrorIdentity'>
  roles: Pick<RoleService, 'exists'>
}

/** The admin users API: accounts through the account service, their profiles through the profile service. */
export function usersModule(deps: UsersModuleDeps) {
  const users = createUserService(deps)
  const module: Module = { name: 'users', routes: (app) => adminUserRoutes(app, { users }) }
  return { users, module }
}
