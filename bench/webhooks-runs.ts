/**
 * The runs of bench/webhooks.ts: the drain of one instance in this process (Postgres or PGlite), and the
 * crash run on Postgres with its instances in child processes (bench/webhooks-child.ts).
 */
import { performance } from 'node:perf_hooks'
import type pg from 'pg'
import { createPool, type DatabaseSource, serviceDatabase } from '../src/db/index.ts'
import { systemClock } from '../src/lib/clock.ts'
import { createLogger } from '../src/lib/logger.ts'
import { LEASE_MARGIN_MS } from '../src/platform/webhooks/recording.ts'
import { openEmbedded } from './generation-harness.ts'
import { type Child, isRunning, killChild, round, sleep, spawnNode, stopChild } from './lib.ts'
import {
  createLoad,
  createPostgresDatabase,
  deliveryCounts,
  deliveryIds,
  fanOut,
  jobCounts,
  machineTicks,
  postgresCpuBetween,
  postgresCpuMs,
  type StatusCounts,
  startWebhookInstance,
  unfinished,
  waitDrained,
} from './webhooks-harness.ts'
import type { Receiver, ReceiverReport } from './webhooks-receiver.ts'

export interface Settings {
  events: number
  subscriptions: number
  concurrency: number | undefined
  poolSize: number | undefined
  pollSec: number
  drainTimeoutSec: number
  crashTimeoutSec: number
  killAt: number
  /** Subscriptions whose endpoint answers only after `slowMs`. */
  slowSubscriptions: number
  slowMs: number
}

export interface CpuFigures {
  /** This process (the platform, the receiver thread and, embedded, PGlite). */
  benchProcessMs: number | null
  /** Every process named postgres on the machine. */
  postgresMs: number | null
  /** Busy share of all the machine's CPUs over the stretch, in %. */
  machineBusyPct: number | null
  /** Share of the machine's CPU time the hypervisor gave to others over the stretch (steal), in %. */
  machineStealPct: number | null
}

const share = (part: number, whole: number) => round((100 * part) / (whole || 1), 1)

function cpuMeter() {
  const process0 = process.cpuUsage()
  const postgres0 = postgresCpuMs()
  const ticks0 = machineTicks()
  return (): CpuFigures => {
    const used = process.cpuUsage(process0)
    const postgres1 = postgresCpuMs()
    const ticks1 = machineTicks()
    return {
      benchProcessMs: round((used.user + used.system) / 1000),
      postgresMs: postgresCpuBetween(postgres0, postgres1),
      machineBusyPct: ticks0 && ticks1 ? share(ticks1.busy - ticks0.busy, ticks1.all - ticks0.all) : null,
      machineStealPct: ticks0 && ticks1 ? share(ticks1.steal - ticks0.steal, ticks1.all - ticks0.all) : null,
    }
  }
}

function perSecondOf(per100ms: number[]): number[] {
  const seconds: number[] = []
  for (const [index, count] of per100ms.entries()) {
    const second = Math.floor(index / 10)
    seconds[second] = (seconds[second] ?? 0) + (count ?? 0)
  }
  return Array.from(seconds, (count) => count ?? 0)
}

/** The most requests the receiver saw in any one-second window. */
function peakPerSecond(per100ms: number[]): number {
  let best = 0
  let window = 0
  for (let index = 0; index < per100ms.length; index++) {
    window += per100ms[index] ?? 0
    if (index >= 10) window -= per100ms[index - 10] ?? 0
    best = Math.max(best, window)
  }
  return best
}

