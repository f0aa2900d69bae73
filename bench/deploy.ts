import { randomBytes } from 'node:crypto'
import { parseArgs } from 'node:util'
import { createLogger } from '../src/lib/logger.ts'
import { parseLatency } from './deploy-fakes.ts'
import { startFakes } from './deploy-harness.ts'
import {
  type BatchResult,
  type Common,
  measureBatch,
  measureParts,
  measureVerification,
  type PartsResult,
  type VerificationResult,
} from './deploy-runs.ts'
import {
  checkWholeNumbers,
  codeVersion,
  dropDatabaseOnSignal,
  machine,
  round,
  table,
  writeResults,
} from './lib.ts'

/** The issue's targets. */
const TARGET_CPU_MS_PER_POLL = 1
/** The batch counts as close to its floor within this share of it. */
const BATCH_CLOSE_PCT = 10

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    works: { type: 'string' },
    verifications: { type: 'string' },
    interval: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    start: { type: 'string' },
    'github-latency': { type: 'string' },
    'vercel-latency': { type: 'string' },
    'log-level': { type: 'string' },
    'part-ops': { type: 'string' },
    'poll-slots': { type: 'string' },
    pool: { type: 'string' },
  },
  strict: true,
})
const settings = {
  only: values.only,
  works: Number(values.works ?? 100),
  verifications: Number(values.verifications ?? 500),
  intervalMs: Number(values.interval ?? 1000),
  durationSec: Number(values.duration ?? 30),
  warmupSec: Number(values.warmup ?? 3),
  start: values.start ?? 'spread',
  githubLatencyMs: parseLatency(values['github-latency'], [30, 80]),
  vercelLatencyMs: parseLatency(values['vercel-latency'], [30, 80]),
  logLevel: values['log-level'] ?? 'warn',
  partOps: Number(values['part-ops'] ?? 500),
  pollSlots: values['poll-slots'] === undefined ? undefined : Number(values['poll-slots']),
  poolSize: values.pool === undefined ? undefined : Number(values.pool),
}
checkWholeNumbers([
  ['--works', settings.works, 1],
  ['--verifications', settings.verifications, 1],
  ['--interval', settings.intervalMs, 1],
  ['--duration', settings.durationSec, 1],
  ['--warmup', settings.warmupSec, 0],
  ['--part-ops', settings.partOps, 10],
  ['--poll-slots', settings.pollSlots ?? 1, 1],
  ['--pool', settings.poolSize ?? 1, 1],
])
if (settings.works > 100) throw new Error('--works: a batch takes at most 100 works')
if (settings.only !== undefined && !['batch', 'verify', 'parts'].includes(settings.only)) {
  throw new Error('--only must be batch, verify or parts')
}
if (!['spread', 'burst', 'both'].includes(settings.start))
  throw new Error('--start must be spread, burst or both')

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const setDropOnSignal = dropDatabaseOnSignal(adminUrl)

const machineBefore = machine()
const code = codeVersion()
const fakes = await startFakes({
  githubLatency: settings.githubLatencyMs,
  vercelLatency: settings.vercelLatencyMs,
})
const common: Common = {
  adminUrl,
  fakes,
  encryptionKey: randomBytes(32).toString('hex'),
  log: createLogger(settings.logLevel, process.stderr),
  onDatabase: (name) => {
    setDropOnSignal(name)
  },
  pollSlots: settings.pollSlots,
  poolSize: settings.poolSize,
}
let batch: BatchResult | null = null
const verifications: VerificationResult[] = []
let parts: PartsResult | null = null
const startedAt = performance.now()
try {
  if (settings.only === undefined || settings.only === 'batch') {
    process.stdout.write('\nbatch: ')
    batch = await measureBatch(common, { works: settings.works })
  }
  if (settings.only === undefined || settings.only === 'verify') {
    for (const start of settings.start === 'both' ? (['spread', 'burst'] as const) : [settings.start]) {
      process.stdout.write(`verification (${start}): `)
      verifications.push(
        await measureVerification(common, {
          verifications: settings.verifications,
          intervalMs: settings.intervalMs,
          durationSec: settings.durationSec,
          warmupSec: settings.warmupSec,
          start: start as 'spread' | 'burst',
        }),
      )
    }
  }
  if (settings.only === undefined || settings.only === 'parts') {
    process.stdout.write('one poll, part by part: ')
    parts = await measureParts(common, { rows: 100, ops: settings.partOps, concurrency: 10 })
    process.stdout.write('done\n')
  }
} finally {
  await fakes.close()
}

const report = {
  benchmark: 'deploy',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  totalSec: round((performance.now() - startedAt) / 1000, 1),
  code,
  settings,
  stand_ins: {
    githubLatencyMs: fakes.githubLatency,
    vercelLatencyMs: fakes.vercelLatency,
    vercelQueueMs: fakes.queueMs,
    vercelBuildMs: fakes.buildMs,
  },
  targets: {
    cpuMsPerPoll: TARGET_CPU_MS_PER_POLL,
    latenessUnderIntervalMs: settings.intervalMs,
    batchWithinFloorPct: BATCH_CLOSE_PCT,
  },
  batch,
  verifications,
  parts,
}

