/**
 * `GET /metrics`: Prometheus' text format, read back with a real parser. Requests are timed by route
 * pattern, rate-limit refusals, job outcomes, cache reads and webhook attempts are counted, Node's process
 * metrics are there; production serves none on the service ports, and METRICS_PORT serves every service's
 * on a port of its own instead.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format'
import { loadConfig } from '../../src/config.ts'
import { SERVICES } from '../../src/db/index.ts'
import type { App } from '../../src/http/app.ts'
import { metricsExposure } from '../../src/http/metrics.ts'
import { createEnvelope } from '../../src/lib/crypto.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { REFRESH_TOKEN_CLEANUP_JOB } from '../../src/platform/auth/module.ts'
import { createSender, secretContext } from '../../src/platform/webhooks/send.ts'
import { startServices } from '../../src/runtime.ts'
import {
  type DirectoryHarness,
  type PlatformHarness,
  randomAddress,
  siteRequest,
  startDirectory,
  startPlatform,
  until,
} from '../helpers/apps.ts'

const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8'
const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: 'a-production-secret-of-32-characters!' }

let platform: PlatformHarness
let directory: DirectoryHarness

before(async () => {
  ;[platform, directory] = await Promise.all([startPlatform(), startDirectory()])
})
after(async () => {
  await Promise.all([platform?.close(), directory?.close()])
})

interface Scrape {
  /** The metric families, typed as their `# TYPE` lines say. */
  families: MetricFamily[]
  /**
   * Every sample line on its own, with its labels: the parser folds a labelled histogram's series into one,
   * so a histogram's series are read as their `_bucket`, `_sum` and `_count` samples.
   */
  samples: MetricFamily[]
}

/** Parses Prometheus text as families, and as samples. */
function parse(text: string): Scrape {
  const lines = text.split('\n')
  return {
    families: parsePrometheusTextFormat(text),
    samples: parsePrometheusTextFormat(lines.filter((line) => !line.startsWith('#')).join('\n')),
  }
}

/** A scrape of the app's `/metrics`, after checking its status and content type. */
async function scrape(app: App): Promise<Scrape> {
  const res = await app.inject({ method: 'GET', url: '/metrics' })
  assert.equal(res.statusCode, 200, res.body)
  assert.equal(res.headers['content-type'], PROMETHEUS_TEXT)
  return parse(res.body)
}

const family = ({ families }: Scrape, name: string) => families.find((entry) => entry.name === name)

/** The samples named `name` whose labels include `labels` (a histogram's series come one after another). */
function seriesOf({ samples }: Scrape, name: string, labels: Record<string, string>) {
  return samples
    .filter((entry) => entry.name === name)
    .flatMap((entry) => entry.metrics)
    .filter((series) => Object.entries(labels).every(([key, value]) => series.labels?.[key] === value))
}

/** The value of the first sample named `name` with `labels` (0 when there is none yet). */
function sampleValue(scraped: Scrape, name: string, labels: Record<string, string>): number {
  const [series] = seriesOf(scraped, name, labels)
  return series && 'value' in series ? Number(series.value) : 0
}

