import type { Logger } from 'pino'
import type { Module } from '../../http/modules.ts'
import type { RateLimit } from '../../http/rate-limit.ts'
import type { HostingProvider } from '../../integrations/hosting.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { PlatformEvents } from '../events.ts'
import { createDeployBatch, type DeployBatchDeps } from './batch.ts'
import { createDeployCredentials, type DeployCredentialsDeps } from './credentials.ts'
import { deployRoutes } from './routes.ts'
import { createDeployService, type DeployServiceDeps } from './service.ts'
import { createVerification, VERIFICATION_JOB, VERIFICATION_RECOVERY_JOB } from './verification.ts'

export interface DeployModuleDeps
  extends Omit<DeployCredentialsDeps, 'providers'>,
    Omit<DeployServiceDeps, 'credentials' | 'verification'>,
    Omit<DeployBatchDeps, 'deploy'> {
  log: Logger
  jobs: Pick<Jobs, 'send' | 'boss'>
  rateLimit: RateLimit
  providers: readonly HostingProvider[]
  /** DEPLOY_TIMEOUT_MS */
  timeoutMs: number
  /** DEPLOY_NOT_FOUND_LIMIT */
  notFoundLimit: number
}

/**
 * Polls one instance makes at once. A poll is mostly its provider request: the polls of one fetch are taken
 * in one statement and recorded in one transaction, so many slots cost few connections.
 */
export const VERIFICATION_CONCURRENCY = 200
const VERIFICATION_BATCH_SIZE = 50
/** A poll's provider request is capped at 10 s: a job still running well after that lost its process. */
const VERIFICATION_EXPIRY_SECONDS = 60

/** Deploying works through GitHub to a hosting provider, and the verification that follows each deployment. */
export function deployModule(deps: DeployModuleDeps) {
  const providers = new Map(deps.providers.map((provider) => [provider.id, provider]))
  const verification = createVerification({ ...deps, providers })
  const credentials = createDeployCredentials({ ...deps, providers })
  const deploy = createDeployService({ ...deps, credentials, verification })
  const batch = createDeployBatch({ ...deps, deploy })

  const module: Module<PlatformEvents> = {
    name: 'deploy',
    routes: (app) => deployRoutes(app, { credentials, deploy, batch, rateLimit: deps.rateLimit }),
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
