/**
 * Many works generating at once for bench/generation.ts: every POST …/generate in parallel, spread over
 * several instances on one database, then a bounded wait until every run has ended.
 */
import { desc, eq, inArray } from 'drizzle-orm'
import { workGenerations } from '../src/platform/generation/tables.ts'
import {
  collectGarbage,
  type Instance,
  type JobRecord,
  now,
  startMemorySampler,
} from './generation-harness.ts'
import {
  type Account,
  accountWithOpenAi,
  type Common,
  completeRun,
  createWork,
  figuresOf,
  type MemoryFigures,
  memoryFigures,
  type RunFigures,
  type Stats,
  stats,
  type Work,
} from './generation-runs.ts'
import { round, sleep } from './lib.ts'

const FINISHED = ['COMPLETED', 'ERROR', 'CANCELLED']

export interface ConcurrentResult {
  instances: string[]
  accounts: number
  works: number
  /** Status of each POST …/generate, counted. */
  postStatuses: Record<string, number>
  /** From the first POST sent to the last 202. */
  postMs: number
  /** Final run status counted (`NO RUN` for a work whose POST recorded none); PENDING/GENERATING are stuck. */
  finalStatuses: Record<string, number>
  stuck: number
  complete: number
  timedOut: boolean
  /** From the first POST sent to the last job's return. */
  wallMs: number
  jobsByInstance: Record<string, number>
  failedJobAttempts: number
  runs: RunFigures[]
  ours: Stats
  wait: Stats
  memory: MemoryFigures
}

/** Many works at once: every POST in parallel (spread over the instances), then a bounded wait. */
export async function measureConcurrent({
  instances,
  fake,
  proxy,
  jobLog,
  settings,
}: Common & { instances: Instance[] }): Promise<ConcurrentResult> {
  const primary = instances[0]!
  const db = primary.database.db
  const accounts: Account[] = []
  for (let index = 1; index <= settings.accounts; index++) {
    accounts.push(await accountWithOpenAi(primary, `concurrent-${index}`, fake.apiKey))
  }
  const workList: Work[] = []
  for (let index = 0; index < settings.concurrentWorks; index++) {
    const account = accounts[index % accounts.length]!
    workList.push(await createWork(primary, account, `Concurrent ${account.label} work ${index + 1}`))
  }
  fake.next(...workList.map(() => ({ items: settings.items })))
  await collectGarbage()
  const baseline = process.memoryUsage()
  const sampler = startMemorySampler(10)
  const startedAt = now()
  const answers = await Promise.all(
    workList.map(async (work, index) => {
      const res = await instances[index % instances.length]!.app.inject({
        method: 'POST',
        url: `/api/works/${work.id}/generate`,
        headers: { authorization: `Bearer ${work.account.token}` },
        payload: {},
      })
      return { status: res.statusCode, at: now() }
    }),
  )
  const postMs = Math.max(...answers.map((answer) => answer.at)) - startedAt
  process.stdout.write(`${answers.filter((answer) => answer.status === 202).length} × 202; waiting… `)

  const ids = workList.map((work) => work.id)
  const deadline = startedAt + settings.timeoutSec * 1000
  let timedOut = false
  for (;;) {
    const rows = await db
      .select({ status: workGenerations.status })
      .from(workGenerations)
      .where(inArray(workGenerations.workId, ids))
    const ended = rows.filter((row) => FINISHED.includes(row.status)).length
    if (rows.length === answers.filter((answer) => answer.status === 202).length && ended === rows.length)
      break
    if (now() > deadline) {
      timedOut = true
      break
    }
    await sleep(100)
  }
  const { peak, samples } = sampler.stop()
  const end = process.memoryUsage()
  // Let in-flight handlers of a timed-out run record their end, if they are about to.
  if (timedOut) await sleep(500)

  const runs: RunFigures[] = []
  for (const [index, work] of workList.entries()) {
    const [run] = await db
      .select({ id: workGenerations.id, createdAt: workGenerations.createdAt })
      .from(workGenerations)
      .where(eq(workGenerations.workId, work.id))
      .orderBy(desc(workGenerations.createdAt))
      .limit(1)
    if (!run) {
      runs.push(await figuresOf(db, work, '', undefined, [], startedAt, index + 1, false))
      continue
    }
    const job = jobLog.records.findLast((record) => record.runId === run.id)
    runs.push(
      await figuresOf(db, work, run.id, job, proxy.exchanges, run.createdAt.getTime(), index + 1, false),
    )
  }
  process.stdout.write(' done')
  const tally = (keys: string[]) => {
    const out: Record<string, number> = {}
    for (const key of keys) out[key] = (out[key] ?? 0) + 1
    return out
  }
  const runIds = new Set(runs.map((run) => run.runId))
  const attempts = jobLog.records.filter((record) => runIds.has(record.runId))
  await collectGarbage()
  return {
    instances: instances.map((instance) => instance.name),
    accounts: accounts.length,
    works: workList.length,
    postStatuses: tally(answers.map((answer) => String(answer.status))),
    postMs: round(postMs, 1),
    finalStatuses: tally(runs.map((run) => run.status)),
    stuck: runs.filter((run) => run.status === 'PENDING' || run.status === 'GENERATING').length,
    complete: runs.filter((run) => completeRun(run, settings.items)).length,
    timedOut,
    wallMs: round(lastJobEnd(attempts) - startedAt, 1),
    jobsByInstance: tally(attempts.filter((record) => !record.error).map((record) => record.instance)),
    failedJobAttempts: attempts.filter((record) => record.error).length,
    runs,
    ours: stats(runs.map((run) => run.oursMs)),
    wait: stats(runs.map((run) => run.waitMs)),
    memory: memoryFigures(baseline, peak, samples, end, process.memoryUsage()),
  }
}

function lastJobEnd(records: JobRecord[]): number {
  return records.length ? Math.max(...records.map((record) => record.endedAt)) : Number.NaN
}