describe('metrics on the service ports', () => {
  it('are Prometheus text on each service, with Node process metrics and requests in flight', async () => {
    for (const [service, app] of [
      ['platform', platform.app],
      ['directory', directory.app],
    ] as const) {
      const scraped = await scrape(app)
      for (const name of [
        'process_cpu_user_seconds_total',
        'process_resident_memory_bytes',
        'nodejs_heap_size_used_bytes',
      ]) {
        assert.ok(family(scraped, name), `${service}: ${name}`)
      }
      // The scrape itself is in flight while it is answered.
      assert.ok(sampleValue(scraped, 'curio_http_requests_in_flight', { service }) >= 1, service)
      assert.equal(family(scraped, 'curio_http_requests_in_flight')?.type, 'GAUGE')
    }
  })

  it('time a request by its route pattern and status, never its raw URL; unknown paths as unmatched', async () => {
    const id = randomUUID()
    const work = await platform.app.inject({ method: 'GET', url: `/api/works/${id}` })
    assert.equal(work.statusCode, 401)
    const unknown = await platform.app.inject({ method: 'GET', url: `/no-such-path/${id}` })
    assert.equal(unknown.statusCode, 404)

    const scraped = await scrape(platform.app)
    const name = 'curio_http_request_duration_seconds'
    assert.equal(family(scraped, name)?.type, 'HISTOGRAM')
    const labels = { service: 'platform', method: 'GET', route: '/api/works/:id', status_code: '401' }
    assert.ok(sampleValue(scraped, `${name}_count`, labels) >= 1, 'the pattern has a series')
    const bounds = seriesOf(scraped, `${name}_bucket`, labels).map((series) => series.labels?.le)
    assert.deepEqual(bounds, [
      '0.005',
      '0.01',
      '0.025',
      '0.05',
      '0.1',
      '0.25',
      '0.5',
      '1',
      '2.5',
      '5',
      '10',
      '+Inf',
    ])
    assert.ok(
      sampleValue(scraped, `${name}_count`, {
        service: 'platform',
        route: 'unmatched',
        status_code: '404',
      }) >= 1,
      'the unknown path is unmatched',
    )
    const routes = seriesOf(scraped, `${name}_count`, {}).map((series) => series.labels?.route ?? '')
    assert.ok(!routes.some((route) => route.includes(id)), 'no raw URL is a label')
  })

  it('count a 429 of a rate limit, by service and limited route', async () => {
    const labels = { service: 'directory', route: 'POST /api/auth/signin' }
    const before = sampleValue(await scrape(directory.app), 'curio_rate_limit_denials_total', labels)
    const address = randomAddress()
    let refused = 0
    for (let attempt = 0; attempt < 6; attempt++) {
      const res = await siteRequest(directory, 'POST', '/api/auth/signin', {
        address,
        payload: { email: 'nobody@example.com', password: 'not the password' },
      })
      if (res.statusCode === 429) refused++
    }
    assert.equal(refused, 1, 'the sixth attempt in 15 minutes is refused')
    const afterwards = sampleValue(await scrape(directory.app), 'curio_rate_limit_denials_total', labels)
    assert.equal(afterwards - before, 1)
  })

  it('count job outcomes by queue, and show each queue of the service with its depth', async () => {
    const labels = { service: 'platform', queue: REFRESH_TOKEN_CLEANUP_JOB, outcome: 'completed' }
    const before = sampleValue(await scrape(platform.app), 'curio_jobs_total', labels)
    await platform.jobs.send(REFRESH_TOKEN_CLEANUP_JOB, {})
    await until(
      async () => sampleValue(await scrape(platform.app), 'curio_jobs_total', labels) > before,
      'the cleanup job is counted as completed',
    )
    const scraped = await scrape(platform.app)
    assert.equal(family(scraped, 'curio_jobs_total')?.type, 'COUNTER')
    const [depth] = seriesOf(scraped, 'curio_job_queue_depth', {
      service: 'platform',
      queue: REFRESH_TOKEN_CLEANUP_JOB,
    })
    assert.ok(depth && 'value' in depth && Number(depth.value) >= 0, 'the queue has a depth')
  })

  it('count cache hits and misses by cache', async () => {
    const read = async () => {
      const scraped = await scrape(directory.app)
      return {
        hits: sampleValue(scraped, 'curio_cache_hits_total', { cache: 'public-items' }),
        misses: sampleValue(scraped, 'curio_cache_misses_total', { cache: 'public-items' }),
      }
    }
    const before = await read()
    const url = `/api/items?search=${randomUUID()}`
    assert.equal((await siteRequest(directory, 'GET', url)).statusCode, 200)
    assert.equal((await siteRequest(directory, 'GET', url)).statusCode, 200)
    const afterwards = await read()
    assert.equal(afterwards.misses - before.misses, 1, 'the first read loads')
    assert.equal(afterwards.hits - before.hits, 1, 'the second is answered from the cache')
  })

  it('count webhook attempts by outcome', async () => {
    const envelope = createEnvelope('ab'.repeat(32))
    const send = createSender({
      envelope,
      policy: { allowPrivate: false, allowed: [] },
      requireHttps: false,
      timeoutMs: 1000,
    })
    const subscriptionId = randomUUID()
    const labels = { outcome: 'ssrf_blocked' }
    const before = sampleValue(await scrape(platform.app), 'curio_webhook_deliveries_total', labels)
    const result = await send(
      {
        id: subscriptionId,
        url: 'http://127.0.0.1:9/hook',
        signingSecret: envelope.seal('secret', secretContext(subscriptionId)),
      },
      { id: randomUUID(), event: 'webhook.test', body: '{}' },
    )
    assert.equal(result.outcome, 'ssrf_blocked')
    const afterwards = sampleValue(await scrape(platform.app), 'curio_webhook_deliveries_total', labels)
    assert.equal(afterwards - before, 1)
  })

  it('report the Postgres pool of each service (none on the embedded database)', async () => {
    const pool = seriesOf(await scrape(platform.app), 'curio_db_pool_connections', { service: 'platform' })
    if (platform.databases.platform.source.kind === 'postgres') {
      assert.deepEqual(pool.map((series) => series.labels?.state).sort(), ['idle', 'total', 'waiting'])
    } else {
      assert.equal(pool.length, 0)
    }
  })

  it('several apps in one process share the metrics without registering any twice', async () => {
    const second = await startPlatform()
    try {
      await scrape(second.app)
    } finally {
      await second.close()
    }
  })
})

