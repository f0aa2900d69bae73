import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Clock } from '../../lib/clock.ts'
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

/** API keys for scripts. The service exists before the app: the access guards authenticate keys with it. */
export function apiKeysModule({ db, clock, log, usageFlushMs }: ApiKeysModuleDeps) {
  const usage = createApiKeyUsage({ db, log, flushIntervalMs: usageFlushMs })
  const apiKeys = createApiKeyService({ db, clock, usage })
  const module: Module<PlatformEvents> = {
    name: 'api-keys',
    routes: (app) => apiKeyRoutes(app, { apiKeys }),
    caches: [apiKeys.cache],
    onReady: async () => usage.start(),
    onClose: () => usage.stop(),
  }
  return { apiKeys, module }
}
