import type { Logger } from 'pino'
import type { Config } from '../../config.ts'
import type { Db } from '../../db/index.ts'
import type { Module } from '../../http/modules.ts'
import type { Jobs } from '../../jobs/index.ts'
import type { Clock } from '../../lib/clock.ts'
import type { Lookup } from '../../lib/safe-http.ts'
import { VERSION } from '../../lib/version.ts'
import { createLinkChecker } from './checker.ts'
import { createPoliteness, realTimer, type Timer } from './politeness.ts'
import { linkRoutes } from './routes.ts'
import {
  createLinkService,
  LINK_CHECK_JOB,
  LINK_CHECK_SCHEDULE_JOB,
  type LinkCheckJob,
  stepLimitMs,
} from './service.ts'

/** Requests to one host at once (the politeness rule). */
export const PER_HOST_CONCURRENCY = 2
/** When the schedule looks whether a run is due (cron, UTC). */
export const LINK_CHECK_SCHEDULE_CRON = '*/5 * * * *'

/**
 * Link health: each published item's URL checked through the SSRF-safe client, politely, by runs the
 * schedule starts every LINK_CHECK_INTERVAL (or an admin now), and one item's check on demand.
 */
export function linksModule(deps: {
  db: Db
  clock: Clock
  log: Pick<Logger, 'info' | 'warn'>
  jobs: Pick<Jobs, 'send'>
  config: Pick<
    Config,
    | 'appUrl'
    | 'isProduction'
    | 'linkCheckInterval'
    | 'linkCheckFailures'
    | 'linkCheckTimeoutMs'
    | 'linkCheckHostDelayMs'
    | 'linkCheckConcurrency'
    | 'linkCheckBatchSize'
    | 'linkCheckAllowedHosts'
  >
  /** How the politeness delays are waited; real time unless a test says otherwise. */
  timer?: Timer
  lookup?: Lookup
}) {
  const { config } = deps
  const politeness = createPoliteness(
    {
      perHost: PER_HOST_CONCURRENCY,
      delayMs: config.linkCheckHostDelayMs,
      concurrency: config.linkCheckConcurrency,
    },
    deps.timer ?? realTimer,
  )
  const checker = createLinkChecker({
    timeoutMs: config.linkCheckTimeoutMs,
    // Item URLs come from submitters: a production instance never lets them reach inside its network.
    policy: { allowPrivate: !config.isProduction, allowed: config.linkCheckAllowedHosts },
    userAgent: `Curio-LinkChecker/${VERSION} (+${config.appUrl})`,
    politeness,
    ...(deps.lookup ? { lookup: deps.lookup } : {}),
  })
  const stepMs = stepLimitMs({
    batchSize: config.linkCheckBatchSize,
    delayMs: config.linkCheckHostDelayMs,
    timeoutMs: config.linkCheckTimeoutMs,
  })
  const links = createLinkService({
    ...deps,
    checker,
    failureLimit: config.linkCheckFailures,
    batchSize: config.linkCheckBatchSize,
    intervalMs: config.linkCheckInterval,
    // Twice a step's worst: a run is stalled only when its step was retried and made no progress either.
    stalledMs: 2 * stepMs,
  })
  const module: Module = {
    name: 'links',
    routes: (app) => linkRoutes(app, { links }),
    jobs: [
      {
        name: LINK_CHECK_JOB,
        handler: async ({ runId }: LinkCheckJob) => links.step(runId),
        retryLimit: 5,
        retryDelaySeconds: 30,
        retryBackoff: true,
        // A step waits its turn at each host: one still active past its worst belonged to a process that
        // died, and runs again from the saved cursor.
        expireInSeconds: Math.ceil(stepMs / 1000),
      },
      {
        name: LINK_CHECK_SCHEDULE_JOB,
        handler: async () => {
          await links.tick()
        },
        cron: LINK_CHECK_SCHEDULE_CRON,
      },
    ],
  }
  return { links, module }
}
