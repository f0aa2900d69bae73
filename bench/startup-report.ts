/** What bench/startup.ts records of each start, and the summary, table and verdicts it prints. */
import { median, type OutputLine, round, type StopResult, table } from './lib.ts'

/** The targets a user would want of a start (issue 29): every case is judged against them. */
export const TARGET_START_MS = 2000
/** One process running both services. */
export const TARGET_RSS_MB = 400
/** A cluster's primary only forks and watches its workers; each worker runs both services (Postgres). */
export const TARGET_PRIMARY_RSS_MB = 80
export const TARGET_WORKER_RSS_MB = 150

export type Side = 'before' | 'after'
export type CaseName =
  | 'empty-dir'
  | 'reused-dir'
  | 'memory'
  | 'postgres-new'
  | 'postgres-reused'
  | 'postgres-2-workers'

export interface StartupCase {
  name: CaseName
  label: string
  storage: 'new-dir' | 'reused-dir' | 'memory' | 'postgres'
  /** WORKERS: 1 runs one process; more, a primary that forks that many workers. */
  workers: number
}

export interface WorkerFigures {
  pid: number
  /** Null when the worker was not there yet at ready (a replacement). */
  cpuMsAtReady: number | null
  rssMb: number | null
  peakRssMb: number | null
}

export interface Run {
  case: CaseName
  /** Which tree, with `--before` only. */
  side?: Side
  run: number
  startMs: number
  /**
   * CPU time (user + system) when both services were ready: the child's, its ended children's (a cluster's
   * preparing worker) and its workers'.
   */
  cpuMsAtReady: number | null
  /** When the "Curio is running" banner appeared on stdout, ms after spawn (a cluster: every worker listens). */
  bannerMs: number | null
  /** The spawned child after the idle wait: the only process, or a cluster's primary. */
  rssMb: number | null
  peakRssMb: number | null
  /** A cluster's workers (the child's child processes), lowest pid first; empty for one process. */
  workers: WorkerFigures[]
  /** The child's RSS plus its workers'. */
  totalRssMb: number | null
  shutdown: StopResult
  /** The child's own output lines with their times, for a breakdown. */
  output: OutputLine[]
}

export interface ProcessSummary {
  /** 'process' (the only one), 'primary', or 'worker 1', 'worker 2'… (by pid order in each run). */
  role: string
  rssMbMedian: number | null
  peakRssMbMax: number | null
  targetMb: number
  withinTarget: boolean | null
}

export interface CaseSummary {
  case: CaseName
  label: string
  side?: Side
  runs: number
  startMs: { min: number; median: number; max: number }
  cpuMsAtReadyMedian: number | null
  bannerMsMedian: number | null
  /** The spawned child: the only process, or a cluster's primary. */
  rssMbMedian: number | null
  peakRssMbMax: number | null
  processes: ProcessSummary[]
  totalRssMbMedian: number | null
  shutdownMs: { median: number; max: number }
  exitCodes: (number | string)[]
  startWithinTarget: boolean
  /** Every process within its own target. */
  rssWithinTarget: boolean | null
  /** After against before, in % of before (the after side, with `--before` only). */
  change?: {
    startMsMedianPct: number | null
    cpuMsAtReadyMedianPct: number | null
    rssMbMedianPct: (number | null)[]
    totalRssMbMedianPct: number | null
  }
}

const known = (values: (number | null | undefined)[]) =>
  values.filter((value): value is number => value !== null && value !== undefined)
const medianOf = (values: (number | null | undefined)[], digits = 0) => {
  const figures = known(values)
  return figures.length ? round(median(figures), digits) : null
}
const maxOf = (values: (number | null | undefined)[]) => {
  const figures = known(values)
  return figures.length ? Math.max(...figures) : null
}
const changePct = (before: number | null | undefined, after: number | null | undefined) =>
  before === null || before === undefined || after === null || after === undefined || before === 0
    ? null
    : round(((after - before) / before) * 100, 1)

function summarizeSide(startupCase: StartupCase, mine: Run[], side: Side | undefined): CaseSummary {
  const starts = mine.map((run) => run.startMs)
  const cluster = startupCase.workers > 1
  const processes: ProcessSummary[] = [
    {
      role: cluster ? 'primary' : 'process',
      runs: mine,
      target: cluster ? TARGET_PRIMARY_RSS_MB : TARGET_RSS_MB,
    },
    ...Array.from({ length: cluster ? startupCase.workers : 0 }, (_, index) => ({
      role: `worker ${index + 1}`,
      runs: mine.map((run) => run.workers[index] ?? { rssMb: null, peakRssMb: null }),
      target: TARGET_WORKER_RSS_MB,
    })),
  ].map(({ role, runs, target }) => {
    const rssMbMedian = medianOf(
      runs.map((run) => run.rssMb),
      1,
    )
    return {
      role,
      rssMbMedian,
      peakRssMbMax: maxOf(runs.map((run) => run.peakRssMb)),
      targetMb: target,
      // The primary and the workers have the "≤" targets; one process keeps its "<".
      withinTarget: rssMbMedian === null ? null : cluster ? rssMbMedian <= target : rssMbMedian < target,
    }
  })
  const shutdowns = mine.map((run) => run.shutdown.ms)
  const verdicts = processes.map((part) => part.withinTarget)
  return {
    case: startupCase.name,
    label: startupCase.label,
    ...(side ? { side } : {}),
    runs: mine.length,
    startMs: { min: Math.min(...starts), median: round(median(starts)), max: Math.max(...starts) },
    cpuMsAtReadyMedian: medianOf(mine.map((run) => run.cpuMsAtReady)),
    bannerMsMedian: medianOf(mine.map((run) => run.bannerMs)),
    rssMbMedian: processes[0]!.rssMbMedian,
    peakRssMbMax: processes[0]!.peakRssMbMax,
    processes,
    totalRssMbMedian: medianOf(
      mine.map((run) => run.totalRssMb),
      1,
    ),
    shutdownMs: { median: round(median(shutdowns)), max: Math.max(...shutdowns) },
    exitCodes: mine.map((run) => run.shutdown.code ?? run.shutdown.signal ?? 'none'),
    startWithinTarget: Math.max(...starts) < TARGET_START_MS,
    rssWithinTarget: verdicts.includes(null) ? null : verdicts.every(Boolean),
  }
}

