/**
 * The runs of bench/deploy.ts, each on a fresh Postgres database with one platform instance in this
 * process (bench/deploy-harness.ts) and the stand-ins in their own process (bench/deploy-fakes.ts):
 *
 * - batch: one account with the `vercel` and `github` plugins enabled with tokens, `works` works, then one
 *   `POST /api/deploy/batch` of them all with the DEPLOY_BATCH_* defaults.
 * - verification: `verifications` deployments written as deploy() writes them (INITIALIZING, the provider
 *   token sealed under `deployment-token:<id>`) and their verification started in the same transaction,
 *   each with a Vercel deployment that stays BUILDING, polled every DEPLOY_POLL_INTERVAL_MS for `duration`.
 * - parts: what one poll costs, part by part (measureParts).
 */
import { randomUUID } from 'node:crypto'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { and, count, eq, inArray, sum } from 'drizzle-orm'
import pg from 'pg'
import pino, { type Logger } from 'pino'
import { Agent, request } from 'undici'
import { createVercelProvider } from '../src/integrations/vercel/client.ts'
import { createEnvelope } from '../src/lib/crypto.ts'
import { createLogger } from '../src/lib/logger.ts'
import { VERIFICATION_CONCURRENCY } from '../src/platform/deploy/module.ts'
import { deployments } from '../src/platform/deploy/tables.ts'
import { tokenContext, VERIFICATION_JOB } from '../src/platform/deploy/verification.ts'
import { GITHUB_LOGIN, GITHUB_TOKEN, VERCEL_TOKEN } from './deploy-fakes.ts'
import {
  type CpuFigures,
  createDeployDatabase,
  createWorks,
  type DatabaseCounters,
  type DeployInstance,
  enablePlugin,
  type Fakes,
  type PollRecord,
  register,
  spread,
  startDeployInstance,
  startMeter,
  wallNow,
} from './deploy-harness.ts'
import { round, sleep } from './lib.ts'

const RUNNING = ['INITIALIZING', 'QUEUED', 'BUILDING'] as const
/** Poll jobs one instance runs at once. */
const VERIFICATION_SLOTS = VERIFICATION_CONCURRENCY

export interface Common {
  adminUrl: string
  fakes: Fakes
  encryptionKey: string
  log: Logger
  onDatabase: (name: string | undefined) => void
  /** An experiment: the verification queue's concurrency instead of the module's (VERIFICATION_SLOTS). */
  pollSlots: number | undefined
  /** DATABASE_POOL_SIZE of every instance, when set. */
  poolSize: number | undefined
}

async function onFreshInstance<T>(
  common: Common,
  env: Record<string, string>,
  run: (instance: DeployInstance, database: string) => Promise<T>,
  vercelDirect = false,
): Promise<T> {
  const created = await createDeployDatabase(common.adminUrl, common.onDatabase)
  let instance: DeployInstance | undefined
  try {
    instance = await startDeployInstance({
      url: created.url,
      fakes: common.fakes,
      encryptionKey: common.encryptionKey,
      env: { ...env, ...(common.poolSize ? { DATABASE_POOL_SIZE: String(common.poolSize) } : {}) },
      log: common.log,
      vercelDirect,
      pollSlots: common.pollSlots,
    })
    return await run(instance, created.name)
  } finally {
    await instance
      ?.close()
      .catch((error: unknown) => common.log.warn({ err: error }, 'instance close failed'))
    await created.drop()
  }
}

async function statesOf(instance: DeployInstance): Promise<Record<string, number>> {
  const rows = await instance.db
    .select({ state: deployments.state, n: count() })
    .from(deployments)
    .groupBy(deployments.state)
  return Object.fromEntries(rows.map((row) => [row.state, row.n]))
}

// ---- Batch -------------------------------------------------------------------------------------------

