/**
 * The admin dashboard's figures (`GET /api/admin/dashboard/stats`) on Postgres with 100,000 items,
 * 100,000 clients and 1,000,000 comments, as an admin session at 20 connections. Target: p99 < 50 ms.
 *
 * bench/dashboard-server.ts runs in a child process on a fresh database `curio_bench_<random>` on
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres), dropped at the end and on
 * Ctrl-C: it seeds the users with their client profiles, the items, the comments and a few hundred admin
 * notifications (set-based SQL), VACUUM ANALYZE, builds the real directory app (LOG_LEVEL=warn,
 * RATE_LIMIT_BYPASS_LOCALHOST=true), signs in an admin, registers a member and listens. Then:
 *   1. the cold cost: each figure counted again and again by the service calls of a miss (nothing else
 *      running), with EXPLAIN (ANALYZE, BUFFERS) of their statements: what a miss costs;
 *   2. reads only: the figures come from the cache (2 s warm-up, then the run);
 *   3. reads while a member posts a comment through `POST /api/comments` every `--write-interval` ms (each
 *      one clears the comment counts and, with its pending notice, the unread count: reads recount);
 *   4. reads while the admin creates an item through `POST /api/admin/items` at the same pace.
 * Each run reports req/s, p50, p99, max, the CPU of the server and of Postgres per request, the writes
 * made and how many times each figure was counted again; 2 to 4 are judged against the target.
 *
 *   npm run bench:dashboard [-- --items 100000] [-- --clients 100000] [-- --comments 1000000]
 *     [-- --notices 400] [-- --unread 60] [-- --duration 10] [-- --warmup 2] [-- --connections 20]
 *     [-- --write-interval 100] [-- --cold-runs 5] [-- --only reads|comments|items]
 */

import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import pg from 'pg'
import type { ColdFigure, ServerReady } from './dashboard-server.ts'
import {
  adminQuery,
  benchDatabaseUrl,
  type Child,
  checkWholeNumbers,
  codeVersion,
  cpuBetween,
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
  postgresCpu,
  round,
  spawnNode,
  stopChild,
  table,
  waitForReady,
  writeResults,
} from './lib.ts'

const TARGET_P99_MS = 50
const PATH = '/api/admin/dashboard/stats'

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    clients: { type: 'string' },
    comments: { type: 'string' },
    notices: { type: 'string' },
    unread: { type: 'string' },
    ...LOAD_OPTIONS,
    'write-interval': { type: 'string' },
    'cold-runs': { type: 'string' },
    only: { type: 'string' },
  },
  strict: true,
})
const itemCount = Number(values.items ?? 100_000)
const clientCount = Number(values.clients ?? 100_000)
const commentCount = Number(values.comments ?? 1_000_000)
const noticeCount = Number(values.notices ?? 400)
const unreadCount = Number(values.unread ?? 60)
const writeIntervalMs = Number(values['write-interval'] ?? 100)
const coldRuns = Number(values['cold-runs'] ?? 5)
const { duration, warmup, connections } = loadSettings(values, { connections: 20 })
checkWholeNumbers([
  ['--items', itemCount, 1],
  ['--clients', clientCount, 1],
  ['--comments', commentCount, 0],
  ['--notices', noticeCount, 0],
  ['--unread', unreadCount, 0],
  ['--write-interval', writeIntervalMs, 1],
  ['--cold-runs', coldRuns, 1],
])
if (unreadCount > noticeCount) throw new Error('--unread must be at most --notices')
const SCENARIO_KEYS = ['reads', 'comments', 'items'] as const
type ScenarioKey = (typeof SCENARIO_KEYS)[number]
if (values.only !== undefined && !SCENARIO_KEYS.includes(values.only as ScenarioKey)) {
  throw new Error(`--only must be one of ${SCENARIO_KEYS.join(', ')}`)
}

const { adminUrl, shownUrl } = benchDatabaseUrl()

const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

interface Scenario {
  key: ScenarioKey
  name: string
  /** What the writer does every `writeIntervalMs` during the warm-up and the run; none for reads only. */
  write?: { label: string; send: (index: number) => Promise<Response> }
}

interface Writes {
  /** Writes started during the measured run. */
  made: number
  statusCodes: Record<string, number>
  latencyP50Ms: number | null
  latencyMaxMs: number | null
  /** Ticks when the previous write had not answered yet (the writer never runs two at once). */
  skipped: number
}

type Recounts = Record<'items' | 'comments' | 'unread' | 'clients', number>

interface Measurement extends LoadFigures {
  scenario: string
  writer: string | null
  connections: number
  serverCpuMsPerRequest: number | null
  postgresCpuMsPerRequest: number | null
  writes: Writes | null
  /** How many times each figure's statements ran during the run (warm-up excluded). */
  recounts: Recounts
  targetP99Ms: number
  met: boolean
}

