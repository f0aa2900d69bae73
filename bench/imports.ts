/**
 * The admins' import of a whole awesome list, `POST /api/admin/imports` then `GET /api/admin/imports/:id`
 * until it has ended, with a generated list of 10,000 items (bench/imports-data.ts, ~1.4 MB), on Postgres (a
 * database of its own, `curio_bench_<random>` on BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, dropped at the end and on Ctrl-C) and on the embedded
 * database (PGlite in a scratch DATA_DIR). For each, on a new empty directory: (1) the import: time from the
 * POST to `completed`, the server's peak RSS growth meanwhile, the result's counts; (2) the same file again,
 * every item `unchanged`; (3) a dry run of it over the filled directory. Targets, on Postgres: the import
 * under 10 s and under 100 MB.
 *
 * The server is the real CLI, `node src/cli.mjs start directory` (what `npm start directory` runs, with its
 * memory settings), its admin made from ADMIN_EMAIL/ADMIN_PASSWORD, rate limits bypassed for 127.0.0.1,
 * pinned to a CPU of its own when the machine has two. Peak RSS growth as bench/feeds.ts reads it
 * (bench/feeds-memory.ts): VmHWM reset before the POST, RSS sampled every 5 ms until the import has ended.
 * Each result is checked: as many items as the list has, its unreadable lines as errors. BENCH_CPU_PROF=<dir>
 * writes the server's CPU profile there when it stops.
 *
 *   npm run bench:imports [-- --items 10000] [-- --runs 1] [-- --skip-embedded]
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { measureDocument } from './feeds-memory.ts'
import { type AwesomeList, awesomeList } from './imports-data.ts'
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
  machine,
  pickPorts,
  pinLoadAndServer,
  postgresCpu,
  round,
  sleep,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

const TARGET_IMPORT_MS = 10_000
const TARGET_RSS_GROWTH_MB = 100
const POLL_MS = 20
const IMPORT_TIMEOUT_MS = 15 * 60_000
const ADMIN_EMAIL = 'bench-admin@example.test'
const ADMIN_PASSWORD = 'bench-admin-password-not-secret'
const PHASES = ['import', 're-import', 'dry run'] as const
type Phase = (typeof PHASES)[number]
type DatabaseKind = 'postgres' | 'embedded'

const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    runs: { type: 'string' },
    'skip-embedded': { type: 'boolean' },
  },
  strict: true,
})
const itemCount = Number(values.items ?? 10_000)
const runs = Number(values.runs ?? 1)
checkWholeNumbers([
  ['--items', itemCount, 1],
  ['--runs', runs, 1],
])
const kinds: DatabaseKind[] = values['skip-embedded'] ? ['postgres'] : ['postgres', 'embedded']

const { adminUrl, shownUrl } = benchDatabaseUrl()
const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

interface ImportResult {
  created: number
  updated: number
  unchanged: number
  skipped: number
  errorCount: number
}

interface ImportAnswer {
  id: string
  status: 'pending' | 'running' | 'completed' | 'failed'
  progress: { done: number; total: number }
  result?: ImportResult
  failure?: string | null
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
}

interface ImportRun {
  answer: ImportAnswer
  ms: number
  postMs: number
  /** When each batch was seen done: the time to the first is the file's reading, the gaps the steps'. */
  progress: { atMs: number; done: number }[]
  /** Polls answered 503 (the database unavailable to the request) and what the first said. */
  unavailable: number
  unavailableSaid: string | null
}

/**
 * Queues an import of `content` and polls it until it has ended: its last answer and the wall time. A 503
 * to a poll is counted and the poll repeated: the import goes on whatever its status request meets.
 */
async function runImport(port: number, cookie: string, content: string, dryRun: boolean): Promise<ImportRun> {
  const base = `http://127.0.0.1:${port}/api/admin/imports`
  const started = performance.now()
  const queued = await fetch(base, {
    method: 'POST',
    headers: { cookie, origin: `http://127.0.0.1:${port}`, 'content-type': 'application/json' },
    body: JSON.stringify({ format: 'markdown', content, dryRun }),
  })
  const body = (await queued.json()) as { data: ImportAnswer }
  const postMs = performance.now() - started
  if (queued.status !== 202)
    throw new Error(`POST ${base} answered ${queued.status}: ${JSON.stringify(body)}`)
  const progress: ImportRun['progress'] = []
  let unavailable = 0
  let unavailableSaid: string | null = null
  while (true) {
    const response = await fetch(`${base}/${body.data.id}`, { headers: { cookie } })
    const text = await response.text()
    const atMs = performance.now() - started
    if (response.status === 503) {
      unavailable++
      unavailableSaid ??= `${round(atMs)} ms after the POST: ${text}`
    } else if (response.status !== 200) {
      throw new Error(`GET ${base}/${body.data.id} answered ${response.status}: ${text}`)
    } else {
      const { data } = JSON.parse(text) as { data: ImportAnswer }
      if (data.progress.done > (progress.at(-1)?.done ?? 0)) progress.push({ atMs, done: data.progress.done })
      if (data.status === 'completed' || data.status === 'failed') {
        return { answer: data, ms: atMs, postMs, progress, unavailable, unavailableSaid }
      }
    }
    if (performance.now() - started > IMPORT_TIMEOUT_MS) {
      throw new Error(`import ${body.data.id} not ended after ${IMPORT_TIMEOUT_MS} ms`)
    }
    await sleep(POLL_MS)
  }
}