const out = (text: string) => process.stdout.write(text)
const s = (ms: number | null) => (ms === null ? '–' : round(ms / 1000, 1))
const mark = (ok: boolean) => (ok ? '✓' : '✗')
const range = ([low, high]: [number, number]) => (low === high ? `${low}` : `${low}-${high}`)
const tally = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')

out(
  `\ndeploy: node ${machineBefore.node}, ${machineBefore.cpus} CPUs, load average ${machineBefore.loadAverage.join(' ')} ` +
    `at start, ${report.loadAverageAtEnd.join(' ')} at end; code ${code.head}` +
    `${code.uncommittedSrcFiles ? ` + ${code.uncommittedSrcFiles} uncommitted src file(s)` : ''}; ` +
    `stand-in latency GitHub ${range(fakes.githubLatency)} ms, Vercel ${range(fakes.vercelLatency)} ms per request; ` +
    `${report.totalSec} s in all\n\n`,
)
const checks: boolean[] = []
if (batch) {
  const b = batch
  out(
    `${table([
      [
        'batch',
        'works',
        'groups',
        'floor s',
        'wall s',
        'groups s',
        'group span p50/max ms',
        'pending',
        'CPU ms/deploy',
        'GitHub req/deploy',
        'polls meanwhile',
        'fakes CPU s',
        'postgres CPU s (bench db / server)',
        'machine busy %',
        'steal %',
      ],
      [
        `${b.concurrency} every ${b.delayMs / 1000} s`,
        b.works,
        b.groups,
        s(b.floorMs),
        s(b.wallMs),
        s(b.groupsMs),
        `${b.groupSpanMs.p50} / ${b.groupSpanMs.max}`,
        b.statuses.pending ?? 0,
        b.cpuMsPerDeploy,
        b.github.perDeploy,
        b.pollsDuringBatch,
        s(b.cpu.fakesMs),
        `${s(b.cpu.postgresBenchDbMs)} / ${s(b.cpu.postgresServerMs)}`,
        b.cpu.machineBusyPct ?? '–',
        b.cpu.machineStealPct ?? '–',
      ],
    ])}\n`,
  )
  const perDeploy = Object.entries(b.github.byRoute)
    .sort((x, y) => y[1] - x[1])
    .map(([route, n]) => `${route} ${round(n / b.works, 2)}`)
  out(`  GitHub requests per deploy: ${perDeploy.join('; ')} (statuses: ${tally(b.github.byStatus)})\n`)
  out(`  Vercel requests during the batch: ${tally(b.vercelByRoute)}\n`)
  out(`  deployments after: ${tally(b.deploymentStates)}\n`)
  const allPending = b.httpStatus === 200 && (b.statuses.pending ?? 0) === b.works
  const close = b.wallMs <= b.floorMs * (1 + BATCH_CLOSE_PCT / 100)
  checks.push(allPending, close)
  out(
    `  ${mark(allPending)} all ${b.works} results pending (HTTP ${b.httpStatus}; ${tally(b.statuses)})` +
      `${b.errors.length ? `: ${b.errors.join(' | ')}` : ''}\n` +
      `  ${mark(close)} wall ${s(b.wallMs)} s vs floor ${s(b.floorMs)} s ((${b.groups} groups - 1) × ${b.delayMs / 1000} s): ` +
      `+${round((100 * (b.wallMs - b.floorMs)) / b.floorMs, 1)}% (close: within ${BATCH_CLOSE_PCT}%); ` +
      `the groups' own time ${s(b.groupsMs)} s = ${round(b.groupsMs / b.groups)} ms a group, ` +
      `the pause following each group's end\n\n`,
  )
}
if (verifications.length > 0) {
  out(
    `${table([
      [
        'verification',
        'n',
        'interval ms',
        'window s',
        'polls',
        'polls/s',
        'per s min/med',
        'ideal/s',
        'CPU ms/poll',
        'pg ms/poll (bench db)',
        'pg server CPU s',
        'xact/s',
        'xact/poll',
        'late p50/p95/max ms',
        'late > interval',
        'poll ms p50/p95',
        'running mean/max',
        'loop delay p99 ms',
        'fakes CPU s',
        'busy %',
        'steal %',
      ],
      ...verifications.map((v) => {
        const sorted = [...v.perSecond].sort((a, b) => a - b)
        return [
          v.start,
          v.verifications,
          v.intervalMs,
          s(v.windowMs),
          v.polls,
          v.pollsPerSec,
          `${sorted[0] ?? '–'} / ${sorted[Math.floor(sorted.length / 2)] ?? '–'}`,
          v.idealPerSec,
          v.cpuMsPerPoll,
          v.postgresBenchDbMsPerPoll ?? '–',
          s(v.cpu.postgresServerMs),
          v.xactPerSec,
          v.xactPerPoll,
          `${v.lateness.p50} / ${v.lateness.p95} / ${v.lateness.max}`,
          v.lateOverInterval,
          `${v.handlerMs.p50} / ${v.handlerMs.p95}`,
          `${v.pollsRunning.mean} / ${v.pollsRunning.max}`,
          v.eventLoopDelayMs.p99,
          s(v.cpu.fakesMs),
          v.cpu.machineBusyPct ?? '–',
          v.cpu.machineStealPct ?? '–',
        ]
      }),
    ])}\n`,
  )
  for (const v of verifications) {
    const cpuOk = v.cpuMsPerPoll < TARGET_CPU_MS_PER_POLL
    const lateOk = v.lateness.max < v.intervalMs
    checks.push(cpuOk, lateOk)
    out(
      `  ${v.start}: polls counted three ways in the window: ${v.polls} handler runs (${v.failedPolls} failed), ` +
        `${v.dbPolls} by the polls column, ${v.vercelPolls} Vercel requests (${tally(v.vercelByRoute)}); ` +
        `setup: works ${s(v.worksCreatedMs)} s, start transaction ${v.startTxMs} ms; deployments after: ${tally(v.deploymentStates)}\n` +
        `    lateness ms (p50/p95/p99/max): first polls ${v.latenessFirstPoll.p50}/${v.latenessFirstPoll.p95}/${v.latenessFirstPoll.p99}/${v.latenessFirstPoll.max}, ` +
        `later ${v.latenessLaterPolls.p50}/${v.latenessLaterPolls.p95}/${v.latenessLaterPolls.p99}/${v.latenessLaterPolls.max}, ` +
        `in the window ${v.latenessWindow.p50}/${v.latenessWindow.p95}/${v.latenessWindow.p99}/${v.latenessWindow.max}; ` +
        `the stand-in's gap minus the interval ${v.fakeGapOverIntervalMs.p50}/${v.fakeGapOverIntervalMs.p95}/${v.fakeGapOverIntervalMs.p99}/${v.fakeGapOverIntervalMs.max}\n` +
        `    poll jobs running at once: ${v.pollsRunning.mean} on average, ${v.pollsRunning.max} at most, of the queue's ${v.pollsRunning.slots}; ` +
        `queries waiting for a connection of the pool (${v.poolWaiting.poolSize}): ${v.poolWaiting.mean} on average, ${v.poolWaiting.max} at most; ` +
        `event loop delay p50/p99/max ${v.eventLoopDelayMs.p50}/${v.eventLoopDelayMs.p99}/${v.eventLoopDelayMs.max} ms\n` +
        `    database: ${v.database_.xactCommit} commits, ${v.database_.tupInserted} rows inserted, ${v.database_.tupUpdated} updated, ` +
        `${v.database_.tupDeleted} deleted; Postgres CPU ${s(v.cpu.postgresBenchDbMs)} s on the bench database's backends ` +
        `(${s(v.cpu.postgresServerMs)} s the whole server, other users included)\n` +
        `    ${mark(cpuOk)} ${v.cpuMsPerPoll} ms of our CPU per poll (target < ${TARGET_CPU_MS_PER_POLL} ms; ` +
        `${s(v.cpu.benchProcessMs)} s over ${v.polls} polls)\n` +
        `    ${mark(lateOk)} latest poll ${v.lateness.max} ms after it was due (target < one interval, ${v.intervalMs} ms; ` +
        `${v.lateOverInterval} of ${v.lateness.n} later than that)\n`,
    )
  }
}
if (parts) {
  const { background } = parts
  out(
    `\n${table([
      ['one poll, part by part', 'ops', 'wall s', 'our CPU ms/op', 'pg ms/op (bench db)'],
      ...parts.parts.map((p) => [p.part, p.ops, s(p.wallMs), p.cpuMsPerOp, p.pgMsPerOp ?? '–']),
    ])}\n`,
  )
  const whole = parts.parts.find((p) => p.part.startsWith('the whole poll'))
  const job = parts.parts.find((p) => p.part.startsWith('the job around it'))
  if (whole && job) {
    out(
      `  a poll as the queue runs it ≈ ${round(whole.cpuMsPerOp + job.cpuMsPerOp, 3)} ms of our CPU and ` +
        `${whole.pgMsPerOp === null || job.pgMsPerOp === null ? '–' : round(whole.pgMsPerOp + job.pgMsPerOp, 3)} ms of Postgres ` +
        `(the whole poll + the job around it), each part measured alone, 10 at a time, ` +
        `net of the idle instance's own ${background.cpuMsPerSec} ms of CPU a second ` +
        `(${background.pgMsPerSec ?? '–'} ms of Postgres)\n`,
    )
  }
}
const missed = checks.filter((ok) => !ok).length
out(
  `\n${checks.length === 0 ? 'no target checked (batch and verification not run)' : missed === 0 ? '✓ every target met' : `✗ ${missed} of ${checks.length} targets missed`}\n`,
)
out(`wrote ${writeResults('deploy', report)}\n`)
