/**
 * The activity log under load: GET /api/activity-log with filters, authenticated by API key, against the
 * same list through a bench-only route with no authentication, in one run; and the CSV export of 10,000
 * rows (time to last byte, peak memory growth of the server).
 *
 * For each backend, bench/activity-log-server.ts runs in a child process: it seeds the database (set-based
 * SQL), issues API keys through the real service, builds the real platform app and listens. autocannon runs
 * here, requests cycling over the users' keys (2 s warm-up, then the run).
 *   postgres  a fresh database `curio_bench_<random>` on BENCH_DATABASE_URL (default
 *             postgres://postgres@127.0.0.1:5432/postgres), dropped at the end; 1,000,000 rows, 1,000 users
 *   embedded  PGlite in memory; 100,000 rows, 1,000 users
 *
 *   npm run bench:activity-log [-- --db postgres|embedded|both] [-- --rows N] [-- --users N]
 *     [-- --duration 10] [-- --warmup 2] [-- --connections 50] [-- --export-runs 5] [-- --explain]
 */

import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import pg from 'pg'
import { BENCH_ACTION_TYPES, BENCH_SEARCH_WORD, type ServerReady } from './activity-log-data.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  cpuMsOf,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  killChild,
  LOAD_OPTIONS,
  type LoadFigures,
  loadFigures,
  loadSettings,
  machine,
  median,
  memoryOf,
  round,
  sleep,
  spawnNode,
  stopChild,
  table,
  waitForReady,
  writeResults,
} from './lib.ts'

const TARGET_P99_MS = 25
const TARGET_KEY_COST = 0.1
const TARGET_EXPORT_MS = 300
const TARGET_EXPORT_GROWTH_MB = 20
const EXPORT_ROWS = 10_000
const HEAVY_ROWS = 12_000
const KEYS = 100
const DAY_MS = 86_400_000
const ACTION_TYPES = BENCH_ACTION_TYPES
const SEARCH_WORD = BENCH_SEARCH_WORD

const DEFAULTS = {
  postgres: { rows: 1_000_000, users: 1_000 },
  embedded: { rows: 100_000, users: 1_000 },
} as const
type Backend = keyof typeof DEFAULTS

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    rows: { type: 'string' },
    users: { type: 'string' },
    ...LOAD_OPTIONS,
    'export-runs': { type: 'string' },
    explain: { type: 'boolean', default: false },
  },
  strict: true,
})
const { duration, warmup, connections } = loadSettings(values, { connections: 50 })
const exportRuns = Number(values['export-runs'] ?? 5)
const rowsOverride = values.rows === undefined ? undefined : Number(values.rows)
const usersOverride = values.users === undefined ? undefined : Number(values.users)
checkWholeNumbers([
  ['--export-runs', exportRuns, 1],
  ['--rows', rowsOverride ?? HEAVY_ROWS + 1, HEAVY_ROWS + 1],
  ['--users', usersOverride ?? KEYS + 1, KEYS + 1],
])
if (values.db !== undefined && !['postgres', 'embedded', 'both'].includes(values.db)) {
  throw new Error('--db must be postgres, embedded or both')
}

const { adminUrl, shownUrl } = benchDatabaseUrl()

interface PostgresInfo {
  version: string
  sharedBuffers: string
  maxConnections: string
}

async function postgresInfo(): Promise<PostgresInfo | null> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    const show = async (name: string) =>
      ((await client.query(`show ${name}`)).rows[0] as Record<string, string>)[name] ?? '?'
    return {
      version: await show('server_version'),
      sharedBuffers: await show('shared_buffers'),
      maxConnections: await show('max_connections'),
    }
  } catch {
    return null
  } finally {
    await client.end().catch(() => {})
  }
}

interface Answer {
  status: number
  body: string
}

function get(url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((done, fail) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', fail)
      res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
    })
    req.setTimeout(60_000, () => req.destroy(new Error(`GET ${url} timed out`)))
    req.on('error', fail)
    req.end()
  })
}

interface ExportRun {
  run: number
  totalMs: number
  firstByteMs: number
  bytes: number
  rows: number
  status: number
  rssBeforeMb: number
  peakRssMb: number
  growthMb: number
  samples: number
}

