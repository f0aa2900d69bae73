/**
 * The in-process side of bench/deploy.ts: the stand-ins' child process (bench/deploy-fakes.ts) and how to
 * ask it things, a throw-away Postgres database, a platform instance built as src/runtime.ts builds it (its
 * own job queue with the production polling, the system clock) whose verification polls are timed from the
 * moment each was due to its end, the load (one account, its plugins, its works), and the meters: this
 * process's CPU, Postgres's (the whole server, and the backends of the bench database alone) and the bench
 * database's own counters.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import pg from 'pg'
import type { Logger } from 'pino'
import { loadConfig } from '../src/config.ts'
import { createPool, type Db, serviceDatabase } from '../src/db/index.ts'
import type { App } from '../src/http/app.ts'
import { createJobs, type JobDefinition, type Jobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import type { RateLimiter } from '../src/lib/rate-limiter.ts'
import { buildPlatformApp, type PlatformApp } from '../src/platform/app.ts'
import { VERIFICATION_JOB } from '../src/platform/deploy/verification.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { TEMPLATE_REPOSITORY } from './deploy-fakes.ts'
import { cpuMsOf, REPO_ROOT, round, wrappedQueue } from './lib.ts'
import {
  createPostgresDatabase,
  machineTicks,
  postgresCpuBetween,
  postgresCpuMs,
} from './webhooks-harness.ts'

/** Wall-clock milliseconds with a fraction: one time line for the polls, the due times and the stand-ins. */
export const wallNow = () => performance.timeOrigin + performance.now()

// ---- The stand-ins' process ------------------------------------------------------------------------

export interface Fakes {
  githubUrl: string
  vercelUrl: string
  /** The Vercel stand-in through a proxy that does not wait. */
  vercelDirectUrl: string
  githubLatency: [number, number]
  vercelLatency: [number, number]
  queueMs: number
  buildMs: number
  pid: number
  call<T>(op: string, args?: unknown): Promise<T>
  close(): Promise<void>
}

/** Forks bench/deploy-fakes.ts and waits for its URLs. */
export async function startFakes(options: {
  githubLatency: [number, number]
  vercelLatency: [number, number]
}): Promise<Fakes> {
  const child: ChildProcess = fork(join(REPO_ROOT, 'bench', 'deploy-fakes.ts'), [], {
    cwd: REPO_ROOT,
    // Not the parent's --cpu-prof: a profile of the bench is of the platform alone.
    execArgv: [],
    env: {
      ...process.env,
      BENCH_GITHUB_LATENCY_MS: options.githubLatency.join('-'),
      BENCH_VERCEL_LATENCY_MS: options.vercelLatency.join('-'),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  process.on('exit', () => child.kill('SIGKILL'))
  let nextId = 1
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
  let ready: (info: Omit<Fakes, 'call' | 'close' | 'pid'>) => void = () => {}
  let failed: (error: Error) => void = () => {}
  const started = new Promise<Omit<Fakes, 'call' | 'close' | 'pid'>>((resolve, reject) => {
    ready = resolve
    failed = reject
  })
  child.on('message', (message: Record<string, unknown>) => {
    if (message.ready) return ready(message.ready as Omit<Fakes, 'call' | 'close' | 'pid'>)
    const pending = waiting.get(message.id as number)
    if (!pending) return
    waiting.delete(message.id as number)
    if (message.error) pending.reject(new Error(String(message.error)))
    else pending.resolve(message.result)
  })
  child.on('exit', (code, signal) => {
    const error = new Error(`the stand-ins' process exited (${code ?? signal})`)
    failed(error)
    for (const pending of waiting.values()) pending.reject(error)
    waiting.clear()
  })
  const info = await started
  const call = <T>(op: string, args?: unknown) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject })
      child.send({ id, op, args: args ?? {} })
    })
  return {
    ...info,
    pid: child.pid!,
    call,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      await call('close').catch(() => {})
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))])
      if (child.exitCode === null) child.kill('SIGKILL')
    },
  }
}

// ---- Database and instance -------------------------------------------------------------------------

