/**
 * The admin clients API under load, on Postgres with 100,000 clients: p99 of the list with a search, of the
 * advanced search with four filters, and of the stats, at 20 connections, as an admin session.
 *
 * bench/admin-clients-server.ts runs in a child process on a fresh database `curio_bench_<random>` on
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end and on
 * Ctrl-C: it seeds users and client profiles (set-based SQL), VACUUM ANALYZE, builds the real directory
 * app, signs in as an admin and listens. autocannon runs here, each request with the next of a set of
 * varied values (2 s warm-up, then the run).
 *
 *   npm run bench:admin-clients [-- --clients 100000] [-- --duration 10] [-- --warmup 2]
 *     [-- --connections 20] [-- --explain]
 */

import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import { INDUSTRY_WORDS, SEARCH_FRAGMENTS, type ServerReady } from './admin-clients-data.ts'
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
  round,
  spawnNode,
  stopChild,
  table,
  waitForReady,
  writeResults,
} from './lib.ts'

const TARGET_LIST_P99_MS = 50
const TARGET_STATS_P99_MS = 200

const { values } = parseArgs({
  options: {
    clients: { type: 'string' },
    ...LOAD_OPTIONS,
    explain: { type: 'boolean', default: false },
  },
  strict: true,
})
const clients = Number(values.clients ?? 100_000)
checkWholeNumbers([['--clients', clients, 1]])
const { duration, warmup, connections } = loadSettings(values, { connections: 20 })

const { adminUrl, shownUrl } = benchDatabaseUrl()

const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

type Scenario =
  | 'list-search'
  | 'advanced-4-filters'
  | 'stats'
  | 'list-search, cold count'
  | 'advanced, cold count'

/**
 * The targets are judged on the routes as an admin uses them, where a total once counted is reused until
 * the table changes (src/db/count-cache.ts). The two cold scenarios show what a count costs when nothing
 * can be reused: every request carries a filter value of its own that selects the same rows (a creation
 * bound far in the future, a submissions ceiling above every client), so every request counts again.
 * They are reported, not judged.
 */
const FAR_FUTURE_MS = Date.parse('2100-01-01T00:00:00Z')

const SCENARIOS: {
  name: Scenario
  target?: number
  template: string
  path: (index: number) => string
}[] = [
  {
    name: 'list-search',
    target: TARGET_LIST_P99_MS,
    template: '/api/admin/clients?search=<1 of 20 fragments>&limit=10&page=1',
    path: (index) =>
      `/api/admin/clients?search=${SEARCH_FRAGMENTS[index % SEARCH_FRAGMENTS.length]}&limit=10&page=1`,
  },
  {
    name: 'advanced-4-filters',
    target: TARGET_LIST_P99_MS,
    template:
      '/api/admin/clients/advanced-search?status=active&plan=premium&accountType=business' +
      '&industrySearch=<1 of 16 words>&sortBy=createdAt&sortOrder=desc',
    path: (index) =>
      '/api/admin/clients/advanced-search?status=active&plan=premium&accountType=business' +
      `&industrySearch=${INDUSTRY_WORDS[index % INDUSTRY_WORDS.length]}&sortBy=createdAt&sortOrder=desc`,
  },
  {
    name: 'stats',
    target: TARGET_STATS_P99_MS,
    template: '/api/admin/clients/stats',
    path: () => '/api/admin/clients/stats',
  },
  {
    name: 'list-search, cold count',
    template:
      '/api/admin/clients/dashboard?search=<1 of 20 fragments>&createdBefore=<a new instant in 2100>&limit=10',
    path: (index) =>
      `/api/admin/clients/dashboard?search=${SEARCH_FRAGMENTS[index % SEARCH_FRAGMENTS.length]}` +
      `&createdBefore=${new Date(FAR_FUTURE_MS + index * 1000).toISOString()}&limit=10&page=1`,
  },
  {
    name: 'advanced, cold count',
    template:
      '/api/admin/clients/advanced-search?status=active&plan=premium&accountType=business' +
      '&industrySearch=<1 of 16 words>&maxSubmissions=<a new value above every client>&sortBy=createdAt',
    path: (index) =>
      '/api/admin/clients/advanced-search?status=active&plan=premium&accountType=business' +
      `&industrySearch=${INDUSTRY_WORDS[index % INDUSTRY_WORDS.length]}` +
      `&maxSubmissions=${1_000_000 + index}&sortBy=createdAt&sortOrder=desc`,
  },
]

