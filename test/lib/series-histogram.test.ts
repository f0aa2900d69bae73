import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { AggregatorRegistry, Histogram, Registry } from 'prom-client'
import { seriesHistogram } from '../../src/lib/series-histogram.ts'

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
const LABELS = ['service', 'method', 'route', 'status_code'] as const
const OBSERVATIONS = [
  [{ service: 'platform', method: 'GET', route: '/healthz', status_code: 200 }, 0.0004],
  [{ service: 'platform', method: 'GET', route: '/api/works/:id', status_code: 401 }, 0.012],
  [{ service: 'platform', method: 'GET', route: '/healthz', status_code: 200 }, 0.005],
  [{ service: 'directory', method: 'POST', route: 'unmatched', status_code: 404 }, 3.2],
  [{ service: 'platform', method: 'GET', route: '/healthz', status_code: 200 }, 0.0051],
  [{ service: 'directory', method: 'POST', route: 'unmatched', status_code: 404 }, 12.5],
] as const

/** The same observations in prom-client's Histogram and in a series histogram, each in its own registry. */
function both() {
  const reference = new Registry()
  const histogram = new Histogram({
    name: 'h_seconds',
    help: 'help text',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [reference],
  })
  const registry = new Registry()
  const series = seriesHistogram({
    name: 'h_seconds',
    help: 'help text',
    labelNames: LABELS,
    buckets: BUCKETS,
    registers: [registry],
  })
  for (const [labels, value] of OBSERVATIONS) {
    histogram.observe(labels, value)
    series.series(labels).observe(value)
  }
  return { reference, registry, series }
}

describe('seriesHistogram', () => {
  it('is scraped exactly as prom-client’s Histogram holding the same observations', async () => {
    const { reference, registry } = both()
    assert.equal(await registry.metrics(), await reference.metrics())
  })

  it('sums across cluster workers as prom-client’s Histogram does', async () => {
    const { reference, registry } = both()
    const referenceJson = await reference.getMetricsAsJSON()
    const json = await registry.getMetricsAsJSON()
    assert.equal(
      await AggregatorRegistry.aggregate([json, json]).metrics(),
      await AggregatorRegistry.aggregate([referenceJson, referenceJson]).metrics(),
    )
  })

  it('hands out one series per label set, whatever the label order or value type', async () => {
    const { registry, series } = both()
    const before = await registry.metrics()
    const again = series.series({ status_code: '200', route: '/healthz', method: 'GET', service: 'platform' })
    assert.equal(again, series.series(OBSERVATIONS[0][0]))
    again.observe(0.002)
    const after = await registry.metrics()
    assert.match(
      after,
      /h_seconds_count\{service="platform",method="GET",route="\/healthz",status_code="200"\} 4/,
    )
    assert.equal(after.split('\n').length, before.split('\n').length)
  })

  it('starts again empty after a reset, its handles still good', async () => {
    const { registry, series } = both()
    registry.resetMetrics()
    assert.equal(await registry.metrics(), '# HELP h_seconds help text\n# TYPE h_seconds histogram\n')
    series.series(OBSERVATIONS[1][0]).observe(0.2)
    const scraped = await registry.metrics()
    assert.match(scraped, /h_seconds_count\{[^}]*route="\/api\/works\/:id"[^}]*\} 1\n/)
    assert.match(scraped, /h_seconds_sum\{[^}]*route="\/api\/works\/:id"[^}]*\} 0.2\n/)
    assert.doesNotMatch(scraped, /healthz/)
  })

  it('refuses a value that is not a finite number, as prom-client does', () => {
    const { series } = both()
    assert.throws(() => series.series(OBSERVATIONS[0][0]).observe(Number.NaN), TypeError)
  })
})
