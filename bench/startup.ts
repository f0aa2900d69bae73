/**
 * Cold start of the real CLI (`node src/cli.mjs start`, what `npm start` runs) until both services' /readyz answer 200, for
 * (a) a new empty data folder, (b) the same folder on a second start, (c) DATA_DIR=memory; with
 * `--postgres`, also (d) a new empty Postgres database, (e) the same database on a second start and
 * (f) the same database again with WORKERS=2, a primary that forks two workers sharing the ports
 * (BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres; a scratch database per run).
 * Then ~3 s idle and the child's resident memory (in (f) the primary's and each worker's); then SIGTERM
 * and how long shutdown takes.
 *
 * `--before <ref>` measures that commit too, in the same run: it is checked out with `git worktree add
 * --detach` in a temporary folder whose node_modules links to this one (removed at the end, also on
 * Ctrl-C), each tree's `node scripts/prepare.ts` first caches the embedded cluster its code looks
 * for, and each tree starts once unmeasured (DATA_DIR=memory; with `--postgres` also 2 workers on a
 * scratch database) so that the new worktree's compile cache is as warm as this tree's. Each case of each run then starts once per tree, before then after in odd runs and after then
 * before in even ones, so that drift of the machine cancels; each tree has its own folder and database.
 *
 *   npm run bench:startup [-- --runs 5] [-- --idle-ms 3000] [-- --postgres] [-- --before <ref>]
 *   (or BENCH_RUNS=5)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import {
  benchDatabaseUrl,
  type Child,
  childrenOf,
  cpuMsOf,
  dropDatabaseSync,
  isRunning,
  killChild,
  machine,
  memoryOf,
  pickPorts,
  REPO_ROOT,
  round,
  sleep,
  spawnNode,
  startCurio,
  stopChild,
  waitFor200,
  writeResults,
} from './lib.ts'
import {
  NOTES,
  type Run,
  type Side,
  type StartupCase,
  summarize,
  summaryTable,
  TARGET_PRIMARY_RSS_MB,
  TARGET_RSS_MB,
  TARGET_START_MS,
  TARGET_WORKER_RSS_MB,
  type WorkerFigures,
} from './startup-report.ts'
import { addWorktree, commitOf, removeWorktrees, workingTree } from './worktrees.ts'

const { values } = parseArgs({
  options: {
    runs: { type: 'string' },
    'idle-ms': { type: 'string' },
    postgres: { type: 'boolean' },
    before: { type: 'string' },
  },
  strict: true,
})
const runs = Number(values.runs ?? process.env.BENCH_RUNS ?? 3)
const idleMs = Number(values['idle-ms'] ?? 3000)
if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number >= 1 (got ${runs})`)
if (!Number.isFinite(idleMs) || idleMs < 0) throw new Error(`--idle-ms must be >= 0 (got ${idleMs})`)
const beforeRef = values.before
const beforeCommit = beforeRef === undefined ? undefined : commitOf(beforeRef)

const CASES: StartupCase[] = [
  { name: 'empty-dir', label: '(a) new empty DATA_DIR', storage: 'new-dir', workers: 1 },
  { name: 'reused-dir', label: '(b) same DATA_DIR reused', storage: 'reused-dir', workers: 1 },
  { name: 'memory', label: '(c) DATA_DIR=memory', storage: 'memory', workers: 1 },
  ...(values.postgres
    ? ([
        { name: 'postgres-new', label: '(d) new empty Postgres database', storage: 'postgres', workers: 1 },
        {
          name: 'postgres-reused',
          label: '(e) same Postgres database reused',
          storage: 'postgres',
          workers: 1,
        },
        {
          name: 'postgres-2-workers',
          label: '(f) same Postgres database, 2 workers',
          storage: 'postgres',
          workers: 2,
        },
      ] as const)
    : []),
]

/** A checkout that is measured: this working tree, and with `--before` the ref's temporary worktree. */
interface Tree {
  side: Side
  cwd: string
  /** What it holds, for the report. */
  source: string
}

