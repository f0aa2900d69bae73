/**
 * Generations one at a time for bench/generation.ts, with this process' memory over the measured ones, and
 * what every measurement shares: accounts, plugins and works made through the routes, as a user makes
 * them, and the figures of one run.
 */
import { randomBytes } from 'node:crypto'
import { count, desc, eq } from 'drizzle-orm'
import type { Db } from '../src/db/index.ts'
import { workGenerations, workItems } from '../src/platform/generation/tables.ts'
import { works } from '../src/platform/works/tables.ts'
import type { OpenAiFake } from '../test/fakes/openai.ts'
import {
  type Backend,
  collectGarbage,
  type Exchange,
  type Instance,
  type JobLog,
  type JobRecord,
  now,
  startMemorySampler,
} from './generation-harness.ts'
import { median, round } from './lib.ts'

export interface Settings {
  runs: number
  warmups: number
  concurrentWorks: number
  accounts: number
  instances: number
  timeoutSec: number
  pollSec: number
  sameWork: boolean
  /** GENERATION_CONCURRENCY given on the command line, if any. */
  concurrency: number | undefined
  items: number
}

export interface Account {
  label: string
  token: string
}

export interface Work {
  id: string
  name: string
  account: Account
}

const MB = 1024 * 1024

async function call(
  instance: Instance,
  account: Account | undefined,
  method: 'GET' | 'POST',
  url: string,
  expected: number,
  payload?: object,
): Promise<Record<string, unknown>> {
  const res = await instance.app.inject({
    method,
    url,
    headers: account ? { authorization: `Bearer ${account.token}` } : {},
    ...(payload === undefined ? {} : { payload }),
  })
  if (res.statusCode !== expected) {
    throw new Error(`${method} ${url} answered ${res.statusCode}, expected ${expected}: ${res.body}`)
  }
  return res.json() as Record<string, unknown>
}