export interface BatchResult {
  database: string
  works: number
  concurrency: number
  delayMs: number
  groups: number
  /** (groups - 1) pauses of `delayMs`: the schedule's floor. */
  floorMs: number
  worksCreatedMs: number
  httpStatus: number
  wallMs: number
  /** wall - floor: the groups' own time, all of them. */
  groupsMs: number
  /** Each group's time as the GitHub stand-in saw it: first request to last (answers' latency excluded). */
  groupSpanMs: ReturnType<typeof spread>
  statuses: Record<string, number>
  errors: string[]
  cpu: CpuFigures
  database_: DatabaseCounters
  cpuMsPerDeploy: number
  github: {
    total: number
    perDeploy: number
    byRoute: Record<string, number>
    byStatus: Record<string, number>
  }
  vercelByRoute: Record<string, number>
  /** Verification polls (DEPLOY_POLL_INTERVAL_MS default) that ran during the batch, in the CPU above. */
  pollsDuringBatch: number
  deploymentStates: Record<string, number>
}

/** Splits arrival times into clusters separated by more than `gapMs`; answers each cluster's span. */
function clusterSpans(times: number[], gapMs: number): number[] {
  const sorted = [...times].sort((a, b) => a - b)
  const spans: number[] = []
  let start = sorted[0]
  for (let index = 1; index <= sorted.length; index++) {
    const at = sorted[index]
    if (at === undefined || at - sorted[index - 1]! > gapMs) {
      spans.push(sorted[index - 1]! - start!)
      start = at
    }
  }
  return sorted.length ? spans : []
}

export async function measureBatch(common: Common, options: { works: number }): Promise<BatchResult> {
  const { fakes } = common
  return onFreshInstance(common, {}, async (instance, database) => {
    const { app } = instance
    const account = await register(app)
    await enablePlugin(app, account, 'vercel', VERCEL_TOKEN)
    await enablePlugin(app, account, 'github', GITHUB_TOKEN)
    const { works, ms: worksCreatedMs } = await createWorks(app, account, options.works)
    process.stdout.write(`${works.length} works in ${round(worksCreatedMs / 1000, 1)} s; batch… `)

    const mark = await fakes.call<{ github: number }>('mark')
    const pollsBefore = instance.polls.length
    const meter = await startMeter(common.adminUrl, database, fakes.pid)
    const from = wallNow()
    const started = performance.now()
    const answer = await app.inject({
      method: 'POST',
      url: '/api/deploy/batch',
      headers: account.headers,
      payload: { works: works.map((work) => ({ workId: work.id })) },
    })
    const wallMs = performance.now() - started
    const to = wallNow()
    const pollsDuringBatch = instance.polls.length - pollsBefore
    const measured = await meter.stop()
    process.stdout.write(`${round(wallMs / 1000, 1)} s\n`)

    const body = answer.json() as { results?: { status: string; message: string }[] }
    const statuses: Record<string, number> = {}
    for (const result of body.results ?? []) statuses[result.status] = (statuses[result.status] ?? 0) + 1
    const errors = [
      ...new Set((body.results ?? []).filter((r) => r.status !== 'pending').map((r) => r.message)),
    ].slice(0, 5)
    if (answer.statusCode !== 200) errors.unshift(`HTTP ${answer.statusCode}: ${answer.body.slice(0, 300)}`)
    const github = await fakes.call<{
      total: number
      byRoute: Record<string, number>
      byStatus: Record<string, number>
    }>('githubRequests', { from: mark.github })
    const arrivals = await fakes.call<number[]>('githubArrivals', { from, to })
    const vercel = await fakes.call<{ byRoute: Record<string, number> }>('vercelPolls', { from, to })
    const groups = Math.ceil(works.length / instance.batchConcurrency)
    const floorMs = (groups - 1) * instance.batchDelayMs
    return {
      database,
      works: works.length,
      concurrency: instance.batchConcurrency,
      delayMs: instance.batchDelayMs,
      groups,
      floorMs,
      worksCreatedMs: round(worksCreatedMs),
      httpStatus: answer.statusCode,
      wallMs: round(wallMs),
      groupsMs: round(wallMs - floorMs),
      groupSpanMs: spread(clusterSpans(arrivals, instance.batchDelayMs / 2)),
      statuses,
      errors,
      cpu: measured.cpu,
      database_: measured.database,
      cpuMsPerDeploy: round(measured.cpu.benchProcessMs / works.length, 1),
      github: { ...github, perDeploy: round(github.total / works.length, 2) },
      vercelByRoute: vercel.byRoute,
      pollsDuringBatch,
      deploymentStates: await statesOf(instance),
    }
  })
}