/** Processes, folders and databases to clean up however the bench ends (Ctrl-C included). */
let current: Child | undefined
const tempDirs = new Set<string>()
const databases = new Set<string>()
const { adminUrl } = benchDatabaseUrl()
process.on('exit', () => {
  killWorkers(current)
  if (current && isRunning(current)) current.process.kill('SIGKILL')
  for (const name of databases) dropDatabaseSync(adminUrl, name)
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
  removeWorktrees()
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the benchmark\n`)
    process.exit(130)
  })
}

/** SIGKILL to a cluster primary's workers, before the primary: killed outright, it leaves them to notice. */
function killWorkers(child: Child | undefined) {
  if (!child || !isRunning(child)) return
  for (const worker of childrenOf(child.pid)) {
    try {
      process.kill(worker, 'SIGKILL')
    } catch {
      // Gone meanwhile.
    }
  }
}

/** The tree's own `node scripts/prepare.ts`: caches the embedded clusters its code looks for, if missing. */
async function prepare(tree: Tree): Promise<void> {
  if (!existsSync(join(tree.cwd, 'scripts', 'prepare.ts'))) {
    process.stdout.write(`${tree.side}: no scripts/prepare.ts; its first start makes what it needs\n`)
    return
  }
  const startedAt = performance.now()
  const child = spawnNode({ args: ['scripts/prepare.ts'], cwd: tree.cwd })
  const { code, signal } = await child.exited
  const said = child.tail().trim().replaceAll('\n', '; ')
  process.stdout.write(
    `${tree.side}: node scripts/prepare.ts ${round(performance.now() - startedAt)} ms` +
      `${said ? `: ${said}` : ', nothing to prepare'}\n`,
  )
  if (code !== 0) throw new Error(`${tree.side}: scripts/prepare.ts exited with ${code ?? signal}`)
}

/**
 * Starts the tree to both /readyz and stops it, unmeasured: its compile cache (`.cache/node-compile`, where
 * its code keeps one) then holds what a start reads, in a new worktree as in this tree.
 */
async function warmUp(tree: Tree, storage: Record<string, string>, workers: number): Promise<void> {
  const ports = await pickPorts()
  const startedAt = performance.now()
  try {
    current = startCurio(
      ports,
      { ...storage, WORKERS: String(workers), LOG_LEVEL: 'warn' },
      { cwd: tree.cwd },
    )
    await waitFor200(current, [
      `http://127.0.0.1:${ports.platformPort}/readyz`,
      `http://127.0.0.1:${ports.directoryPort}/readyz`,
    ])
    const stopped = await stopChild(current)
    process.stdout.write(
      `${tree.side}: warm-up start, ${workers} worker(s), ${round(performance.now() - startedAt)} ms` +
        ` (exit ${stopped.code ?? stopped.signal})\n`,
    )
  } finally {
    killWorkers(current)
    await killChild(current)
    current = undefined
  }
}

const sum = (figures: (number | null)[]) =>
  figures.reduce<number>((total, figure) => total + (figure ?? 0), 0)

/** A CPU or memory figure of each of a cluster primary's workers (none for a single process). */
const ofWorkers = <T>(pid: number, read: (worker: number) => T) =>
  new Map(childrenOf(pid).map((worker) => [worker, read(worker)]))

async function measure(
  startupCase: StartupCase,
  run: number,
  tree: Tree,
  storage: Record<string, string>,
): Promise<Run> {
  const ports = await pickPorts()
  try {
    current = startCurio(
      ports,
      { ...storage, WORKERS: String(startupCase.workers), LOG_LEVEL: 'warn' },
      { keepOutput: true, cwd: tree.cwd },
    )
    const child = current
    const readyAt = await waitFor200(child, [
      `http://127.0.0.1:${ports.platformPort}/readyz`,
      `http://127.0.0.1:${ports.directoryPort}/readyz`,
    ])
    const cpuMsAtReady = cpuMsOf(child.pid, { withEndedChildren: true })
    const workerCpu = ofWorkers(child.pid, (worker) => cpuMsOf(worker))
    const startMs = readyAt - child.spawnedAt
    await sleep(idleMs)
    const memory = memoryOf(child.pid)
    const workers: WorkerFigures[] = [...ofWorkers(child.pid, memoryOf)].map(([pid, workerMemory]) => ({
      pid,
      cpuMsAtReady: workerCpu.get(pid) ?? null,
      rssMb: workerMemory ? round(workerMemory.rssMb, 1) : null,
      peakRssMb: workerMemory ? round(workerMemory.peakRssMb, 1) : null,
    }))
    const rssFigures = [memory?.rssMb ?? null, ...workers.map((worker) => worker.rssMb)]
    const shutdown = await stopChild(child)
    const banner = child.output.find((line) => line.text.includes('Curio is running'))
    if (workers.length !== (startupCase.workers > 1 ? startupCase.workers : 0)) {
      process.stdout.write(
        `note: ${tree.side} ${startupCase.name} run ${run} had ${workers.length} worker process(es)\n`,
      )
    }
    return {
      case: startupCase.name,
      ...(beforeCommit ? { side: tree.side } : {}),
      run,
      startMs: round(startMs),
      cpuMsAtReady: cpuMsAtReady === null ? null : cpuMsAtReady + sum([...workerCpu.values()]),
      bannerMs: banner ? round(banner.atMs) : null,
      rssMb: memory ? round(memory.rssMb, 1) : null,
      peakRssMb: memory ? round(memory.peakRssMb, 1) : null,
      workers,
      totalRssMb: rssFigures.includes(null) ? null : round(sum(rssFigures), 1),
      shutdown: { ...shutdown, ms: round(shutdown.ms) },
      // The banner carries a one-time admin password: keep only line times and the log lines.
      output: child.output.map((line) =>
        line.text.includes('password') ? { ...line, text: '[banner line with password omitted]' } : line,
      ),
    }
  } finally {
    killWorkers(current)
    await killChild(current)
    current = undefined
  }
}

