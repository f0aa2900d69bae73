/**
 * The in-process side of bench/generation.ts: platform instances built as `npm start` builds them (system
 * clock, the job queue's production polling), on PGlite in memory or on a throw-away Postgres database, with
 * the start and end of every `work-generation` job recorded; and a timing proxy in front of the OpenAI
 * stand-in, so the stand-in's share of a run can be shown and subtracted.
 */
import { randomBytes } from 'node:crypto'
import { Agent, createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { PGlite } from '@electric-sql/pglite'
import type pg from 'pg'
import type { Logger } from 'pino'
import { loadConfig } from '../src/config.ts'
import { createPool, type DatabaseSource, type ServiceDatabase, serviceDatabase } from '../src/db/index.ts'
import { openPglite } from '../src/db/pglite.ts'
import type { App } from '../src/http/app.ts'
import { createJobs, type JobDefinition, type Jobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import type { RateLimiter } from '../src/lib/rate-limiter.ts'
import { buildPlatformApp } from '../src/platform/app.ts'
import { GENERATION_JOB } from '../src/platform/generation/service.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { adminQuery, sleep, wrappedQueue } from './lib.ts'

/** Wall-clock milliseconds with a fraction: one time line for jobs, the proxy and the database's Dates. */
export const now = () => performance.timeOrigin + performance.now()

export type Backend = 'embedded' | 'postgres'

/** One attempt of the generation job on one instance, from pg-boss handing it over to the handler's return. */
export interface JobRecord {
  runId: string
  instance: string
  startedAt: number
  endedAt: number
  /** CPU time of this whole process (PGlite included when embedded) over the attempt. */
  cpuMs: number
  error?: string
}

/** Every generation job attempt of every instance, and a way to wait for a run's. */
export function createJobLog() {
  const records: JobRecord[] = []
  const waiters = new Map<string, ((record: JobRecord) => void)[]>()
  return {
    records,
    add(record: JobRecord) {
      records.push(record)
      for (const resolve of waiters.get(record.runId) ?? []) resolve(record)
      waiters.delete(record.runId)
    },
    /** The run's last finished attempt: one already recorded, or the next one. */
    async waitFor(runId: string, timeoutMs: number): Promise<JobRecord> {
      const done = records.findLast((record) => record.runId === runId)
      if (done) return done
      let timer: NodeJS.Timeout | undefined
      try {
        return await Promise.race([
          new Promise<JobRecord>((resolve) => {
            waiters.set(runId, [...(waiters.get(runId) ?? []), resolve])
          }),
          new Promise<never>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`run ${runId}: no job finished within ${timeoutMs} ms`)),
              timeoutMs,
            )
          }),
        ])
      } finally {
        clearTimeout(timer)
      }
    },
  }
}
export type JobLog = ReturnType<typeof createJobLog>

/** The service's own job queue, with the generation job's handler timed; nothing else changes. */
function timedJobs(jobs: Jobs, instance: string, log: JobLog): Jobs {
  const timed = (definition: JobDefinition): JobDefinition => ({
    ...definition,
    handler: async (data, job) => {
      const cpu = process.cpuUsage()
      const record: JobRecord = {
        runId: String((data as { runId?: unknown }).runId),
        instance,
        startedAt: now(),
        endedAt: Number.NaN,
        cpuMs: 0,
      }
      try {
        await definition.handler(data, job)
      } catch (error) {
        record.error = (error as Error).message
        throw error
      } finally {
        record.endedAt = now()
        const used = process.cpuUsage(cpu)
        record.cpuMs = (used.user + used.system) / 1000
        log.add(record)
      }
    },
  })
  return wrappedQueue(jobs, GENERATION_JOB, timed)
}

/** Where the instances keep their data: one embedded PGlite, or a database of its own on a server. */
export interface BenchDatabase {
  backend: Backend
  /** What to print: `PGlite in memory` or the database's name. */
  label: string
  /** A source for one more instance: the one PGlite, or a pool of its own on the server. */
  sourceFor(poolSize: number, log: Logger): DatabaseSource
  close(): Promise<void>
}

const silent = createLogger('silent')

/** A fresh PGlite in memory (a copy of the migrated cluster, as `DATA_DIR=memory` starts), migrated. */
export async function openEmbedded(): Promise<BenchDatabase> {
  const pglite: PGlite = await openPglite(undefined)
  const source = { kind: 'pglite', pglite } as const
  await migrate(source)
  return {
    backend: 'embedded',
    label: 'PGlite in memory',
    sourceFor: () => source,
    close: async () => {
      if (!pglite.closed) await pglite.close()
    },
  }
}

/** A new database `curio_bench_gen_<random>` on the server at `adminUrl`, migrated; dropped by close(). */
export async function openPostgres(
  adminUrl: string,
  onCreated: (name: string) => void,
): Promise<BenchDatabase> {
  const name = `curio_bench_gen_${randomBytes(6).toString('hex')}`
  await adminQuery(adminUrl, `create database "${name}"`)
  onCreated(name)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  const pools: pg.Pool[] = []
  const sourceFor = (poolSize: number, log: Pick<Logger, 'warn'>): DatabaseSource => {
    const pool = createPool(url.toString(), poolSize, log)
    pools.push(pool)
    return { kind: 'postgres', pool, url: url.toString() }
  }
  const close = async () => {
    await Promise.allSettled(pools.splice(0).map((pool) => pool.end()))
    await adminQuery(adminUrl, `drop database if exists "${name}" with (force)`)
  }
  try {
    await migrate(sourceFor(2, silent))
  } catch (error) {
    await close().catch(() => {})
    throw error
  }
  return { backend: 'postgres', label: name, sourceFor, close }
}