export interface DrainResult {
  backend: 'embedded' | 'postgres'
  database: string
  webhookConcurrency: number
  poolSize: number | null
  events: number
  deliveries: number
  worksMs: number
  fanOutMs: number
  /** Deliveries written and enqueued per second by the fan-out. */
  fanOutPerSec: number
  jobsQueued: Record<string, number>
  /** From the gate opening to every delivery `succeeded`. */
  drainMs: number | null
  deliveriesPerSec: number | null
  /** Distinct deliveries arrived per second from the gate to the end (the deadline when not drained). */
  arrivedPerSec: number
  peakPerSec: number
  /** Requests the receiver saw in each second of the drain. */
  perSecond: number[]
  /** Delivery jobs the handler was given (one per attempt when nothing is retried), their mean and longest time. */
  jobsHandled: number
  handlerMeanMs: number
  handlerMaxMs: number
  /** Share of the drain the `concurrency` slots spent inside the handler, in %. */
  slotsBusyPct: number | null
  receiver: Omit<ReceiverReport, 'ids' | 'per100ms'>
  missing: number
  statuses: StatusCounts
  cpu: CpuFigures
}

/** Fan-out then drain of `events × subscriptions` deliveries by one instance in this process. */
export async function measureDrain(options: {
  backend: 'embedded' | 'postgres'
  adminUrl: string
  receiver: Receiver
  settings: Settings
  onDatabase: (name: string | undefined) => void
}): Promise<DrainResult> {
  const { backend, receiver, settings } = options
  const log = createLogger('warn', process.stderr)
  const pools: pg.Pool[] = []
  let label = 'PGlite in memory'
  let closeDatabase: () => Promise<void>
  let sourceFor: (poolSize: number, poolLog: typeof log) => DatabaseSource
  if (backend === 'embedded') {
    const embedded = await openEmbedded()
    const source = embedded.sourceFor(0, log)
    sourceFor = () => source
    closeDatabase = () => embedded.close()
  } else {
    const created = await createPostgresDatabase(options.adminUrl, options.onDatabase)
    label = created.name
    sourceFor = (poolSize, poolLog) => {
      const pool = createPool(created.url, poolSize, poolLog)
      pools.push(pool)
      return { kind: 'postgres', pool, url: created.url }
    }
    closeDatabase = async () => {
      await Promise.allSettled(pools.map((pool) => pool.end()))
      await created.drop()
      options.onDatabase(undefined)
    }
  }
  receiver.reset()
  const instance = await startWebhookInstance({
    sourceFor,
    clock: systemClock,
    log,
    settings: {
      concurrency: settings.concurrency,
      poolSize: settings.poolSize,
      pollingIntervalSeconds: settings.pollSec,
    },
  }).catch(async (error: unknown) => {
    await closeDatabase()
    throw error
  })
  try {
    const total = settings.events * settings.subscriptions
    const load = await createLoad(instance, receiver.urlFor, {
      works: settings.events,
      subscriptions: settings.subscriptions,
    })
    receiver.setSecrets(load.secrets)
    process.stdout.write('fan-out… ')
    const fanOutMs = await fanOut(instance, load)
    const written = await deliveryCounts(instance.db)
    const jobsQueued = await jobCounts(instance.db)
    if (written.total !== total) throw new Error(`${written.total} deliveries written, ${total} expected`)
    process.stdout.write(`${round(fanOutMs / 1000, 1)} s; drain… `)

    const cpu = cpuMeter()
    const openedAt = performance.now()
    instance.openGate()
    const drainedAt = await waitDrained(
      instance.db,
      total,
      receiver.distinct,
      openedAt + settings.drainTimeoutSec * 1000,
    )
    const cpuFigures = cpu()
    const drainMs = drainedAt === null ? null : drainedAt - openedAt
    const windowMs = (drainedAt ?? performance.now()) - openedAt
    process.stdout.write(
      drainMs === null ? 'not drained before the deadline\n' : `${round(drainMs / 1000, 1)} s\n`,
    )
    const report = await receiver.report()
    const arrived = new Set(report.ids)
    const ids = await deliveryIds(instance.db)
    const { ids: _ids, per100ms, ...receiverFigures } = report
    return {
      backend,
      database: label,
      webhookConcurrency: instance.concurrency,
      poolSize: backend === 'postgres' ? instance.poolSize : null,
      events: settings.events,
      deliveries: total,
      worksMs: round(load.worksMs),
      fanOutMs: round(fanOutMs),
      fanOutPerSec: round(total / (fanOutMs / 1000)),
      jobsQueued,
      drainMs: drainMs === null ? null : round(drainMs),
      deliveriesPerSec: drainMs === null ? null : round(total / (drainMs / 1000)),
      arrivedPerSec: round(report.distinct / (windowMs / 1000)),
      peakPerSec: peakPerSecond(per100ms),
      perSecond: perSecondOf(per100ms),
      jobsHandled: instance.handler.calls,
      handlerMeanMs: round(instance.handler.totalMs / (instance.handler.calls || 1), 2),
      handlerMaxMs: round(instance.handler.maxMs, 1),
      slotsBusyPct:
        drainMs === null
          ? null
          : round((100 * instance.handler.totalMs) / (drainMs * instance.concurrency), 1),
      receiver: receiverFigures,
      missing: ids.filter((id) => !arrived.has(id)).length,
      statuses: await deliveryCounts(instance.db),
      cpu: cpuFigures,
    }
  } finally {
    await instance.close().catch(() => {})
    await closeDatabase()
  }
}

