import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import { createInvalidatedCache } from '../../db/invalidated-cache.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AccountService } from '../accounts/service.ts'
import { type CrmSync, noCrmSync } from './crm.ts'
import { createProfileService } from './profiles.ts'
import { adminClientRoutes } from './routes.ts'
import type { ClientStats } from './schemas.ts'
import { CLIENT_STATS_REUSE_MS, createClientService } from './service.ts'
import { CLIENT_PROFILES_CHANGED_CHANNEL } from './tables.ts'

export interface ClientsModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  accounts: Pick<AccountService, 'create' | 'findByEmail' | 'update'>
  /** Where client changes are pushed; nothing is sent until a CRM is configured. */
  crm?: CrmSync
}

/**
 * Client profiles: the profile service other modules open accounts through, and the admin clients API
 * with its list totals and statistics cached per instance until `client_profiles` changes.
 */
export function clientsModule({ db, clock, log, accounts, crm = noCrmSync }: ClientsModuleDeps) {
  const profiles = createProfileService({ db, clock, accounts })
  const counts = createInvalidatedCache<number>({
    name: 'client-counts',
    channel: CLIENT_PROFILES_CHANGED_CHANNEL,
    clock,
  })
  const stats = createInvalidatedCache<ClientStats>({
    name: 'client-stats',
    channel: CLIENT_PROFILES_CHANGED_CHANNEL,
    ttlMs: CLIENT_STATS_REUSE_MS,
    clock,
  })
  const clients = createClientService({ db, clock, crm, log, accounts, profiles, counts, stats })
  const module: Module = {
    name: 'clients',
    routes: (app) => adminClientRoutes(app, { clients }),
    caches: [counts, stats],
  }
  return { clients, profiles, module }
}
