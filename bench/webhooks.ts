import { parseArgs } from 'node:util'
import pg from 'pg'
import {
  checkWholeNumbers,
  codeVersion,
  dropDatabaseOnSignal,
  machine,
  round,
  table,
  writeResults,
} from './lib.ts'
import { startReceiver } from './webhooks-receiver.ts'
import {
  type CrashResult,
  type DrainResult,
  measureCrash,
  measureDrain,
  type Settings,
} from './webhooks-runs.ts'

/** The issue's targets: deliveries per second on Postgres, duplicates after a crash. */
const TARGET_PER_SEC = 1000
const TARGET_DUPLICATE_PCT = 1

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    events: { type: 'string' },
    subscriptions: { type: 'string' },
    concurrency: { type: 'string' },
    pool: { type: 'string' },
    poll: { type: 'string' },
    'no-crash': { type: 'boolean', default: false },
    'kill-at': { type: 'string' },
    timeout: { type: 'string' },
    'crash-timeout': { type: 'string' },
    'slow-subscriptions': { type: 'string' },
    'slow-ms': { type: 'string' },
  },
  strict: true,
})
const settings: Settings = {
  events: Number(values.events ?? 1000),
  subscriptions: Number(values.subscriptions ?? 25),
  concurrency: values.concurrency === undefined ? undefined : Number(values.concurrency),
  poolSize: values.pool === undefined ? undefined : Number(values.pool),
  pollSec: Number(values.poll ?? 2),
  drainTimeoutSec: Number(values.timeout ?? 300),
  crashTimeoutSec: Number(values['crash-timeout'] ?? 180),
  killAt: Number(values['kill-at'] ?? 0.5),
  slowSubscriptions: Number(values['slow-subscriptions'] ?? 0),
  slowMs: Number(values['slow-ms'] ?? 1000),
}
checkWholeNumbers([
  ['--events', settings.events, 1],
  ['--subscriptions', settings.subscriptions, 1],
  ['--concurrency', settings.concurrency ?? 1, 1],
  ['--pool', settings.poolSize ?? 1, 1],
  ['--timeout', settings.drainTimeoutSec, 1],
  ['--crash-timeout', settings.crashTimeoutSec, 1],
  ['--slow-subscriptions', settings.slowSubscriptions, 0],
  ['--slow-ms', settings.slowMs, 0],
])
if (settings.subscriptions > 25) throw new Error('--subscriptions: at most 25 are active per account')
if (!(settings.pollSec >= 0.5)) throw new Error('--poll must be a number of seconds >= 0.5 (pg-boss minimum)')
if (!(settings.killAt > 0 && settings.killAt < 1)) throw new Error('--kill-at must be between 0 and 1')
if (values.db !== undefined && !['postgres', 'embedded', 'both'].includes(values.db)) {
  throw new Error('--db must be postgres, embedded or both')
}

const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const shownUrl = (() => {
  const url = new URL(adminUrl)
  if (url.password) url.password = '***'
  return url.toString()
})()

async function postgresVersion(): Promise<string | null> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    return ((await client.query('show server_version')).rows[0] as { server_version: string }).server_version
  } catch {
    return null
  } finally {
    await client.end().catch(() => {})
  }
}

const onDatabase = dropDatabaseOnSignal(adminUrl)

const postgres = await postgresVersion()
const wanted = values.db ?? 'both'
if (wanted === 'postgres' && !postgres) {
  throw new Error(`--db postgres: no Postgres answers at ${shownUrl} (set BENCH_DATABASE_URL)`)
}
const machineBefore = machine()
const code = codeVersion()
const drains: DrainResult[] = []
let crash: CrashResult | null = null
const skipped: string[] = []
const receiver = await startReceiver({ subscriptions: settings.slowSubscriptions, ms: settings.slowMs })
try {
  if (wanted !== 'embedded') {
    if (!postgres)
      skipped.push(`postgres: skipped, no server answers at ${shownUrl} (set BENCH_DATABASE_URL)`)
    else {
      process.stdout.write('\npostgres, one instance: ')
      drains.push(await measureDrain({ backend: 'postgres', adminUrl, receiver, settings, onDatabase }))
      if (values['no-crash']) skipped.push('crash: skipped (--no-crash)')
      else {
        process.stdout.write('postgres, killed and restarted: ')
        crash = await measureCrash({ adminUrl, receiver, settings, onDatabase })
      }
    }
  }
  if (wanted !== 'postgres') {
    process.stdout.write('embedded (PGlite in memory): ')
    drains.push(await measureDrain({ backend: 'embedded', adminUrl, receiver, settings, onDatabase }))
  }
} finally {
  await receiver.close()
}

