import type { Logger } from 'pino'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Envelope } from '../../lib/crypto.ts'
import type { PlatformEvents } from '../events.ts'
import type { NotificationService } from '../notifications/service.ts'
import type { PluginService } from '../plugins/service.ts'
import type { WorkAccess } from '../works/access.ts'
import type { HostingProvider } from './provider.ts'
import { deployRoutes } from './routes.ts'
import { createDeployService } from './service.ts'
import { createVerification, VERIFICATION_JOB, VERIFICATION_RECOVERY_JOB } from './verification.ts'

export interface DeployModuleDeps {
  db: Db
  clock: Clock
  log: Logger
  jobs: Pick<Jobs, 'send' | 'boss'>
  envelope: Envelope
  events: PlatformEvents
  access: Pick<WorkAccess, 'requireView'>
  plugins: Pick<PluginService, 'resolveForWork' | 'resolveForUser' | 'list'>
  notifications: Pick<NotificationService, 'notifyGitAuthExpired' | 'clearByDeduplicationKey'>
  rateLimit: RateLimit
  providers: readonly HostingProvider[]
  githubApiUrl: string
  githubRetryBaseMs: number
  templateRepository: string | undefined
  pollIntervalMs: number
  timeoutMs: number
  notFoundLimit: number
  dispatchRetryDelayMs: number
  batchConcurrency: number
  batchDelayMs: number
}

/** Polls one instance makes at once; each is one provider request and two short statements. */
const VERIFICATION_CONCURRENCY = 50
const VERIFICATION_BATCH_SIZE = 10
/** A poll's provider request is capped at 10 s: a job still running well after that lost its process. */
const VERIFICATION_EXPIRY_SECONDS = 60

/** Deploying works through GitHub to a hosting provider, and the verification that follows each deployment. */
export function deployModule(deps: DeployModuleDeps) {
  const providers = new Map(deps.providers.map((provider) => [provider.id, provider]))
  const verification = createVerification({ ...deps, providers })
  const deploy = createDeployService({ ...deps, providers, verification })

  const module: Module<PlatformEvents> = {
    name: 'deploy',
    routes: (app) => deployRoutes(app, { deploy, rateLimit: deps.rateLimit }),
    jobs: [
      {
        name: VERIFICATION_JOB,
        handler: async ({ deploymentId, poll }: { deploymentId: string; poll: number }) =>
          verification.poll(deploymentId, poll),
        // A poll that failed (a lost database) runs again; the `polls` count keeps it to one look.
        retryLimit: 5,
        retryDelaySeconds: 5,
        concurrency: VERIFICATION_CONCURRENCY,
        batchSize: VERIFICATION_BATCH_SIZE,
        expireInSeconds: VERIFICATION_EXPIRY_SECONDS,
        // Due polls are found within a quarter of the interval, so none is late by more than one.
        pollingIntervalSeconds: Math.min(2, deps.pollIntervalMs / 4000),
      },
      {
        name: VERIFICATION_RECOVERY_JOB,
        // Another instance's crash is noticed within a minute, without waiting for a restart.
        cron: '* * * * *',
        handler: async () => {
          await verification.recover()
        },
      },
    ],
    // A restart finds the polls its own crash left behind.
    onReady: async () => {
      await verification.recover()
    },
  }
  return { deploy, verification, module }
}
