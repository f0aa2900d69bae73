/**
 * Cold start of the real CLI (`node src/main.ts start`) until both services' /readyz answer 200, for
 * (a) a new empty data folder, (b) the same folder on a second start, (c) DATA_DIR=memory; with
 * `--postgres`, also (d) a new empty Postgres database and (e) the same database on a second start
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres).
 * Then ~3 s idle and the child's resident memory; then SIGTERM and how long shutdown takes.
 *
 *   npm run bench:startup [-- --runs 5] [-- --idle-ms 3000] [-- --postgres]      (or BENCH_RUNS=5)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import {
  benchDatabaseUrl,
  type Child,
  cpuMsOf,
  killChild,
  machine,
  median,
  memoryOf,
  type OutputLine,
  pickPorts,
  round,
  type StopResult,
  sleep,
  startCurio,
  stopChild,
  table,
  waitFor200,
  writeResults,
} from './lib.ts'

/** The targets a user would want of a start (issue 29): every case is judged against them. */
const TARGET_START_MS = 2000
const TARGET_RSS_MB = 400

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    'idle-ms': { type: 'string' },
    postgres: { type: 'boolean' },
  },
  strict: true,
})
const runs = Number(values.runs ?? process.env.BENCH_RUNS ?? 3)
const idleMs = Number(values['idle-ms'] ?? 3000)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number >= 1 (got ${runs})`)
if (!Number.isFinite(idleMs) || idleMs < 0) throw new Error(`--idle-ms must be >= 0 (got ${idleMs})`)

type CaseName = 'empty-dir' | 'reused-dir' | 'memory' | 'postgres-new' | 'postgres-reused'
const CASES: { name: CaseName; label: string }[] = [
  { name: 'empty-dir', label: '(a) new empty DATA_DIR' },
  { name: 'reused-dir', label: '(b) same DATA_DIR reused' },
  { name: 'memory', label: '(c) DATA_DIR=memory' },
  ...(values.postgres
    ? ([
        { name: 'postgres-new', label: '(d) new empty Postgres database' },
        { name: 'postgres-reused', label: '(e) same Postgres database reused' },
      ] as const)
    : []),
]

interface Run {
  case: CaseName
  run: number
  startMs: number
  /** CPU time (user + system) the child had used when both services were ready. */
  cpuMsAtReady: number | null
  /** When the "Curio is running" banner appeared on stdout (listen done), ms after spawn. */
  bannerMs: number | null
  rssMb: number | null
  peakRssMb: number | null
  shutdown: StopResult
  /** The child's own output lines with their times, for a breakdown. */
  output: OutputLine[]
}

async function measure(caseName: CaseName, run: number, storage: Record<string, string>): Promise<Run> {
  const ports = await pickPorts()
  let child: Child | undefined
  try {
    child = startCurio(ports, { ...storage, LOG_LEVEL: 'warn' }, { keepOutput: true })
    const readyAt = await waitFor200(child, [
      `http://127.0.0.1:${ports.platformPort}/readyz`,
      `http://127.0.0.1:${ports.directoryPort}/readyz`,
    ])
    const cpuMsAtReady = cpuMsOf(child.pid)
    const startMs = readyAt - child.spawnedAt
    const banner = child.output.find((line) => line.text.includes('Curio is running'))
    await sleep(idleMs)
    const memory = memoryOf(child.pid)
    const shutdown = await stopChild(child)
    return {
      case: caseName,
      run,
      startMs: round(startMs),
      cpuMsAtReady,
      bannerMs: banner ? round(banner.atMs) : null,
      rssMb: memory ? round(memory.rssMb, 1) : null,
      peakRssMb: memory ? round(memory.peakRssMb, 1) : null,
      shutdown: { ...shutdown, ms: round(shutdown.ms) },
      // The banner carries a one-time admin password: keep only line times and the log lines.
      output: child.output.map((line) =>
        line.text.includes('password') ? { ...line, text: '[banner line with password omitted]' } : line,
      ),
    }
  } finally {
    await killChild(child)
  }
}

