/**
 * The platform side of bench/webhooks.ts, shared by the bench process and its crash child
 * (bench/webhooks-child.ts): a platform instance built as src/runtime.ts builds it (its own job queue with
 * the production polling, the settings' webhook concurrency) whose webhook deliveries wait behind a gate
 * until `openGate()`, so the fan-out and the drain are measured apart; the load (one account, its works,
 * its account-wide subscriptions) and the fan-out of one `WorkCreated` per work through the event bus, in
 * a transaction each, as creating a work does.
 */
import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { count, eq, sql } from 'drizzle-orm'
import type { Logger } from 'pino'
import { loadConfig } from '../src/config.ts'
import { createPool, type DatabaseSource, type Db, serviceDatabase } from '../src/db/index.ts'
import type { App } from '../src/http/app.ts'
import { createJobs, type JobDefinition, type Jobs } from '../src/jobs/index.ts'
import type { Clock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import type { RateLimiter } from '../src/lib/rate-limiter.ts'
import { buildPlatformApp } from '../src/platform/app.ts'
import type { PlatformEvents } from '../src/platform/events.ts'
import { WEBHOOK_DELIVERY_JOB } from '../src/platform/webhooks/fan-out.ts'
import { type DeliveryStatus, webhookDeliveries } from '../src/platform/webhooks/tables.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { adminQuery, sleep, wrappedQueue } from './lib.ts'

/** Settings an instance runs with; undefined ones keep the setting's default. */
export interface InstanceSettings {
  /** WEBHOOK_CONCURRENCY */
  concurrency?: number | undefined
  /** WEBHOOK_TIMEOUT_MS */
  timeoutMs?: number | undefined
  /** DATABASE_POOL_SIZE */
  poolSize?: number | undefined
  /** The job queue's polling interval when idle (production: 2 s). */
  pollingIntervalSeconds: number
}

export interface WebhookInstance {
  app: App
  events: PlatformEvents
  db: Db
  /** WEBHOOK_CONCURRENCY and DATABASE_POOL_SIZE as loaded. */
  concurrency: number
  poolSize: number
  timeoutMs: number
  /** The delivery handler's calls so far (after the gate). */
  handler: HandlerTimes
  /** Lets the delivery jobs through. */
  openGate(): void
  close(): Promise<void>
}

/** The delivery handler's calls once the gate is open: how many, and how long they took in all. */
export interface HandlerTimes {
  calls: number
  totalMs: number
  maxMs: number
}

/** The service's own job queue, with the webhook delivery handler held until the gate opens, and timed. */
function gatedJobs(jobs: Jobs, gate: Promise<void>, times: HandlerTimes): Jobs {
  const gated = (definition: JobDefinition): JobDefinition => ({
    ...definition,
    handler: async (data, job) => {
      await gate
      const started = performance.now()
      try {
        await definition.handler(data, job)
      } finally {
        const ms = performance.now() - started
        times.calls++
        times.totalMs += ms
        times.maxMs = Math.max(times.maxMs, ms)
      }
    },
  })
  return wrappedQueue(jobs, WEBHOOK_DELIVERY_JOB, gated)
}

/**
 * Builds and starts the platform on `sourceFor(poolSize)` as src/runtime.ts does (the given clock, memory
 * rate limiter, its own job queue), without listening: requests go through inject.
 */
export async function startWebhookInstance(options: {
  sourceFor: (poolSize: number, log: Logger) => DatabaseSource
  clock: Clock
  log: Logger
  settings: InstanceSettings
}): Promise<WebhookInstance> {
  const { settings, clock, log } = options
  const config = loadConfig({
    DATA_DIR: 'memory',
    LOG_LEVEL: 'warn',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    // The account and its subscriptions are made through inject, from 127.0.0.1.
    RATE_LIMIT_BYPASS_LOCALHOST: 'true',
    ...(settings.concurrency === undefined ? {} : { WEBHOOK_CONCURRENCY: String(settings.concurrency) }),
    ...(settings.timeoutMs === undefined ? {} : { WEBHOOK_TIMEOUT_MS: String(settings.timeoutMs) }),
    ...(settings.poolSize === undefined ? {} : { DATABASE_POOL_SIZE: String(settings.poolSize) }),
  })
  const database = serviceDatabase('platform', options.sourceFor(config.databasePoolSize, log))
  let openGate = () => {}
  const gate = new Promise<void>((resolve) => {
    openGate = resolve
  })
  const handler: HandlerTimes = { calls: 0, totalMs: 0, maxMs: 0 }
  const jobs = gatedJobs(
    createJobs({ database, log, pollingIntervalSeconds: settings.pollingIntervalSeconds }),
    gate,
    handler,
  )
  let rateLimiter: RateLimiter | undefined
  let app: App | undefined
  const close = async () => {
    openGate()
    await app?.close()
    await jobs.stop(10_000)
    await rateLimiter?.close()
  }
  try {
    rateLimiter = await createRateLimiterFor(config, clock, log)
    const built = await buildPlatformApp({ config, database, clock, log, jobs, rateLimiter })
    app = built.app
    await jobs.start()
    await app.ready()
    return {
      app,
      events: built.events,
      db: database.db,
      concurrency: config.webhookConcurrency,
      poolSize: config.databasePoolSize,
      timeoutMs: config.webhookTimeoutMs,
      handler,
      openGate,
      close,
    }
  } catch (error) {
    await close().catch(() => {})
    throw error
  }
}

export interface Load {
  accountId: string
  works: { id: string; name: string }[]
  /** Subscription n's signing secret (its URL is the receiver's `/hooks/<n>`). */
  secrets: string[]
  /** Creating the works (no subscription yet, so no delivery) and then the subscriptions. */
  worksMs: number
  subscribeMs: number
}

/** One account, `works` works and then `subscriptions` account-wide subscriptions to the receiver. */
export async function createLoad(
  instance: WebhookInstance,
  urlFor: (n: number) => string,
  options: { works: number; subscriptions: number },
): Promise<Load> {
  const { app } = instance
  const registered = await app.inject({
    method: 'POST',
    url: '/api/auth/register',
    payload: { email: `bench-${randomBytes(4).toString('hex')}@example.com`, password: 'a good password' },
  })
  if (registered.statusCode !== 201) throw new Error(`register: ${registered.statusCode} ${registered.body}`)
  const { accessToken, user } = registered.json() as { accessToken: string; user: { id: string } }
  const headers = { authorization: `Bearer ${accessToken}` }

  const worksStarted = performance.now()
  const works: Load['works'] = []
  for (let n = 0; n < options.works; n++) {
    const name = `Bench work ${n + 1}`
    const created = await app.inject({ method: 'POST', url: '/api/works', headers, payload: { name } })
    if (created.statusCode !== 201) throw new Error(`create work: ${created.statusCode} ${created.body}`)
    works.push({ id: (created.json() as { id: string }).id, name })
  }
  const worksMs = performance.now() - worksStarted

  const subscribeStarted = performance.now()
  const secrets: string[] = []
  for (let n = 0; n < options.subscriptions; n++) {
    const created = await app.inject({
      method: 'POST',
      url: '/api/webhooks',
      headers,
      payload: { url: urlFor(n) },
    })
    if (created.statusCode !== 200) throw new Error(`subscribe: ${created.statusCode} ${created.body}`)
    secrets.push((created.json() as { signingSecret: string }).signingSecret)
  }
  return { accountId: user.id, works, secrets, worksMs, subscribeMs: performance.now() - subscribeStarted }
}

/**
 * One `WorkCreated` per work through the event bus, each in a transaction of its own (as creating the work
 * runs it): every listener runs, the webhooks one writing the deliveries and their jobs. Returns the time.
 */
export async function fanOut(instance: WebhookInstance, load: Load): Promise<number> {
  const started = performance.now()
  for (const work of load.works) {
    await instance.db.transaction((tx) =>
      instance.events.emit(
        { type: 'WorkCreated', userId: load.accountId, workId: work.id, workName: work.name },
        { tx },
      ),
    )
  }
  return performance.now() - started
}

export type StatusCounts = Partial<Record<DeliveryStatus, number>> & { total: number }

export async function deliveryCounts(db: Db): Promise<StatusCounts> {
  const rows = await db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status)
  const counts: StatusCounts = { total: 0 }
  for (const row of rows) {
    counts[row.status] = row.n
    counts.total += row.n
  }
  return counts
}

