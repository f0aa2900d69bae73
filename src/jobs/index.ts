import { sql } from 'drizzle-orm'
import {
  type Db as BossDb,
  fromDrizzle,
  fromPglite,
  type Job,
  PgBoss,
  type Queue,
  type Schedule,
} from 'pg-boss'
import type { Logger } from 'pino'
import type { DbOrTx, ServiceDatabase } from '../db/index.ts'
import type { Notifications } from '../db/notifications.ts'
import { failureLogger } from '../db/outage-log.ts'
import { createPool, type DatabasePool, type PoolTimeouts } from '../db/postgres.ts'
import { jobsTotal, watchQueues } from '../lib/metrics.ts'
import { type BatchWorker, startBatchWorker } from './batch-worker.ts'
import {
  BACKSTOP_SECONDS,
  type DueScout,
  MIN_INTERVAL_MS,
  notifyChannel,
  startDueScout,
  throttledPerQueue,
} from './wake-ups.ts'

export interface JobDefinition<T extends object = object> {
  /** Queue name, unique within the service. */
  name: string
  handler: (data: T, job: Job<T>) => Promise<void>
  /** Run on this cron schedule (UTC) as well as on demand. */
  cron?: string
  retryLimit?: number
  retryDelaySeconds?: number
  retryBackoff?: boolean
  /** Jobs of this queue one instance runs at once (default 1). */
  concurrency?: number
  /**
   * A job still active this long after it started is failed and retried by pg-boss's supervisor (every
   * minute): how a job taken by a process that died runs again. pg-boss's default is 15 minutes.
   */
  expireInSeconds?: number
  /**
   * When set, a worker of our own keeps `concurrency` jobs running, refilling its free slots with one fetch
   * once this many (at most `concurrency`) are free, and settles each job when it ends (startBatchWorker).
   * Otherwise pg-boss's own workers: one job per fetch, and the polling interval after each fetch even with
   * a backlog.
   */
  batchSize?: number
  /** How often an idle worker of this queue looks for due jobs, when it must be sooner than the service's. */
  pollingIntervalSeconds?: number
}

export interface SendOptions {
  /**
   * Enqueue inside this transaction, so the job exists exactly when the state it acts on does.
   * Inside a transaction this is required: on the embedded database a second connection would wait for it.
   */
  tx?: DbOrTx
  startAfter?: Date
  singletonKey?: string
}

export interface Jobs {
  /** Declares a queue and its worker; call before start(). */
  define<T extends object>(definition: JobDefinition<T>): void
  /**
   * The LISTEN connection on which start() hears of new jobs, so that a job enqueued to run now is worked
   * on at once rather than at the next polling interval (see wake-ups.ts); call before start().
   */
  wakeOn(notifications: Notifications): void
  start(): Promise<void>
  /** Stops taking jobs and lets running ones finish their current attempt, up to timeoutMs. */
  stop(timeoutMs: number): Promise<void>
  /** The job id, or null when a job with the same singletonKey is already queued. */
  send<T extends object>(name: string, data: T, options?: SendOptions): Promise<string | null>
  /** pg-boss itself, for reads such as findJobs in tests and tooling. */
  readonly boss: PgBoss
  /** True from the end of start() to stop(): workers are taking jobs. */
  readonly started: boolean
}

export interface JobsDeps {
  database: ServiceDatabase
  log: Logger
  /** On a Postgres server, the queue's waits for a connection and a statement (unbounded statements if unset). */
  timeouts?: PoolTimeouts
  /**
   * How often the service looks for jobs that became due (delayed or retried ones, and any whose
   * notification was missed); tests use short intervals. Jobs enqueued to run now wake workers at once.
   */
  pollingIntervalSeconds?: number
  /**
   * How often the queue is supervised: a job whose worker died (a crash, a kill) is failed, and retried, at
   * the first supervision after its `expireInSeconds`. pg-boss's default, 60 s; tests use short ones.
   */
  superviseIntervalSeconds?: number
}

/**
 * Enqueues one job of queue `name` per item of `data` in one statement (pg-boss `insert`): `send` for a
 * batch, without singleton keys, in `options.tx` as `send` does.
 */
export async function sendMany<T extends object>(
  jobs: Pick<Jobs, 'boss'>,
  name: string,
  data: readonly T[],
  options: Omit<SendOptions, 'singletonKey'> = {},
): Promise<void> {
  if (data.length === 0) return
  await jobs.boss.insert(
    name,
    data.map((item) => ({ data: item, ...(options.startAfter ? { startAfter: options.startAfter } : {}) })),
    options.tx ? { db: drizzleDb(options.tx) } : {},
  )
}