/**
 * One write every `intervalMs` until stopped, never two at once (a tick that finds the last one still
 * running is skipped and counted); `counting` says whether a write started now belongs to the run.
 */
function startWriter(write: NonNullable<Scenario['write']>, intervalMs: number) {
  let counting = false
  let stopped = false
  let index = 0
  let busy: Promise<void> | undefined
  const latencies: number[] = []
  const statusCodes: Record<string, number> = {}
  let made = 0
  let skipped = 0
  const tick = () => {
    if (stopped) return
    if (busy) {
      if (counting) skipped++
      return
    }
    const counted = counting
    const started = performance.now()
    busy = write
      .send(index++)
      .then(async (response) => {
        await response.arrayBuffer()
        if (!counted) return
        made++
        latencies.push(performance.now() - started)
        statusCodes[response.status] = (statusCodes[response.status] ?? 0) + 1
      })
      .catch(() => {
        if (counted) statusCodes.error = (statusCodes.error ?? 0) + 1
      })
      .finally(() => {
        busy = undefined
      })
  }
  const timer = setInterval(tick, intervalMs)
  tick()
  return {
    count: () => {
      counting = true
    },
    async stop(): Promise<Writes> {
      stopped = true
      clearInterval(timer)
      await busy
      return {
        made,
        statusCodes,
        latencyP50Ms: latencies.length ? round(median(latencies), 1) : null,
        latencyMaxMs: latencies.length ? round(Math.max(...latencies), 1) : null,
        skipped,
      }
    },
  }
}

interface DashboardAnswer {
  success: true
  data: {
    items: Record<string, number>
    comments: { total: number; awaitingModeration: number }
    clients: { total: number; active: number; newToday: number; newThisWeek: number }
    notifications: { unread: number }
  }
}