export interface CrashResult {
  database: string
  deliveries: number
  clockAheadMs: number
  fanOutMs: number | null
  /** Distinct deliveries at the receiver when the first instance was killed. */
  arrivedAtKill: number
  /** Deliveries by status, and their jobs by state, right after the kill. */
  statusesAtKill: StatusCounts
  jobsAtKill: Record<string, number>
  /** What the restarted instance's start-up recovery queued again (from its log). */
  recovered: number | null
  /** From the first instance's DRAINING to the kill, and from the restart's spawn to all succeeded. */
  beforeKillMs: number
  afterRestartMs: number | null
  /** Every delivery arrived at least once before the deadline. */
  complete: boolean
  missing: number
  missingSample: Record<string, unknown>[]
  receiver: Omit<ReceiverReport, 'ids' | 'per100ms'>
  duplicatePct: number
  statuses: StatusCounts
  jobs: Record<string, number>
}

async function announcement(child: Child, prefix: string, timeoutMs: number): Promise<string> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    const line = child.output.find((entry) => entry.stream === 'stdout' && entry.text.startsWith(prefix))
    if (line) return line.text.slice(prefix.length).trim()
    if (!isRunning(child)) throw new Error(`child exited before ${prefix}:\n${child.tail()}`)
    await sleep(10)
  }
  throw new Error(`child announced no ${prefix} within ${timeoutMs} ms:\n${child.tail()}`)
}

/**
 * The same load in a child process, SIGKILLed once `killAt` of the deliveries have arrived; a new child on
 * the same database with its clock past the lease of the attempts in flight then drains the rest.
 */