/** pg-boss statements on a Drizzle database or transaction: they commit or roll back with it. */
const drizzleDb = (tx: DbOrTx) => fromDrizzle(tx as unknown as Parameters<typeof fromDrizzle>[0], sql)

/** The service's durable job queue: pg-boss in the service's own `<service>_jobs` schema. */
export function createJobs({
  database,
  log,
  timeouts,
  pollingIntervalSeconds = 2,
  superviseIntervalSeconds,
}: JobsDeps): Jobs {
  const schema = `${database.service}_jobs`
  const supervision = superviseIntervalSeconds
    ? { superviseIntervalSeconds, monitorIntervalSeconds: superviseIntervalSeconds }
    : {}
  const boss =
    database.source.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.source.pglite), backend: 'pglite', schema, ...supervision })
      : new PgBoss({
          connectionString: database.source.url,
          schema,
          ...supervision,
          max: 4,
          application_name: `curio-${schema}`,
          ...(timeouts ? { connectionTimeoutMillis: timeouts.connectTimeoutMs } : {}),
          // pg-boss hands its options to its pg pool: node-postgres' own statement timeout (a timed-out
          // statement fails, and pg-boss's pool.query then drops its connection) and TCP keepalive.
          ...({
            keepAlive: true,
            ...(timeouts?.queryTimeoutMs ? { query_timeout: timeouts.queryTimeoutMs } : {}),
          } as object),
        })
  // While the database is away every poll of every queue fails alike: said once per interval, not per poll.
  const failed = failureLogger(log)
  boss.on('error', (error) => failed(error, {}, 'job queue error'))

  const definitions = new Map<string, JobDefinition>()
  const batchWorkers: BatchWorker[] = []
  /**
   * On a server, batch workers fetch on a connection whose planner never picks a bitmap scan: pg-boss's
   * fetch then reads its index in order and stops at the batch, instead of sorting every ready job (12-18
   * ms of the server for 25,000 ready jobs, 0.3 ms in order) when the job table's statistics predate the
   * burst that filled it, which is when it matters.
   */
  let fetchPool: DatabasePool | undefined
  const fetchDb = (): BossDb | undefined => {
    if (database.source.kind !== 'postgres') return undefined
    if (!fetchPool) {
      fetchPool = createPool(database.source.url, 1, log, timeouts, {
        application_name: `curio-${schema}-fetch`,
        options: '-c enable_bitmapscan=off',
      })
    }
    const pool = fetchPool
    return { executeSql: (text, values) => pool.query(text, values) }
  }
  /** Who to wake when a queue may have work: each of its pg-boss workers, or its batch worker. */
  const wakers = new Map<string, (() => void)[]>()
  const addWaker = (queue: string, waker: () => void) => {
    wakers.set(queue, [...(wakers.get(queue) ?? []), waker])
  }
  const wake = (queue: string) => {
    for (const waker of wakers.get(queue) ?? []) waker()
  }
  /**
   * How often the service looks for due jobs: its polling interval, or a queue's shorter one, but not more
   * often than every MIN_INTERVAL_MS (start()).
   */
  let intervalMs = pollingIntervalSeconds * 1000
  /**
   * A notification wakes its queue at once, then at most once per polling interval: a job that queues
   * itself again due at once (its clock behind the database's) runs as often as polling ran it, not in a
   * tight loop, and a burst of inserts is one wake-up.
   */
  const notified = throttledPerQueue(wake, () => intervalMs)
  let notifications: Notifications | undefined
  let unlisten: (() => Promise<void>) | undefined
  let scout: DueScout | undefined
  let started = false
  let unwatchQueues = () => {}
  /** Between the end of start() and stop(): what /readyz reports. */
  let running = false

  return {
    boss,
    get started() {
      return running
    },
    define(definition) {
      if (started) throw new Error(`Job ${definition.name} defined after the queue started`)
      definitions.set(definition.name, definition as unknown as JobDefinition)
    },
    wakeOn(channel) {
      if (started) throw new Error('The job queue was given its wake-ups after it started')
      notifications = channel
    },
    async start() {
      await boss.start()
      const names = [...definitions.keys()]
      const intervals = [...definitions.values()].map((d) => d.pollingIntervalSeconds ?? Infinity)
      intervalMs = Math.max(MIN_INTERVAL_MS, Math.min(pollingIntervalSeconds, ...intervals) * 1000)
      await declareQueues(boss, [...definitions.values()])
      for (const definition of definitions.values()) {
        const concurrency = definition.concurrency ?? 1
        const outcomes = outcomesOf(database.service, definition.name)
        if (definition.batchSize !== undefined) {
          const worker = startBatchWorker(boss, definition, {
            concurrency,
            batchSize: Math.max(1, Math.min(definition.batchSize, concurrency)),
            pollingIntervalSeconds: BACKSTOP_SECONDS,
            log,
            failed,
            fetchDb: fetchDb(),
            outcomes,
          })
          batchWorkers.push(worker)
          addWaker(definition.name, () => worker.wake())
          continue
        }
        const handler = async (jobs: Job<object>[]) => {
          for (const job of jobs) {
            try {
              await definition.handler(job.data, job)
              outcomes.completed.inc()
            } catch (error) {
              outcomes.failed.inc()
              log.error({ err: error, job: definition.name, jobId: job.id }, 'job failed')
              throw error
            }
          }
        }
        // One pg-boss worker per slot, each taking one job at a time: each can be woken by its id.
        for (let slot = 0; slot < concurrency; slot++) {
          const id = await boss.work<object>(
            definition.name,
            {
              pollingIntervalSeconds: BACKSTOP_SECONDS,
              notifyPollingIntervalSeconds: BACKSTOP_SECONDS,
              batchSize: 1,
              localConcurrency: 1,
            },
            handler,
          )
          addWaker(definition.name, () => boss.notifyWorker(id))
        }
      }
      if (names.length > 0) {
        if (notifications) {
          // A job enqueued to run now is worked on at once, here and on every other instance.
          unlisten = await notifications
            .listen(notifyChannel(schema), notified.wake, { onReconnect: () => names.forEach(wake) })
            .catch((error: unknown) => {
              failed(error, {}, 'listening for new jobs failed; due jobs are found by polling')
              return undefined
            })
        }
        scout = startDueScout({ boss, schema, queues: names, intervalMs, wake, failed })
        // pg-boss's own figures, which its supervisor counts every minute: a scrape reads one small table.
        unwatchQueues = watchQueues(database.service, async () =>
          (await boss.getQueues(names)).map((queue) => ({ queue: queue.name, queued: queue.queuedCount })),
        )
      }
      started = true
      running = true
    },
    async stop(timeoutMs) {
      running = false
      unwatchQueues()
      const deadline = Date.now() + timeoutMs
      await scout?.stop()
      await unlisten?.().catch(() => {})
      notified.stop()
      await Promise.all(batchWorkers.splice(0).map((worker) => worker.stop(timeoutMs)))
      await fetchPool?.end()
      fetchPool = undefined
      await boss.stop({ graceful: true, timeout: Math.max(deadline - Date.now(), 1000), close: true })
    },
    async send(name, data, options = {}) {
      return boss.send(name, data, {
        ...(options.tx ? { db: drizzleDb(options.tx) } : {}),
        ...(options.startAfter ? { startAfter: options.startAfter } : {}),
        ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      })
    },
  }
}

