/**
 * The directory's content on Postgres with 100,000 items: the public shelf (`GET /api/featured-items`)
 * and the public list (`GET /api/items?limit=20`) against a bare node:http server answering the same
 * bytes, at 50 connections; and the admin item list with search at 20 connections, as an admin session.
 *
 * bench/content-server.ts runs in a child process on a fresh database `curio_bench_<random>` on
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end and on
 * Ctrl-C: it seeds 40 categories, 200 tags, 2,000 companies, the items with 0–3 tags each and 12 featured
 * entries (set-based SQL), VACUUM ANALYZE, builds the real directory app (LOG_LEVEL=warn, rate limits
 * bypassed for 127.0.0.1), signs in as an admin and listens. Once Curio's public answers are warm, each
 * is recorded and bench/bare-server.ts serves those exact bytes and headers from another child. Then
 * autocannon runs here: for each public path the bare server, then Curio (2 s warm-up each, then the
 * run); then the admin list, each request with the next of a set of varied searches, and its plain
 * first page.
 *
 *   npm run bench:content [-- --items 100000] [-- --duration 10] [-- --warmup 2] [-- --connections 50]
 *     [-- --admin-connections 20] [-- --only public|admin] [-- --explain]
 */

import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import pg from 'pg'
import type { BareRoute } from './bare-server.ts'
import { ADMIN_SEARCHES, EXPLAIN_COMMON, EXPLAIN_RARE, type ServerReady } from './content-data.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  cpuBetween,
  cpuMsOf,
  differences,
  dropDatabaseOnSignal,
  dropScratchDatabase,
  freePort,
  getRecorded,
  killChild,
  LOAD_OPTIONS,
  type LoadFigures,
  loadFigures,
  loadSettings,
  machine,
  postgresCpu,
  type Recorded,
  round,
  spawnNode,
  stopChild,
  table,
  waitFor200,
  waitForReady,
  withoutHopByHop,
  writeResults,
} from './lib.ts'

const TARGET_RATIO = 0.6
const TARGET_PUBLIC_P99_MS = 10
const TARGET_ADMIN_P99_MS = 50
const PUBLIC_PATHS = ['/api/featured-items', '/api/items?limit=20'] as const

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    ...LOAD_OPTIONS,
    'admin-connections': { type: 'string' },
    only: { type: 'string' },
    explain: { type: 'boolean', default: false },
  },
  strict: true,
})
const itemCount = Number(values.items ?? 100_000)
const { duration, warmup, connections } = loadSettings(values, { connections: 50 })
const adminConnections = Number(values['admin-connections'] ?? 20)
checkWholeNumbers([
  ['--items', itemCount, 1],
  ['--admin-connections', adminConnections, 1],
])
if (values.only !== undefined && values.only !== 'public' && values.only !== 'admin') {
  throw new Error('--only must be public or admin')
}
const runPublic = values.only !== 'admin'
const runAdmin = values.only !== 'public'

const { adminUrl, shownUrl } = benchDatabaseUrl()

const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

interface Measurement extends LoadFigures {
  scenario: string
  server: 'bare' | 'curio'
  path: string
  connections: number
  serverCpuMsPerRequest: number | null
  postgresCpuMsPerRequest: number | null
}

function measurementOf(
  base: Pick<Measurement, 'scenario' | 'server' | 'path' | 'connections'>,
  result: Result,
  serverCpuMs: number | null,
  postgresCpuMs: number | null,
): Measurement {
  const total = result.requests.total
  const perRequest = (ms: number | null) => (ms === null || total === 0 ? null : round(ms / total, 3))
  return {
    ...base,
    ...loadFigures(result),
    serverCpuMsPerRequest: perRequest(serverCpuMs),
    postgresCpuMsPerRequest: perRequest(postgresCpuMs),
  }
}

const clean = (m: Measurement) => m.non2xx === 0 && m.errors === 0 && m.total > 0

interface Plan {
  kind: string
  sql: string
  params: unknown[]
  plan: string
}

interface AdminScenario {
  name: string
  template: string
  path: (index: number) => string
}

const ADMIN_SCENARIOS: AdminScenario[] = [
  {
    name: 'admin list, search',
    template: `/api/admin/items?<1 of ${ADMIN_SEARCHES.length} searches>&limit=10&page=1`,
    path: (index) =>
      `/api/admin/items?${ADMIN_SEARCHES[index % ADMIN_SEARCHES.length]!.query}&limit=10&page=1`,
  },
  {
    name: 'admin list, first page',
    template: '/api/admin/items?limit=10&page=1',
    path: () => '/api/admin/items?limit=10&page=1',
  },
]