/** One summary per case, or with `comparing` one per case and side, before first. */
export function summarize(cases: StartupCase[], runs: Run[], comparing: boolean): CaseSummary[] {
  return cases.flatMap((startupCase) => {
    const ofCase = runs.filter((run) => run.case === startupCase.name)
    if (!comparing) return [summarizeSide(startupCase, ofCase, undefined)]
    const [before, after] = (['before', 'after'] as const).map((side) =>
      summarizeSide(
        startupCase,
        ofCase.filter((run) => run.side === side),
        side,
      ),
    ) as [CaseSummary, CaseSummary]
    after.change = {
      startMsMedianPct: changePct(before.startMs.median, after.startMs.median),
      cpuMsAtReadyMedianPct: changePct(before.cpuMsAtReadyMedian, after.cpuMsAtReadyMedian),
      rssMbMedianPct: after.processes.map((part, index) =>
        changePct(before.processes[index]?.rssMbMedian, part.rssMbMedian),
      ),
      totalRssMbMedianPct: changePct(before.totalRssMbMedian, after.totalRssMbMedian),
    }
    return [before, after]
  })
}

const verdict = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'ok' : 'MISS')
const percent = (pct: number | null | undefined) =>
  pct === null || pct === undefined ? '' : `${pct > 0 ? '+' : ''}${pct.toFixed(1)}%`

/**
 * The table: a row per case (and side), and for a cluster a row per process under it. With `comparing`,
 * a side column and, on the after rows, the change of the start and of the RSS against before.
 */
export function summaryTable(cases: StartupCase[], summaries: CaseSummary[], comparing: boolean): string {
  const header = [
    'case',
    ...(comparing ? ['side'] : []),
    'start min ms',
    'median ms',
    'max ms',
    `< ${TARGET_START_MS} ms`,
    'CPU ms at ready',
    'RSS median MB',
    'RSS target',
    'RSS ok',
    'peak RSS MB',
    'shutdown ms (median)',
    'exit codes',
    ...(comparing ? ['start change', 'RSS change'] : []),
  ]
  const rows: (string | number)[][] = [header]
  for (const startupCase of cases) {
    const mine = summaries.filter((summary) => summary.case === startupCase.name)
    const cluster = startupCase.workers > 1
    for (const summary of mine) {
      const only = summary.processes[0]!
      rows.push([
        summary.label,
        ...(comparing ? [summary.side ?? ''] : []),
        summary.startMs.min,
        summary.startMs.median,
        summary.startMs.max,
        verdict(summary.startWithinTarget),
        summary.cpuMsAtReadyMedian ?? 'n/a',
        (cluster ? summary.totalRssMbMedian : only.rssMbMedian) ?? 'n/a',
        cluster ? 'total' : `< ${only.targetMb} MB`,
        cluster ? '' : verdict(only.withinTarget),
        cluster ? '' : (only.peakRssMbMax ?? 'n/a'),
        summary.shutdownMs.median,
        summary.exitCodes.join(','),
        ...(comparing
          ? [
              percent(summary.change?.startMsMedianPct),
              percent(cluster ? summary.change?.totalRssMbMedianPct : summary.change?.rssMbMedianPct[0]),
            ]
          : []),
      ])
    }
    if (!cluster) continue
    for (const [index, { role }] of mine[0]!.processes.entries()) {
      for (const summary of mine) {
        const part = summary.processes[index]!
        rows.push([
          `  ${role}`,
          ...(comparing ? [summary.side ?? ''] : []),
          '',
          '',
          '',
          '',
          '',
          part.rssMbMedian ?? 'n/a',
          `≤ ${part.targetMb} MB`,
          verdict(part.withinTarget),
          part.peakRssMbMax ?? 'n/a',
          '',
          '',
          ...(comparing ? ['', percent(summary.change?.rssMbMedianPct[index])] : []),
        ])
      }
    }
  }
  return table(rows)
}

export const NOTES =
  'start = spawn until both GET /readyz answered 200 (polled every 25 ms); target judged on the max. In a\n' +
  '  cluster the first worker listening answers; the banner (in the JSON) comes once every worker listens.\n' +
  'CPU ms at ready = user + system CPU time of the child when ready (median); a cluster adds the worker that\n' +
  '  prepared the databases (ended by then) and the running workers. A start far longer than its CPU time\n' +
  '  waited on I/O or on other work on the machine.\n' +
  'RSS = VmRSS of the child after the idle wait; peak = VmHWM (highest RSS so far) at that moment. A cluster\n' +
  "  shows its total, then the primary (the spawned child) and each worker (the primary's child processes,\n" +
  '  lowest pid first), each judged on its own target.\n' +
  'Shutdown = SIGTERM until the child exited (expected exit code 0; a primary exits once its workers have).\n'