/** One export, read as a stream and thrown away, the server's VmRSS sampled every 5 ms meanwhile. */
function exportOnce(run: number, url: string, key: string, pid: number): Promise<ExportRun> {
  return new Promise((done, fail) => {
    const before = memoryOf(pid)
    if (!before) {
      fail(new Error(`cannot read /proc/${pid}/status (Linux only)`))
      return
    }
    let peak = before.rssMb
    let samples = 0
    const sample = () => {
      const now = memoryOf(pid)
      samples++
      if (now && now.rssMb > peak) peak = now.rssMb
    }
    const sampler = setInterval(sample, 5)
    const startedAt = performance.now()
    let firstByteAt: number | undefined
    let bytes = 0
    let newlines = 0
    const req = request(url, { headers: { 'x-api-key': key }, agent: false }, (res) => {
      res.on('data', (chunk: Buffer) => {
        firstByteAt ??= performance.now()
        bytes += chunk.length
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++
      })
      res.on('error', (error) => {
        clearInterval(sampler)
        fail(error)
      })
      res.on('end', () => {
        const endedAt = performance.now()
        clearInterval(sampler)
        sample()
        done({
          run,
          totalMs: round(endedAt - startedAt, 1),
          firstByteMs: round((firstByteAt ?? endedAt) - startedAt, 1),
          bytes,
          rows: Math.max(0, newlines - 1),
          status: res.statusCode ?? 0,
          rssBeforeMb: round(before.rssMb, 1),
          peakRssMb: round(peak, 1),
          growthMb: round(peak - before.rssMb, 1),
          samples,
        })
      })
    })
    req.setTimeout(60_000, () => req.destroy(new Error('export timed out')))
    req.on('error', (error) => {
      clearInterval(sampler)
      fail(error)
    })
    req.end()
  })
}

type Variant = 'filters' | 'search'
type Route = 'no-auth' | 'api-key'

interface Measurement extends LoadFigures {
  variant: Variant
  route: Route
  path: string
  /** CPU time per request of the server process (which holds PGlite when embedded). */
  serverCpuMsPerRequest: number | null
  /** Of all local `postgres` processes (null when Postgres runs elsewhere or is not used). */
  postgresCpuMsPerRequest: number | null
  /** Of this process: autocannon. */
  benchCpuMsPerRequest: number | null
  /** Server CPU time over the run's wall time: 100% is one core. */
  serverCpuPercent: number | null
}

function queryFor(variant: Variant, index: number, dateFrom: string): string {
  const type = ACTION_TYPES[index % ACTION_TYPES.length]!
  const search = variant === 'search' ? `&search=${SEARCH_WORD}` : ''
  return `limit=25&status=completed&actionType=${type}&dateFrom=${dateFrom}${search}`
}

const pathTemplate = (variant: Variant, route: Route) =>
  `${route === 'api-key' ? '/api/activity-log' : '/bench/activity-log'}?limit=25&status=completed` +
  `&actionType=<1 of 8>&dateFrom=<90 days ago>${variant === 'search' ? `&search=${SEARCH_WORD}` : ''}`

/** 2 s warm-up, then the run; each request goes to the next of the users (a counter shared by all connections). */
async function load(
  base: string,
  pid: number,
  ready: ServerReady,
  variant: Variant,
  route: Route,
  dateFrom: string,
  withPostgres: boolean,
) {
  const makeRequests = () => {
    let next = 0
    return [
      {
        method: 'GET',
        setupRequest: () => {
          const index = next++ % ready.keys.length
          const user = ready.keys[index]!
          const path =
            route === 'api-key'
              ? `/api/activity-log?${queryFor(variant, index, dateFrom)}`
              : `/bench/activity-log?${queryFor(variant, index, dateFrom)}`
          const headers: Record<string, string> =
            route === 'api-key' ? { 'x-api-key': user.key } : { 'x-bench-user': user.userId }
          return { method: 'GET', path, headers }
        },
      },
    ]
  }
  if (warmup > 0) await autocannon({ url: base, connections, duration: warmup, requests: makeRequests() })
  const before = cpuSnapshot(pid, withPostgres)
  const result = await autocannon({ url: base, connections, duration, requests: makeRequests() })
  return { result, cpu: cpuSince(before, pid) }
}