async function migrate(source: DatabaseSource) {
  await migrateAll(
    {
      platform: serviceDatabase('platform', source),
      directory: serviceDatabase('directory', source),
      close: async () => {},
    },
    ['platform'],
    silent,
  )
}

export interface InstanceOptions {
  /** The stand-in's URL (through the timing proxy). */
  openaiApiUrl: string
  maxItems: number
  pollingIntervalSeconds: number
  /** GENERATION_CONCURRENCY; the setting's default when undefined. */
  concurrency: number | undefined
}

/** One platform instance: its app (requests through inject), its database handle and its job queue. */
export interface Instance {
  name: string
  /** Generations this instance runs at once (GENERATION_CONCURRENCY as loaded). */
  generationConcurrency: number
  app: App
  database: ServiceDatabase
  close(): Promise<void>
}

/**
 * Builds and starts the platform as src/runtime.ts does (system clock, memory rate limiter, its own job
 * queue and, on Postgres, its own pool), without listening: requests go through `app.inject`.
 */
export async function startInstance(
  name: string,
  database: BenchDatabase,
  jobLog: JobLog,
  options: InstanceOptions,
): Promise<Instance> {
  const config = loadConfig({
    DATA_DIR: 'memory',
    LOG_LEVEL: 'warn',
    OPENAI_API_URL: options.openaiApiUrl,
    AI_PROVIDER_MAX_RETRIES: '0',
    GENERATION_MAX_ITEMS: String(options.maxItems),
    ...(options.concurrency === undefined ? {} : { GENERATION_CONCURRENCY: String(options.concurrency) }),
    // Accounts are registered through inject, from 127.0.0.1.
    RATE_LIMIT_BYPASS_LOCALHOST: 'true',
  })
  // Job failures and warnings go to stderr, away from the tables.
  const log = createLogger(config.logLevel, process.stderr).child({ instance: name })
  const source = database.sourceFor(config.databasePoolSize, log)
  const serviceDb = serviceDatabase('platform', source)
  const jobs = timedJobs(
    createJobs({ database: serviceDb, log, pollingIntervalSeconds: options.pollingIntervalSeconds }),
    name,
    jobLog,
  )
  let rateLimiter: RateLimiter | undefined
  let app: App | undefined
  const close = async () => {
    await app?.close()
    await jobs.stop(10_000)
    await rateLimiter?.close()
  }
  try {
    rateLimiter = await createRateLimiterFor(config, systemClock, log)
    const built = await buildPlatformApp({
      config,
      database: serviceDb,
      clock: systemClock,
      log,
      jobs,
      rateLimiter,
    })
    app = built.app
    await jobs.start()
    await app.ready()
  } catch (error) {
    await close().catch(() => {})
    throw error
  }
  return { name, generationConcurrency: config.generationConcurrency, app, database: serviceDb, close }
}

/** One request through the proxy: when it came in and when its answer had been handed to the client. */
export interface Exchange {
  method: string
  path: string
  status: number
  /** What `tagOf` found in the request body (the work's name), if anything. */
  tag: string | undefined
  responseBytes: number
  startedAt: number
  endedAt: number
}

/**
 * A loopback proxy in front of `targetUrl` that records every exchange, from the request's arrival to the
 * answer's last byte handed to the client: the stand-in's own time plus two loopback hops.
 */
export async function startTimingProxy(targetUrl: string, tagOf: (body: string) => string | undefined) {
  const target = new URL(targetUrl)
  const agent = new Agent({ keepAlive: true })
  const exchanges: Exchange[] = []
  const server = createServer((req, res) => {
    const startedAt = now()
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: target.host },
          agent,
        },
        (answer) => {
          let responseBytes = 0
          answer.on('data', (chunk: Buffer) => {
            responseBytes += chunk.length
          })
          res.on('finish', () =>
            exchanges.push({
              method: req.method ?? 'GET',
              path: req.url ?? '/',
              status: answer.statusCode ?? 0,
              tag: tagOf(body.toString('utf8')),
              responseBytes,
              startedAt,
              endedAt: now(),
            }),
          )
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
        },
      )
      upstream.on('error', (error) => res.destroy(error))
      upstream.end(body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    exchanges,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      agent.destroy()
    },
  }
}

/** Memory of this process sampled on a timer that never keeps it alive: the peak over a stretch. */
export function startMemorySampler(intervalMs = 10) {
  const first = process.memoryUsage()
  const peak = { rss: first.rss, heapUsed: first.heapUsed, external: first.external }
  let samples = 0
  const sample = () => {
    const usage = process.memoryUsage()
    samples++
    peak.rss = Math.max(peak.rss, usage.rss)
    peak.heapUsed = Math.max(peak.heapUsed, usage.heapUsed)
    peak.external = Math.max(peak.external, usage.external)
  }
  const timer = setInterval(sample, intervalMs)
  timer.unref()
  return {
    stop() {
      clearInterval(timer)
      sample()
      return { peak, samples }
    },
  }
}

/** Collects garbage twice when the process runs with --expose-gc (a steadier baseline); false otherwise. */
export async function collectGarbage(): Promise<boolean> {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) return false
  gc()
  await sleep(50)
  gc()
  return true
}
