import { sql } from 'drizzle-orm'
import { fromDrizzle, fromPglite, type Job, PgBoss } from 'pg-boss'
import type { Logger } from 'pino'
import type { DbOrTx, ServiceDatabase } from '../db/index.ts'

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
  /** How often idle workers look for work; tests use short intervals. */
  pollingIntervalSeconds?: number
}

/** The service's durable job queue: pg-boss in the service's own `<service>_jobs` schema. */
export function createJobs({ database, log, pollingIntervalSeconds = 2 }: JobsDeps): Jobs {
  const schema = `${database.service}_jobs`
  const boss =
    database.source.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.source.pglite), backend: 'pglite', schema })
      : new PgBoss({
          connectionString: database.source.url,
          schema,
          max: 4,
          application_name: `curio-${schema}`,
        })
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'))

  const definitions = new Map<string, JobDefinition>()
  let started = false
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
        })
        const options = {
          pollingIntervalSeconds,
          batchSize: 1,
          localConcurrency: definition.concurrency ?? 1,
        }
        await boss.work<object>(definition.name, options, async (jobs) => {
          for (const job of jobs) {
            try {
              await definition.handler(job.data, job)
            } catch (error) {
              log.error({ err: error, job: definition.name, jobId: job.id }, 'job failed')
              throw error
            }
          }
        })
        if (definition.cron) await boss.schedule(definition.name, definition.cron, {}, { tz: 'UTC' })
      }
      started = true
      running = true
    },
    async stop(timeoutMs) {
      running = false
      await boss.stop({ graceful: true, timeout: timeoutMs, close: true })
    },
    async send(name, data, options = {}) {
      return boss.send(name, data, {
        ...(options.tx
          ? { db: fromDrizzle(options.tx as unknown as Parameters<typeof fromDrizzle>[0], sql) }
          : {}),
        ...(options.startAfter ? { startAfter: options.startAfter } : {}),
        ...(options.singletonKey ? { singletonKey: options.singletonKey } : {}),
      })
    },
  }
}