/**
 * CPU time (user + system, ms) used so far by the server, by every process named `postgres` this machine
 * shows (a Postgres elsewhere shows none), and by this process (autocannon).
 */
interface CpuSnapshot {
  server: number | null
  postgres: number | null
  bench: number
}

function postgresCpuMs(): number | null {
  let total = 0
  let seen = 0
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return null
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
    } catch {
      continue
    }
    if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    total += (Number(fields[11]) + Number(fields[12])) * 10
    seen++
  }
  return seen ? total : null
}

function cpuSnapshot(pid: number, withPostgres: boolean): CpuSnapshot {
  const usage = process.cpuUsage()
  return {
    server: cpuMsOf(pid),
    postgres: withPostgres ? postgresCpuMs() : null,
    bench: (usage.user + usage.system) / 1000,
  }
}

function cpuSince(before: CpuSnapshot, pid: number): CpuSnapshot {
  const after = cpuSnapshot(pid, before.postgres !== null)
  const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b)
  return {
    server: diff(after.server, before.server),
    postgres: diff(after.postgres, before.postgres),
    bench: after.bench - before.bench,
  }
}

function measurementOf(
  variant: Variant,
  route: Route,
  { result, cpu }: { result: Result; cpu: CpuSnapshot },
): Measurement {
  const total = result.requests.total
  const perRequest = (ms: number | null) => (ms === null || total === 0 ? null : round(ms / total, 3))
  return {
    serverCpuMsPerRequest: perRequest(cpu.server),
    postgresCpuMsPerRequest: perRequest(cpu.postgres),
    benchCpuMsPerRequest: perRequest(cpu.bench),
    serverCpuPercent: cpu.server === null ? null : round((cpu.server / (duration * 1000)) * 100),
    variant,
    route,
    path: pathTemplate(variant, route),
    ...loadFigures(result),
  }
}

interface Sanity {
  variant: Variant
  userId: string
  query: string
  apiKeyStatus: number
  noAuthStatus: number
  sameBody: boolean
  returned: number
  total: number
}

interface Plan {
  label: string
  sql: string
  params: unknown[]
  plan: string
}

interface BackendResult {
  backend: Backend
  database: string
  rows: number
  users: number
  spawnToReadyMs: number
  seed: ServerReady['seed']
  sanity: Sanity[]
  export: {
    runs: ExportRun[]
    medianMs: number
    maxGrowthMb: number
    bytes: number
    rows: number
  }
  measurements: Measurement[]
  keyCost: {
    variant: Variant
    noAuth: number
    apiKey: number
    cost: number
    noAuthCpuMs: number | null
    apiKeyCpuMs: number | null
    cpuCost: number | null
  }[]
  explain: Plan[]
  stop: { code: number | null; signal: string | null; ms: number }
}

const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