/** A new database `curio_bench_deploy_<random>` at `adminUrl`, migrated; dropped by drop(). */
export const createDeployDatabase = (adminUrl: string, onCreated: (name: string | undefined) => void) =>
  createPostgresDatabase(adminUrl, onCreated, 'deploy')

/** One verification poll job's run: when it was due (its `startAfter`), when the handler began and ended. */
export interface PollRecord {
  deploymentId: string
  poll: number
  dueAt: number | undefined
  startedAt: number
  endedAt: number
  failed: boolean
}

/**
 * The service's own job queue, unchanged (but for the verification queue's concurrency when `pollSlots` says)
 * but for two records: the `startAfter` of every verification poll
 * queued through `send` (the next_poll_at it was written with), and each run of the poll handler.
 */
function timedJobs(
  jobs: Jobs,
  polls: PollRecord[],
  running: { now: number },
  pollSlots: number | undefined,
): Jobs {
  const due = new Map<string, number>()
  const keyOf = (data: { deploymentId?: unknown; poll?: unknown }) => `${data.deploymentId}:${data.poll}`
  const timed = (definition: JobDefinition): JobDefinition => ({
    ...definition,
    ...(pollSlots === undefined ? {} : { concurrency: pollSlots }),
    handler: async (data, job) => {
      const startedAt = wallNow()
      const key = keyOf(data as { deploymentId?: unknown })
      const dueAt = due.get(key)
      due.delete(key)
      let failed = true
      running.now++
      try {
        await definition.handler(data, job)
        failed = false
      } finally {
        running.now--
        const { deploymentId, poll } = data as { deploymentId: string; poll: number }
        polls.push({ deploymentId, poll, dueAt, startedAt, endedAt: wallNow(), failed })
      }
    },
  })
  return wrappedQueue(jobs, VERIFICATION_JOB, timed, (name, data, options) => {
    if (name === VERIFICATION_JOB && options?.startAfter) {
      due.set(keyOf(data as { deploymentId?: unknown }), options.startAfter.getTime())
    }
  })
}

export interface DeployInstance {
  app: App
  db: Db
  services: PlatformApp['services']
  /** Its job queue (pg-boss through `boss`). */
  jobs: Jobs
  /** Every verification poll the handler ran, in the order they ended. */
  polls: PollRecord[]
  /** Poll handlers running now. */
  pollsRunning(): number
  /** Queries waiting for a connection of the service's pool now (DATABASE_POOL_SIZE). */
  poolWaiting(): number
  poolSize: number
  pollIntervalMs: number
  batchConcurrency: number
  batchDelayMs: number
  close(): Promise<void>
}

/**
 * The platform on the database at `url`, built and started as src/runtime.ts does (system clock, memory rate
 * limiter, its own job queue with the production polling), pointed at the stand-ins; requests go through
 * inject.
 */
export async function startDeployInstance(options: {
  url: string
  fakes: Fakes
  encryptionKey: string
  env: Record<string, string>
  log: Logger
  /** Vercel without the proxy's wait. */
  vercelDirect?: boolean
  /** An experiment: the verification queue's concurrency instead of the module's. */
  pollSlots?: number | undefined
}): Promise<DeployInstance> {
  const { fakes, log } = options
  const config = loadConfig({
    DATA_DIR: 'memory',
    LOG_LEVEL: 'warn',
    // The account, its plugins and its works are made through inject, from 127.0.0.1.
    RATE_LIMIT_BYPASS_LOCALHOST: 'true',
    PLATFORM_ENCRYPTION_KEY: options.encryptionKey,
    GITHUB_API_URL: fakes.githubUrl,
    VERCEL_API_URL: options.vercelDirect ? fakes.vercelDirectUrl : fakes.vercelUrl,
    WEBSITE_TEMPLATE_REPOSITORY: TEMPLATE_REPOSITORY,
    ...options.env,
  })
  let closing = false
  // Dropping the database right after the pool ended may cut connections still closing: not worth a warning.
  const pool = createPool(options.url, config.databasePoolSize, {
    warn: (...args: Parameters<Logger['warn']>) => (closing ? undefined : log.warn(...args)),
  })
  const database = serviceDatabase('platform', { kind: 'postgres', pool, url: options.url })
  const polls: PollRecord[] = []
  const running = { now: 0 }
  const jobs = timedJobs(createJobs({ database, log }), polls, running, options.pollSlots)
  let rateLimiter: RateLimiter | undefined
  let app: App | undefined
  const close = async () => {
    closing = true
    await app?.close()
    await jobs.stop(10_000)
    await rateLimiter?.close()
    await pool.end()
  }
  try {
    rateLimiter = await createRateLimiterFor(config, systemClock, log)
    const built = await buildPlatformApp({ config, database, clock: systemClock, log, jobs, rateLimiter })
    app = built.app
    await jobs.start()
    await app.ready()
    return {
      app,
      db: database.db,
      services: built.services,
      jobs,
      polls,
      pollsRunning: () => running.now,
      poolWaiting: () => pool.waitingCount,
      poolSize: config.databasePoolSize,
      pollIntervalMs: config.deployPollIntervalMs,
      batchConcurrency: config.deployBatchConcurrency,
      batchDelayMs: config.deployBatchDelayMs,
      close,
    }
  } catch (error) {
    await close().catch(() => {})
    throw error
  }
}