/** An empty Postgres database for one run's (d) and (e), dropped after them. */
async function createBenchDatabase(run: number): Promise<{ url: string; drop(): Promise<void> }> {
  const { adminUrl } = benchDatabaseUrl()
  const name = `curio_bench_startup_${process.pid}_${run}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`drop database if exists "${name}"`)
  await admin.query(`create database "${name}"`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: adminUrl })
      await dropper.connect()
      await dropper.query(`drop database if exists "${name}" with (force)`)
      await dropper.end()
    },
  }
}

const machineBefore = machine()
const results: Run[] = []
const tempDirs: string[] = []
try {
  for (let run = 1; run <= runs; run++) {
    const dir = mkdtempSync(join(tmpdir(), 'curio-bench-startup-'))
    tempDirs.push(dir)
    const database = values.postgres ? await createBenchDatabase(run) : undefined
    for (const { name } of CASES) {
      const storage: Record<string, string> = name.startsWith('postgres')
        ? { DATABASE_URL: database?.url as string }
        : { DATA_DIR: name === 'memory' ? 'memory' : dir }
      const result = await measure(name, run, storage)
      results.push(result)
      process.stdout.write(
        `run ${run}/${runs}  ${name.padEnd(10)}  ready ${String(result.startMs).padStart(5)} ms` +
          `  rss ${result.rssMb ?? '?'} MB  shutdown ${result.shutdown.ms} ms` +
          ` exit ${result.shutdown.code ?? result.shutdown.signal}\n`,
      )
    }
    rmSync(dir, { recursive: true, force: true })
    await database?.drop()
  }
} finally {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
}

const summary = CASES.map(({ name, label }) => {
  const mine = results.filter((result) => result.case === name)
  const starts = mine.map((result) => result.startMs)
  const rss = mine.flatMap((result) => (result.rssMb === null ? [] : [result.rssMb]))
  const peaks = mine.flatMap((result) => (result.peakRssMb === null ? [] : [result.peakRssMb]))
  const cpu = mine.flatMap((result) => (result.cpuMsAtReady === null ? [] : [result.cpuMsAtReady]))
  const banners = mine.flatMap((result) => (result.bannerMs === null ? [] : [result.bannerMs]))
  const shutdowns = mine.map((result) => result.shutdown.ms)
  const exitCodes = mine.map((result) => result.shutdown.code ?? result.shutdown.signal ?? 'none')
  const startMax = Math.max(...starts)
  const rssMedian = median(rss)
  return {
    case: name,
    label,
    runs: mine.length,
    startMs: { min: Math.min(...starts), median: round(median(starts)), max: startMax },
    cpuMsAtReadyMedian: cpu.length ? round(median(cpu)) : null,
    bannerMsMedian: banners.length ? round(median(banners)) : null,
    rssMbMedian: rss.length ? round(rssMedian, 1) : null,
    peakRssMbMax: peaks.length ? round(Math.max(...peaks), 1) : null,
    shutdownMs: { median: round(median(shutdowns)), max: Math.max(...shutdowns) },
    exitCodes,
    startWithinTarget: startMax < TARGET_START_MS,
    rssWithinTarget: rss.length ? rssMedian < TARGET_RSS_MB : null,
  }
})

const verdict = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'ok' : 'MISS')
process.stdout.write(
  `\nCurio start-up: ${runs} run(s) per case, ${idleMs} ms idle before reading VmRSS\n` +
    `${machine().node}, ${machine().cpus} CPU(s), ${machine().cpuModel}; ` +
    `load average at start ${machineBefore.loadAverage.join(' / ')}, at end ${machine().loadAverage.join(' / ')}\n\n`,
)
process.stdout.write(
  `${table([
    [
      'case',
      'start min ms',
      'median ms',
      'max ms',
      `< ${TARGET_START_MS} ms`,
      'CPU ms at ready',
      'RSS median MB',
      `< ${TARGET_RSS_MB} MB`,
      'peak RSS MB',
      'shutdown ms (median)',
      'exit codes',
    ],
    ...summary.map((row) => [
      row.label,
      row.startMs.min,
      row.startMs.median,
      row.startMs.max,
      verdict(row.startWithinTarget),
      row.cpuMsAtReadyMedian ?? 'n/a',
      row.rssMbMedian ?? 'n/a',
      verdict(row.rssWithinTarget),
      row.peakRssMbMax ?? 'n/a',
      row.shutdownMs.median,
      row.exitCodes.join(','),
    ]),
  ])}\n`,
)
process.stdout.write(
  '\nstart = spawn until both GET /readyz answered 200 (polled every 25 ms); target judged on the max.\n' +
    'CPU ms at ready = user + system CPU time of the child when ready (median); a start far longer than\n' +
    '  its CPU time waited on I/O or on other work on the machine.\n' +
    'RSS = VmRSS of the child after the idle wait; peak = VmHWM (highest RSS so far) at that moment.\n' +
    'Shutdown = SIGTERM until the child exited (expected exit code 0).\n',
)

const path = writeResults('startup', {
  benchmark: 'startup',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  settings: { runs, idleMs, pollIntervalMs: 25, logLevel: 'warn' },
  targets: { startMs: TARGET_START_MS, rssMb: TARGET_RSS_MB },
  summary,
  runs: results,
})
process.stdout.write(`\nwrote ${path}\n`)