async function runBackend(backend: Backend): Promise<BackendResult> {
  const rows = rowsOverride ?? DEFAULTS[backend].rows
  const users = usersOverride ?? DEFAULTS[backend].users
  let child: Child | undefined
  let dbName: string | undefined
  const env: Record<string, string> = {}
  try {
    if (backend === 'postgres') {
      dbName = `curio_bench_${randomBytes(6).toString('hex')}`
      await adminQuery(adminUrl, `create database "${dbName}"`)
      setDropOnSignal(dbName)
      const url = new URL(adminUrl)
      url.pathname = `/${dbName}`
      env.BENCH_CHILD_DB_URL = url.toString()
    }
    process.stdout.write(
      `\n${backend}: seeding ${rows.toLocaleString('en')} rows over ${users.toLocaleString('en')} users` +
        `${dbName ? ` in database ${dbName}` : ' (PGlite in memory)'}… `,
    )
    child = spawnNode({
      args: [
        'bench/activity-log-server.ts',
        '--db',
        backend,
        '--rows',
        String(rows),
        '--users',
        String(users),
        '--heavy-rows',
        String(HEAVY_ROWS),
        '--keys',
        String(KEYS),
      ],
      env,
      keepOutput: true,
    })
    const ready = await waitForReady<ServerReady>(child)
    const spawnToReadyMs = round(performance.now() - child.spawnedAt)
    child.discardOutput()
    process.stdout.write(`ready in ${(spawnToReadyMs / 1000).toFixed(1)} s\n`)
    const base = `http://127.0.0.1:${ready.port}`
    const dateFrom = new Date(Date.now() - 90 * DAY_MS).toISOString().slice(0, 10)

    // Both routes must answer the same thing for the same user before they are compared.
    const sanity: Sanity[] = []
    for (const variant of ['filters', 'search'] as const) {
      const user = ready.keys[0]!
      const query = queryFor(variant, 0, dateFrom)
      const withKey = await get(`${base}/api/activity-log?${query}`, { 'x-api-key': user.key })
      const noAuth = await get(`${base}/bench/activity-log?${query}`, { 'x-bench-user': user.userId })
      if (withKey.status !== 200 || noAuth.status !== 200) {
        throw new Error(
          `sanity check failed: ${withKey.status} ${withKey.body.slice(0, 300)} / ${noAuth.status} ` +
            noAuth.body.slice(0, 300),
        )
      }
      const listed = JSON.parse(withKey.body) as { activities: unknown[]; total: number }
      sanity.push({
        variant,
        userId: user.userId,
        query,
        apiKeyStatus: withKey.status,
        noAuthStatus: noAuth.status,
        sameBody: withKey.body === noAuth.body,
        returned: listed.activities.length,
        total: listed.total,
      })
    }

    process.stdout.write(`${backend}: CSV export of the heavy user, ${exportRuns} runs… `)
    const runs: ExportRun[] = []
    for (let run = 1; run <= exportRuns; run++) {
      runs.push(await exportOnce(run, `${base}/api/activity-log/export`, ready.heavyKey, child.pid))
      await sleep(250)
    }
    const exportSummary = {
      runs,
      medianMs: round(median(runs.map((run) => run.totalMs)), 1),
      maxGrowthMb: round(Math.max(...runs.map((run) => run.growthMb)), 1),
      bytes: runs[0]!.bytes,
      rows: runs[0]!.rows,
    }
    process.stdout.write(`median ${exportSummary.medianMs} ms\n`)
    for (const run of runs) {
      if (run.status !== 200 || run.rows !== EXPORT_ROWS) {
        throw new Error(
          `export run ${run.run}: status ${run.status}, ${run.rows} rows (expected ${EXPORT_ROWS})`,
        )
      }
    }

    const measurements: Measurement[] = []
    for (const variant of ['filters', 'search'] as const) {
      for (const route of ['no-auth', 'api-key'] as const) {
        process.stdout.write(
          `${backend}: ${variant} ${route}: ${warmup} s warm-up + ${duration} s, ${connections} connections… `,
        )
        const measurement = measurementOf(
          variant,
          route,
          await load(base, child.pid, ready, variant, route, dateFrom, backend === 'postgres'),
        )
        measurements.push(measurement)
        process.stdout.write(`${measurement.requestsPerSec} req/s, p99 ${measurement.latencyP99Ms} ms\n`)
      }
    }
    const keyCost = (['filters', 'search'] as const).map((variant) => {
      const noAuth = measurements.find((m) => m.variant === variant && m.route === 'no-auth')!
      const apiKey = measurements.find((m) => m.variant === variant && m.route === 'api-key')!
      // CPU per request of server and database together: a second view, less sensitive to other work.
      const cpu = (m: Measurement) =>
        m.serverCpuMsPerRequest === null ? null : m.serverCpuMsPerRequest + (m.postgresCpuMsPerRequest ?? 0)
      const noAuthCpu = cpu(noAuth)
      const apiKeyCpu = cpu(apiKey)
      return {
        variant,
        noAuth: noAuth.requestsPerSec,
        apiKey: apiKey.requestsPerSec,
        cost: round(1 - apiKey.requestsPerSec / noAuth.requestsPerSec, 4),
        noAuthCpuMs: noAuthCpu === null ? null : round(noAuthCpu, 3),
        apiKeyCpuMs: apiKeyCpu === null ? null : round(apiKeyCpu, 3),
        cpuCost: noAuthCpu === null || apiKeyCpu === null ? null : round(1 - noAuthCpu / apiKeyCpu, 4),
      }
    })

    const explain: Plan[] = []
    if (values.explain) {
      // Requests still queued in the server when autocannon stopped finish first.
      await sleep(3000)
      const user = ready.keys[0]!
      const asks: { label: string; url: string; userId: string }[] = [
        {
          label: 'list, filters',
          url: `${base}/bench/explain?kind=list&${queryFor('filters', 0, dateFrom)}`,
          userId: user.userId,
        },
        {
          label: 'list, filters + search',
          url: `${base}/bench/explain?kind=list&${queryFor('search', 0, dateFrom)}`,
          userId: user.userId,
        },
        { label: 'export, heavy user', url: `${base}/bench/explain?kind=export`, userId: ready.heavyUserId },
      ]
      for (const ask of asks) {
        const answer = await get(ask.url, { 'x-bench-user': ask.userId })
        if (answer.status !== 200) throw new Error(`explain ${ask.label}: ${answer.status} ${answer.body}`)
        const { plans } = JSON.parse(answer.body) as { plans: Omit<Plan, 'label'>[] }
        for (const plan of plans) explain.push({ label: ask.label, ...plan })
      }
    }

    const stopped = await stopChild(child)
    return {
      backend,
      database: dbName ?? 'PGlite in memory',
      rows,
      users,
      spawnToReadyMs,
      seed: ready.seed,
      sanity,
      export: exportSummary,
      measurements,
      keyCost,
      explain,
      stop: { code: stopped.code, signal: stopped.signal, ms: round(stopped.ms) },
    }
  } finally {
    await killChild(child)
    if (dbName) {
      await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
    }
  }
}