/** A new account with the `openai` plugin enabled on the stand-in's key: its new works take it as provider. */
export async function accountWithOpenAi(instance: Instance, label: string, apiKey: string): Promise<Account> {
  const registered = await call(instance, undefined, 'POST', '/api/auth/register', 201, {
    email: `bench-generation-${label}-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench-password-1',
  })
  const account = { label, token: String(registered.accessToken) }
  await call(instance, account, 'POST', '/api/plugins/openai/enable', 200, { secretSettings: { apiKey } })
  return account
}

export async function createWork(instance: Instance, account: Account, name: string): Promise<Work> {
  const created = await call(instance, account, 'POST', '/api/works', 201, { name })
  return { id: String(created.id), name, account }
}

/** The run a POST …/generate just recorded (committed before its 202). */
async function latestRunId(db: Db, workId: string): Promise<string> {
  const [run] = await db
    .select({ id: workGenerations.id })
    .from(workGenerations)
    .where(eq(workGenerations.workId, workId))
    .orderBy(desc(workGenerations.createdAt))
    .limit(1)
  if (!run) throw new Error(`work ${workId}: no generation run after a 202`)
  return run.id
}

/** One run's figures; every duration in ms, NaN where a piece is missing (no stand-in exchange, no end). */
export interface RunFigures {
  run: number
  warmup: boolean
  workId: string
  runId: string
  instance: string
  status: string
  /** `work_generations.items_count`, `works.items_count` and the rows in `work_items`. */
  itemsCount: number
  workItemsCount: number
  storedItems: number
  workStatus: string
  attempts: number
  /** From the 202 (one at a time) or the run's creation (at once) to pg-boss handing the job over. */
  waitMs: number
  /** Job start to the stand-in receiving the request: claim, work, provider settings, log lines. */
  beforeAskMs: number
  /** The stand-in's exchanges in the job, as the proxy saw them (request in → answer's last byte out). */
  standInMs: number
  /** Answer out to `finished_at`: the SDK reading the answer, parsing 1,000 items, a log line. */
  answerToFinishMs: number
  /** `finished_at` to the job's return: the finish transaction (items stored, committed), alerts cleared. */
  finishMs: number
  /** Job total minus the stand-in. */
  oursMs: number
  jobMs: number
  /** CPU of this process over the job (PGlite included when embedded; not a Postgres server). */
  cpuMs: number
  responseBytes: number
  jobError: string | undefined
}

export async function figuresOf(
  db: Db,
  work: Work,
  runId: string,
  job: JobRecord | undefined,
  exchanges: readonly Exchange[],
  waitFrom: number,
  run: number,
  warmup: boolean,
): Promise<RunFigures> {
  const [row] = runId ? await db.select().from(workGenerations).where(eq(workGenerations.id, runId)) : []
  const [stored] = await db.select({ n: count() }).from(workItems).where(eq(workItems.workId, work.id))
  const [workRow] = await db
    .select({ status: works.generateStatus, itemsCount: works.itemsCount })
    .from(works)
    .where(eq(works.id, work.id))
  const mine = job
    ? exchanges.filter(
        (exchange) =>
          exchange.tag === work.name &&
          exchange.startedAt >= job.startedAt &&
          exchange.endedAt <= job.endedAt,
      )
    : []
  const standInMs = mine.reduce((sum, exchange) => sum + exchange.endedAt - exchange.startedAt, 0)
  const jobMs = job ? job.endedAt - job.startedAt : Number.NaN
  const finishedAt = row?.finishedAt?.getTime() ?? Number.NaN
  const first = mine[0]
  const last = mine.at(-1)
  return {
    run,
    warmup,
    workId: work.id,
    runId,
    instance: job?.instance ?? '-',
    status: row?.status ?? 'NO RUN',
    itemsCount: row?.itemsCount ?? 0,
    workItemsCount: workRow?.itemsCount ?? 0,
    storedItems: stored?.n ?? 0,
    workStatus: workRow?.status ?? '?',
    attempts: row?.attempts ?? 0,
    waitMs: job ? job.startedAt - waitFrom : Number.NaN,
    beforeAskMs: job && first ? first.startedAt - job.startedAt : Number.NaN,
    standInMs: mine.length ? standInMs : Number.NaN,
    answerToFinishMs: last ? finishedAt - last.endedAt : Number.NaN,
    finishMs: job ? job.endedAt - finishedAt : Number.NaN,
    oursMs: jobMs - standInMs,
    jobMs,
    cpuMs: job?.cpuMs ?? Number.NaN,
    responseBytes: mine.reduce((sum, exchange) => sum + exchange.responseBytes, 0),
    jobError: job?.error,
  }
}

export interface Stats {
  median: number
  /** Nearest rank: with 10 runs, the largest. */
  p95: number
  max: number
}

export function stats(values: number[]): Stats {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b)
  const p95 = sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN
  return {
    median: round(median(sorted), 1),
    p95: round(p95, 1),
    max: round(sorted.at(-1) ?? Number.NaN, 1),
  }
}

export interface MemoryFigures {
  samples: number
  baselineRssMb: number
  peakRssMb: number
  rssGrowthMb: number
  baselineHeapMb: number
  peakHeapMb: number
  heapGrowthMb: number
  /** After the last run, then after a collection: what stays. */
  endRssMb: number
  endHeapAfterGcMb: number
}

export function memoryFigures(
  baseline: NodeJS.MemoryUsage,
  peak: { rss: number; heapUsed: number },
  samples: number,
  end: NodeJS.MemoryUsage,
  afterGc: NodeJS.MemoryUsage,
): MemoryFigures {
  const mb = (bytes: number) => round(bytes / MB, 1)
  return {
    samples,
    baselineRssMb: mb(baseline.rss),
    peakRssMb: mb(peak.rss),
    rssGrowthMb: mb(peak.rss - baseline.rss),
    baselineHeapMb: mb(baseline.heapUsed),
    peakHeapMb: mb(peak.heapUsed),
    heapGrowthMb: mb(peak.heapUsed - baseline.heapUsed),
    endRssMb: mb(end.rss),
    endHeapAfterGcMb: mb(afterGc.heapUsed),
  }
}

export interface SequentialResult {
  backend: Backend
  runs: RunFigures[]
  /** Over the measured runs. */
  ours: Stats
  job: Stats
  standIn: Stats
  wait: Stats
  memory: MemoryFigures
  /** Measured runs that ended COMPLETED with every item stored. */
  complete: number
}

export interface Common {
  fake: OpenAiFake
  proxy: { exchanges: Exchange[] }
  jobLog: JobLog
  settings: Settings
}

/** Warm-ups, then the measured runs, one at a time; memory sampled every 10 ms over the measured ones. */
export async function measureSequential({
  backend,
  instance,
  fake,
  proxy,
  jobLog,
  settings,
}: Common & { backend: Backend; instance: Instance }): Promise<SequentialResult> {
  const account = await accountWithOpenAi(instance, backend, fake.apiKey)
  const total = settings.warmups + settings.runs
  const workList: Work[] = []
  for (let index = 1; index <= (settings.sameWork ? 1 : total); index++) {
    workList.push(await createWork(instance, account, `Bench ${backend} ${index}`))
  }
  const db = instance.database.db
  const once = async (index: number, warmup: boolean, run: number) => {
    const work = workList[settings.sameWork ? 0 : index]!
    fake.next({ items: settings.items })
    await call(instance, account, 'POST', `/api/works/${work.id}/generate`, 202, {})
    const answeredAt = now()
    const runId = await latestRunId(db, work.id)
    const job = await jobLog.waitFor(runId, settings.timeoutSec * 1000)
    process.stdout.write(warmup ? 'w' : '.')
    return figuresOf(db, work, runId, job, proxy.exchanges, answeredAt, run, warmup)
  }
  const runs: RunFigures[] = []
  for (let index = 0; index < settings.warmups; index++) runs.push(await once(index, true, index + 1))
  await collectGarbage()
  const baseline = process.memoryUsage()
  const sampler = startMemorySampler(10)
  for (let index = 0; index < settings.runs; index++) {
    runs.push(await once(settings.warmups + index, false, index + 1))
  }
  const { peak, samples } = sampler.stop()
  const end = process.memoryUsage()
  await collectGarbage()
  const measured = runs.filter((run) => !run.warmup)
  return {
    backend,
    runs,
    ours: stats(measured.map((run) => run.oursMs)),
    job: stats(measured.map((run) => run.jobMs)),
    standIn: stats(measured.map((run) => run.standInMs)),
    wait: stats(measured.map((run) => run.waitMs)),
    memory: memoryFigures(baseline, peak, samples, end, process.memoryUsage()),
    complete: measured.filter((run) => completeRun(run, settings.items)).length,
  }
}

export function completeRun(run: RunFigures, items: number): boolean {
  return (
    run.status === 'COMPLETED' &&
    run.workStatus === 'COMPLETED' &&
    run.itemsCount === items &&
    run.workItemsCount === items &&
    run.storedItems === items
  )
}
