/**
 * Issue 15's measure: geo analytics over 100,000 items with locations on Postgres (p99 under 300 ms), and
 * the geocoding cache's hit path inside the process (under 1 ms). Prints the figures; asserts nothing.
 *
 * The server side runs in a child process (this file with `--serve`), so autocannon never shares its event
 * loop: on a fresh database `curio_bench_<random>` on BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), dropped at the end and on Ctrl-C, it migrates the
 * directory, inserts N published items in one statement (90 % with coordinates in 500 cities of 60
 * countries, 10 % remote without coordinates, 30 % with one of 20 service areas) and a few thousand
 * draft, pending and rejected ones (half with coordinates: the index must leave them out), all deterministic;
 * the trigger of migration 0017 fills `directory.item_locations`. VACUUM ANALYZE, then the real directory
 * app (LOG_LEVEL=warn), an admin signed in through POST /api/auth/signin, and one bench-only route:
 *   GET /bench/statements   the statements of one analytics() call with EXPLAIN (ANALYZE, BUFFERS) of each,
 *                           and the in-process time of the route (app.inject, one call after another)
 * Here: one GET /api/admin/geo-analytics (its size and its stats), then autocannon at each connection count
 * (warm-up, then the run), with the server's and Postgres's CPU per request. Then, in this process, a
 * geocoding service against the loopback Mapbox stand-in: one miss, then N hits timed one by one.
 *
 *   npm run bench:geo [-- --items 100000] [-- --others 5000] [-- --connections 1,10] [-- --duration 15]
 *     [-- --warmup 3] [-- --hits 100000] [-- --explain]
 */

import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import { sql } from 'drizzle-orm'
import pg from 'pg'
import { loadConfig } from '../src/config.ts'
import { createPool, type Databases, serviceDatabase } from '../src/db/index.ts'
import { ensureAdmin } from '../src/directory/admin/bootstrap.ts'
import { buildDirectoryApp } from '../src/directory/app.ts'
import { createGeocodingService } from '../src/directory/geocoding/service.ts'
import { createJobs } from '../src/jobs/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { createRateLimiterFor } from '../src/runtime.ts'
import { migrateAll } from '../src/setup.ts'
import { startMapboxFake } from '../test/fakes/mapbox.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  cpuBetween,
  cpuMsOf,
  directorySession,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  exitOnSignal,
  killChild,
  listenLocally,
  machine,
  median,
  postgresCpu,
  round,
  spawnNode,
  stopChild,
  table,
  waitForReady,
  writeResults,
} from './lib.ts'

const PATH = '/api/admin/geo-analytics'
const TARGET_P99_MS = 300
const TARGET_HIT_MS = 1
const CITIES = 500
const COUNTRIES = 60
const SERVICE_AREAS = 20
const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password-not-secret'

const { values } = parseArgs({
  options: {
    serve: { type: 'boolean', default: false },
    items: { type: 'string' },
    others: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    hits: { type: 'string' },
    explain: { type: 'boolean', default: false },
  },
  strict: true,
})
const itemCount = Number(values.items ?? 100_000)
const otherCount = Number(values.others ?? 5_000)
const duration = Number(values.duration ?? 15)
const warmup = Number(values.warmup ?? 3)
const hitCount = Number(values.hits ?? 100_000)
const connectionCounts = (values.connections ?? '1,10').split(',').map(Number)
checkWholeNumbers([
  ['--items', itemCount, 10],
  ['--others', otherCount, 0],
  ['--duration', duration, 1],
  ['--warmup', warmup, 0],
  ['--hits', hitCount, 100],
  ...connectionCounts.map((count) => ['--connections', count, 1] as const),
])

interface Seeded {
  server: string
  migrateMs: number
  seedMs: number
  vacuumAnalyzeMs: number
  statuses: Record<string, number>
  published: { withCoordinates: number; remote: number; withServiceArea: number }
  /** Published items with coordinates or remote: what the index should hold. */
  expectedIndexed: number
  index: { rows: number; remote: number; cities: number; countries: number; serviceAreas: number }
  tablesMb: { items: number; itemLocations: number }
  poolSize: number
}