/** Delivery jobs by pg-boss state, in the platform's `platform_jobs` schema. */
export async function jobCounts(db: Db): Promise<Record<string, number>> {
  const result = await db.execute<{ state: string; n: number }>(
    sql`select state, count(*)::int as n from platform_jobs.job where name = ${WEBHOOK_DELIVERY_JOB} group by state`,
  )
  const rows =
    (Array.isArray(result) ? result : (result as { rows: { state: string; n: number }[] }).rows) ?? []
  return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]))
}

/** The deliveries not `succeeded`, with their state and their jobs' states: what a lost delivery looks like. */
export async function unfinished(db: Db, limit = 20) {
  const result = await db.execute<Record<string, unknown>>(
    sql`select d.id, d.status, d.attempts, d.updated_at,
          (select string_agg(j.state::text || '/' || j.retry_count, ',') from platform_jobs.job j
            where j.name = ${WEBHOOK_DELIVERY_JOB} and j.data->>'deliveryId' = d.id::text) as jobs
        from platform.webhook_deliveries d where d.status <> 'succeeded' order by d.updated_at limit ${limit}`,
  )
  return Array.isArray(result) ? result : (result as { rows: Record<string, unknown>[] }).rows
}

export async function deliveryIds(db: Db): Promise<string[]> {
  return (await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries)).map((row) => row.id)
}