/**
 * Creates each missing queue (with `notify`, so a due job's insert wakes workers), brings an existing one
 * to its definition's settings, and registers each cron schedule. A start that changes nothing reads the
 * queues and the schedules and writes nothing, where creating each queue took a locked statement.
 */
async function declareQueues(boss: PgBoss, definitions: readonly JobDefinition[]): Promise<void> {
  if (definitions.length === 0) return
  const queues = new Map((await boss.getQueues(definitions.map((d) => d.name))).map((q) => [q.name, q]))
  const schedules = definitions.some((definition) => definition.cron)
    ? new Map((await boss.getSchedules()).filter((s) => s.key === '').map((s) => [s.name, s]))
    : new Map<string, Schedule>()
  for (const definition of definitions) {
    const settings = {
      retryLimit: definition.retryLimit ?? 3,
      retryDelay: definition.retryDelaySeconds ?? 30,
      retryBackoff: definition.retryBackoff ?? true,
      notify: true,
      ...(definition.expireInSeconds ? { expireInSeconds: definition.expireInSeconds } : {}),
    }
    const queue = queues.get(definition.name)
    if (!queue) {
      await boss.createQueue(definition.name, settings)
    } else if (Object.entries(settings).some(([key, value]) => queue[key as keyof Queue] !== value)) {
      await boss.updateQueue(definition.name, settings)
    }
    const schedule = schedules.get(definition.name)
    if (definition.cron && (schedule?.cron !== definition.cron || schedule.timezone !== 'UTC')) {
      await boss.schedule(definition.name, definition.cron, {}, { tz: 'UTC' })
    }
  }
}

/** The counters of a queue's completed and failed attempts. */
function outcomesOf(service: ServiceDatabase['service'], queue: string) {
  return {
    completed: jobsTotal.labels({ service, queue, outcome: 'completed' }),
    failed: jobsTotal.labels({ service, queue, outcome: 'failed' }),
  }
}
