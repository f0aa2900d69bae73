import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { CategoryService } from '../categories/service.ts'
import type { Clearable } from '../content.ts'
import type { SiteService } from '../site/service.ts'
import { importRoutes } from './routes.ts'
import {
  createImportService,
  IMPORT_DRY_RUN_JOB,
  IMPORT_STEP_JOB,
  IMPORT_SWEEP_JOB,
  type ImportDryRunJob,
  type ImportStepJob,
} from './service.ts'

/**
 * Imports of whole directories (awesome-list Markdown, CSV, JSON): the admin routes, and the durable jobs
 * that run them, one at a time, a batch per transaction.
 */
export function importsModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  config: Pick<
    Config,
    'importBatchSize' | 'importMaxBytes' | 'importFetchTimeoutMs' | 'importAllowedHosts' | 'isProduction'
  >
  rateLimit: RateLimit
  categories: Pick<CategoryService, 'adjustCounts'>
  site: Pick<SiteService, 'adoptWithin' | 'caches'>
  caches: readonly Clearable[]
}) {
  const { config } = deps
  const imports = createImportService({
    ...deps,
    batchSize: config.importBatchSize,
    maxBytes: config.importMaxBytes,
    fetchTimeoutMs: config.importFetchTimeoutMs,
    // An admin's URL must not reach inside the network in production; a local instance's user is its operator.
    policy: { allowPrivate: !config.isProduction, allowed: config.importAllowedHosts },
  })
  const module: Module = {
    name: 'imports',
    routes: (app) =>
      importRoutes(app, { imports, rateLimit: deps.rateLimit, maxBytes: config.importMaxBytes }),
    jobs: [
      {
        name: IMPORT_STEP_JOB,
        handler: (data: ImportStepJob) =>
          imports.step(data).catch(async (error: unknown) => {
            await imports.noteFailure(data.importId, error)
            throw error
          }),
        retryLimit: 5,
        retryDelaySeconds: 5,
        retryBackoff: true,
        // A step applies one batch: still active after 2 minutes, its process died (the sweep resends it sooner).
        expireInSeconds: 120,
      },
      {
        name: IMPORT_DRY_RUN_JOB,
        handler: (data: ImportDryRunJob) =>
          imports.dryRun(data).catch(async (error: unknown) => {
            await imports.noteFailure(data.importId, error)
            throw error
          }),
        retryLimit: 3,
        retryDelaySeconds: 5,
        expireInSeconds: 900,
      },
      {
        name: IMPORT_SWEEP_JOB,
        cron: '* * * * *',
        // Another instance's crash is noticed within a minute, without waiting for a restart.
        handler: async () => imports.sweep(),
      },
    ],
    // A restart finds the imports its own crash left behind.
    onReady: async () => {
      await imports.sweep()
    },
  }
  return { imports, module }
}