// ---- The load ----------------------------------------------------------------------------------------

export interface Account {
  userId: string
  headers: { authorization: string }
}

export async function register(app: App): Promise<Account> {
  const registered = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: `bench-${randomBytes(4).toString('hex')}@example.com`, password: 'a good password' },
  })
  if (registered.statusCode !== 201) throw new Error(`register: ${registered.statusCode} ${registered.body}`)
  const { accessToken, user } = registered.json() as { accessToken: string; user: { id: string } }
  return { userId: user.id, headers: { authorization: `Bearer ${accessToken}` } }
}

/** `POST /api/plugins/<id>/enable` with the token as its secret setting. */
export async function enablePlugin(app: App, account: Account, pluginId: string, token: string) {
  const enabled = await app.inject({
    method: 'POST',
    url: `/api/plugins/${pluginId}/enable`,
    headers: account.headers,
    payload: { secretSettings: { token } },
  })
  if (enabled.statusCode !== 200) throw new Error(`enable ${pluginId}: ${enabled.statusCode} ${enabled.body}`)
}

/** `count` works through `POST /api/works`; answers their ids and slugs, and the time it took. */
export async function createWorks(app: App, account: Account, count: number, prefix = 'Bench work') {
  const started = performance.now()
  const works: { id: string; slug: string }[] = []
  for (let n = 0; n < count; n++) {
    const created = await app.inject({
      method: 'POST',
      url: '/api/works',
      headers: account.headers,
      payload: { name: `${prefix} ${n + 1}` },
    })
    if (created.statusCode !== 201) throw new Error(`create work: ${created.statusCode} ${created.body}`)
    const { id, slug } = created.json() as { id: string; slug: string }
    works.push({ id, slug })
  }
  return { works, ms: performance.now() - started }
}

// ---- Meters ------------------------------------------------------------------------------------------

export interface CpuFigures {
  /** This process: the platform (and the bench's own bookkeeping); the stand-ins run in another. */
  benchProcessMs: number
  /** The stand-ins' process (proxies included). */
  fakesMs: number | null
  /** Every process named postgres on the machine (another user's load on the same server included). */
  postgresServerMs: number | null
  /** The backends connected to the bench database alone (sampled every second, so a closed one's last second is lost). */
  postgresBenchDbMs: number | null
  machineBusyPct: number | null
  machineStealPct: number | null
}

export interface DatabaseCounters {
  xactCommit: number
  xactRollback: number
  tupInserted: number
  tupUpdated: number
  tupDeleted: number
  tupReturned: number
  tupFetched: number
  blksHit: number
  blksRead: number
}

const share = (part: number, whole: number) => round((100 * part) / (whole || 1), 1)

/**
 * Starts measuring: CPU of this process, of the stand-ins, of Postgres (whole server and the bench
 * database's backends, sampled every second), the machine's busy and steal shares, and the bench database's
 * pg_stat_database counters. `stop()` answers the deltas.
 */