// ---- Verification ------------------------------------------------------------------------------------

export interface VerificationSettings {
  verifications: number
  intervalMs: number
  durationSec: number
  warmupSec: number
  /** `spread`: first polls due evenly over one interval; `burst`: all due at the same instant. */
  start: 'spread' | 'burst'
}

export interface VerificationResult {
  database: string
  start: 'spread' | 'burst'
  verifications: number
  intervalMs: number
  worksCreatedMs: number
  /** The transaction writing the deployments and queueing their first polls. */
  startTxMs: number
  windowMs: number
  /** Poll handler runs that ended in the window, and those that threw. */
  polls: number
  failedPolls: number
  /** `polls` column delta over the window (each taken poll adds one). */
  dbPolls: number
  /** Vercel requests of the polls in the window, as the stand-in's proxy saw them. */
  vercelPolls: number
  vercelByRoute: Record<string, number>
  pollsPerSec: number
  /** Polls ended in each whole second of the window. */
  perSecond: number[]
  /** verifications / interval: the rate if a poll took no time and ran the instant it was due. */
  idealPerSec: number
  cpu: CpuFigures
  database_: DatabaseCounters
  cpuMsPerPoll: number
  postgresBenchDbMsPerPoll: number | null
  xactPerSec: number
  xactPerPoll: number
  /** Handler start minus due time (its next_poll_at), ms: every poll of the run, then the window's only. */
  lateness: ReturnType<typeof spread>
  latenessFirstPoll: ReturnType<typeof spread>
  latenessLaterPolls: ReturnType<typeof spread>
  latenessWindow: ReturnType<typeof spread>
  lateOverInterval: number
  /** Handler duration (take the poll, ask Vercel, write and queue the next), ms. */
  handlerMs: ReturnType<typeof spread>
  /** Poll handlers running at once, sampled every 20 ms, against the queue's concurrency. */
  pollsRunning: { mean: number; max: number; slots: number }
  /** Queries waiting for one of the service pool's connections, sampled every 20 ms. */
  poolWaiting: { mean: number; max: number; poolSize: number }
  /** This process's event loop delay over the window (monitorEventLoopDelay, 10 ms resolution). */
  eventLoopDelayMs: { p50: number; p99: number; max: number }
  /** Between consecutive Vercel requests of one deployment minus the interval, ms (the stand-in's view). */
  fakeGapOverIntervalMs: ReturnType<typeof spread>
  deploymentStates: Record<string, number>
}

async function pollsSum(instance: DeployInstance): Promise<number> {
  const [row] = await instance.db.select({ polls: sum(deployments.polls) }).from(deployments)
  return Number(row?.polls ?? 0)
}