async function main() {
  const info = machine()
  const version = codeVersion()
  console.log(
    `dashboard benchmark: ${itemCount.toLocaleString('en')} items, ${clientCount.toLocaleString('en')} ` +
      `clients, ${commentCount.toLocaleString('en')} comments on Postgres (${shownUrl}); ${PATH} at ` +
      `${connections} connections, ${warmup} s warm-up + ${duration} s per run, a write every ` +
      `${writeIntervalMs} ms in the write runs`,
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
        'bench/dashboard-server.ts',
        '--items',
        String(itemCount),
        '--clients',
        String(clientCount),
        '--comments',
        String(commentCount),
        '--notices',
        String(noticeCount),
        '--unread',
        String(unreadCount),
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
      `Postgres ${s.server}; migrate ${s.migrateMs} ms; seed: clients ${s.seedClientsMs} ms, items ` +
        `${s.seedItemsMs} ms, comments ${s.seedCommentsMs} ms, notices ${s.seedNoticesMs} ms; vacuum analyze ` +
        `${s.vacuumAnalyzeMs} ms; pool ${s.poolSize} connections`,
    )
    console.log(
      `tables with indexes (MB): ${Object.entries(s.tablesMb)
        .map(([name, mb]) => `${name} ${mb}`)
        .join(', ')}`,
    )
    const base = `http://127.0.0.1:${ready.port}`
    const cpuPid = child.pid

    // The figures as an admin sees them, before anything is measured.
    const first = await fetch(`${base}${PATH}`, { headers: { cookie: ready.cookie } })
    const firstBody = await first.text()
    if (first.status !== 200) throw new Error(`${PATH}: ${first.status} ${firstBody.slice(0, 300)}`)
    const figures = (JSON.parse(firstBody) as DashboardAnswer).data
    console.log('\nthe dashboard after seeding')
    console.log(
      table([
        ['figure', 'value', 'seeded'],
        ['items total', figures.items.total ?? 0, s.items],
        ...Object.entries(s.itemStatuses).map(([status, count]) => [
          `items ${status}`,
          figures.items[status] ?? 0,
          count,
        ]),
        ['comments total', figures.comments.total, s.comments],
        ['comments awaiting moderation', figures.comments.awaitingModeration, s.commentStatuses.pending ?? 0],
        ['clients total (admin and member included)', figures.clients.total, s.clients],
        ['clients active', figures.clients.active, '-'],
        ['clients new today (UTC)', figures.clients.newToday, '-'],
        ['clients new this week (from Monday, UTC)', figures.clients.newThisWeek, '-'],
        ['clients created in the last 7 days', '-', s.clientsNewThisWeek],
        ['unread notifications', figures.notifications.unread, s.unread],
      ]),
    )

    // The cold cost, with nothing else running.
    process.stdout.write(`\ncold cost: each figure counted ${coldRuns} times… `)
    const coldResponse = await fetch(`${base}/bench/cold?runs=${coldRuns}`)
    const coldBody = await coldResponse.text()
    if (coldResponse.status !== 200)
      throw new Error(`/bench/cold: ${coldResponse.status} ${coldBody.slice(0, 300)}`)
    const cold = (JSON.parse(coldBody) as { figures: ColdFigure[] }).figures
    process.stdout.write('done\n')
    for (const figure of cold) {
      for (const statement of figure.statements) {
        console.log(`\n=== EXPLAIN (ANALYZE, BUFFERS): ${figure.figure} ===`)
        console.log(statement.sql)
        if (statement.params.length) console.log(`params: ${JSON.stringify(statement.params)}`)
        console.log(statement.plan)
      }
    }
    console.log(`\ncold cost of each figure (a miss), ${coldRuns} calls one after the other`)
    console.log(
      table([
        ['figure', 'statements', 'first ms', 'median ms', 'min ms', 'max ms', 'Postgres execution ms'],
        ...cold.map((figure) => [
          figure.figure,
          figure.statements.length || '-',
          figure.runsMs[0] ?? 0,
          figure.medianMs,
          figure.minMs,
          figure.maxMs,
          figure.statements.length
            ? figure.statements.map((statement) => statement.executionMs ?? '?').join(' + ')
            : '-',
        ]),
      ]),
    )

    monitor = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 })
    monitor.on('error', () => {})
    await monitor.connect()
    const readPostgresCpu = postgresCpu(monitor, dbName)
    const recountsNow = async (): Promise<Recounts> => {
      const response = await fetch(`${base}/bench/recounts`)
      return (await response.json()) as Recounts
    }

    const writeHeaders = (cookie: string) => ({
      cookie,
      origin: ready.origin,
      'content-type': 'application/json',
    })
    const runTag = randomBytes(3).toString('hex')
    const allScenarios: Scenario[] = [
      { key: 'reads', name: 'reads only (cached figures)' },
      {
        key: 'comments',
        name: `reads + a comment every ${writeIntervalMs} ms`,
        write: {
          label: 'POST /api/comments as a member (pre-moderation: pending, with an admin notice)',
          send: (index: number) =>
            fetch(`${base}/api/comments`, {
              method: 'POST',
              headers: writeHeaders(ready.memberCookie),
              body: JSON.stringify({
                itemId: ready.publishedItemIds[index % ready.publishedItemIds.length],
                body: `Bench comment ${index}: still works well for us.`,
              }),
            }),
        },
      },
      {
        key: 'items',
        name: `reads + an item created every ${writeIntervalMs} ms`,
        write: {
          label: 'POST /api/admin/items as the admin (status pending)',
          send: (index: number) =>
            fetch(`${base}/api/admin/items`, {
              method: 'POST',
              headers: writeHeaders(ready.cookie),
              body: JSON.stringify({
                name: `Bench new item ${runTag} ${index}`,
                description: 'Created by the dashboard benchmark.',
                url: `https://bench-${runTag}-${index}.example`,
                status: 'pending',
              }),
            }),
        },
      },
    ]
    const scenarios = allScenarios.filter(
      (scenario) => values.only === undefined || scenario.key === values.only,
    )

    // Each writer answers 2xx before any load.
    for (const scenario of scenarios) {
      if (!scenario.write) continue
      const response = await scenario.write.send(999_999)
      const body = await response.text()
      if (response.status < 200 || response.status > 299) {
        throw new Error(`writer of "${scenario.name}": ${response.status} ${body.slice(0, 300)}`)
      }
    }

    const load = (seconds: number) =>
      autocannon({ url: `${base}${PATH}`, connections, duration: seconds, headers: { cookie: ready.cookie } })

    console.log('')
    const measurements: Measurement[] = []
    for (const scenario of scenarios) {
      process.stdout.write(
        `${scenario.name}: warm-up ${warmup} s, run ${duration} s, ${connections} connections… `,
      )
      const writer = scenario.write ? startWriter(scenario.write, writeIntervalMs) : undefined
      let result: Result
      let writes: Writes | null = null
      let serverCpuMs: number | null
      let postgresCpuMs: number | null
      let recounts: Recounts
      try {
        if (warmup > 0) await load(warmup)
        writer?.count()
        const recountsBefore = await recountsNow()
        const cpuBefore = cpuMsOf(cpuPid)
        const pgBefore = await readPostgresCpu()
        result = await load(duration)
        const cpuAfter = cpuMsOf(cpuPid)
        const pgAfter = await readPostgresCpu()
        const recountsAfter = await recountsNow()
        serverCpuMs = cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore
        postgresCpuMs = cpuBetween(pgBefore, pgAfter)
        recounts = {
          items: recountsAfter.items - recountsBefore.items,
          comments: recountsAfter.comments - recountsBefore.comments,
          unread: recountsAfter.unread - recountsBefore.unread,
          clients: recountsAfter.clients - recountsBefore.clients,
        }
      } finally {
        if (writer) writes = await writer.stop()
      }
      const total = result.requests.total
      const perRequest = (ms: number | null) => (ms === null || total === 0 ? null : round(ms / total, 3))
      const p99 = round(result.latency.p99, 2)
      const writesOk =
        writes === null || Object.keys(writes.statusCodes).every((code) => code.startsWith('2'))
      const m: Measurement = {
        scenario: scenario.name,
        writer: scenario.write?.label ?? null,
        connections,
        ...loadFigures(result),
        serverCpuMsPerRequest: perRequest(serverCpuMs),
        postgresCpuMsPerRequest: perRequest(postgresCpuMs),
        writes,
        recounts,
        targetP99Ms: TARGET_P99_MS,
        met:
          p99 < TARGET_P99_MS &&
          result.non2xx === 0 &&
          result.errors === 0 &&
          result.timeouts === 0 &&
          total > 0 &&
          writesOk,
      }
      measurements.push(m)
      process.stdout.write(
        `${m.requestsPerSec} req/s, p99 ${m.latencyP99Ms} ms` +
          (writes ? `, ${writes.made} writes` : '') +
          '\n',
      )
    }

    console.log(`\nresults (${connections} connections, ${duration} s each after ${warmup} s of warm-up)`)
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
          'Postgres CPU ms/req',
        ],
        ...measurements.map((m) => [
          m.scenario,
          m.requestsPerSec,
          m.latencyP50Ms,
          m.latencyP99Ms,
          m.latencyMaxMs,
          m.total,
          m.non2xx,
          m.errors + m.timeouts,
          m.serverCpuMsPerRequest ?? '?',
          m.postgresCpuMsPerRequest ?? '?',
        ]),
      ]),
    )
    console.log(
      "Postgres CPU: the database's backends only; the parallel workers a full count starts (and ends) are " +
        'not counted, so a run of recounts spends more than shown.',
    )
    console.log('\nwrites and recounts during each run')
    console.log(
      table([
        [
          'scenario',
          'writes',
          'write statuses',
          'write p50 ms',
          'write max ms',
          'ticks skipped',
          'recounts: items',
          'comments',
          'unread',
          'clients',
        ],
        ...measurements.map((m) => [
          m.scenario,
          m.writes?.made ?? 0,
          m.writes
            ? Object.entries(m.writes.statusCodes)
                .map(([code, count]) => `${count} × ${code}`)
                .join(', ') || '-'
            : '-',
          m.writes?.latencyP50Ms ?? '-',
          m.writes?.latencyMaxMs ?? '-',
          m.writes?.skipped ?? '-',
          m.recounts.items,
          m.recounts.comments,
          m.recounts.unread,
          m.recounts.clients,
        ]),
      ]),
    )
    console.log(`\np99 at ${connections} connections (target < ${TARGET_P99_MS} ms)`)
    for (const m of measurements) {
      const why =
        m.non2xx || m.errors || m.timeouts
          ? ` (${m.non2xx} non-2xx, ${m.errors} errors, ${m.timeouts} timeouts)`
          : ''
      console.log(`  ${m.met ? 'met   ' : 'MISSED'}  ${m.scenario}: p99 ${m.latencyP99Ms} ms${why}`)
    }

    await monitor.end().catch(() => {})
    monitor = undefined
    const stop = await stopChild(child)
    child = undefined
    const path = writeResults('dashboard', {
      when: new Date().toISOString(),
      machine: info,
      loadAverageAtEnd: machine().loadAverage,
      code: version,
      database: shownUrl,
      path: PATH,
      settings: {
        items: itemCount,
        clients: clientCount,
        comments: commentCount,
        notices: noticeCount,
        unread: unreadCount,
        connections,
        warmupSeconds: warmup,
        durationSeconds: duration,
        writeIntervalMs,
        coldRuns,
      },
      targets: { p99MsBelow: TARGET_P99_MS },
      spawnToReadyMs,
      seed: ready.seed,
      dashboardAfterSeeding: figures,
      cold,
      measurements,
      stop: { code: stop.code, signal: stop.signal, ms: round(stop.ms) },
    })
    console.log(`\nwritten to ${path}`)
    if (measurements.some((m) => !m.met)) process.exitCode = 1
  } finally {
    await monitor?.end().catch(() => {})
    await killChild(child)
    if (created) {
      await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
    }
  }
}

await main()