const postgres = await postgresInfo()
const wanted = values.db ?? (postgres ? 'both' : 'embedded')
const backends: Backend[] = wanted === 'both' ? ['postgres', 'embedded'] : [wanted as Backend]
if (backends.includes('postgres') && !postgres) {
  throw new Error(`--db ${wanted}: no Postgres answers at ${shownUrl} (set BENCH_DATABASE_URL)`)
}

const machineBefore = machine()
const results: BackendResult[] = []
for (const backend of backends) results.push(await runBackend(backend))
const loadAverageAtEnd = machine().loadAverage

const verdict = (ok: boolean) => (ok ? 'ok' : 'MISS')
const mb = (bytes: number) => round(bytes / 1024 / 1024, 2)

process.stdout.write(
  `\nCurio activity log: autocannon, ${connections} connections, ${warmup} s warm-up + ${duration} s per target, ` +
    `requests cycling over ${KEYS} users\n` +
    `${machineBefore.node}, ${machineBefore.platform}, ${machineBefore.cpus} CPU(s), ${machineBefore.cpuModel}, ` +
    `${machineBefore.totalMemMb} MB RAM; load average at start ${machineBefore.loadAverage.join(' / ')}, ` +
    `at end ${loadAverageAtEnd.join(' / ')}\n` +
    (postgres
      ? `Postgres ${postgres.version} at ${shownUrl} (shared_buffers ${postgres.sharedBuffers}, ` +
        `max_connections ${postgres.maxConnections})\n`
      : 'no Postgres answered\n') +
    'autocannon and the export client run in this process; the server (and PGlite) in a child process; ' +
    'Postgres shares the machine.\n',
)