export async function measureVerification(
  common: Common,
  settings: VerificationSettings,
): Promise<VerificationResult> {
  const { fakes } = common
  const { verifications: n, intervalMs } = settings
  return onFreshInstance(
    common,
    { DEPLOY_POLL_INTERVAL_MS: String(intervalMs) },
    async (instance, database) => {
      const { app } = instance
      const account = await register(app)
      const { works, ms: worksCreatedMs } = await createWorks(app, account, n, 'Verified work')
      process.stdout.write(`${n} works in ${round(worksCreatedMs / 1000, 1)} s; `)

      // Dispatched 5 s ago; each workflow's deployment created a second later, and BUILDING from then on.
      const t0 = Date.now()
      const dispatchedAt = new Date(t0 - 5000)
      const projects = works.map((work) => `${work.slug}-website`)
      await fakes.call('createDeployments', { projects, createdAt: t0 - 4000, states: ['BUILDING'] })
      const envelope = createEnvelope(common.encryptionKey)
      // The first polls are due once the transaction has surely committed.
      const firstDue = Date.now() + 1500
      const now = new Date()
      const rows = works.map((work, index) => {
        const id = randomUUID()
        const offset = settings.start === 'spread' ? Math.floor((index * intervalMs) / n) : 0
        return {
          id,
          workId: work.id,
          userId: account.userId,
          ownerId: account.userId,
          providerId: 'vercel',
          providerName: 'Vercel',
          repository: `${GITHUB_LOGIN}/${projects[index]}`,
          projectName: projects[index]!,
          teamScope: null,
          providerToken: envelope.seal(VERCEL_TOKEN, tokenContext(id)),
          trigger: 'deploy_vercel.yaml',
          state: 'INITIALIZING' as const,
          dispatchedAt,
          nextPollAt: new Date(firstDue + offset),
          createdAt: now,
          updatedAt: now,
        }
      })
      const txStarted = performance.now()
      await instance.db.transaction(async (tx) => {
        const inserted = await tx.insert(deployments).values(rows).returning()
        for (const row of inserted) await instance.services.verification.start(tx, row)
      })
      const startTxMs = performance.now() - txStarted
      if (Date.now() > firstDue) {
        common.log.warn({ startTxMs }, 'the first polls were due before their transaction committed')
      }
      const windowFrom = firstDue + intervalMs + settings.warmupSec * 1000
      process.stdout.write(`polling, ${settings.warmupSec} s warm-up + ${settings.durationSec} s… `)
      await sleep(Math.max(0, windowFrom - Date.now()))

      const pollsAtStart = await pollsSum(instance)
      const meter = await startMeter(common.adminUrl, database, fakes.pid)
      const loopDelay = monitorEventLoopDelay({ resolution: 10 })
      loopDelay.enable()
      const running: number[] = []
      const waiting: number[] = []
      const sampler = setInterval(() => {
        running.push(instance.pollsRunning())
        waiting.push(instance.poolWaiting())
      }, 20)
      const from = wallNow()
      await sleep(settings.durationSec * 1000)
      const to = wallNow()
      clearInterval(sampler)
      loopDelay.disable()
      const pollsAtEnd = await pollsSum(instance)
      const measured = await meter.stop()
      const windowMs = to - from
      const records = [...instance.polls]

      const inWindow = records.filter((record) => record.endedAt >= from && record.endedAt < to)
      const perSecond = Array.from({ length: Math.floor(windowMs / 1000) }, () => 0)
      for (const record of inWindow) {
        const second = Math.floor((record.endedAt - from) / 1000)
        if (second < perSecond.length) perSecond[second]!++
      }
      const lateOf = (list: PollRecord[]) =>
        list.flatMap((record) => (record.dueAt === undefined ? [] : [record.startedAt - record.dueAt]))
      const allLateness = lateOf(records.filter((record) => record.startedAt < to))
      const vercel = await fakes.call<{
        byRoute: Record<string, number>
        polls: number
        gaps: number[]
      }>('vercelPolls', { from, to })
      process.stdout.write(`${inWindow.length} polls\n`)
      const polls = inWindow.length
      const db = measured.database
      return {
        database,
        start: settings.start,
        verifications: n,
        intervalMs,
        worksCreatedMs: round(worksCreatedMs),
        startTxMs: round(startTxMs),
        windowMs: round(windowMs),
        polls,
        failedPolls: inWindow.filter((record) => record.failed).length,
        dbPolls: pollsAtEnd - pollsAtStart,
        vercelPolls: vercel.polls,
        vercelByRoute: vercel.byRoute,
        pollsPerSec: round(polls / (windowMs / 1000), 1),
        perSecond,
        idealPerSec: round(n / (intervalMs / 1000), 1),
        cpu: measured.cpu,
        database_: db,
        cpuMsPerPoll: round(measured.cpu.benchProcessMs / (polls || 1), 3),
        postgresBenchDbMsPerPoll:
          measured.cpu.postgresBenchDbMs === null
            ? null
            : round(measured.cpu.postgresBenchDbMs / (polls || 1), 3),
        xactPerSec: round(db.xactCommit / (windowMs / 1000), 1),
        xactPerPoll: round(db.xactCommit / (polls || 1), 2),
        lateness: spread(allLateness),
        latenessFirstPoll: spread(lateOf(records.filter((record) => record.poll === 0))),
        latenessLaterPolls: spread(
          lateOf(records.filter((record) => record.poll > 0 && record.startedAt < to)),
        ),
        latenessWindow: spread(lateOf(inWindow)),
        lateOverInterval: allLateness.filter((ms) => ms > intervalMs).length,
        handlerMs: spread(inWindow.map((record) => record.endedAt - record.startedAt)),
        pollsRunning: {
          mean: round(running.reduce((total, n) => total + n, 0) / (running.length || 1), 1),
          max: running.reduce((most, n) => Math.max(most, n), 0),
          slots: common.pollSlots ?? VERIFICATION_SLOTS,
        },
        poolWaiting: {
          mean: round(waiting.reduce((total, n) => total + n, 0) / (waiting.length || 1), 1),
          max: waiting.reduce((most, n) => Math.max(most, n), 0),
          poolSize: instance.poolSize,
        },
        // The histogram holds the 10 ms timer's whole intervals: the delay is what exceeds 10 ms.
        eventLoopDelayMs: {
          p50: round(Math.max(0, loopDelay.percentile(50) / 1e6 - 10), 1),
          p99: round(Math.max(0, loopDelay.percentile(99) / 1e6 - 10), 1),
          max: round(Math.max(0, loopDelay.max / 1e6 - 10), 1),
        },
        fakeGapOverIntervalMs: spread(vercel.gaps.map((gap) => gap - intervalMs)),
        deploymentStates: await statesOf(instance),
      }
    },
  )
}

