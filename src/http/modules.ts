import type { Logger } from 'pino'
import type { Config } from '../config.ts'
import type { ServiceDatabase } from '../db/index.ts'
import type { InvalidatedCache } from '../db/invalidated-cache.ts'
import type { Notifications } from '../db/notifications.ts'
import type { JobDefinition, Jobs } from '../jobs/index.ts'
import type { Clock } from '../lib/clock.ts'
import type { RateLimiter } from '../lib/rate-limiter.ts'
import type { App, BaseAppOptions } from './app.ts'
import { metricsExposure } from './metrics.ts'
import { serviceReadiness } from './readiness.ts'

/** What a service is built from; the caller starts its jobs and listens. */
export interface ServiceDeps {
  config: Config
  database: ServiceDatabase
  clock: Clock
  log: Logger
  jobs: Jobs
  rateLimiter: RateLimiter
}

/** The base-app options every service takes from its deps the same way. */
export function baseOptionsOf(
  deps: ServiceDeps,
): Pick<
  BaseAppOptions,
  'log' | 'bodyLimitBytes' | 'timeouts' | 'trustProxy' | 'readiness' | 'cors' | 'metrics'
> {
  const { source } = deps.database
  return {
    log: deps.log,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    timeouts: { requestMs: deps.config.requestTimeoutMs, headersMs: deps.config.headersTimeoutMs },
    trustProxy: deps.config.trustProxy,
    cors: deps.config,
    readiness: serviceReadiness(deps.database, deps.rateLimiter, deps.jobs, {
      redis: deps.config.redisUrl !== undefined,
    }),
    metrics: {
      exposure: metricsExposure(deps.config),
      ...(source.kind === 'postgres' ? { pool: source.pool } : {}),
    },
  }
}

/**
 * What one feature plugs into its service, declared in one place: its routes, its durable jobs, its
 * domain-event listeners and the caches that must hear invalidations. A service's `app.ts` builds each
 * feature's services (a feature reaches another only through the services it is given) and installs
 * the list of modules; nothing else wires a feature in.
 */
export interface Module<Events = never> {
  name: string
  routes?(app: App): void
  // biome-ignore lint/suspicious/noExplicitAny: each job declares its own payload type
  jobs?: readonly JobDefinition<any>[]
  /** Subscribes to domain events; listeners run in the emitter's transaction. */
  listeners?(events: Events): void
  /** Listened to once the app is ready; each is off until its channel is heard. */
  caches?: readonly Pick<InvalidatedCache<unknown>, 'listen'>[]
  onReady?(): Promise<void>
  onClose?(): Promise<void>
}

export interface ModuleHost<Events> {
  jobs: Pick<Jobs, 'define' | 'wakeOn'>
  notifications: Notifications
  events?: Events
}

/**
 * Installs modules in order: routes and jobs now, event listeners in list order (so listeners of one
 * event run in the order of the list), caches and `onReady` when the app is ready, `onClose` in reverse
 * order when it closes, then the notification connection.
 */
export function installModules<Events>(
  app: App,
  modules: readonly Module<Events>[],
  host: ModuleHost<Events>,
) {
  for (const module of modules) {
    module.routes?.(app)
    for (const job of module.jobs ?? []) host.jobs.define(job)
    if (module.listeners) {
      if (!host.events) throw new Error(`Module ${module.name} listens to events this service does not have`)
      module.listeners(host.events)
    }
  }
  host.jobs.wakeOn(host.notifications)
  app.addHook('onReady', async () => {
    for (const module of modules) {
      for (const cache of module.caches ?? []) await cache.listen(host.notifications)
      await module.onReady?.()
    }
  })
  app.addHook('onClose', async () => {
    for (const module of [...modules].reverse()) await module.onClose?.()
    await host.notifications.close()
  })
}