for (const result of results) {
  const { seed } = result
  process.stdout.write(
    `\n== ${result.backend}: ${result.database}, ${seed.server.split(' on ')[0]}` +
      `${seed.poolSize ? `, pool of ${seed.poolSize} connections` : ''}\n` +
      `data: ${seed.rows.toLocaleString('en')} activity rows over ${seed.users.toLocaleString('en')} users ` +
      `(one heavy user with ${seed.heavyRows.toLocaleString('en')}, the rest ~${Math.round(
        (seed.rows - seed.heavyRows) / (seed.users - 1),
      )} each, over 365 days), ${seed.works.toLocaleString('en')} works, ${KEYS + 1} API keys; ` +
      `activity_log with indexes ${seed.tableMb} MB\n` +
      `seeding: migrate ${seed.migrateMs} ms, users + works ${seed.usersAndWorksMs} ms, activity rows ` +
      `${seed.activityMs} ms, VACUUM ANALYZE ${seed.vacuumAnalyzeMs} ms, API keys ${seed.apiKeysMs} ms; ` +
      `spawn to ready ${result.spawnToReadyMs} ms\n`,
  )
  for (const check of result.sanity) {
    process.stdout.write(
      `check (${check.variant}, user ${check.userId}): ${check.returned} of ${check.total} matching rows; ` +
        `api-key ${check.apiKeyStatus}, no-auth ${check.noAuthStatus}, ` +
        `${check.sameBody ? 'identical bodies' : 'BODIES DIFFER'}\n`,
    )
  }
  const onPostgres = result.backend === 'postgres'
  process.stdout.write('\n')
  process.stdout.write(
    `${table([
      [
        'query',
        'route',
        'req/s (avg)',
        'latency avg ms',
        'p50 ms',
        'p99 ms',
        'max ms',
        'requests',
        'non-2xx',
        'errors',
        'server CPU ms/req',
        'server CPU %',
        'postgres CPU ms/req',
        `p99 < ${TARGET_P99_MS} ms`,
      ],
      ...result.measurements.map((m) => [
        m.variant,
        m.route === 'api-key' ? 'GET /api/activity-log (x-api-key)' : 'GET /bench/activity-log (no auth)',
        m.requestsPerSec,
        m.latencyAvgMs,
        m.latencyP50Ms,
        m.latencyP99Ms,
        m.latencyMaxMs,
        m.total,
        m.non2xx,
        m.errors + m.timeouts,
        m.serverCpuMsPerRequest ?? 'n/a',
        m.serverCpuPercent ?? 'n/a',
        m.postgresCpuMsPerRequest ?? 'n/a',
        m.route === 'api-key' && onPostgres ? verdict(m.latencyP99Ms < TARGET_P99_MS) : 'n/a',
      ]),
    ])}\n`,
  )
  process.stdout.write('\n')
  process.stdout.write(
    `${table([
      [
        'query',
        'no-auth req/s',
        'api-key req/s',
        'API-key cost',
        `cost < ${TARGET_KEY_COST * 100}%`,
        'CPU ms/req no-auth',
        'CPU ms/req api-key',
        'CPU cost',
      ],
      ...result.keyCost.map((c) => [
        c.variant,
        c.noAuth,
        c.apiKey,
        `${(c.cost * 100).toFixed(1)}%`,
        verdict(c.cost < TARGET_KEY_COST),
        c.noAuthCpuMs ?? 'n/a',
        c.apiKeyCpuMs ?? 'n/a',
        c.cpuCost === null ? 'n/a' : `${(c.cpuCost * 100).toFixed(1)}%`,
      ]),
    ])}\n`,
  )
  process.stdout.write(
    `\nCSV export, heavy user (GET /api/activity-log/export, x-api-key): ${result.export.rows.toLocaleString('en')} ` +
      `rows, ${result.export.bytes.toLocaleString('en')} bytes (${mb(result.export.bytes)} MB)\n\n`,
  )
  process.stdout.write(
    `${table([
      ['run', 'first byte ms', 'last byte ms', 'RSS before MB', 'peak RSS MB', 'growth MB', 'RSS samples'],
      ...result.export.runs.map((run) => [
        run.run,
        run.firstByteMs,
        run.totalMs,
        run.rssBeforeMb,
        run.peakRssMb,
        run.growthMb,
        run.samples,
      ]),
    ])}\n`,
  )
  process.stdout.write(
    `median time to last byte ${result.export.medianMs} ms` +
      `${onPostgres ? ` (target < ${TARGET_EXPORT_MS} ms: ${verdict(result.export.medianMs < TARGET_EXPORT_MS)})` : ''}; ` +
      `largest RSS growth ${result.export.maxGrowthMb} MB` +
      `${onPostgres ? ` (target < ${TARGET_EXPORT_GROWTH_MB} MB: ${verdict(result.export.maxGrowthMb < TARGET_EXPORT_GROWTH_MB)})` : ''}\n`,
  )
  if (result.explain.length) {
    process.stdout.write(
      `\nEXPLAIN (ANALYZE, BUFFERS) on ${result.backend}, statements as the service sends them\n`,
    )
    for (const plan of result.explain) {
      process.stdout.write(
        `\n-- ${plan.label}\n${plan.sql}\n-- params ${JSON.stringify(plan.params)}\n${plan.plan}\n`,
      )
    }
  }
  if (result.stop.code !== 0) {
    process.stdout.write(`note: the server exited with ${result.stop.code ?? result.stop.signal}\n`)
  }
}

