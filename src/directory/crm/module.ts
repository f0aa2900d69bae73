import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import { createTwentyClient } from '../../integrations/twenty/client.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import { crmRoutes } from './routes.ts'
import { createCrmSettings } from './settings.ts'
import { CRM_RECOVERY_JOB, CRM_SYNC_JOB, type CrmSyncJob, createCrmSync } from './sync.ts'

/** Syncs one instance runs at once: each mostly waits for the CRM. */
const SYNC_CONCURRENCY = 5

/**
 * The CRM integration (Twenty): the settings admins set, and the sync of clients (and their companies) as
 * durable jobs queued in the transaction of each client change. `crm` is the clients module's hook.
 */
export function crmModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send' | 'boss'>
  envelope: Envelope
  config: Pick<Config, 'twentyApiUrl' | 'crmTimeoutMs' | 'crmRetryBaseMs' | 'crmMaxAttempts' | 'isProduction'>
}) {
  const { config } = deps
  // An admin's base URL must not reach inside the network; the operator's TWENTY_API_URL is trusted.
  const policy = { allowPrivate: false, allowed: [new URL(config.twentyApiUrl).hostname] }
  // https is required of a base URL when it is saved (settings.ts), TWENTY_API_URL's host excepted.
  const twenty = createTwentyClient({ timeoutMs: config.crmTimeoutMs, policy, requireHttps: false })
  const settings = createCrmSettings({
    ...deps,
    twenty,
    defaultBaseUrl: config.twentyApiUrl,
    policy,
    requireHttps: config.isProduction,
  })
  const sync = createCrmSync({
    ...deps,
    settings,
    twenty,
    retry: { maxAttempts: config.crmMaxAttempts, baseMs: config.crmRetryBaseMs },
    timeoutMs: config.crmTimeoutMs,
  })
  const leaseSeconds = Math.ceil(sync.leaseMs / 1000)

  const module: Module = {
    name: 'crm',
    routes: (app) => crmRoutes(app, { settings, sync }),
    jobs: [
      {
        name: CRM_SYNC_JOB,
        handler: async (job: CrmSyncJob) => sync.attempt(job),
        // The sync schedules its own retries; these are for a handler that failed (a lost database).
        retryLimit: 5,
        retryDelaySeconds: 30,
        concurrency: SYNC_CONCURRENCY,
        // A job taken by a process that died runs again once its attempt's lease is over.
        expireInSeconds: leaseSeconds,
      },
      {
        name: CRM_RECOVERY_JOB,
        cron: '* * * * *',
        handler: async () => {
          await sync.recover()
        },
      },
    ],
  }
  return { crm: sync.hook, settings, sync, module }
}