/** An empty Postgres database for one tree's (d), (e) and (f) in one run, dropped after them. */
async function createBenchDatabase(run: number, side: Side): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `curio_bench_startup_${process.pid}_${side}_${run}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists "${name}"`)
    databases.add(name)
    await admin.query(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const dropper = new pg.Client({ connectionString: adminUrl })
      await dropper.connect()
      try {
        await dropper.query(`drop database if exists "${name}" with (force)`)
        databases.delete(name)
      } finally {
        await dropper.end()
      }
    },
  }
}

function storageOf(
  startupCase: StartupCase,
  dir: string,
  databaseUrl: string | undefined,
): Record<string, string> {
  if (startupCase.storage === 'postgres') return { DATABASE_URL: databaseUrl as string }
  return { DATA_DIR: startupCase.storage === 'memory' ? 'memory' : dir }
}

const machineBefore = machine()
const here = beforeCommit ? workingTree() : undefined
const trees: Tree[] = [
  {
    side: 'after',
    cwd: REPO_ROOT,
    source: here
      ? `working tree (HEAD ${here.head.slice(0, 10)}, ${here.uncommittedFiles} uncommitted file(s))`
      : 'working tree',
  },
]
if (beforeCommit) {
  const worktree = addWorktree(beforeCommit, 'startup')
  trees.unshift({ side: 'before', cwd: worktree.dir, source: `${beforeRef} (${beforeCommit.slice(0, 10)})` })
  for (const tree of trees) process.stdout.write(`${tree.side.padEnd(6)}  ${tree.source}\n`)
  for (const tree of trees) await prepare(tree)
  for (const tree of trees) {
    await warmUp(tree, { DATA_DIR: 'memory' }, 1)
    if (!values.postgres) continue
    const database = await createBenchDatabase(0, tree.side)
    await warmUp(tree, { DATABASE_URL: database.url }, 2)
    await database.drop()
  }
}

const results: Run[] = []
for (let run = 1; run <= runs; run++) {
  const order = run % 2 === 1 ? trees : [...trees].reverse()
  const scratch = new Map<Side, { dir: string; database?: Awaited<ReturnType<typeof createBenchDatabase>> }>()
  for (const tree of trees) {
    const dir = mkdtempSync(join(tmpdir(), 'curio-bench-startup-'))
    tempDirs.add(dir)
    scratch.set(tree.side, { dir })
    if (values.postgres) scratch.get(tree.side)!.database = await createBenchDatabase(run, tree.side)
  }
  for (const startupCase of CASES) {
    for (const tree of order) {
      const { dir, database } = scratch.get(tree.side)!
      const result = await measure(startupCase, run, tree, storageOf(startupCase, dir, database?.url))
      results.push(result)
      const rss =
        result.workers.length > 0
          ? `rss primary ${result.rssMb ?? '?'} + workers ${result.workers.map((worker) => worker.rssMb ?? '?').join(' + ')} = ${result.totalRssMb ?? '?'} MB`
          : `rss ${result.rssMb ?? '?'} MB`
      process.stdout.write(
        `run ${run}/${runs}  ${beforeCommit ? `${tree.side.padEnd(6)}  ` : ''}${startupCase.name.padEnd(18)}` +
          `  ready ${String(result.startMs).padStart(5)} ms  ${rss}  shutdown ${result.shutdown.ms} ms` +
          ` exit ${result.shutdown.code ?? result.shutdown.signal}\n`,
      )
    }
  }
  for (const { dir, database } of scratch.values()) {
    rmSync(dir, { recursive: true, force: true })
    tempDirs.delete(dir)
    await database?.drop()
  }
}
removeWorktrees()

const summary = summarize(CASES, results, beforeCommit !== undefined)
const machineAfter = machine()
process.stdout.write(
  `\nCurio start-up: ${runs} run(s) per case${beforeCommit ? ' and side (alternating which goes first)' : ''}, ` +
    `${idleMs} ms idle before reading VmRSS\n` +
    `${machineAfter.node}, ${machineAfter.cpus} CPU(s), ${machineAfter.cpuModel}; ` +
    `load average at start ${machineBefore.loadAverage.join(' / ')}, at end ${machineAfter.loadAverage.join(' / ')}\n` +
    (beforeCommit ? trees.map((tree) => `${tree.side.padEnd(6)}  ${tree.source}\n`).join('') : '') +
    '\n',
)
process.stdout.write(`${summaryTable(CASES, summary, beforeCommit !== undefined)}\n\n${NOTES}`)
if (beforeCommit) process.stdout.write('Change = after against before, in % of before (medians).\n')

const path = writeResults('startup', {
  benchmark: 'startup',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machineAfter.loadAverage,
  settings: { runs, idleMs, pollIntervalMs: 25, logLevel: 'warn' },
  targets: {
    startMs: TARGET_START_MS,
    rssMb: TARGET_RSS_MB,
    primaryRssMb: TARGET_PRIMARY_RSS_MB,
    workerRssMb: TARGET_WORKER_RSS_MB,
  },
  ...(beforeCommit
    ? { before: { ref: beforeRef, commit: beforeCommit }, after: { workingTree: true, ...here } }
    : {}),
  summary,
  runs: results,
})
process.stdout.write(`\nwrote ${path}\n`)