const postgresResult = results.find((result) => result.backend === 'postgres')
if (postgresResult) {
  const filters = postgresResult.measurements.find((m) => m.variant === 'filters' && m.route === 'api-key')!
  const search = postgresResult.measurements.find((m) => m.variant === 'search' && m.route === 'api-key')!
  const cost = (variant: Variant) => postgresResult.keyCost.find((c) => c.variant === variant)!.cost
  process.stdout.write('\nTargets (issue 3), Postgres\n\n')
  process.stdout.write(
    `${table([
      ['target', 'measured', 'verdict'],
      [
        `list with filters, API key: p99 < ${TARGET_P99_MS} ms`,
        `${filters.latencyP99Ms} ms`,
        verdict(filters.latencyP99Ms < TARGET_P99_MS),
      ],
      [
        `list with filters + search, API key: p99 < ${TARGET_P99_MS} ms`,
        `${search.latencyP99Ms} ms`,
        verdict(search.latencyP99Ms < TARGET_P99_MS),
      ],
      [
        `API-key cost, filters: < ${TARGET_KEY_COST * 100}%`,
        `${(cost('filters') * 100).toFixed(1)}%`,
        verdict(cost('filters') < TARGET_KEY_COST),
      ],
      [
        `API-key cost, filters + search: < ${TARGET_KEY_COST * 100}%`,
        `${(cost('search') * 100).toFixed(1)}%`,
        verdict(cost('search') < TARGET_KEY_COST),
      ],
      [
        `export of ${EXPORT_ROWS} rows: < ${TARGET_EXPORT_MS} ms (median)`,
        `${postgresResult.export.medianMs} ms`,
        verdict(postgresResult.export.medianMs < TARGET_EXPORT_MS),
      ],
      [
        `export memory growth < ${TARGET_EXPORT_GROWTH_MB} MB (largest)`,
        `${postgresResult.export.maxGrowthMb} MB`,
        verdict(postgresResult.export.maxGrowthMb < TARGET_EXPORT_GROWTH_MB),
      ],
    ])}\n`,
  )
}
process.stdout.write(
  '\nreq/s = autocannon average over the run; p99 = 99th percentile latency seen by autocannon.\n' +
    'API-key cost = 1 - (api-key req/s / no-auth req/s), both routes in the same run, same users, same queries;\n' +
    '  the no-auth route is bench-only: same schemas, reconciler pass and list call, no authentication.\n' +
    'CPU ms/req = user + system CPU time over the measured run / requests: server process (holding PGlite\n' +
    '  when embedded) and every local postgres process (other clients of that server count too); CPU cost =\n' +
    '  1 - (no-auth CPU/req / api-key CPU/req), server + postgres: less sensitive to other work on the machine.\n' +
    'Export: time from request to last byte, body read as a stream and dropped; growth = highest VmRSS of the\n' +
    '  server (sampled every 5 ms) minus its VmRSS just before the request.\n',
)

const path = writeResults('activity-log', {
  benchmark: 'activity-log',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd,
  postgres: postgres ? { ...postgres, url: shownUrl } : null,
  settings: {
    connections,
    durationSec: duration,
    warmupSec: warmup,
    exportRuns,
    keys: KEYS,
    heavyRows: HEAVY_ROWS,
  },
  targets: {
    p99Ms: TARGET_P99_MS,
    apiKeyCostBelow: TARGET_KEY_COST,
    exportMs: TARGET_EXPORT_MS,
    exportGrowthMb: TARGET_EXPORT_GROWTH_MB,
    on: 'postgres',
  },
  backends: results,
})
process.stdout.write(`\nwrote ${path}\n`)