interface Measurement extends LoadFigures {
  scenario: Scenario
  path: string
  serverCpuMsPerRequest: number | null
  targetP99Ms: number | null
  pass: boolean | null
}

async function load(base: string, cookie: string, path: (index: number) => string, seconds: number) {
  let next = 0
  return autocannon({
    url: base,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        setupRequest: () => ({ method: 'GET', path: path(next++), headers: { cookie } }),
      },
    ],
  })
}

function measurementOf(
  scenario: (typeof SCENARIOS)[number],
  result: Result,
  cpuMs: number | null,
): Measurement {
  const total = result.requests.total
  const p99 = round(result.latency.p99, 2)
  return {
    scenario: scenario.name,
    path: scenario.template,
    ...loadFigures(result),
    serverCpuMsPerRequest: cpuMs === null || total === 0 ? null : round(cpuMs / total, 3),
    targetP99Ms: scenario.target ?? null,
    pass:
      scenario.target === undefined
        ? null
        : p99 < scenario.target && result.non2xx === 0 && result.errors === 0 && total > 0,
  }
}

interface Plan {
  kind: string
  sql: string
  params: unknown[]
  plan: string
}

async function main() {
  const info = machine()
  console.log(
    `admin clients benchmark: ${clients.toLocaleString('en')} clients on Postgres (${shownUrl}), ` +
      `${connections} connections, ${warmup} s warm-up + ${duration} s per scenario`,
  )
  console.log(`node ${info.node}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverage.join(' ')}`)

  let child: Child | undefined
  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  let created = false
  try {
    await adminQuery(adminUrl, `create database "${dbName}"`)
    created = true
    setDropOnSignal(dbName)
    const url = new URL(adminUrl)
    url.pathname = `/${dbName}`
    process.stdout.write(`seeding ${clients.toLocaleString('en')} clients in database ${dbName}… `)
    child = spawnNode({
      args: ['bench/admin-clients-server.ts', '--clients', String(clients)],
      env: { BENCH_CHILD_DB_URL: url.toString() },
      keepOutput: true,
    })
    const ready = await waitForReady<ServerReady>(child)
    const spawnToReadyMs = round(performance.now() - child.spawnedAt)
    child.discardOutput()
    process.stdout.write(`ready in ${(spawnToReadyMs / 1000).toFixed(1)} s\n`)
    const s = ready.seed
    console.log(
      `Postgres ${s.server}; seed ${s.seedMs} ms, vacuum analyze ${s.vacuumAnalyzeMs} ms, ` +
        `client_profiles ${s.tableMb} MB with indexes, pool ${s.poolSize} connections`,
    )
    const base = `http://127.0.0.1:${ready.port}`

    // Every scenario must answer 200 with data before it is measured.
    const sanity: { scenario: Scenario; path: string; status: number; total: number | null }[] = []
    for (const scenario of SCENARIOS) {
      const path = scenario.path(0)
      const response = await fetch(`${base}${path}`, { headers: { cookie: ready.cookie } })
      const body = await response.text()
      if (response.status !== 200) {
        throw new Error(`sanity check ${path}: ${response.status} ${body.slice(0, 300)}`)
      }
      const parsed = JSON.parse(body) as {
        meta?: { total: number }
        pagination?: { total: number }
        data?: {
          overview?: { totalClients: number }
          meta?: { total: number }
          pagination?: { total: number }
        }
        overview?: { totalClients: number }
      }
      const total =
        parsed.meta?.total ??
        parsed.pagination?.total ??
        parsed.data?.meta?.total ??
        parsed.data?.pagination?.total ??
        parsed.data?.overview?.totalClients ??
        parsed.overview?.totalClients ??
        null
      sanity.push({ scenario: scenario.name, path, status: response.status, total })
    }
    console.log('\nsanity (first value of each cycle)')
    console.log(
      table([
        ['scenario', 'path', 'status', 'total'],
        ...sanity.map((row) => [row.scenario, row.path, row.status, row.total ?? '?']),
      ]),
    )

    const explain: Plan[] = []
    // Before the load, so nothing else runs while the statements are captured and explained.
    if (values.explain) {
      const asks = [
        { kind: 'list', query: `kind=list&search=${SEARCH_FRAGMENTS[0]}` },
        { kind: 'advanced', query: `kind=advanced&industrySearch=${INDUSTRY_WORDS[0]}` },
        { kind: 'stats', query: 'kind=stats' },
      ]
      for (const ask of asks) {
        const response = await fetch(`${base}/bench/explain?${ask.query}`)
        const body = await response.text()
        if (response.status !== 200)
          throw new Error(`explain ${ask.kind}: ${response.status} ${body.slice(0, 300)}`)
        const { plans } = JSON.parse(body) as { plans: Omit<Plan, 'kind'>[] }
        for (const plan of plans) {
          explain.push({ kind: ask.kind, ...plan })
          console.log(`\n=== EXPLAIN (ANALYZE, BUFFERS): ${ask.kind} ===`)
          console.log(plan.sql)
          console.log(`params: ${JSON.stringify(plan.params)}`)
          console.log(plan.plan)
        }
      }
    }

    const measurements: Measurement[] = []
    for (const scenario of SCENARIOS) {
      process.stdout.write(`${scenario.name}: warm-up ${warmup} s, run ${duration} s… `)
      if (warmup > 0) await load(base, ready.cookie, scenario.path, warmup)
      const cpuBefore = cpuMsOf(child.pid)
      const result = await load(base, ready.cookie, scenario.path, duration)
      const cpuAfter = cpuMsOf(child.pid)
      const measurement = measurementOf(
        scenario,
        result,
        cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      )
      measurements.push(measurement)
      process.stdout.write(`p99 ${measurement.latencyP99Ms} ms\n`)
    }

    console.log(`\nresults (${connections} connections, ${duration} s each)`)
    console.log(
      table([
        [
          'scenario',
          'req/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'requests',
          'non-2xx',
          'errors',
          'server CPU ms/req',
        ],
        ...measurements.map((m) => [
          m.scenario,
          m.requestsPerSec,
          m.latencyP50Ms,
          m.latencyP99Ms,
          m.latencyMaxMs,
          m.total,
          m.non2xx,
          m.errors,
          m.serverCpuMsPerRequest ?? '?',
        ]),
      ]),
    )
    console.log('\nverdicts')
    for (const m of measurements) {
      const why = m.non2xx || m.errors ? ` (${m.non2xx} non-2xx, ${m.errors} errors)` : ''
      if (m.pass === null) {
        console.log(`  info  ${m.scenario}: p99 ${m.latencyP99Ms} ms (not judged)${why}`)
        continue
      }
      console.log(
        `  ${m.pass ? 'PASS' : 'FAIL'}  ${m.scenario}: p99 ${m.latencyP99Ms} ms, target < ${m.targetP99Ms} ms${why}`,
      )
    }

    const stop = await stopChild(child)
    child = undefined
    const path = writeResults('admin-clients', {
      when: new Date().toISOString(),
      machine: info,
      database: shownUrl,
      clients,
      connections,
      warmupSeconds: warmup,
      durationSeconds: duration,
      spawnToReadyMs,
      seed: ready.seed,
      sanity,
      measurements,
      explain,
      stop: { code: stop.code, signal: stop.signal, ms: round(stop.ms) },
    })
    console.log(`\nwritten to ${path}`)
    if (measurements.some((m) => !m.pass)) process.exitCode = 1
  } finally {
    await killChild(child)
    if (created) {
      await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
    }
  }
}

await main()