const report = {
  benchmark: 'webhooks',
  at: new Date().toISOString(),
  machine: machineBefore,
  loadAverageAtEnd: machine().loadAverage,
  postgres: postgres ? { version: postgres, url: shownUrl } : null,
  code,
  settings,
  targets: { deliveriesPerSec: TARGET_PER_SEC, duplicatePct: TARGET_DUPLICATE_PCT },
  skipped,
  drains,
  crash,
}

const out = (text: string) => process.stdout.write(text)
const seconds = (ms: number | null) => (ms === null ? '–' : round(ms / 1000, 2))
const mark = (ok: boolean) => (ok ? '✓' : '✗')
const tally = (counts: Record<string, number | undefined>) =>
  Object.entries(counts)
    .filter(([key]) => key !== 'total')
    .map(([key, value]) => `${key} ${value}`)
    .join(', ')

out(
  `\nwebhook delivery: ${settings.events} events × ${settings.subscriptions} subscriptions, ` +
    `node ${machineBefore.node}, ${machineBefore.cpus} CPUs, load average ${machineBefore.loadAverage.join(' ')} ` +
    `at start, ${report.loadAverageAtEnd.join(' ')} at end; code ${code.head}` +
    `${code.uncommittedSrcFiles ? ` + ${code.uncommittedSrcFiles} uncommitted src file(s)` : ''}\n\n`,
)
if (drains.length > 0) {
  out(
    `${table([
      [
        'backend',
        'concurrency',
        'pool',
        'deliveries',
        'fan-out s',
        'written/s',
        'drain s',
        'delivered/s',
        'peak 1 s',
        'arrived',
        'dupes',
        'bad sig',
        'bench CPU s',
        'postgres CPU s',
        'machine busy %',
        'steal %',
      ],
      ...drains.map((run) => [
        run.backend,
        run.webhookConcurrency,
        run.poolSize ?? '–',
        run.deliveries,
        seconds(run.fanOutMs),
        run.fanOutPerSec,
        seconds(run.drainMs),
        run.deliveriesPerSec ?? `(${run.arrivedPerSec})`,
        run.peakPerSec,
        run.receiver.distinct,
        run.receiver.duplicates,
        run.receiver.badSignatures,
        seconds(run.cpu.benchProcessMs),
        run.backend === 'postgres' ? seconds(run.cpu.postgresMs) : '–',
        run.cpu.machineBusyPct ?? '–',
        run.cpu.machineStealPct ?? '–',
      ]),
    ])}\n`,
  )
  for (const run of drains) {
    out(
      `  ${run.backend}: ${mark((run.deliveriesPerSec ?? 0) >= TARGET_PER_SEC)} ${run.deliveriesPerSec ?? '–'}/s ` +
        `(target >= ${TARGET_PER_SEC}/s); ${run.missing} not arrived; statuses: ${tally(run.statuses)}; ` +
        `${run.jobsHandled} jobs handled, ${run.handlerMeanMs} ms each on average (longest ${run.handlerMaxMs} ms), ` +
        `delivery slots busy ${run.slotsBusyPct ?? '–'}% of the drain\n`,
    )
  }
}
if (crash) {
  out(
    `\ncrash (postgres): killed with ${crash.arrivedAtKill} of ${crash.deliveries} arrived ` +
      `(${seconds(crash.beforeKillMs)} s into the drain); at the kill: ${tally(crash.statusesAtKill)}; ` +
      `jobs ${tally(crash.jobsAtKill)}\n` +
      `  restart (clock ${crash.clockAheadMs / 1000} s ahead): recovery queued ${crash.recovered ?? '?'} again; ` +
      `rest drained in ${seconds(crash.afterRestartMs)} s\n` +
      `  ${mark(crash.complete)} every delivery arrived at least once (${crash.missing} missing); ` +
      `${mark(crash.duplicatePct < TARGET_DUPLICATE_PCT)} ${crash.receiver.duplicates} duplicates = ` +
      `${crash.duplicatePct}% (target < ${TARGET_DUPLICATE_PCT}%); ${crash.receiver.badSignatures} bad signatures\n`,
  )
  if (crash.missingSample.length > 0) {
    out(`  not arrived (first ${crash.missingSample.length}):\n`)
    for (const row of crash.missingSample) out(`    ${JSON.stringify(row)}\n`)
  }
}
for (const line of skipped) out(`${line}\n`)
out(`\nwrote ${writeResults('webhooks', report)}\n`)
