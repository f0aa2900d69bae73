import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
import type { AuthGuard } from '../auth/guard.ts'
import type { PlatformEvents } from '../events.ts'
import { apiKeyRoutes } from './routes.ts'
import { createApiKeyService } from './service.ts'
import { createApiKeyUsage } from './usage.ts'

export interface ApiKeysModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  usageFlushMs: number
}

/**
 * API keys for scripts. The service exists before the routes: the auth guard authenticates keys with it,
 * and the routes are guarded by that guard's `requireJwt`.
 */
export function apiKeysModule({ db, clock, log, usageFlushMs }: ApiKeysModuleDeps) {
  const usage = createApiKeyUsage({ db, log, flushIntervalMs: usageFlushMs })
  const apiKeys = createApiKeyService({ db, clock, usage })
  const module = (guards: { requireJwt: AuthGuard }): Module<PlatformEvents> => ({
    name: 'api-keys',
    routes: (app) => apiKeyRoutes(app, { apiKeys, requireJwt: guards.requireJwt }),
    caches: [apiKeys.cache],
    onReady: async () => usage.start(),
    onClose: () => usage.stop(),
  })
  return { apiKeys, module }
}
