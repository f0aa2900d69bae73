import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import { type Db as BossDb, fromDrizzle, fromPglite, type Job, PgBoss } from 'pg-boss'
import type { Logger } from 'pino'
import { databaseUnavailable } from '../db/errors.ts'
import type { DbOrTx, ServiceDatabase } from '../db/index.ts'
import { failureLogger } from '../db/outage-log.ts'
import { createPool, type DatabasePool, type PoolTimeouts } from '../db/postgres.ts'
import { jobsTotal, watchQueues } from '../lib/metrics.ts'

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
  /** How often idle workers look for work; tests use short intervals. */
  pollingIntervalSeconds?: number
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
export function createJobs({ database, log, timeouts, pollingIntervalSeconds = 2 }: JobsDeps): Jobs {
  const schema = `${database.service}_jobs`
  const boss =
    database.source.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.source.pglite), backend: 'pglite', schema })
      : new PgBoss({
          connectionString: database.source.url,
          schema,
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
    async start() {
      await boss.start()
      for (const definition of definitions.values()) {
        await boss.createQueue(definition.name, {
          retryLimit: definition.retryLimit ?? 3,
          retryDelay: definition.retryDelaySeconds ?? 30,
          retryBackoff: definition.retryBackoff ?? true,
          ...(definition.expireInSeconds ? { expireInSeconds: definition.expireInSeconds } : {}),
        })
        // createQueue leaves an existing queue as it is.
        if (definition.expireInSeconds) {
          await boss.updateQueue(definition.name, { expireInSeconds: definition.expireInSeconds })
        }
        const concurrency = definition.concurrency ?? 1
        if (definition.batchSize !== undefined) {
          const batchSize = Math.max(1, Math.min(definition.batchSize, concurrency))
          batchWorkers.push(
            startBatchWorker(boss, definition, {
              concurrency,
              batchSize,
              pollingIntervalSeconds: Math.min(
                pollingIntervalSeconds,
                definition.pollingIntervalSeconds ?? Infinity,
              ),
              log,
              failed,
              fetchDb: fetchDb(),
              outcomes: outcomesOf(database.service, definition.name),
            }),
          )
        } else {
          const options = {
            // pg-boss's own workers look at most every half second.
            pollingIntervalSeconds: Math.max(
              0.5,
              Math.min(pollingIntervalSeconds, definition.pollingIntervalSeconds ?? Infinity),
            ),
            batchSize: 1,
            localConcurrency: concurrency,
          }
          const outcomes = outcomesOf(database.service, definition.name)
          await boss.work<object>(definition.name, options, async (jobs) => {
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
          })
        }
        if (definition.cron) await boss.schedule(definition.name, definition.cron, {}, { tz: 'UTC' })
      }
      // pg-boss's own figures, which its supervisor counts every minute: a scrape reads one small table.
      const names = [...definitions.keys()]
      if (names.length > 0) {
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

/** The counters of a queue's completed and failed attempts. */
function outcomesOf(service: ServiceDatabase['service'], queue: string) {
  return {
    completed: jobsTotal.labels({ service, queue, outcome: 'completed' }),
    failed: jobsTotal.labels({ service, queue, outcome: 'failed' }),
  }
}

interface BatchWorker {
  /** Fetches no more; waits for the running jobs up to `timeoutMs`, then fails those still running. */
  stop(timeoutMs: number): Promise<void>
}

/** A settle that failed for an outage is tried again after this, doubling up to the maximum. */
const SETTLE_RETRY_MS = 500
const SETTLE_RETRY_MAX_MS = 5000

/** How long free slots wait for `batchSize` of them to be free before they are filled anyway. */
const BATCH_WAIT_MS = 10

/**
 * Keeps up to `concurrency` jobs of one queue running: fills the free slots with one fetch once `batchSize`
 * of them are free (or BATCH_WAIT_MS after the last fetch, when fewer are), and settles each job when its
 * handler ends (the completions of one turn of the event loop in one statement), so a slow job holds its
 * own slot and no other. While the queue is empty it looks again every `pollingIntervalSeconds`.
 */
function startBatchWorker(
  boss: PgBoss,
  definition: JobDefinition,
  options: {
    concurrency: number
    batchSize: number
    pollingIntervalSeconds: number
    log: Logger
    /** Logs a failed fetch or settle (an outage once per interval). */
    failed: ReturnType<typeof failureLogger>
    /** Where to fetch (pg-boss's own connections when undefined). */
    fetchDb: BossDb | undefined
    outcomes: ReturnType<typeof outcomesOf>
  },
): BatchWorker {
  const { concurrency, batchSize, log, outcomes } = options
  const name = definition.name
  const running = new Map<string, Job<object>>()
  /** Completions and failures being written. */
  const settling = new Set<Promise<unknown>>()
  let toComplete: Job<object>[] = []
  let stopping = false
  /** After stop(): a job that still ends is not settled (the queue's connections are closed). */
  let stopped = false
  let waitingForSlot = false
  let wake = () => {}
  /** Until `ms` pass (when given) or, with `untilJobEnds`, a running job ends; stop() ends it too. */
  const pause = (ms: number | undefined, untilJobEnds: boolean) =>
    new Promise<void>((resolve) => {
      waitingForSlot = untilJobEnds
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  // A completion the database could not take (an outage) is written once it can, so the job is not run
  // again when its lease expires; stop() ends the waiting.
  const stopWaiting = new AbortController()
  const settle = (write: () => Promise<unknown>) => {
    if (stopped) return
    const tracked = (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          await write()
          return
        } catch (error) {
          options.failed(error, { job: name }, 'job settling failed')
          if (stopping || databaseUnavailable(error) === undefined) return
          const delayMs = Math.min(SETTLE_RETRY_MAX_MS, SETTLE_RETRY_MS * 2 ** attempt)
          await sleep(delayMs, undefined, { signal: stopWaiting.signal }).catch(() => {})
          if (stopping) return
        }
      }
    })()
    settling.add(tracked)
    tracked.finally(() => settling.delete(tracked))
  }
  const completeWaiting = () => {
    const jobs = toComplete
    toComplete = []
    if (jobs.length > 0) settle(() => boss.complete(name, jobs))
  }

  const run = (job: Job<object>) => {
    running.set(job.id, job)
    Promise.resolve()
      .then(() => definition.handler(job.data, job))
      .then(
        () => {
          outcomes.completed.inc()
          if (toComplete.length === 0) setImmediate(completeWaiting)
          toComplete.push(job)
        },
        (error: unknown) => {
          outcomes.failed.inc()
          log.error({ err: error, job: name, jobId: job.id }, 'job failed')
          settle(() => boss.fail(name, job, error as object))
        },
      )
      .finally(() => {
        running.delete(job.id)
        if (waitingForSlot) wake()
      })
  }

  const loop = (async () => {
    let lastFetch = 0
    while (!stopping) {
      const free = concurrency - running.size
      const waited = Date.now() - lastFetch
      if (free === 0 || (free < batchSize && waited < BATCH_WAIT_MS)) {
        await pause(free === 0 ? undefined : BATCH_WAIT_MS - waited, true)
        continue
      }
      lastFetch = Date.now()
      let fetched: Job<object>[] = []
      try {
        fetched = await boss.fetch<object>(name, {
          batchSize: free,
          ...(options.fetchDb ? { db: options.fetchDb } : {}),
        })
      } catch (error) {
        options.failed(error, { job: name }, 'job fetch failed')
      }
      for (const job of fetched) run(job)
      // Fewer than asked for: the queue is drained for now (or the fetch failed).
      if (fetched.length < free && !stopping) await pause(options.pollingIntervalSeconds * 1000, false)
    }
  })()

  return {
    async stop(timeoutMs) {
      stopping = true
      stopWaiting.abort()
      wake()
      await loop
      const deadline = Date.now() + timeoutMs
      while (running.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      completeWaiting()
      // As pg-boss does for its own workers: jobs still running are failed, so they are retried.
      if (running.size > 0) {
        const left = [...running.values()]
        settle(() => boss.fail(name, left, new Error('The job queue stopped before the job ended')))
      }
      await Promise.all(settling)
      stopped = true
    },
  }
}