const meanStep = (progress: { atMs: number }[]) =>
  progress.length > 1 ? round((progress.at(-1)!.atMs - progress[0]!.atMs) / (progress.length - 1)) : null

/** What each phase must end with: every item of the list counted once, its unreadable lines as errors. */
function expected(phase: Phase, list: AwesomeList): ImportResult {
  const fresh = phase === 'import'
  return {
    created: fresh ? list.items : 0,
    updated: 0,
    unchanged: fresh ? 0 : list.items,
    skipped: 0,
    errorCount: list.unreadable,
  }
}

interface PhaseRun extends ImportResult {
  database: DatabaseKind
  run: number
  phase: Phase
  /** From the POST to the answer that says `completed`. */
  ms: number
  /** From the import's start to its end, as the server recorded them. */
  serverMs: number
  /** From the POST to its 202 (the file sent, checked and stored). */
  postMs: number
  /** From the POST's record to the job's start: the queue's wait. */
  queuedMs: number
  /** CPU the server process used (user + system), and the database's backends (Postgres). */
  serverCpuMs: number | null
  postgresCpuMs: number | null
  /** From the POST to the first batch seen done (the file read, its rows saved, the first batch applied). */
  firstBatchMs: number
  /** The mean time from one batch seen done to the next (a real run's steps; a dry run has none). */
  meanStepMs: number | null
  steps: number
  /** Status polls answered 503, and the first such answer. */
  unavailable: number
  unavailableSaid: string | null
  rssBeforeMb: number
  peakGrowthMb: number
  sampledPeakGrowthMb: number
  hwmPeakGrowthMb: number | null
}

async function measure(kind: DatabaseKind, run: number, list: AwesomeList, serverCpu: number | undefined) {
  let server: Child | undefined
  let monitor: pg.Client | undefined
  const scratch = mkdtempSync(join(tmpdir(), 'curio-bench-imports-'))
  const dbName = `curio_bench_${randomBytes(6).toString('hex')}`
  let created = false
  const results: PhaseRun[] = []
  try {
    const env: Record<string, string> = {
      LOG_LEVEL: 'warn',
      RATE_LIMIT_BYPASS_LOCALHOST: 'true',
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
    }
    if (kind === 'postgres') {
      await adminQuery(adminUrl, `create database "${dbName}"`)
      created = true
      setDropOnSignal(dbName)
      const url = new URL(adminUrl)
      url.pathname = `/${dbName}`
      env.DATABASE_URL = url.toString()
      monitor = new pg.Client({ connectionString: adminUrl })
      monitor.on('error', () => {})
      await monitor.connect()
    } else {
      env.DATA_DIR = scratch
    }
    const ports = await pickPorts()
    server = startCurio(ports, env, {
      service: 'directory',
      ...(serverCpu === undefined ? {} : { cpu: serverCpu }),
    })
    await waitFor200(server, [`http://127.0.0.1:${ports.directoryPort}/readyz`])
    const cookie = await directorySession(ports.directoryPort, '/api/auth/signin', {
      email: ADMIN_EMAIL,
      password: ADMIN_PASSWORD,
    })
    const backendsCpu = monitor ? postgresCpu(monitor, dbName) : async () => null
    for (const phase of PHASES) {
      const pid = server.pid
      const cpuBefore = cpuMsOf(pid)
      const backendsBefore = await backendsCpu()
      const { result, memory } = await measureDocument(pid, () =>
        runImport(ports.directoryPort, cookie, list.text, phase === 'dry run'),
      )
      const cpuAfter = cpuMsOf(pid)
      const backendsAfter = await backendsCpu()
      const { answer } = result
      const counts: ImportResult = {
        created: answer.result?.created ?? -1,
        updated: answer.result?.updated ?? -1,
        unchanged: answer.result?.unchanged ?? -1,
        skipped: answer.result?.skipped ?? -1,
        errorCount: answer.result?.errorCount ?? -1,
      }
      const wanted = expected(phase, list)
      if (answer.status !== 'completed' || JSON.stringify(counts) !== JSON.stringify(wanted)) {
        throw new Error(
          `${kind} ${phase}: ${answer.status} ${answer.failure ?? ''} with ${JSON.stringify(counts)}, ` +
            `expected ${JSON.stringify(wanted)}`,
        )
      }
      const at = (time: string | null) => (time ? Date.parse(time) : Number.NaN)
      results.push({
        database: kind,
        run,
        phase,
        ...counts,
        ms: round(result.ms),
        postMs: round(result.postMs),
        serverMs: at(answer.finishedAt) - at(answer.startedAt),
        queuedMs: at(answer.startedAt) - at(answer.createdAt),
        serverCpuMs: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
        postgresCpuMs: cpuBetween(backendsBefore, backendsAfter),
        firstBatchMs: round(result.progress[0]?.atMs ?? result.ms),
        meanStepMs: meanStep(result.progress),
        steps: result.progress.length,
        unavailable: result.unavailable,
        unavailableSaid: result.unavailableSaid,
        ...memory,
      })
      const last = results.at(-1)!
      console.log(
        `${kind} run ${run}, ${phase}: ${round(last.ms / 1000, 2)} s, peak RSS growth ${last.peakGrowthMb} MB ` +
          `(${last.created} created, ${last.unchanged} unchanged, ${last.errorCount} errors)`,
      )
      if (last.unavailableSaid) {
        console.log(`  ${last.unavailable} status poll(s) answered 503, the first ${last.unavailableSaid}`)
      }
    }
  } finally {
    if (server) await stopChild(server)
    await monitor?.end().catch(() => {})
    rmSync(scratch, { recursive: true, force: true })
    if (created) await dropScratchDatabase(adminUrl, dbName, setDropOnSignal)
  }
  return results
}

