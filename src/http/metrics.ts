import { createServer, type Server } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { AggregatorRegistry, type Registry } from 'prom-client'
import type { Config } from '../config.ts'
import {
  httpRequestDuration,
  type PoolFigures,
  requestsInFlight,
  type ServiceLabel,
  servedRegistry,
  watchPool,
} from '../lib/metrics.ts'
import type { HistogramSeries } from '../lib/series-histogram.ts'
import { toArray } from './access.ts'

/**
 * Where the process's metrics are served: on each service's port, on METRICS_PORT alone, or nowhere (then
 * nothing is timed either).
 */
export type MetricsExposure = 'off' | 'service-port' | 'metrics-port'

/**
 * METRICS_ENABLED when set; otherwise on, except in production without METRICS_PORT: a production port
 * is public, a metrics port is the operator's choice to scrape privately.
 */
export function metricsExposure(
  config: Pick<Config, 'metricsEnabled' | 'metricsPort' | 'isProduction'>,
): MetricsExposure {
  const enabled = config.metricsEnabled ?? (config.metricsPort !== undefined || !config.isProduction)
  if (!enabled) return 'off'
  return config.metricsPort === undefined ? 'service-port' : 'metrics-port'
}

export interface AppMetrics {
  exposure: MetricsExposure
  /** The service's Postgres pool, reported while the app runs (none on the embedded database). */
  pool?: PoolFigures
}

/** What an unknown path is timed as: one series for every path no route matches, whatever was asked. */
const UNMATCHED = 'unmatched'

/**
 * Times every answer (by route pattern, never the raw URL), counts requests in flight, and reports the
 * service's pool while the app runs. Call before the routes and the not-found handler.
 */
export function installMetricHooks(
  app: FastifyInstance,
  service: ServiceLabel,
  { exposure, pool }: AppMetrics,
) {
  if (exposure === 'off') return
  const inFlight = requestsInFlight(service)
  // One listener for every response, not a closure per request: 'close' comes once per response.
  const answered = () => inFlight.ended()
  app.addHook('onRequest', (_req, reply, done) => {
    inFlight.started()
    // 'close' comes for an answered request and an abandoned one alike.
    reply.raw.on('close', answered)
    done()
  })
  // Each route times its own answers, its pattern bound when it is added: reading a request's route
  // (`routeOptions`) builds an object every time.
  app.addHook('onRoute', (route) => {
    route.onResponse = [answerTimer(service, route.url), ...toArray(route.onResponse)]
  })
  // Answers no route matched (the not-found handler's, and errors raised before routing) are timed here.
  const unmatched = answerTimer(service, UNMATCHED)
  app.addHook('onResponse', (req, reply, done) => {
    if (req.is404) unmatched(req, reply, done)
    else done()
  })
  if (pool) {
    let unwatch = () => {}
    app.addHook('onReady', async () => {
      unwatch = watchPool(service, pool)
    })
    app.addHook('onClose', async () => unwatch())
  }
}

/** An onResponse hook timing a route's answers into its series, one per method and status, looked up. */
function answerTimer(service: ServiceLabel, route: string) {
  const byMethod = new Map<string, Map<number, HistogramSeries>>()
  return (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const { method } = req
    const status = reply.statusCode
    let byStatus = byMethod.get(method)
    if (!byStatus) {
      byStatus = new Map()
      byMethod.set(method, byStatus)
    }
    let series = byStatus.get(status)
    if (!series) {
      series = httpRequestDuration.series({ service, method, route, status_code: status })
      byStatus.set(status, series)
    }
    series.observe(reply.elapsedTime / 1000)
    done()
  }
}

/** `GET /metrics` on the service's port, when that is where metrics are served; a 404 otherwise. */
export function metricsRoute(app: FastifyInstance, { exposure }: Pick<AppMetrics, 'exposure'>) {
  if (exposure !== 'service-port') return
  const registry = servedRegistry()
  app.get(
    '/metrics',
    // Not part of the API: Prometheus' text format, described in docs/operations.md.
    { config: { access: 'public' }, schema: { hide: true } },
    async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  )
}

/** Where a metrics listener reads its answer. */
export interface MetricsSource {
  contentType: string
  metrics(): Promise<string>
}

const registrySource = (registry: Registry): MetricsSource => ({
  contentType: registry.contentType,
  metrics: () => registry.metrics(),
})

/**
 * For `WORKERS` > 1. A worker answers the primary's requests for its metrics (prom-client's cluster
 * protocol, over the IPC channel); the primary sums every worker's into one answer, so a scrape of
 * METRICS_PORT sees the whole host, not whichever worker took the connection.
 */
export function answerPrimaryForMetrics() {
  AggregatorRegistry.setRegistries([servedRegistry()])
  // Making one is what installs the worker's answer to the primary's requests (prom-client's design).
  new AggregatorRegistry()
}

export function clusterMetricsSource(): MetricsSource {
  const aggregator = new AggregatorRegistry()
  return { contentType: aggregator.contentType, metrics: () => aggregator.clusterMetrics() }
}

export interface MetricsServer {
  server: Server
  close(): Promise<void>
}

/**
 * METRICS_PORT's listener: `GET /metrics` with every metric of the process (each service's labelled by
 * `service`), 404 for anything else. Plain node:http: it shares nothing with the services' apps.
 */
export async function startMetricsServer(
  host: string,
  port: number,
  /** What a scrape answers: this process's registry, or (in a cluster's primary) every worker's summed. */
  source: MetricsSource = registrySource(servedRegistry()),
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: try GET /metrics\n')
      return
    }
    source.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': source.contentType, 'cache-control': 'no-store' })
        res.end(req.method === 'HEAD' ? undefined : body)
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics failed\n')
      },
    )
  })
  server.keepAliveTimeout = 5000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port }, () => {
      server.off('error', reject)
      resolve()
    })
  })
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeIdleConnections()
      }),
  }
}