// ---- One poll, part by part --------------------------------------------------------------------------

const PROBE_QUEUE = 'bench-deploy-probe'

export interface PartsResult {
  /** The instance's own use when idle, taken out of every part over its wall time. */
  background: { cpuMsPerSec: number; pgMsPerSec: number }
  parts: PartResult[]
}

export interface PartResult {
  part: string
  ops: number
  wallMs: number
  /** This process's CPU per operation, ms (the idle instance's share over the part's wall time taken out). */
  cpuMsPerOp: number
  /** CPU of the bench database's Postgres backends per operation, ms. */
  pgMsPerOp: number | null
}

/** `count` calls of `op(index)`, `concurrency` at a time. */
async function runMany(count: number, concurrency: number, op: (index: number) => unknown) {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) await op(next++)
    }),
  )
}

/**
 * What one verification poll costs, part by part, each measured on its own (`ops` times, `concurrency` at a
 * time) as CPU of this process and of the bench database's Postgres backends: the whole poll
 * (services.verification.poll: take it, ask Vercel, write the state and queue the next poll in one
 * transaction), then its parts as verification.ts runs them, the same statement without the ORM, the same
 * Vercel request without the SDK, pg-boss's share of running one job (fetch and complete, 10 at a time),
 * and the poll's log line at LOG_LEVEL=info. The instance polls every hour, so no poll job runs meanwhile,
 * and reaches Vercel without the proxy's wait: each part keeps this process busy, as the polling run does
 * (a process woken every 55 ms runs each request from cold caches, at up to twice the CPU).
 */