describe('where metrics are served', () => {
  const exposure = (env: Record<string, string>) => metricsExposure(loadConfig(env))

  it('on the service ports locally, nowhere in production, on METRICS_PORT alone when it is set', () => {
    assert.equal(exposure({}), 'service-port')
    assert.equal(exposure(PRODUCTION), 'off')
    assert.equal(exposure({ ...PRODUCTION, METRICS_PORT: '9464' }), 'metrics-port')
    assert.equal(exposure({ METRICS_PORT: '9464' }), 'metrics-port')
  })

  it('METRICS_ENABLED decides when set: on in production, off even with METRICS_PORT', () => {
    assert.equal(exposure({ ...PRODUCTION, METRICS_ENABLED: 'true' }), 'service-port')
    assert.equal(exposure({ METRICS_ENABLED: 'false' }), 'off')
    assert.equal(exposure({ METRICS_ENABLED: 'false', METRICS_PORT: '9464' }), 'off')
  })
})

describe('where metrics are not served', () => {
  const notFound = async (app: App) => {
    const res = await app.inject({ method: 'GET', url: '/metrics' })
    assert.equal(res.statusCode, 404, res.body)
    assert.equal(res.json().code, 'NOT_FOUND')
  }

  it('production serves none on the service ports', async () => {
    const [production, productionDirectory] = await Promise.all([
      startPlatform({ env: PRODUCTION }),
      startDirectory({ env: PRODUCTION }),
    ])
    try {
      await notFound(production.app)
      await notFound(productionDirectory.app)
    } finally {
      await Promise.all([production.close(), productionDirectory.close()])
    }
  })

  it('METRICS_ENABLED=false serves none locally, nor does a service port when METRICS_PORT is set', async () => {
    const [off, elsewhere] = await Promise.all([
      startPlatform({ env: { METRICS_ENABLED: 'false' } }),
      startDirectory({ env: { METRICS_PORT: '9464' } }),
    ])
    try {
      await notFound(off.app)
      await notFound(elsewhere.app)
    } finally {
      await Promise.all([off.close(), elsewhere.close()])
    }
  })
})

describe('METRICS_PORT', () => {
  it('serves every service of the process on its own port, in production too, and nothing else there', async () => {
    const config = loadConfig({
      ...PRODUCTION,
      DATA_DIR: 'memory',
      LOG_LEVEL: 'silent',
      PLATFORM_PORT: '0',
      DIRECTORY_PORT: '0',
      METRICS_PORT: '0',
    })
    const runtime = await startServices(config, SERVICES, createLogger('silent'))
    try {
      assert.ok(runtime.metricsUrl, 'the runtime says where metrics are')
      for (const { url } of runtime.services) {
        assert.equal((await fetch(`${url}/healthz`)).status, 200)
        assert.equal((await fetch(`${url}/metrics`)).status, 404, `${url} serves no metrics`)
      }
      const res = await fetch(runtime.metricsUrl)
      assert.equal(res.status, 200)
      assert.equal(res.headers.get('content-type'), PROMETHEUS_TEXT)
      const scraped = parse(await res.text())
      for (const service of SERVICES) {
        const labels = { service, route: '/healthz', status_code: '200' }
        assert.ok(sampleValue(scraped, 'curio_http_request_duration_seconds_count', labels) >= 1, service)
      }
      assert.ok(family(scraped, 'process_cpu_user_seconds_total'))
      assert.equal((await fetch(new URL('/other', runtime.metricsUrl))).status, 404)
    } finally {
      await runtime.stop()
    }
  })
})
