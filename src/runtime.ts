import cluster from 'node:cluster'
import { createServer } from 'node:net'
import type { Logger } from 'pino'
import { type Config, loadConfig } from './config.ts'
import { startEmbeddedUpkeep } from './db/embedded-upkeep.ts'
import { type Databases, openDatabases, SERVICES, type ServiceName } from './db/index.ts'
import { migrateService } from './db/migrate.ts'
import { ensureAdmin, ensureLocalAdmin } from './directory/admin/bootstrap.ts'
import type { App } from './http/app.ts'
import {
  answerPrimaryForMetrics,
  type MetricsServer,
  metricsExposure,
  startMetricsServer,
} from './http/metrics.ts'
import { createJobs, type Jobs } from './jobs/index.ts'
import { type Clock, systemClock } from './lib/clock.ts'
import { displayUrl } from './lib/display-url.ts'
import {
  createFailoverRateLimitStore,
  createMemoryRateLimitStore,
  createRateLimiter,
  createRedisClient,
  createRedisRateLimitStore,
  type RateLimiter,
} from './lib/rate-limiter.ts'

export interface RunningService {
  service: ServiceName
  app: App
  url: string
}

export interface Runtime {
  services: RunningService[]
  /** Where METRICS_PORT serves the process's metrics (`…/metrics`), when it is set. */
  metricsUrl: string | undefined
  /** Where embedded data lives (`memory` or a folder), or undefined on Postgres. */
  embedded: string | undefined
  /** The admin login created on this start, to print once. */
  createdAdmin: { email: string; password: string } | null
  /** Stops taking requests, lets in-flight requests and job attempts finish, closes connections. */
  stop(): Promise<void>
}

/** A service could not listen: one line naming the port or address and its setting, no stack. */
export class ListenError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ListenError'
  }
}

/** What a shutdown keeps of SHUTDOWN_TIMEOUT_MS for closing connections after the job attempts. */
const SHUTDOWN_CLOSE_MS = 1500

const PORT_SETTINGS: Record<ServiceName, string> = { platform: 'PLATFORM_PORT', directory: 'DIRECTORY_PORT' }

/** The listen failures an operator fixes with a setting, as a ListenError; anything else as it is. */
function listenError(error: unknown, setting: string, host: string, port: number): unknown {
  switch ((error as { code?: unknown })?.code) {
    case 'EADDRINUSE':
      return new ListenError(`Port ${port} is in use (${setting}): stop what uses it or choose another port`)
    case 'EACCES':
      return new ListenError(
        `Port ${port} needs privileges this process does not have (${setting}): choose a port above 1023`,
      )
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ListenError(`Address ${host} is not an address of this machine (HOST): choose another`)
    default:
      return error
  }
}

/**
 * The rate limiter every service of this process shares: windows in this process, or with REDIS_URL in
 * Redis (keys `<REDIS_KEY_PREFIX>rl:…`, or `keyPrefix…` when given), falling back to this process's memory
 * while Redis does not answer (at start too): limits are then per instance, never off. `/readyz` shows
 * which.
 */
export async function createRateLimiterFor(
  config: Pick<Config, 'redisUrl' | 'redisKeyPrefix'>,
  clock: Clock,
  log: Logger,
  keyPrefix = `${config.redisKeyPrefix}rl:`,
): Promise<RateLimiter> {
  if (!config.redisUrl) return createRateLimiter({ store: createMemoryRateLimitStore(), clock })
  const redis = await createRedisClient(config.redisUrl, { log })
  // A failed first connection is logged by the client, which goes on reconnecting in the background.
  await redis.connect().catch(() => {})
  const store = createFailoverRateLimitStore({
    primary: createRedisRateLimitStore(redis, { ownsConnection: true, prefix: keyPrefix }),
    fallback: createMemoryRateLimitStore(),
    log,
    clock,
  })
  return createRateLimiter({ store, clock })
}

type AppDeps = Parameters<typeof import('./platform/app.ts').buildPlatformApp>[0] &
  Parameters<typeof import('./directory/app.ts').buildDirectoryApp>[0]

/** Builds one service's app, loading only that service's code (a process of one service never loads the other's). */
async function buildApp(service: ServiceName, deps: AppDeps): Promise<{ app: App }> {
  if (service === 'platform') return (await import('./platform/app.ts')).buildPlatformApp(deps)
  return (await import('./directory/app.ts')).buildDirectoryApp(deps)
}

/**
 * Starts and stops each service's job queue once with every queue its app defines, so that the queues
 * and their cron schedules are in the database and a start only reads them. For the migrated copies that
 * new databases start from: the embedded cluster `npm install` prepares, and the tests' template.
 */
export async function declareJobQueues(databases: Databases, log: Logger): Promise<void> {
  const config = loadConfig({ DATA_DIR: 'memory', LOG_LEVEL: 'silent' })
  const rateLimiter = await createRateLimiterFor(config, systemClock, log)
  try {
    for (const service of SERVICES) {
      const database = databases[service]
      const jobs = createJobs({ database, log })
      const deps = { config, database, clock: systemClock, log, jobs, rateLimiter }
      const { app } = await buildApp(service, deps)
      await jobs.start()
      await jobs.stop(1000)
      await app.close()
    }
  } finally {
    await rateLimiter.close()
  }
}