export async function succeededCount(db: Db): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.status, 'succeeded'))
  return row?.n ?? 0
}

/**
 * Waits until `total` deliveries are `succeeded` (checked once the receiver has seen that many distinct
 * ids), or the deadline. Returns performance.now() at the moment it saw them all, or null at the deadline.
 */
export async function waitDrained(
  db: Db,
  total: number,
  distinct: () => number,
  deadline: number,
  onTick?: () => void,
): Promise<number | null> {
  while (performance.now() < deadline) {
    onTick?.()
    if (distinct() >= total && (await succeededCount(db)) >= total) return performance.now()
    await sleep(distinct() >= total ? 20 : 100)
  }
  return null
}

/**
 * A new database `curio_bench_<bench>_<random>` on the server at `adminUrl` with the platform migrated,
 * dropped by drop(); `onCreated` is told its name, and undefined once dropped.
 */
export async function createPostgresDatabase(
  adminUrl: string,
  onCreated: (name: string | undefined) => void,
  bench = 'webhooks',
) {
  const name = `curio_bench_${bench}_${randomBytes(6).toString('hex')}`
  await adminQuery(adminUrl, `create database "${name}"`)
  onCreated(name)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const drop = async () => {
    await adminQuery(adminUrl, `drop database if exists "${name}" with (force)`)
    onCreated(undefined)
  }
  try {
    const pool = createPool(url.toString(), 2, { warn: () => {} })
    try {
      const source = { kind: 'postgres', pool, url: url.toString() } as const
      await migrateAll(
        {
          platform: serviceDatabase('platform', source),
          directory: serviceDatabase('directory', source),
          close: async () => {},
        },
        ['platform'],
        createLogger('silent'),
      )
    } finally {
      await pool.end()
    }
  } catch (error) {
    await drop().catch(() => {})
    throw error
  }
  return { name, url: url.toString(), drop }
}

/** CPU time (user + system) so far of each process named `postgres` on this machine, in ms by pid (Linux). */
export function postgresCpuMs(): Map<string, number> | null {
  const byPid = new Map<string, number>()
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return null
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      if (comm !== 'postgres') continue
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      byPid.set(entry, (Number(fields[11]) + Number(fields[12])) * 10)
    } catch {}
  }
  return byPid.size > 0 ? byPid : null
}

/** Postgres CPU between two samples: processes that ended in between are missed, new ones count whole. */
export function postgresCpuBetween(before: Map<string, number> | null, after: Map<string, number> | null) {
  if (!before || !after) return null
  let total = 0
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0)
  return total
}

/**
 * The machine's CPU ticks (Linux /proc/stat): busy (steal excluded), stolen by the hypervisor, and all, for
 * the busy and stolen shares over a stretch.
 */
export function machineTicks(): { busy: number; steal: number; all: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!
    const values = line.trim().split(/\s+/).slice(1).map(Number)
    const idle = (values[3] ?? 0) + (values[4] ?? 0)
    const steal = values[7] ?? 0
    const all = values.reduce((sum, value) => sum + value, 0)
    return { busy: all - idle - steal, steal, all }
  } catch {
    return null
  }
}
