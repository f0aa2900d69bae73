import { setTimeout as sleep } from 'node:timers/promises'
import type { Db as BossDb, Job, PgBoss } from 'pg-boss'
import type { Logger } from 'pino'
import { databaseUnavailable } from '../db/errors.ts'
import type { failureLogger } from '../db/outage-log.ts'

/** The counters a worker bumps for each attempt that completed or failed. */
export interface Outcomes {
  completed: { inc(): void }
  failed: { inc(): void }
}

/** What a batch worker works: its queue and the handler of each job. */
export interface BatchQueue {
  name: string
  handler: (data: object, job: Job<object>) => Promise<void>
}

export interface BatchWorker {
  /** Fetches no more; waits for the running jobs up to `timeoutMs`, then fails those still running. */
  stop(timeoutMs: number): Promise<void>
  /** There may be work: a worker waiting for it fetches now (one waiting for a free slot keeps waiting). */
  wake(): void
}

/** A settle that failed for an outage is tried again after this, doubling up to the maximum. */
const SETTLE_RETRY_MS = 500
const SETTLE_RETRY_MAX_MS = 5000

/** How long free slots wait for `batchSize` of them to be free before they are filled anyway. */
const BATCH_WAIT_MS = 10

/**
 * Keeps up to `concurrency` jobs of one queue running: fills the free slots with one fetch once `batchSize`
 * of them are free (or BATCH_WAIT_MS after the last fetch, when fewer are), and settles each job when its
 * handler ends (the completions of one turn of the event loop in one statement), so a slow job holds its
 * own slot and no other. While the queue is empty it waits until woken (wake(): a job was enqueued or is
 * due) or `pollingIntervalSeconds` pass.
 */
export function startBatchWorker(
  boss: PgBoss,
  definition: BatchQueue,
  options: {
    concurrency: number
    batchSize: number
    pollingIntervalSeconds: number
    log: Logger
    /** Logs a failed fetch or settle (an outage once per interval). */
    failed: ReturnType<typeof failureLogger>
    /** Where to fetch (pg-boss's own connections when undefined). */
    fetchDb: BossDb | undefined
    outcomes: Outcomes
  },
): BatchWorker {
  const { concurrency, batchSize, log, outcomes } = options
  const name = definition.name
  const running = new Map<string, Job<object>>()
  /** Completions and failures being written. */
  const settling = new Set<Promise<unknown>>()
  let toComplete: Job<object>[] = []
  let stopping = false
  /** After stop(): a job that still ends is not settled (the queue's connections are closed). */
  let stopped = false
  let waitingForSlot = false
  /** Set by wake(): there may be work since the last fetch began, so the next wait for work is skipped. */
  let woken = false
  let wake = () => {}
  /** Until `ms` pass (when given) or, with `untilJobEnds`, a running job ends; stop() ends it too. */
  const pause = (ms: number | undefined, untilJobEnds: boolean) =>
    new Promise<void>((resolve) => {
      waitingForSlot = untilJobEnds
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  // A completion the database could not take (an outage) is written once it can, so the job is not run
  // again when its lease expires; stop() ends the waiting.
  const stopWaiting = new AbortController()
  const settle = (write: () => Promise<unknown>) => {
    if (stopped) return
    const tracked = (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          await write()
          return
        } catch (error) {
          options.failed(error, { job: name }, 'job settling failed')
          if (stopping || databaseUnavailable(error) === undefined) return
          const delayMs = Math.min(SETTLE_RETRY_MAX_MS, SETTLE_RETRY_MS * 2 ** attempt)
          await sleep(delayMs, undefined, { signal: stopWaiting.signal }).catch(() => {})
          if (stopping) return
        }
      }
    })()
    settling.add(tracked)
    tracked.finally(() => settling.delete(tracked))
  }
  const completeWaiting = () => {
    const jobs = toComplete
    toComplete = []
    if (jobs.length > 0) settle(() => boss.complete(name, jobs))
  }

  const run = (job: Job<object>) => {
    running.set(job.id, job)
    Promise.resolve()
      .then(() => definition.handler(job.data, job))
      .then(
        () => {
          outcomes.completed.inc()
          if (toComplete.length === 0) setImmediate(completeWaiting)
          toComplete.push(job)
        },
        (error: unknown) => {
          outcomes.failed.inc()
          log.error({ err: error, job: name, jobId: job.id }, 'job failed')
          settle(() => boss.fail(name, job, error as object))
        },
      )
      .finally(() => {
        running.delete(job.id)
        if (waitingForSlot) wake()
      })
  }

  const loop = (async () => {
    let lastFetch = 0
    while (!stopping) {
      const free = concurrency - running.size
      const waited = Date.now() - lastFetch
      if (free === 0 || (free < batchSize && waited < BATCH_WAIT_MS)) {
        await pause(free === 0 ? undefined : BATCH_WAIT_MS - waited, true)
        continue
      }
      lastFetch = Date.now()
      woken = false
      let fetched: Job<object>[] = []
      try {
        fetched = await boss.fetch<object>(name, {
          batchSize: free,
          ...(options.fetchDb ? { db: options.fetchDb } : {}),
        })
      } catch (error) {
        options.failed(error, { job: name }, 'job fetch failed')
      }
      for (const job of fetched) run(job)
      // Fewer than asked for: the queue is drained for now (or the fetch failed).
      if (fetched.length < free && !stopping && !woken) {
        await pause(options.pollingIntervalSeconds * 1000, false)
      }
    }
  })()

  return {
    wake() {
      woken = true
      if (!waitingForSlot) wake()
    },
    async stop(timeoutMs) {
      stopping = true
      stopWaiting.abort()
      wake()
      await loop
      const deadline = Date.now() + timeoutMs
      while (running.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      completeWaiting()
      // As pg-boss does for its own workers: jobs still running are failed, so they are retried.
      if (running.size > 0) {
        const left = [...running.values()]
        settle(() => boss.fail(name, left, new Error('The job queue stopped before the job ended')))
      }
      await Promise.all(settling)
      stopped = true
    },
  }
}