async function main() {
  const info = machine()
  const version = codeVersion()
  const pinning = pinLoadAndServer()
  const list = awesomeList(itemCount)
  const bytes = Buffer.byteLength(list.text)
  console.log(
    `imports benchmark: an awesome list of ${list.items.toLocaleString('en')} items in ${list.categories} ` +
      `sections (${round(bytes / 1024 / 1024, 2)} MB, ${list.unreadable} unreadable lines), ${runs} run(s) on ` +
      `${kinds.join(' and ')}${kinds.includes('postgres') ? ` (${shownUrl})` : ''}`,
  )
  console.log(
    `node ${info.node}, ${info.cpus} × ${info.cpuModel}, load ${info.loadAverage.join(' ')}; ` +
      `code ${version.head} (${version.uncommittedSrcFiles} files changed under src/); ` +
      (pinning ? `client on CPU ${pinning.loadCpu}, server on CPU ${pinning.serverCpu}` : 'nothing pinned'),
  )
  const results: PhaseRun[] = []
  for (const kind of kinds) {
    for (let run = 1; run <= runs; run++)
      results.push(...(await measure(kind, run, list, pinning?.serverCpu)))
  }

  console.log(
    `\n${table([
      [
        'database',
        'run',
        'phase',
        'time s',
        'POST s',
        'server s',
        'server CPU s',
        'Postgres CPU s',
        'first batch s',
        'batches seen',
        'step ms',
        'polls 503',
        'RSS before MB',
        'peak growth MB',
        'created',
        'unchanged',
        'errors',
      ],
      ...results.map((r) => [
        r.database,
        r.run,
        r.phase,
        round(r.ms / 1000, 2),
        round(r.postMs / 1000, 2),
        round(r.serverMs / 1000, 2),
        r.serverCpuMs === null ? '-' : round(r.serverCpuMs / 1000, 2),
        r.postgresCpuMs === null ? '-' : round(r.postgresCpuMs / 1000, 2),
        round(r.firstBatchMs / 1000, 2),
        r.steps,
        r.meanStepMs ?? '-',
        r.unavailable,
        r.rssBeforeMb,
        r.peakGrowthMb,
        r.created,
        r.unchanged,
        r.errorCount,
      ]),
    ])}`,
  )
  const postgresImports = results.filter((r) => r.database === 'postgres' && r.phase === 'import')
  const worstMs = Math.max(...postgresImports.map((r) => r.ms))
  const worstGrowth = Math.max(...postgresImports.map((r) => r.peakGrowthMb))
  const verdicts = [
    [
      `Postgres import ≤ ${TARGET_IMPORT_MS / 1000} s (worst run)`,
      round(worstMs / 1000, 2),
      worstMs <= TARGET_IMPORT_MS,
    ],
    [
      `Postgres import peak RSS growth ≤ ${TARGET_RSS_GROWTH_MB} MB (worst run)`,
      worstGrowth,
      worstGrowth <= TARGET_RSS_GROWTH_MB,
    ],
  ] as const
  console.log(
    `\n${table([['target', 'measured', 'met'], ...verdicts.map(([what, value, met]) => [what, value, met ? 'yes' : 'NO'])])}`,
  )
  const path = writeResults('imports', {
    machine: info,
    code: version,
    settings: {
      itemCount: list.items,
      bytes,
      categories: list.categories,
      unreadableLines: list.unreadable,
      runs,
      databases: kinds,
      pinning: pinning ?? null,
    },
    runs: results,
    targets: verdicts.map(([what, value, met]) => ({ what, value, met })),
  })
  console.log(`\nresults written to ${path}`)
}

await main()
