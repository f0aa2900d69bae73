import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'
import { type Config, ConfigError } from './config.ts'
import type { ServiceName } from './db/index.ts'
import { displayUrl } from './lib/display-url.ts'

/**
 * `WORKERS` > 1: the primary process has the databases prepared once (migrations, the first admin) by a
 * worker of its own that exits when done, then runs that many workers, each a whole Curio (both services,
 * their jobs), sharing the ports through `node:cluster`, which hands connections out round robin. A
 * worker that dies is replaced; SIGTERM or SIGINT stops them all, each finishing its requests and job
 * attempts as a single process does. The primary itself loads no database or app code: it supervises,
 * and with METRICS_PORT sums the workers' metrics.
 */

type CreatedAdmin = { email: string; password: string } | null

/** What the worker that prepares the databases tells the primary before it exits. */
interface Prepared {
  type: 'curio:prepared'
  createdAdmin: CreatedAdmin
}

const isPrepared = (message: unknown): message is Prepared =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'curio:prepared'

/** The environment variable that makes a cluster worker the one that prepares the databases. */
const ROLE_VARIABLE = 'CURIO_CLUSTER_ROLE'

/** Whether this process is the worker that prepares the databases, not one that serves. */
export function isPreparingWorker(): boolean {
  return cluster.isWorker && process.env[ROLE_VARIABLE] === 'prepare'
}

/** In the preparing worker: hands the result to the primary. */
export function reportPrepared(createdAdmin: CreatedAdmin): Promise<void> {
  const message: Prepared = { type: 'curio:prepared', createdAdmin }
  return new Promise((resolve, reject) => {
    if (!process.send) return reject(new Error('not a cluster worker'))
    process.send(message, undefined, {}, (error) => (error ? reject(error) : resolve()))
  })
}

/** The worker that prepared the databases failed; it said why on stderr, unless a signal ended it. */
export class PrepareFailedError extends Error {
  /** Whether the worker said why itself (it exits with a code after printing its error). */
  readonly reported: boolean

  constructor(code: number | null, signal: string | null) {
    super(
      signal
        ? `the process preparing the databases was ended by ${signal}`
        : `the process preparing the databases exited with code ${code}`,
    )
    this.name = 'PrepareFailedError'
    this.reported = signal === null
  }
}

/** In the primary: runs the preparation in a worker of its own and waits for its answer and exit. */
export function prepareInWorker(): Promise<{ createdAdmin: CreatedAdmin }> {
  return new Promise((resolve, reject) => {
    const worker = cluster.fork({ [ROLE_VARIABLE]: 'prepare' })
    let prepared: Prepared | undefined
    worker.on('message', (message: unknown) => {
      if (isPrepared(message)) prepared = message
    })
    worker.on('exit', (code, signal) => {
      if (prepared && code === 0) resolve({ createdAdmin: prepared.createdAdmin })
      else reject(new PrepareFailedError(code, signal))
    })
  })
}

/** What a worker tells the primary once it listens. */
export interface WorkerReady {
  type: 'curio:ready'
  services: { service: ServiceName; url: string }[]
}

const isReady = (message: unknown): message is WorkerReady =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'curio:ready'

/** Replacing a worker that keeps dying waits longer each time, up to this. */
const MAX_RESTART_DELAY_MS = 30_000
/** A worker that lived this long is healthy again: the next replacement starts without delay. */
const HEALTHY_AFTER_MS = 10_000

/** More than one worker needs every chosen service on a Postgres server: PGlite lives in one process. */
export function checkClusterable(config: Config, services: readonly ServiceName[]) {
  const embedded = services.filter((service) =>
    service === 'platform'
      ? !(config.platformDatabaseUrl ?? config.databaseUrl)
      : !(config.directoryDatabaseUrl ?? config.databaseUrl),
  )
  if (config.workers > 1 && embedded.length > 0) {
    throw new ConfigError(
      'WORKERS',
      `is ${config.workers}, but the embedded database lives in one process: set DATABASE_URL to a Postgres server to run several workers (or WORKERS=1)`,
    )
  }
}

export interface PrimaryOptions {
  config: Config
  log: Logger
  /** Migrates and makes sure of the first admin, once, before any worker starts. */
  prepare(): Promise<{ createdAdmin: CreatedAdmin }>
  /** Prints what is running, once every first worker listens. */
  announce(
    services: WorkerReady['services'],
    createdAdmin: CreatedAdmin,
    metricsUrl: string | undefined,
  ): void
}

/** Runs the primary: prepares, forks `config.workers` workers, replaces the dead, stops all on a signal. */
export async function runPrimary({ config, log, prepare, announce }: PrimaryOptions): Promise<void> {
  let stopping = false
  let failed = false
  const shutdown = (signal: string) => {
    if (stopping) return
    stopping = true
    log.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'stopping the workers')
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => !!worker)
    if (workers.length === 0) process.exit(0)
    for (const worker of workers) worker.process.kill('SIGTERM')
    // A worker still running after its own grace period (and a little more) is stopped for good.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL')
      process.exit(0)
    }, config.shutdownTimeoutMs + 5000).unref()
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))

  const { createdAdmin } = await prepare().catch((error: unknown) => {
    // Stopped while preparing: the preparation's end is no failure.
    if (stopping) process.exit(0)
    throw error
  })
  if (stopping) process.exit(0)
  // METRICS_PORT is the primary's: it answers with every worker's metrics summed (prom-client is
  // loaded only then).
  let metricsUrl: string | undefined
  if (config.metricsPort !== undefined) {
    const metrics = await import('./http/metrics.ts')
    if (metrics.metricsExposure(config) === 'metrics-port') {
      const port = config.metricsPort
      const server = await metrics.startMetricsServer(config.host, port, metrics.clusterMetricsSource())
      const address = server.server.address()
      metricsUrl = `${displayUrl(config.host, typeof address === 'object' && address ? address.port : port)}/metrics`
    }
  }

  let announced = false
  let firstReady: WorkerReady['services'] | undefined
  let readyCount = 0
  let restartDelayMs = 0
  const startedAt = new Map<number, number>()

  const fork = () => {
    const worker = cluster.fork()
    startedAt.set(worker.id, Date.now())
    worker.on('message', (message: unknown) => {
      if (!isReady(message)) return
      firstReady ??= message.services
      if (!announced && ++readyCount === config.workers) {
        announced = true
        announce(firstReady, createdAdmin, metricsUrl)
      }
    })
  }

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? Date.now())
    startedAt.delete(worker.id)
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info('all workers stopped')
        process.exit(failed ? 1 : 0)
      }
      return
    }
    if (!announced) {
      // A worker that cannot start (a port in use, a database that refuses) will not do better the
      // next time: stop the others and fail as a single process would.
      log.error({ worker: worker.process.pid, code, signal }, 'a worker failed to start; stopping')
      stopping = true
      failed = true
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM')
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(1)
      return
    }
    restartDelayMs =
      lived >= HEALTHY_AFTER_MS ? 0 : Math.min(MAX_RESTART_DELAY_MS, Math.max(500, restartDelayMs * 2))
    log.warn(
      { worker: worker.process.pid, code, signal, restartInMs: restartDelayMs },
      'a worker died; replacing it',
    )
    setTimeout(() => {
      if (!stopping) fork()
    }, restartDelayMs)
  })

  for (let n = 0; n < config.workers; n++) fork()
}

/** In a worker: tells the primary that this worker listens, and where. */
export function reportReady(services: WorkerReady['services']) {
  const message: WorkerReady = { type: 'curio:ready', services }
  process.send?.(message)
}