async function main() {
  const info = machine()
  const version = codeVersion()
  console.log(
    `content benchmark: ${itemCount.toLocaleString('en')} items on Postgres (${shownUrl}); public reads at ` +
      `${connections} connections against a bare node:http server, the admin list at ${adminConnections}; ` +
      `${warmup} s warm-up + ${duration} s per run`,
  )
  console.log(
    `node ${info.node}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverage.join(' ')}; ` +
      `code ${version.head} (${version.uncommittedSrcFiles} files changed under src/)`,
  )

  let curio: Child | undefined
  let bare: Child | undefined
  let monitor: pg.Client | undefined
  const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-content-'))
  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  let created = false
  try {
    await adminQuery(adminUrl, `create database "${dbName}"`)
    created = true
    setDropOnSignal(dbName)
    const url = new URL(adminUrl)
    url.pathname = `/${dbName}`
    process.stdout.write(`seeding ${itemCount.toLocaleString('en')} items in database ${dbName}… `)
    curio = spawnNode({
      args: ['bench/content-server.ts', '--items', String(itemCount)],
      env: { BENCH_CHILD_DB_URL: url.toString() },
      keepOutput: true,
    })
    const ready = await waitForReady<ServerReady>(curio)
    const spawnToReadyMs = round(performance.now() - curio.spawnedAt)
    curio.discardOutput()
    process.stdout.write(`ready in ${(spawnToReadyMs / 1000).toFixed(1)} s\n`)
    const s = ready.seed
    console.log(
      `Postgres ${s.server}; migrate ${s.migrateMs} ms, seed ${s.seedMs} ms, vacuum analyze ` +
        `${s.vacuumAnalyzeMs} ms; items ${s.itemsTableMb} MB with indexes (search GIN ${s.searchIndexMb} MB), ` +
        `pool ${s.poolSize} connections`,
    )
    console.log(
      `seeded: ${Object.entries(s.statuses)
        .map(([status, count]) => `${count} ${status}`)
        .join(', ')}; ${s.categories} categories, ${s.tags} tags, ${s.companies} companies, ` +
        `${s.itemTags} item tags, ${s.featured} featured entries`,
    )
    const base = `http://127.0.0.1:${ready.port}`
    monitor = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 })
    monitor.on('error', () => {})
    await monitor.connect()
    const readPostgresCpu = postgresCpu(monitor, dbName)

    const curioPid = curio.pid
    /** One autocannon run (after its warm-up), with the CPU the server and Postgres spent on it. */
    async function measure(
      label: Pick<Measurement, 'scenario' | 'server' | 'path' | 'connections'>,
      pid: number,
      options: Parameters<typeof autocannon>[0],
      withPostgres: boolean,
    ): Promise<Measurement> {
      process.stdout.write(
        `${label.scenario}, ${label.server}: warm-up ${warmup} s, run ${duration} s, ` +
          `${label.connections} connections… `,
      )
      if (warmup > 0) await autocannon({ ...options, duration: warmup })
      const cpuBefore = cpuMsOf(pid)
      const pgBefore = withPostgres ? await readPostgresCpu() : null
      const result = await autocannon({ ...options, duration })
      const cpuAfter = cpuMsOf(pid)
      const pgAfter = withPostgres ? await readPostgresCpu() : null
      const m = measurementOf(
        label,
        result,
        cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
        cpuBetween(pgBefore, pgAfter),
      )
      process.stdout.write(`${m.requestsPerSec} req/s, p99 ${m.latencyP99Ms} ms\n`)
      return m
    }

    // Public reads: recorded once warm (served from the content cache), then bare and Curio in turn.
    const publicMeasurements: Measurement[] = []
    const recorded: Record<string, Recorded> = {}
    const bareMatchesCurio: Record<string, string[]> = {}
    if (runPublic) {
      const routes: Record<string, BareRoute> = {}
      for (const path of PUBLIC_PATHS) {
        for (let i = 0; i < 5; i++) await getRecorded(`${base}${path}`)
        const answer = await getRecorded(`${base}${path}`)
        if (answer.status !== 200) {
          throw new Error(`GET ${path}: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`)
        }
        recorded[path] = answer
        routes[path] = {
          status: answer.status,
          headers: withoutHopByHop(answer.headers),
          bodyBase64: answer.body.toString('base64'),
        }
      }
      const routesFile = join(scratch, 'routes.json')
      writeFileSync(routesFile, JSON.stringify(routes, null, 2))
      const barePort = await freePort()
      bare = spawnNode({ args: ['bench/bare-server.ts', String(barePort), routesFile] })
      const bareBase = `http://127.0.0.1:${barePort}`
      await waitFor200(
        bare,
        PUBLIC_PATHS.map((path) => `${bareBase}${path}`),
      )
      bare.discardOutput()
      console.log('\npublic answers recorded from Curio (warm) and served by the bare server')
      const rows: (string | number)[][] = [['path', 'status', 'body bytes', 'content-type', 'bare answer']]
      for (const path of PUBLIC_PATHS) {
        const answer = recorded[path]!
        const diff = differences(answer, await getRecorded(`${bareBase}${path}`))
        bareMatchesCurio[path] = diff
        const parsed = JSON.parse(answer.body.toString('utf8')) as {
          data?: unknown[]
          meta?: { total: number }
        }
        rows.push([
          `${path} (${parsed.data?.length ?? '?'} entries${parsed.meta ? ` of ${parsed.meta.total}` : ''})`,
          answer.status,
          answer.body.length,
          String(answer.headers['content-type'] ?? ''),
          diff.length ? `DIFFERS: ${diff.join('; ')}` : 'identical (hop-by-hop headers aside)',
        ])
      }
      console.log(table(rows))
      console.log('')
      for (const path of PUBLIC_PATHS) {
        for (const [server, serverBase, pid] of [
          ['bare', bareBase, bare.pid],
          ['curio', base, curioPid],
        ] as const) {
          publicMeasurements.push(
            await measure(
              { scenario: `GET ${path}`, server, path, connections },
              pid,
              { url: `${serverBase}${path}`, connections },
              server === 'curio',
            ),
          )
        }
      }
      await stopChild(bare)
      bare = undefined
    }

    // The admin list: every search answers 200 before any load, with its total.
    const sanity: { label: string; path: string; status: number; total: number | null }[] = []
    const explain: Plan[] = []
    const adminMeasurements: Measurement[] = []
    if (runAdmin) {
      const checks = [
        ...ADMIN_SEARCHES.map((search, index) => ({
          label: search.label,
          path: ADMIN_SCENARIOS[0]!.path(index),
        })),
        { label: 'first page', path: ADMIN_SCENARIOS[1]!.path(0) },
      ]
      for (const check of checks) {
        const response = await fetch(`${base}${check.path}`, { headers: { cookie: ready.cookie } })
        const body = await response.text()
        if (response.status !== 200) {
          throw new Error(`sanity check ${check.path}: ${response.status} ${body.slice(0, 300)}`)
        }
        const parsed = JSON.parse(body) as { meta?: { total: number } }
        sanity.push({ ...check, status: response.status, total: parsed.meta?.total ?? null })
      }
      console.log(`\nadmin list: the searches each request cycles through (total of ${itemCount} items)`)
      console.log(
        table([
          ['search', 'path', 'status', 'matches', 'share'],
          ...sanity.map((row) => [
            row.label,
            row.path.replace('/api/admin/items?', '').replace('&limit=10&page=1', ''),
            row.status,
            row.total ?? '?',
            row.total === null ? '?' : `${((row.total / itemCount) * 100).toFixed(2)}%`,
          ]),
        ]),
      )

      // Before the load, so nothing else runs while the statements are captured and explained.
      if (values.explain) {
        const asks = [
          { kind: `search "${EXPLAIN_COMMON}" (common)`, query: `search=${EXPLAIN_COMMON}` },
          { kind: `search "${EXPLAIN_RARE}" (rare)`, query: `search=${EXPLAIN_RARE}` },
          { kind: 'first page, no search', query: '' },
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

      console.log('')
      for (const scenario of ADMIN_SCENARIOS) {
        let next = 0
        adminMeasurements.push(
          await measure(
            {
              scenario: scenario.name,
              server: 'curio',
              path: scenario.template,
              connections: adminConnections,
            },
            curioPid,
            {
              url: base,
              connections: adminConnections,
              requests: [
                {
                  method: 'GET',
                  setupRequest: () => ({
                    method: 'GET',
                    path: scenario.path(next++),
                    headers: { cookie: ready.cookie },
                  }),
                },
              ],
            },
            true,
          ),
        )
      }
    }

    // Results.
    const ratios = PUBLIC_PATHS.filter(() => runPublic).map((path) => {
      const bareRun = publicMeasurements.find((m) => m.path === path && m.server === 'bare')!
      const curioRun = publicMeasurements.find((m) => m.path === path && m.server === 'curio')!
      const ratio = curioRun.requestsPerSec / bareRun.requestsPerSec
      const ratioMet = ratio >= TARGET_RATIO && clean(curioRun) && clean(bareRun)
      const p99Met = curioRun.latencyP99Ms < TARGET_PUBLIC_P99_MS && clean(curioRun)
      return {
        path,
        bareRequestsPerSec: bareRun.requestsPerSec,
        curioRequestsPerSec: curioRun.requestsPerSec,
        ratio: round(ratio, 3),
        ratioMet,
        curioP99Ms: curioRun.latencyP99Ms,
        p99Met,
      }
    })
    const adminVerdicts = adminMeasurements.map((m) => ({
      scenario: m.scenario,
      p99Ms: m.latencyP99Ms,
      met: m.latencyP99Ms < TARGET_ADMIN_P99_MS && clean(m),
    }))

    const all = [...publicMeasurements, ...adminMeasurements]
    console.log(`\nresults (${duration} s each, after ${warmup} s of warm-up)`)
    console.log(
      table([
        [
          'scenario',
          'server',
          'conns',
          'req/s',
          'p50 ms',
          'p99 ms',
          'max ms',
          'requests',
          'non-2xx',
          'errors',
          'server CPU ms/req',
          'Postgres CPU ms/req',
        ],
        ...all.map((m) => [
          m.scenario,
          m.server,
          m.connections,
          m.requestsPerSec,
          m.latencyP50Ms,
          m.latencyP99Ms,
          m.latencyMaxMs,
          m.total,
          m.non2xx,
          m.errors + m.timeouts,
          m.serverCpuMsPerRequest ?? '?',
          m.server === 'bare' ? '-' : (m.postgresCpuMsPerRequest ?? '?'),
        ]),
      ]),
    )
    if (ratios.length > 0) {
      console.log(
        `\nCurio / bare requests per second (target >= ${TARGET_RATIO * 100}%) and Curio's p99 ` +
          `(target < ${TARGET_PUBLIC_P99_MS} ms), ${connections} connections`,
      )
      console.log(
        table([
          [
            'path',
            'bare req/s',
            'Curio req/s',
            'Curio/bare',
            `>= ${TARGET_RATIO * 100}%`,
            'Curio p99 ms',
            `< ${TARGET_PUBLIC_P99_MS} ms`,
          ],
          ...ratios.map((r) => [
            r.path,
            r.bareRequestsPerSec,
            r.curioRequestsPerSec,
            `${(r.ratio * 100).toFixed(1)}%`,
            r.ratioMet ? 'met' : 'MISSED',
            r.curioP99Ms,
            r.p99Met ? 'met' : 'MISSED',
          ]),
        ]),
      )
    }
    if (adminVerdicts.length > 0) {
      console.log(`\nadmin list p99 at ${adminConnections} connections (target < ${TARGET_ADMIN_P99_MS} ms)`)
      for (const v of adminVerdicts) {
        console.log(`  ${v.met ? 'met   ' : 'MISSED'}  ${v.scenario}: p99 ${v.p99Ms} ms`)
      }
    }

    await monitor.end().catch(() => {})
    monitor = undefined
    const stop = await stopChild(curio)
    curio = undefined
    const path = writeResults('content', {
      when: new Date().toISOString(),
      machine: info,
      loadAverageAtEnd: machine().loadAverage,
      code: version,
      database: shownUrl,
      items: itemCount,
      settings: { connections, adminConnections, warmupSeconds: warmup, durationSeconds: duration },
      targets: {
        curioOverBareAtLeast: TARGET_RATIO,
        publicP99MsBelow: TARGET_PUBLIC_P99_MS,
        adminP99MsBelow: TARGET_ADMIN_P99_MS,
      },
      spawnToReadyMs,
      seed: ready.seed,
      recorded: Object.fromEntries(
        Object.entries(recorded).map(([path, answer]) => [
          path,
          { status: answer.status, headers: answer.headers, bodyBytes: answer.body.length },
        ]),
      ),
      bareMatchesCurio,
      ratios,
      adminVerdicts,
      sanity,
      measurements: all,
      explain,
      stop: { code: stop.code, signal: stop.signal, ms: round(stop.ms) },
    })
    console.log(`\nwritten to ${path}`)
    if (ratios.some((r) => !r.ratioMet || !r.p99Met) || adminVerdicts.some((v) => !v.met)) {
      process.exitCode = 1
    }
  } finally {
    await monitor?.end().catch(() => {})
    await Promise.all([killChild(curio), killChild(bare)])
    rmSync(scratch, { recursive: true, force: true })
    if (created) {
      await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
    }
  }
}

await main()