export async function measureCrash(options: {
  adminUrl: string
  receiver: Receiver
  settings: Settings
  onDatabase: (name: string | undefined) => void
}): Promise<CrashResult> {
  const { receiver, settings } = options
  const total = settings.events * settings.subscriptions
  const created = await createPostgresDatabase(options.adminUrl, options.onDatabase)
  const pool = createPool(created.url, 2, { warn: () => {} })
  const db = serviceDatabase('platform', { kind: 'postgres', pool, url: created.url }).db
  const childEnv = {
    BENCH_CHILD_DATABASE_URL: created.url,
    BENCH_CHILD_POLL_SECONDS: String(settings.pollSec),
    ...(settings.concurrency === undefined ? {} : { WEBHOOK_CONCURRENCY: String(settings.concurrency) }),
    ...(settings.poolSize === undefined ? {} : { DATABASE_POOL_SIZE: String(settings.poolSize) }),
  }
  let first: Child | undefined
  let second: Child | undefined
  receiver.reset()
  try {
    first = spawnNode({
      args: ['bench/webhooks-child.ts'],
      keepOutput: true,
      env: {
        ...childEnv,
        BENCH_CHILD_WORKS: String(settings.events),
        BENCH_CHILD_SUBSCRIPTIONS: String(settings.subscriptions),
        BENCH_CHILD_RECEIVER: receiver.base,
      },
    })
    receiver.setSecrets(JSON.parse(await announcement(first, 'SECRETS ', 300_000)) as string[])
    process.stdout.write('fan-out… ')
    const fanOutMs = Number(await announcement(first, 'FANNED ', 300_000))
    await announcement(first, 'DRAINING', 10_000)
    const drainingAt = performance.now()
    process.stdout.write(
      `${round(fanOutMs / 1000, 1)} s; drain until ${Math.round(settings.killAt * 100)}%… `,
    )
    const killWhen = Math.floor(total * settings.killAt)
    while (receiver.distinct() < killWhen) {
      if (!isRunning(first)) throw new Error(`the first instance exited before the kill:\n${first.tail()}`)
      await sleep(2)
    }
    first.process.kill('SIGKILL')
    const arrivedAtKill = receiver.distinct()
    const beforeKillMs = performance.now() - drainingAt
    await first.exited
    const statusesAtKill = await deliveryCounts(db)
    const jobsAtKill = await jobCounts(db)
    process.stdout.write(`killed at ${arrivedAtKill}; restart… `)

    // WEBHOOK_TIMEOUT_MS as the child loads it (the default unless the bench sets it).
    const timeoutMs = Number(process.env.WEBHOOK_TIMEOUT_MS ?? 10_000)
    const clockAheadMs = timeoutMs + LEASE_MARGIN_MS + 5_000
    const restartedAt = performance.now()
    second = spawnNode({
      args: ['bench/webhooks-child.ts'],
      keepOutput: true,
      env: { ...childEnv, BENCH_CHILD_CLOCK_AHEAD_MS: String(clockAheadMs) },
    })
    await announcement(second, 'DRAINING', 60_000)
    const recoveredLine = second.output.find((line) => line.text.includes('queued again'))
    const recovered = recoveredLine
      ? Number((JSON.parse(recoveredLine.text) as { deliveries?: number }).deliveries ?? 0)
      : 0
    const drainedAt = await waitDrained(
      db,
      total,
      receiver.distinct,
      restartedAt + settings.crashTimeoutSec * 1000,
    )
    const afterRestartMs = drainedAt === null ? null : drainedAt - restartedAt
    process.stdout.write(
      afterRestartMs === null
        ? `not drained within ${settings.crashTimeoutSec} s\n`
        : `${round(afterRestartMs / 1000, 1)} s\n`,
    )
    // A moment for a late duplicate (an attempt sent twice) to land before counting.
    await sleep(500)
    const report = await receiver.report()
    const arrived = new Set(report.ids)
    const missingIds = (await deliveryIds(db)).filter((id) => !arrived.has(id))
    const missingSample = missingIds.length > 0 ? await unfinished(db) : []
    const { ids: _ids, per100ms: _per100ms, ...receiverFigures } = report
    return {
      database: created.name,
      deliveries: total,
      clockAheadMs,
      fanOutMs,
      arrivedAtKill,
      statusesAtKill,
      jobsAtKill,
      recovered,
      beforeKillMs: round(beforeKillMs),
      afterRestartMs: afterRestartMs === null ? null : round(afterRestartMs),
      complete: missingIds.length === 0,
      missing: missingIds.length,
      missingSample,
      receiver: receiverFigures,
      duplicatePct: round((100 * report.duplicates) / total, 3),
      statuses: await deliveryCounts(db),
      jobs: await jobCounts(db),
    }
  } finally {
    if (second) await stopChild(second, 15_000).catch(() => {})
    await killChild(first)
    await pool.end().catch(() => {})
    await created.drop().catch(() => {})
    options.onDatabase(undefined)
  }
}
