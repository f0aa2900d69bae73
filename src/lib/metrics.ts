import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client'
import { seriesHistogram } from './series-histogram.ts'

/**
 * The process's metrics (Prometheus), in one registry. Every metric is made once, when this module loads;
 * the apps of one process (both services, or a test's many) count into the same metrics, told apart by
 * their `service` label. Nothing here talks to the network: `/metrics` (src/http/metrics.ts) serves it.
 */
export const metricsRegistry = new Registry()

const registers = [metricsRegistry]

export type ServiceLabel = 'platform' | 'directory'

export const logLinesDropped = new Counter({
  name: 'curio_log_lines_dropped_total',
  help: 'Log lines dropped because stdout was not being read (its buffer full) or its reader was gone',
  registers,
})

// Observed once per request: each route holds its series (src/http/metrics.ts).
export const httpRequestDuration = seriesHistogram({
  name: 'curio_http_request_duration_seconds',
  help: 'Time from a request arriving to its answer being sent, by route pattern and status',
  labelNames: ['service', 'method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers,
})

/** Requests being answered, per service: plain counts, shared by every app of the service, read at each scrape. */
const inFlight = new Map<ServiceLabel, { count: number; seen: boolean }>()

new Gauge({
  name: 'curio_http_requests_in_flight',
  help: 'Requests being answered now',
  labelNames: ['service'] as const,
  registers,
  collect() {
    for (const [service, { count, seen }] of inFlight) if (seen) this.set({ service }, count)
  },
})

/** The count of a service's requests in flight, changed twice per request without going through prom-client. */
export function requestsInFlight(service: ServiceLabel): { started(): void; ended(): void } {
  let entry = inFlight.get(service)
  if (!entry) {
    entry = { count: 0, seen: false }
    inFlight.set(service, entry)
  }
  const counted = entry
  return {
    started() {
      counted.seen = true
      counted.count++
    },
    ended() {
      counted.count--
    },
  }
}

export const jobsTotal = new Counter({
  name: 'curio_jobs_total',
  help: 'Job attempts run by this process, by queue and outcome (completed, failed)',
  labelNames: ['service', 'queue', 'outcome'] as const,
  registers,
})

export const webhookDeliveryOutcomes = new Counter({
  name: 'curio_webhook_deliveries_total',
  help: 'Outbound webhook delivery attempts, by outcome',
  labelNames: ['outcome'] as const,
  registers,
})

export const rateLimitDenials = new Counter({
  name: 'curio_rate_limit_denials_total',
  help: 'Requests refused with 429 by a rate limit, by the limited route',
  labelNames: ['service', 'route'] as const,
  registers,
})

export const cacheHits = new Counter({
  name: 'curio_cache_hits_total',
  help: 'Reads answered from a per-instance cache, by cache',
  labelNames: ['cache'] as const,
  registers,
})

export const cacheMisses = new Counter({
  name: 'curio_cache_misses_total',
  help: 'Reads a per-instance cache could not answer (loaded from the database or a provider), by cache',
  labelNames: ['cache'] as const,
  registers,
})

export const cacheStaleAnswers = new Counter({
  name: 'curio_cache_stale_answers_total',
  help: 'Reads a per-instance cache answered with its last known value because the database could not be reached, by cache',
  labelNames: ['cache'] as const,
  registers,
})

/** What a node-postgres pool says of its connections. */
export interface PoolFigures {
  totalCount: number
  idleCount: number
  waitingCount: number
}

const pools = new Set<{ service: ServiceLabel; pool: PoolFigures }>()

new Gauge({
  name: 'curio_db_pool_connections',
  help: 'Connections of the Postgres pool: total open, idle, and callers waiting for one (state)',
  labelNames: ['service', 'state'] as const,
  registers,
  collect() {
    this.reset()
    for (const { service, pool } of pools) {
      this.inc({ service, state: 'total' }, pool.totalCount)
      this.inc({ service, state: 'idle' }, pool.idleCount)
      this.inc({ service, state: 'waiting' }, pool.waitingCount)
    }
  },
})

/** Reports `pool` as the service's until the returned function is called. */
export function watchPool(service: ServiceLabel, pool: PoolFigures): () => void {
  const entry = { service, pool }
  pools.add(entry)
  return () => pools.delete(entry)
}

/** Jobs waiting in each queue of a service. */
export type QueueDepths = () => Promise<{ queue: string; queued: number }[]>

/** A scrape never waits longer than this for the job queues' figures: it goes without them instead. */
export const QUEUE_DEPTH_TIMEOUT_MS = 1000

const queueSources = new Set<{ service: ServiceLabel; depths: QueueDepths }>()

/** Settles with `promise`, or with undefined after `ms` (or when it fails). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined)
    timer.unref()
  })
  try {
    return await Promise.race([promise.catch(() => undefined), late])
  } finally {
    clearTimeout(timer)
  }
}

new Gauge({
  name: 'curio_job_queue_depth',
  help: 'Jobs waiting in each queue (due now or later, retries included), as the job queue last counted them',
  labelNames: ['service', 'queue'] as const,
  registers,
  async collect() {
    const read = await Promise.all(
      [...queueSources].map(async ({ service, depths }) => ({
        service,
        depths: await within(depths(), QUEUE_DEPTH_TIMEOUT_MS),
      })),
    )
    this.reset()
    for (const { service, depths } of read) {
      for (const { queue, queued } of depths ?? []) this.set({ service, queue }, queued)
    }
  },
})

/** Reports the service's queue depths, read at each scrape, until the returned function is called. */
export function watchQueues(service: ServiceLabel, depths: QueueDepths): () => void {
  const entry = { service, depths }
  queueSources.add(entry)
  return () => queueSources.delete(entry)
}

let processMetrics = false

/**
 * The registry with Node's process metrics (`process_*`, `nodejs_*`, standard names) added, once: only a
 * process that serves its metrics pays for the event-loop monitor they start.
 */
export function servedRegistry(): Registry {
  if (!processMetrics) {
    processMetrics = true
    collectDefaultMetrics({ register: metricsRegistry })
  }
  return metricsRegistry
}