interface ServerReady {
  port: number
  /** `curio_session=…` of the seeded admin. */
  cookie: string
  seed: Seeded
}

interface StatementPlan {
  label: string
  sql: string
  params: unknown[]
  executionMs: number | null
  plan: string
}

interface Statements {
  statements: StatementPlan[]
  /** Wall time of the route in the server's process (app.inject, no socket), one call after another. */
  injectMs: number[]
}

/** Which statement of analytics() this is, from its text. */
function labelOf(text: string): string {
  if (text.includes('"sessions"')) return "session lookup (the admin's cookie)"
  if (text.includes("'itemSlug'")) return 'locations + heatmap (json_agg of every point)'
  if (text.includes('location_index_runs')) return 'last completed rebuild'
  if (text.includes('json_agg')) {
    for (const column of ['country', 'city', 'service_area']) {
      if (text.includes(`group by "directory"."item_locations"."${column}"`))
        return `distribution by ${column}`
    }
    return 'a distribution'
  }
  if (text.includes('count(distinct')) return 'index figures (item_locations)'
  if (text.includes('"items"')) return 'item figures (published items)'
  return text.replace(/\s+/g, ' ').slice(0, 60)
}

/** The child: migrate, seed, build the app, sign in, listen, print one JSON line. */
async function serve() {
  const url = process.env.BENCH_CHILD_DB_URL
  if (!url) throw new Error('BENCH_CHILD_DB_URL is not set')
  const log = createLogger('warn')
  const config = loadConfig({
    DATA_DIR: 'memory',
    LOG_LEVEL: 'warn',
    DIRECTORY_DATABASE_URL: url,
    RATE_LIMIT_BYPASS_LOCALHOST: 'true',
  })
  const pool = createPool(url, config.databasePoolSize, log)
  const database = serviceDatabase('directory', { kind: 'postgres', pool, url })
  const db = database.db
  const rowsOf = async <T>(query: ReturnType<typeof sql>): Promise<T[]> =>
    ((await db.execute(query)) as unknown as { rows: T[] }).rows

  // While `capture` is set, every statement sent through the pool is recorded (for /bench/statements,
  // asked only when no load runs).
  let capture: { text: string; params: unknown[] }[] | undefined
  {
    const target = pool as unknown as { query: (...args: unknown[]) => unknown }
    const original = target.query.bind(pool)
    target.query = (...args: unknown[]) => {
      const [first, params] = args
      const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text
      if (capture && text !== undefined) {
        const bound = Array.isArray(params) ? params : ((first as { values?: unknown[] }).values ?? [])
        capture.push({ text, params: bound })
      }
      return original(...args)
    }
  }

  let started = performance.now()
  await migrateAll(
    { platform: database, directory: database, close: () => pool.end() } as Databases,
    ['directory'],
    log,
  )
  const migrateMs = performance.now() - started

  // A deterministic draw per item: four numbers in [0, 1) from the md5 of its number.
  const draw = (from: number) => `(('x' || substr(md5(n::text), ${from}, 8))::bit(32)::bigint / 4294967296.0)`
  started = performance.now()
  await db.transaction(async (tx) => {
    // Published: every 10th remote (no coordinates); the others in a city (skewed: a few big ones, a long
    // tail), its country fixed by the city, a point within ±0.2° of the city's centre.
    await tx.execute(
      sql.raw(`
      insert into directory.items
        (id, slug, name, description, url, status, address, city, country, latitude, longitude, is_remote,
         service_area, published_at, created_at, updated_at)
      select ('00000000-0000-4000-a000-' || lpad(to_hex(n), 12, '0'))::uuid, 'geo-item-' || n,
        'Geo Item ' || n, 'A curated place, number ' || n || '.', 'https://geo-item-' || n || '.example',
        'published',
        case when remote then null else n || ' Main Street' end,
        case when remote then null else 'City ' || city end,
        case when remote then null else 'Country ' || (1 + (city * 7) % ${COUNTRIES}) end,
        case when remote then null
          else round((-50 + ((city * 7919) % 1000) / 10.0 + (u2 - 0.5) * 0.4)::numeric, 6)::float8 end,
        case when remote then null
          else round((-170 + ((city * 104729) % 3400) / 10.0 + (u3 - 0.5) * 0.4)::numeric, 6)::float8 end,
        remote,
        case when u4 < 0.3 then 'Service area ' || (1 + floor(u4 / 0.3 * ${SERVICE_AREAS}))::int end,
        created_at, created_at, created_at
      from (select n, n % 10 = 0 as remote, 1 + floor(${CITIES} * power(${draw(1)}, 2))::int as city,
              ${draw(9)} as u2, ${draw(17)} as u3, ${draw(25)} as u4,
              now() - (${itemCount} - n) * interval '5 minutes' as created_at
            from generate_series(1, ${itemCount}) as n) as d`),
    )
    // Not published (a third each draft, pending, rejected), half with coordinates: none may be indexed.
    await tx.execute(
      sql.raw(`
      insert into directory.items
        (id, slug, name, url, status, city, country, latitude, longitude, created_at, updated_at)
      select ('00000000-0000-4000-b000-' || lpad(to_hex(n), 12, '0'))::uuid, 'geo-other-' || n,
        'Geo Other ' || n, 'https://geo-other-' || n || '.example',
        (array['draft', 'pending', 'rejected'])[1 + n % 3],
        'City ' || (1 + n % ${CITIES}), 'Country ' || (1 + n % ${COUNTRIES}),
        case when n % 2 = 0 then 10 + (n % 50) / 10.0 end, case when n % 2 = 0 then 20 + (n % 70) / 10.0 end,
        now() - n * interval '1 hour', now() - n * interval '1 hour'
      from generate_series(1, ${otherCount}) as n`),
    )
  })
  const seedMs = performance.now() - started

  started = performance.now()
  for (const name of ['items', 'item_locations'])
    await db.execute(sql.raw(`vacuum (analyze) directory.${name}`))
  const vacuumAnalyzeMs = performance.now() - started

  const statuses = Object.fromEntries(
    (
      await rowsOf<{ status: string; count: number }>(
        sql`select status, count(*)::int as count from directory.items group by status order by status`,
      )
    ).map(({ status, count }) => [status, count]),
  )
  const [published] = await rowsOf<{
    coordinates: number
    remote: number
    areas: number
    expected: number
  }>(sql`
    select count(*) filter (where latitude is not null)::int as coordinates,
      count(*) filter (where is_remote)::int as remote,
      count(*) filter (where service_area is not null)::int as areas,
      count(*) filter (where is_remote or latitude is not null)::int as expected
    from directory.items where status = 'published'`)
  const [index] = await rowsOf<{
    rows: number
    remote: number
    cities: number
    countries: number
    areas: number
  }>(sql`
    select count(*)::int as rows, count(*) filter (where is_remote)::int as remote,
      count(distinct city)::int as cities, count(distinct country)::int as countries,
      count(distinct service_area)::int as areas
    from directory.item_locations`)
  const [sizes] = await rowsOf<{ items: string; locations: string; version: string }>(sql`
    select pg_total_relation_size('directory.items')::text as items,
      pg_total_relation_size('directory.item_locations')::text as locations,
      current_setting('server_version') as version`)
  const mb = (bytes: string | undefined) => round(Number(bytes ?? 0) / 1024 / 1024, 1)

  const jobs = createJobs({ database, log })
  const rateLimiter = await createRateLimiterFor(config, systemClock, log)
  const { app } = await buildDirectoryApp({ config, database, clock: systemClock, log, jobs, rateLimiter })
  await ensureAdmin({ db, clock: systemClock }, ADMIN_EMAIL, ADMIN_PASSWORD)

  let cookie = ''
  app.get('/bench/statements', { config: { access: 'public' }, schema: { hide: true } }, async () => {
    const inject = () => app.inject({ method: 'GET', url: PATH, headers: { cookie } })
    const injectMs: number[] = []
    for (let run = 0; run < 5; run++) {
      const at = performance.now()
      const response = await inject()
      if (response.statusCode !== 200) throw new Error(`${PATH} (inject): ${response.statusCode}`)
      injectMs.push(round(performance.now() - at, 1))
    }
    const captured: { text: string; params: unknown[] }[] = []
    capture = captured
    try {
      await inject()
    } finally {
      capture = undefined
    }
    const statements: StatementPlan[] = []
    for (const statement of captured) {
      const result = await pool.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers) ${statement.text}`,
        statement.params,
      )
      const plan = result.rows.map((row) => row['QUERY PLAN']).join('\n')
      const match = /Execution Time: ([\d.]+) ms/.exec(plan)
      statements.push({
        label: labelOf(statement.text),
        sql: statement.text,
        params: statement.params,
        executionMs: match ? Number(match[1]) : null,
        plan,
      })
    }
    return { statements, injectMs } satisfies Statements
  })

  const port = await listenLocally(app)
  cookie = await directorySession(port, '/api/auth/signin', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })
  const ready: ServerReady = {
    port,
    cookie,
    seed: {
      server: sizes?.version ?? 'unknown',
      migrateMs: Math.round(migrateMs),
      seedMs: Math.round(seedMs),
      vacuumAnalyzeMs: Math.round(vacuumAnalyzeMs),
      statuses,
      published: {
        withCoordinates: published?.coordinates ?? 0,
        remote: published?.remote ?? 0,
        withServiceArea: published?.areas ?? 0,
      },
      expectedIndexed: published?.expected ?? 0,
      index: {
        rows: index?.rows ?? 0,
        remote: index?.remote ?? 0,
        cities: index?.cities ?? 0,
        countries: index?.countries ?? 0,
        serviceAreas: index?.areas ?? 0,
      },
      tablesMb: { items: mb(sizes?.items), itemLocations: mb(sizes?.locations) },
      poolSize: config.databasePoolSize,
    },
  }
  process.stdout.write(`${JSON.stringify(ready)}\n`)
  exitOnSignal(
    () => app.close(),
    () => rateLimiter.close(),
    () => pool.end(),
  )
}

interface GeoStats {
  totalIndexed: number
  totalItems: number
  itemsWithLocation: number
  itemsRemote: number
  coveragePercent: number
  indexHealth: { synced: boolean; indexCount: number; expectedCount: number }
  citiesCount: number
  countriesCount: number
  remoteCount: number
  lastIndexedAt: string | null
  lastRebuildAt: string | null
}

interface GeoAnswer {
  data: {
    stats: GeoStats
    distributions: {
      byCountry: unknown[]
      byCity: { name: string; count: number }[]
      byServiceArea: unknown[]
    }
    locations: unknown[]
    heatmapData: unknown[]
  }
}

interface Measurement {
  connections: number
  requestsPerSec: number
  latencyP50Ms: number
  latencyP90Ms: number
  latencyP99Ms: number
  latencyMaxMs: number
  total: number
  non2xx: number
  errors: number
  timeouts: number
  mbPerSec: number
  serverCpuMsPerRequest: number | null
  postgresCpuMsPerRequest: number | null
  met: boolean
}

/** Percentile `p` (0–100) of sorted values, nearest rank. */
const percentile = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!

/** The geocoding cache's hit path, in this process: one miss to the Mapbox stand-in, then timed hits. */
async function geocodingHits() {
  const fake = await startMapboxFake()
  try {
    const service = createGeocodingService({
      config: {
        locationEnabled: true,
        geocodingProvider: 'mapbox',
        mapboxAccessToken: fake.accessToken,
        mapboxApiUrl: fake.url,
        googleMapsApiKey: undefined,
        googleMapsApiUrl: 'http://127.0.0.1:9',
        geocodingTimeoutMs: 5000,
      },
      clock: systemClock,
      siteLocationEnabled: async () => true,
    })
    let at = process.hrtime.bigint()
    const first = await service.forward({ address: 'Berlin' })
    const missMs = Number(process.hrtime.bigint() - at) / 1e6

    const variants = [
      { label: "'Berlin'", address: 'Berlin' },
      { label: "'  bERLIN\\t ' (same key)", address: '  bERLIN\t ' },
    ]
    // Warm-up, so the timed hits run optimised code.
    for (let i = 0; i < 20_000; i++) await service.forward({ address: variants[i % 2]!.address })
    const rows: {
      label: string
      meanUs: number
      p50Us: number
      p99Us: number
      maxUs: number
      same: boolean
    }[] = []
    for (const variant of variants) {
      const samples = new Float64Array(hitCount)
      let same = true
      const batchStart = process.hrtime.bigint()
      for (let i = 0; i < hitCount; i++) {
        at = process.hrtime.bigint()
        const answer = await service.forward({ address: variant.address })
        samples[i] = Number(process.hrtime.bigint() - at) / 1000
        if (answer !== first) same = false
      }
      const batchUs = Number(process.hrtime.bigint() - batchStart) / 1000
      samples.sort()
      rows.push({
        label: variant.label,
        meanUs: round(batchUs / hitCount, 2),
        p50Us: round(percentile(samples, 50), 2),
        p99Us: round(percentile(samples, 99), 2),
        maxUs: round(samples[samples.length - 1]!, 1),
        same,
      })
    }
    return {
      missMs: round(missMs, 2),
      place: `${first.city}, ${first.country} (${first.latitude}, ${first.longitude})`,
      rows,
      figures: service.figures(),
      fakeForwardCalls: fake.calls('forward').length,
    }
  } finally {
    await fake.close()
  }
}

async function main() {
  const { adminUrl, shownUrl } = benchDatabaseUrl()
  const setDropOnSignal = dropDatabaseOnSignal(adminUrl)
  const info = machine()
  const version = codeVersion()
  console.log(
    `geo analytics benchmark: ${itemCount.toLocaleString('en')} published items with locations (+ ` +
      `${otherCount.toLocaleString('en')} unpublished) on Postgres (${shownUrl}); GET ${PATH} at ` +
      `${connectionCounts.join(', ')} connection(s), ${warmup} s warm-up + ${duration} s per run; then ` +
      `${hitCount.toLocaleString('en')} geocoding cache hits in-process`,
  )
  console.log(
    `node ${info.node}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverage.join(' ')}; ` +
      `code ${version.head} (${version.uncommittedSrcFiles} files changed under src/)`,
  )

  let child: Child | undefined
  let monitor: pg.Client | undefined
  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  let created = false
  try {
    await adminQuery(adminUrl, `create database "${dbName}"`)
    created = true
    setDropOnSignal(dbName)
    const url = new URL(adminUrl)
    url.pathname = `/${dbName}`
    process.stdout.write(`seeding in database ${dbName}… `)
    child = spawnNode({
      args: [
        'bench/geo-analytics.ts',
        '--serve',
        '--items',
        String(itemCount),
        '--others',
        String(otherCount),
      ],
      env: { BENCH_CHILD_DB_URL: url.toString() },
      keepOutput: true,
    })
    const ready = await waitForReady<ServerReady>(child)
    const spawnToReadyMs = round(performance.now() - child.spawnedAt)
    child.discardOutput()
    process.stdout.write(`ready in ${(spawnToReadyMs / 1000).toFixed(1)} s\n`)
    const s = ready.seed
    console.log(
      `Postgres ${s.server}; migrate ${s.migrateMs} ms, seed ${s.seedMs} ms (index filled by the trigger), ` +
        `vacuum analyze ${s.vacuumAnalyzeMs} ms; items ${s.tablesMb.items} MB, item_locations ` +
        `${s.tablesMb.itemLocations} MB (with indexes); pool ${s.poolSize} connections`,
    )
    console.log(
      `items: ${Object.entries(s.statuses)
        .map(([status, count]) => `${count} ${status}`)
        .join(', ')}; published: ${s.published.withCoordinates} with coordinates, ${s.published.remote} ` +
        `remote, ${s.published.withServiceArea} with a service area`,
    )
    console.log(
      `item_locations: ${s.index.rows} rows (${s.index.remote} remote), expected ${s.expectedIndexed}: ` +
        `${s.index.rows === s.expectedIndexed ? 'as expected' : 'DIFFERS'}; ${s.index.cities} cities, ` +
        `${s.index.countries} countries, ${s.index.serviceAreas} service areas`,
    )

    const base = `http://127.0.0.1:${ready.port}`
    const headers = { cookie: ready.cookie }

    // One answer, before any load: its size and its figures.
    let at = performance.now()
    const first = await fetch(`${base}${PATH}`, { headers })
    const body = await first.text()
    const firstMs = performance.now() - at
    if (first.status !== 200) throw new Error(`${PATH}: ${first.status} ${body.slice(0, 300)}`)
    const bytes = Buffer.byteLength(body)
    at = performance.now()
    const answer = JSON.parse(body) as GeoAnswer
    const parseMs = performance.now() - at
    const { stats, distributions } = answer.data
    console.log(
      `\nGET ${PATH}: ${first.status}, ${bytes.toLocaleString('en')} bytes (${round(bytes / 1024 / 1024, 1)} MB), ` +
        `first call ${round(firstMs)} ms, JSON.parse here ${round(parseMs)} ms; ${answer.data.locations.length} ` +
        `locations, ${answer.data.heatmapData.length} heatmap points, ${distributions.byCountry.length} countries, ` +
        `${distributions.byCity.length} cities (top), ${distributions.byServiceArea.length} service areas`,
    )
    console.log(`stats: ${JSON.stringify(stats)}`)
    console.log(
      `top cities: ${distributions.byCity
        .slice(0, 5)
        .map((city) => `${city.name} ${city.count}`)
        .join(', ')}, …`,
    )

    // Where one call's time goes, with nothing else running.
    const statementsResponse = await fetch(`${base}/bench/statements`)
    const statementsBody = await statementsResponse.text()
    if (statementsResponse.status !== 200) {
      throw new Error(`/bench/statements: ${statementsResponse.status} ${statementsBody.slice(0, 300)}`)
    }
    const plans = JSON.parse(statementsBody) as Statements
    console.log(
      `\none call, alone: in the server's process (app.inject, no socket) ${plans.injectMs.join(', ')} ms ` +
        `(median ${median(plans.injectMs)} ms); its ${plans.statements.length} statements, explained one by one ` +
        '(analytics() sends two in turn, then the last five at once on separate pool connections):',
    )
    console.log(
      table([
        ['statement', 'Postgres execution ms (EXPLAIN ANALYZE)'],
        ...plans.statements.map((statement) => [statement.label, statement.executionMs ?? '?']),
      ]),
    )
    if (values.explain) {
      for (const statement of plans.statements) {
        console.log(`\n=== EXPLAIN (ANALYZE, BUFFERS): ${statement.label} ===`)
        console.log(statement.sql)
        if (statement.params.length) console.log(`params: ${JSON.stringify(statement.params)}`)
        console.log(statement.plan)
      }
    }

    monitor = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 })
    monitor.on('error', () => {})
    await monitor.connect()
    const readPostgresCpu = postgresCpu(monitor, dbName)

    console.log('')
    const measurements: Measurement[] = []
    for (const connections of connectionCounts) {
      process.stdout.write(`${connections} connection(s): warm-up ${warmup} s, run ${duration} s… `)
      const load = (seconds: number) =>
        autocannon({ url: `${base}${PATH}`, connections, duration: seconds, headers, timeout: 30 })
      if (warmup > 0) await load(warmup)
      const cpuBefore = cpuMsOf(child.pid)
      const pgBefore = await readPostgresCpu()
      const result: Result = await load(duration)
      const cpuAfter = cpuMsOf(child.pid)
      const pgAfter = await readPostgresCpu()
      const total = result.requests.total
      const perRequest = (ms: number | null) => (ms === null || total === 0 ? null : round(ms / total, 1))
      const p99 = round(result.latency.p99, 1)
      const m: Measurement = {
        connections,
        requestsPerSec: round(total / duration, 1),
        latencyP50Ms: round(result.latency.p50, 1),
        latencyP90Ms: round(result.latency.p90, 1),
        latencyP99Ms: p99,
        latencyMaxMs: round(result.latency.max, 1),
        total,
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        mbPerSec: round(result.throughput.average / 1024 / 1024, 1),
        serverCpuMsPerRequest: perRequest(
          cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
        ),
        postgresCpuMsPerRequest: perRequest(cpuBetween(pgBefore, pgAfter)),
        met: p99 < TARGET_P99_MS && result.non2xx === 0 && result.errors === 0 && total > 0,
      }
      measurements.push(m)
      process.stdout.write(`${m.requestsPerSec} req/s, p99 ${m.latencyP99Ms} ms\n`)
    }
    console.log(`\nGET ${PATH} (${round(bytes / 1024 / 1024, 1)} MB each), ${duration} s per run`)
    console.log(
      table([
        [
          'connections',
          'req/s',
          'p50 ms',
          'p90 ms',
          'p99 ms',
          'max ms',
          'requests',
          'non-2xx',
          'errors',
          'MB/s',
          'server CPU ms/req',
          'Postgres CPU ms/req',
        ],
        ...measurements.map((m) => [
          m.connections,
          m.requestsPerSec,
          m.latencyP50Ms,
          m.latencyP90Ms,
          m.latencyP99Ms,
          m.latencyMaxMs,
          m.total,
          m.non2xx,
          m.errors + m.timeouts,
          m.mbPerSec,
          m.serverCpuMsPerRequest ?? '?',
          m.postgresCpuMsPerRequest ?? '?',
        ]),
      ]),
    )
    for (const m of measurements) {
      console.log(
        `target p99 < ${TARGET_P99_MS} ms at ${m.connections} connection(s): ${m.met ? 'met' : 'not met'} ` +
          `(p99 ${m.latencyP99Ms} ms)`,
      )
    }

    await monitor.end().catch(() => {})
    monitor = undefined
    await stopChild(child)
    child = undefined

    // The geocoding cache, with the server gone.
    process.stdout.write(
      `\ngeocoding cache: 1 miss, then ${hitCount.toLocaleString('en')} hits per address… `,
    )
    const geo = await geocodingHits()
    process.stdout.write('done\n')
    console.log(`miss (Mapbox stand-in on loopback): ${geo.missMs} ms → ${geo.place}`)
    console.log(
      table([
        ['forward({ address })', 'mean µs', 'p50 µs', 'p99 µs', 'max µs', 'same cached answer'],
        ...geo.rows.map((row) => [
          row.label,
          row.meanUs,
          row.p50Us,
          row.p99Us,
          row.maxUs,
          row.same ? 'yes' : 'NO',
        ]),
      ]),
    )
    console.log(
      `figures(): ${geo.figures.hits} hits, ${geo.figures.misses} misses, ${geo.figures.providerCalls} provider ` +
        `call(s); the stand-in saw ${geo.fakeForwardCalls} forward request(s)` +
        (geo.figures.providerCalls === 1 && geo.fakeForwardCalls === 1 ? '' : ' (EXPECTED 1)'),
    )
    const hitMet = geo.rows.every((row) => row.p99Us < TARGET_HIT_MS * 1000)
    console.log(
      `target hit < ${TARGET_HIT_MS} ms: ${hitMet ? 'met' : 'not met'} (p99 per hit, both addresses)`,
    )

    const path = writeResults('geo-analytics', {
      when: new Date().toISOString(),
      machine: info,
      code: version,
      database: shownUrl,
      settings: {
        items: itemCount,
        others: otherCount,
        connections: connectionCounts,
        duration,
        warmup,
        hitCount,
      },
      targets: { p99MsBelow: TARGET_P99_MS, hitMsBelow: TARGET_HIT_MS },
      spawnToReadyMs,
      seed: s,
      answer: { bytes, stats, firstMs: round(firstMs, 1) },
      oneCall: {
        injectMs: plans.injectMs,
        statements: plans.statements.map(({ label, executionMs }) => ({ label, executionMs })),
      },
      measurements,
      geocoding: geo,
    })
    console.log(`\nwritten to ${path}`)
  } finally {
    await monitor?.end().catch(() => {})
    await killChild(child)
    if (created) {
      await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
    }
  }
}

if (values.serve) await serve()
else await main()