export async function startMeter(
  adminUrl: string,
  database: string,
  fakesPid: number | null,
  { flushMs = 1100 } = {},
) {
  const stats = new pg.Client({ connectionString: adminUrl, application_name: 'curio-bench-deploy-stats' })
  stats.on('error', () => {})
  await stats.connect()
  const counters = async (): Promise<DatabaseCounters> => {
    const { rows } = await stats.query(
      `select xact_commit, xact_rollback, tup_inserted, tup_updated, tup_deleted, tup_returned, tup_fetched,
              blks_hit, blks_read from pg_stat_database where datname = $1`,
      [database],
    )
    const row = rows[0] as Record<string, string>
    return {
      xactCommit: Number(row.xact_commit),
      xactRollback: Number(row.xact_rollback),
      tupInserted: Number(row.tup_inserted),
      tupUpdated: Number(row.tup_updated),
      tupDeleted: Number(row.tup_deleted),
      tupReturned: Number(row.tup_returned),
      tupFetched: Number(row.tup_fetched),
      blksHit: Number(row.blks_hit),
      blksRead: Number(row.blks_read),
    }
  }
  /** pid → [CPU ms when first seen (0 when it appeared after the start), CPU ms last seen]. */
  const backends = new Map<number, [number, number]>()
  let first = true
  const sampleBackends = async () => {
    const { rows } = await stats.query('select pid from pg_stat_activity where datname = $1', [database])
    for (const { pid } of rows as { pid: number }[]) {
      const ms = cpuMsOf(pid)
      if (ms === null) continue
      const seen = backends.get(pid)
      if (seen) seen[1] = ms
      else backends.set(pid, [first ? ms : 0, ms])
    }
    first = false
  }
  await sampleBackends()
  const counters0 = await counters()
  const process0 = process.cpuUsage()
  const fakes0 = fakesPid === null ? null : cpuMsOf(fakesPid)
  const postgres0 = postgresCpuMs()
  const ticks0 = machineTicks()
  const timer = setInterval(() => {
    sampleBackends().catch(() => {})
  }, 1000)
  return {
    /** `flush: false` does not wait for pg_stat_database (its counters are then partial). */
    async stop({ flush = true } = {}): Promise<{ cpu: CpuFigures; database: DatabaseCounters }> {
      clearInterval(timer)
      const used = process.cpuUsage(process0)
      const fakes1 = fakesPid === null ? null : cpuMsOf(fakesPid)
      const postgres1 = postgresCpuMs()
      const ticks1 = machineTicks()
      await sampleBackends()
      // pg_stat_database is fed by each backend at most once a second: a moment for the last flush.
      if (flush) await new Promise((resolve) => setTimeout(resolve, flushMs))
      const counters1 = await counters()
      await stats.end().catch(() => {})
      let benchDb = 0
      for (const [from, to] of backends.values()) benchDb += to - from
      const delta = Object.fromEntries(
        Object.entries(counters1).map(([key, value]) => [
          key,
          value - counters0[key as keyof DatabaseCounters],
        ]),
      ) as unknown as DatabaseCounters
      return {
        cpu: {
          benchProcessMs: round((used.user + used.system) / 1000),
          fakesMs: fakes0 !== null && fakes1 !== null ? fakes1 - fakes0 : null,
          postgresServerMs: postgresCpuBetween(postgres0, postgres1),
          postgresBenchDbMs: backends.size > 0 ? benchDb : null,
          machineBusyPct: ticks0 && ticks1 ? share(ticks1.busy - ticks0.busy, ticks1.all - ticks0.all) : null,
          machineStealPct:
            ticks0 && ticks1 ? share(ticks1.steal - ticks0.steal, ticks1.all - ticks0.all) : null,
        },
        database: delta,
      }
    },
  }
}

/** The value at quantile `q` (0..1) of `values` (nearest rank); NaN when empty. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

export function spread(values: number[]) {
  return {
    n: values.length,
    p50: round(quantile(values, 0.5), 1),
    p95: round(quantile(values, 0.95), 1),
    p99: round(quantile(values, 0.99), 1),
    max: round(
      values.length ? values.reduce((most, value) => Math.max(most, value), -Infinity) : Number.NaN,
      1,
    ),
  }
}