export async function measureParts(
  common: Common,
  options: { rows: number; ops: number; concurrency: number },
): Promise<PartsResult> {
  const { fakes } = common
  return onFreshInstance(
    common,
    { DEPLOY_POLL_INTERVAL_MS: String(3_600_000) },
    async (instance, database) => {
      const { app, db, jobs } = instance
      const account = await register(app)
      const { works } = await createWorks(app, account, options.rows, 'Probed work')
      const projects = works.map((work) => `${work.slug}-website`)
      const t0 = Date.now()
      const uids = await fakes.call<string[]>('createDeployments', {
        projects,
        createdAt: t0 - 4000,
        states: ['BUILDING'],
      })
      const envelope = createEnvelope(common.encryptionKey)
      const now = new Date()
      const rows = works.map((work, index) => {
        const id = randomUUID()
        return {
          id,
          workId: work.id,
          userId: account.userId,
          ownerId: account.userId,
          providerId: 'vercel',
          providerName: 'Vercel',
          repository: `${GITHUB_LOGIN}/${projects[index]}`,
          projectName: projects[index]!,
          teamScope: null,
          providerToken: envelope.seal(VERCEL_TOKEN, tokenContext(id)),
          trigger: 'deploy_vercel.yaml',
          state: 'BUILDING' as const,
          providerDeploymentId: uids[index]!,
          dispatchedAt: new Date(t0 - 5000),
          nextPollAt: new Date(t0 + 3_600_000),
          createdAt: now,
          updatedAt: now,
        }
      })
      await db.transaction(async (tx) => {
        const inserted = await tx.insert(deployments).values(rows).returning()
        for (const row of inserted) await instance.services.verification.start(tx, row)
      })
      /** The poll each deployment is at. */
      const pollOf = rows.map(() => 0)
      const rowOf = (index: number) => index % rows.length
      const provider = createVercelProvider({ serverUrl: fakes.vercelDirectUrl })
      const pool = new pg.Pool({
        connectionString: urlOf(common.adminUrl, database),
        max: options.concurrency,
      })
      const infoLog = createLogger('info', pino.destination({ dest: '/dev/null', sync: true }), 'json')
      await jobs.boss.createQueue(PROBE_QUEUE)
      /**
       * What the instance uses when nothing is asked of it (job queue polling, its timers, this meter, and
       * whatever garbage the setup left), per second: measured before the parts and after, the lower taken
       * out of each part over its wall time.
       */
      const idleUse = async () => {
        const idle = await startMeter(common.adminUrl, database, null)
        const idleStarted = performance.now()
        await sleep(2000)
        const idleMs = performance.now() - idleStarted
        const { cpu } = await idle.stop({ flush: false })
        return {
          cpuMsPerSec: (1000 * cpu.benchProcessMs) / idleMs,
          pgMsPerSec: cpu.postgresBenchDbMs === null ? 0 : (1000 * cpu.postgresBenchDbMs) / idleMs,
        }
      }
      const idleBefore = await idleUse()
      const measured: { name: string; per: number; wallMs: number; cpu: CpuFigures }[] = []
      /** `ops` calls of `op` after `warmup` unmeasured ones (compiled code, open connections); per `per` units. */
      const part = async (
        name: string,
        op: (index: number) => unknown,
        ops = options.ops,
        warmup = Math.ceil(ops / 5),
        per = ops,
      ) => {
        await runMany(warmup, options.concurrency, op)
        const meter = await startMeter(common.adminUrl, database, null)
        const started = performance.now()
        await runMany(ops, options.concurrency, op)
        const wallMs = performance.now() - started
        const { cpu } = await meter.stop({ flush: false })
        measured.push({ name, per, wallMs, cpu })
      }
      /** Parts without a Vercel request are quick: more of them, for the 10 ms resolution of /proc's CPU times. */
      const many = options.ops * 4
      const scope = { token: VERCEL_TOKEN, teamScope: undefined }
      const running = [...RUNNING]

      await part(
        'take the poll: UPDATE … RETURNING * (drizzle)',
        async (index) => {
          const row = rowOf(index)
          const poll = pollOf[row]!
          await db
            .update(deployments)
            .set({ polls: poll, updatedAt: new Date() })
            .where(
              and(
                eq(deployments.id, rows[row]!.id),
                eq(deployments.polls, poll),
                inArray(deployments.state, running),
              ),
            )
            .returning()
        },
        many,
      )
      await part(
        '  the same statement through pg alone',
        async (index) => {
          const row = rowOf(index)
          await pool.query(
            `update "platform"."deployments" set "polls" = $1, "updated_at" = $2
          where ("id" = $3 and "polls" = $4 and "state" in ($5, $6, $7)) returning *`,
            [pollOf[row], new Date(), rows[row]!.id, pollOf[row], ...running],
          )
        },
        many,
      )
      await part(
        'open the sealed token',
        (index) => {
          envelope.open(rows[rowOf(index)]!.providerToken, tokenContext(rows[rowOf(index)]!.id))
        },
        many,
      )
      await part('ask Vercel: provider.deployment() (@vercel/sdk)', async (index) => {
        await provider.deployment(scope, uids[rowOf(index)]!)
      })
      await part('  the same request through fetch and JSON.parse', async (index) => {
        const answer = await fetch(`${fakes.vercelDirectUrl}/v13/deployments/${uids[rowOf(index)]}`, {
          headers: { authorization: `Bearer ${VERCEL_TOKEN}` },
        })
        await answer.json()
      })
      const agent = new Agent({ keepAliveTimeout: 60_000 })
      await part('  the same request through undici.request and JSON.parse', async (index) => {
        const answer = await request(`${fakes.vercelDirectUrl}/v13/deployments/${uids[rowOf(index)]}`, {
          headers: { authorization: `Bearer ${VERCEL_TOKEN}` },
          dispatcher: agent,
        })
        await answer.body.json()
      })
      const write = async (index: number, queue: boolean) => {
        const row = rowOf(index)
        const poll = pollOf[row]!
        const after = new Date()
        await db.transaction(async (tx) => {
          const [updated] = await tx
            .update(deployments)
            .set({
              state: 'BUILDING',
              error: null,
              nextPollAt: new Date(after.getTime() + 3_600_000),
              updatedAt: after,
            })
            .where(
              and(
                eq(deployments.id, rows[row]!.id),
                eq(deployments.polls, poll),
                inArray(deployments.state, running),
              ),
            )
            .returning()
          if (updated && queue) {
            await jobs.send(
              VERIFICATION_JOB,
              { deploymentId: updated.id, poll },
              { tx, startAfter: new Date(after.getTime() + 3_600_000) },
            )
          }
        })
      }
      await part('write it and queue the next poll (transaction)', (index) => write(index, true), many)
      await part('  the same transaction without queueing the job', (index) => write(index, false), many)
      await part(
        'its log line, at LOG_LEVEL=info',
        (index) => {
          infoLog.info(
            { deploymentId: rows[rowOf(index)]!.id, poll: index, state: 'BUILDING' },
            'deployment poll',
          )
        },
        many,
      )
      // Last of the poll's own, with a longer warm-up: measured first and cold it costs a third more.
      await part(
        'the whole poll: verification.poll()',
        async (index) => {
          const row = rowOf(index)
          await instance.services.verification.poll(rows[row]!.id, pollOf[row]!)
          pollOf[row]!++
        },
        options.ops,
        options.ops,
      )
      await jobs.boss.insert(
        PROBE_QUEUE,
        Array.from({ length: many + Math.ceil(many / 5) + 10 }, (_, index) => ({
          data: { deploymentId: rows[rowOf(index)]!.id, poll: index },
        })),
      )
      // Ten jobs each: fetched and completed together, as the batch worker does at its best.
      const batches = Math.ceil(many / 10)
      await part(
        'the job around it: pg-boss fetch + complete (10 a time), per job',
        async () => {
          const fetched = await jobs.boss.fetch(PROBE_QUEUE, { batchSize: 10 })
          if (fetched.length > 0)
            await jobs.boss.complete(
              PROBE_QUEUE,
              fetched.map((job) => job.id),
            )
        },
        batches,
        Math.ceil(batches / 5),
        // Per job, not per batch.
        batches * 10,
      )
      await pool.end()
      await agent.close()
      const idleAfter = await idleUse()
      const background = {
        cpuMsPerSec: round(Math.min(idleBefore.cpuMsPerSec, idleAfter.cpuMsPerSec), 1),
        pgMsPerSec: round(Math.min(idleBefore.pgMsPerSec, idleAfter.pgMsPerSec), 1),
      }
      const parts = measured.map(({ name, per, wallMs, cpu }) => ({
        part: name,
        ops: per,
        wallMs: round(wallMs),
        cpuMsPerOp: round((cpu.benchProcessMs - (background.cpuMsPerSec * wallMs) / 1000) / per, 3),
        pgMsPerOp:
          cpu.postgresBenchDbMs === null
            ? null
            : round((cpu.postgresBenchDbMs - (background.pgMsPerSec * wallMs) / 1000) / per, 3),
      }))
      return { background, parts }
    },
    true,
  )
}

const urlOf = (adminUrl: string, database: string) => {
  const url = new URL(adminUrl)
  url.pathname = `/${database}`
  return url.toString()
}