/**
 * Refuses a start whose port is already taken before anything is opened, where the listen at the end
 * would refuse it only after the databases were opened, migrated and both apps built. Only "in use" is
 * decided here; any other refusal is the listen's to make (it knows how to listen on `localhost`, for
 * one), as is a port taken between this look and the listen. A cluster's workers share their ports.
 */
async function refuseTakenPorts(config: Config, services: readonly ServiceName[]): Promise<void> {
  if (cluster.isWorker) return
  for (const service of services) {
    const port = service === 'platform' ? config.platformPort : config.directoryPort
    if (port === 0) continue
    const error = await new Promise<unknown>((resolve) => {
      const probe = createServer()
      probe.once('error', resolve)
      probe.listen({ host: config.host, port }, () => probe.close(() => resolve(undefined)))
    })
    if ((error as { code?: unknown } | undefined)?.code === 'EADDRINUSE') {
      throw listenError(error, PORT_SETTINGS[service], config.host, port)
    }
  }
}

/** Opens the databases, migrates, builds and starts the chosen services. */
export async function startServices(
  config: Config,
  services: readonly ServiceName[],
  log: Logger,
  clock: Clock = systemClock,
): Promise<Runtime> {
  await refuseTakenPorts(config, services)
  let embedded: string | undefined
  const databases = await openDatabases(config, {
    log,
    onEmbedded: (where) => {
      embedded = where
    },
  })
  // The embedded Postgres has no background processes: checkpoints, vacuum and analyze are run for it.
  const embeddedSource = services
    .map((service) => databases[service].source)
    .find((source) => source.kind === 'pglite')
  const upkeep = embeddedSource
    ? startEmbeddedUpkeep(embeddedSource.pglite, log.child({ module: 'db' }))
    : undefined
  const started: { service: ServiceName; app: App; jobs: Jobs; port: number }[] = []
  const rateLimiter = await createRateLimiterFor(config, clock, log)
  let createdAdmin: Runtime['createdAdmin'] = null
  let metricsServer: MetricsServer | undefined

  const stop = async () => {
    await metricsServer?.close()
    await Promise.allSettled(started.map(({ app }) => app.close()))
    // Job attempts get the shutdown's time but the last part, which closing the connections needs.
    const jobsMs = Math.max(1000, config.shutdownTimeoutMs - SHUTDOWN_CLOSE_MS)
    await Promise.allSettled(started.map(({ jobs }) => jobs.stop(jobsMs)))
    await rateLimiter.close()
    await upkeep?.stop()
    await databases.close()
  }

  try {
    for (const service of services) await migrateService(databases[service])
    for (const service of services) {
      const database = databases[service]
      const jobs = createJobs({
        database,
        log: log.child({ service, module: 'jobs' }),
        timeouts: {
          connectTimeoutMs: config.databaseConnectTimeoutMs,
          queryTimeoutMs: config.databaseQueryTimeoutMs,
        },
      })
      const { app } = await buildApp(service, { config, database, clock, log, jobs, rateLimiter })
      const port = service === 'platform' ? config.platformPort : config.directoryPort
      started.push({ service, app, jobs, port })
      if (service === 'directory') {
        const deps = { db: database.db, clock }
        if (config.adminEmail && config.adminPassword) {
          await ensureAdmin(deps, config.adminEmail, config.adminPassword)
        } else if (!config.isProduction) {
          createdAdmin = await ensureLocalAdmin(deps)
        }
      }
      await jobs.start()
    }
    const running: RunningService[] = []
    for (const { service, app, port } of started) {
      await app.listen({ host: config.host, port }).catch((error: unknown) => {
        throw listenError(error, PORT_SETTINGS[service], config.host, port)
      })
      const address = app.server.address()
      const bound = typeof address === 'object' && address ? address.port : port
      running.push({ service, app, url: displayUrl(config.host, bound) })
    }
    let metricsUrl: string | undefined
    // One of several workers: the primary serves METRICS_PORT with every worker's metrics summed.
    const worker = config.workers > 1 && cluster.isWorker
    if (worker && metricsExposure(config) === 'metrics-port') answerPrimaryForMetrics()
    if (config.metricsPort !== undefined && metricsExposure(config) === 'metrics-port' && !worker) {
      const port = config.metricsPort
      metricsServer = await startMetricsServer(config.host, port).catch((error: unknown) => {
        throw listenError(error, 'METRICS_PORT', config.host, port)
      })
      const address = metricsServer.server.address()
      metricsUrl = `${displayUrl(config.host, typeof address === 'object' && address ? address.port : port)}/metrics`
    }
    return { services: running, metricsUrl, embedded, createdAdmin, stop }
  } catch (error) {
    await stop().catch(() => {})
    throw error
  }
}
