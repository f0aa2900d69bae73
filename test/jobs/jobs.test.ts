import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it, type TestContext } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import { createNotifications } from '../../src/db/notifications.ts'
import { createJobs, type JobDefinition, type Jobs, sendMany } from '../../src/jobs/index.ts'
import { throttledPerQueue } from '../../src/jobs/wake-ups.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { jobsTotal } from '../../src/lib/metrics.ts'
import { createTestDatabases, NEEDS_POSTGRES, type TestDatabases } from '../helpers/database.ts'

const WAIT_MS = 10_000

let databases: TestDatabases

before(async () => {
  databases = await createTestDatabases()
})
after(() => databases?.close())

/** Rejects when `promise` has not settled within WAIT_MS, naming what was awaited. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${WAIT_MS} ms`)), WAIT_MS)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** Polls `read` until `accept` holds, up to WAIT_MS; answers the last value read. */
async function eventually<T>(
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  what: string,
): Promise<T> {
  const deadline = Date.now() + WAIT_MS
  for (;;) {
    const value = await read()
    if (accept(value)) return value
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${WAIT_MS} ms`)
    await delay(100)
  }
}

const queueName = (purpose: string) => `test-${purpose}-${randomUUID().slice(0, 8)}`

/**
 * A job queue on the platform's database, stopped when the test ends: woken by notifications as an app's
 * is, or with `listen: false` only by its looks for due jobs every 0.5 s.
 */
function jobsFor(t: TestContext, { listen = true } = {}): Jobs {
  const log = createLogger('silent')
  const jobs = createJobs({ database: databases.platform, log, pollingIntervalSeconds: 0.5 })
  const notifications = listen ? createNotifications(databases.platform.source, log) : undefined
  if (notifications) jobs.wakeOn(notifications)
  t.after(async () => {
    await jobs.stop(1000)
    await notifications?.close()
  })
  return jobs
}

async function startWith<T extends object>(
  t: TestContext,
  definition: JobDefinition<T>,
  options: { listen?: boolean } = {},
): Promise<Jobs> {
  const jobs = jobsFor(t, options)
  jobs.define(definition)
  await jobs.start()
  return jobs
}

describe('job queue', () => {
  it('a sent job runs its handler with the data it was sent with', async (t) => {
    const name = queueName('runs')
    const handled = Promise.withResolvers<{ greeting: string }>()
    const jobs = await startWith<{ greeting: string }>(t, {
      name,
      handler: async (data) => handled.resolve(data),
    })

    const id = await jobs.send(name, { greeting: 'hello' })
    assert.ok(id)
    assert.deepEqual(await within(handled.promise, 'the handler run'), { greeting: 'hello' })
  })

  it('a job sent in a transaction that rolls back is never created; a committed one is found and runs', async (t) => {
    const name = queueName('transactional')
    const seen: { outcome: string }[] = []
    const committedRan = Promise.withResolvers<void>()
    const jobs = await startWith<{ outcome: string }>(t, {
      name,
      handler: async (data) => {
        seen.push(data)
        if (data.outcome === 'committed') committedRan.resolve()
      },
    })
    const { db } = databases.platform

    await assert.rejects(
      db.transaction(async (tx) => {
        await jobs.send(name, { outcome: 'rolled back' }, { tx })
        throw new Error('the state change failed')
      }),
      /the state change failed/,
    )
    assert.deepEqual(await jobs.boss.findJobs(name), [])

    const id = await db.transaction(async (tx) => jobs.send(name, { outcome: 'committed' }, { tx }))
    assert.ok(id)
    assert.deepEqual(
      (await jobs.boss.findJobs(name)).map((job) => job.id),
      [id],
    )
    await within(committedRan.promise, 'the committed job’s run')
    assert.deepEqual(seen, [{ outcome: 'committed' }])
  })

  it('defining a job after the queue started throws', async (t) => {
    const jobs = jobsFor(t)
    await jobs.start()
    assert.throws(
      () => jobs.define({ name: queueName('late'), handler: async () => {} }),
      /defined after the queue started/,
    )
  })

  it('a failing handler is retried and the second attempt completes the job', async (t) => {
    const name = queueName('retry')
    const attempts: number[] = []
    const secondAttempt = Promise.withResolvers<string>()
    const jobs = await startWith(t, {
      name,
      retryLimit: 1,
      retryDelaySeconds: 0,
      retryBackoff: false,
      handler: async (_data, job) => {
        attempts.push(job.retryCount)
        if (attempts.length === 1) throw new Error('the first attempt fails')
        secondAttempt.resolve(job.id)
      },
    })

    const id = await jobs.send(name, {})
    assert.equal(await within(secondAttempt.promise, 'the second attempt'), id)
    assert.deepEqual(attempts, [0, 1])
    const job = await eventually(
      () => jobs.boss.getJobById(name, id!),
      (found) => found?.state === 'completed',
      'the job’s completion',
    )
    assert.equal(job?.retryCount, 1)
  })

  it('a job with a cron expression is registered as a schedule in UTC', async (t) => {
    const name = queueName('cron')
    const jobs = await startWith(t, { name, cron: '*/5 * * * *', handler: async () => {} })

    const schedules = await jobs.boss.getSchedules(name)
    assert.equal(schedules.length, 1)
    assert.equal(schedules[0]?.name, name)
    assert.equal(schedules[0]?.cron, '*/5 * * * *')
    assert.equal(schedules[0]?.timezone, 'UTC')
  })

  it('stop waits for a running handler to finish its attempt', async (t) => {
    const name = queueName('graceful')
    const events: string[] = []
    const running = Promise.withResolvers<void>()
    const gate = Promise.withResolvers<void>()
    const jobs = await startWith(t, {
      name,
      handler: async () => {
        events.push('handler started')
        running.resolve()
        await gate.promise
        events.push('handler finished')
      },
    })

    const id = await jobs.send(name, {})
    await within(running.promise, 'the handler start')
    const stopped = jobs.stop(5000).then(() => {
      events.push('stop resolved')
    })
    // Gives a stop that does not wait the time to resolve before the handler is let go.
    await delay(300)
    events.push('gate released')
    gate.resolve()
    await within(stopped, 'stop')

    assert.deepEqual(events, ['handler started', 'gate released', 'handler finished', 'stop resolved'])
    const result = await databases.platform.db.execute(
      sql`select state from platform_jobs.job where name = ${name} and id = ${id}`,
    )
    assert.deepEqual((result as unknown as { rows: unknown[] }).rows, [{ state: 'completed' }])
  })
})

/** A handler whose every run waits until the test lets that job go. */
function gatedHandler() {
  const started: number[] = []
  const gates = new Map<number, PromiseWithResolvers<void>>()
  let current = 0
  let peak = 0
  return {
    started,
    get current() {
      return current
    },
    get peak() {
      return peak
    },
    /** Lets the job sent with `n` end (its handler returns). */
    release(n: number) {
      gates.get(n)?.resolve()
    },
    handler: async ({ n }: { n: number }) => {
      started.push(n)
      current += 1
      peak = Math.max(peak, current)
      const gate = Promise.withResolvers<void>()
      gates.set(n, gate)
      try {
        await gate.promise
      } finally {
        current -= 1
      }
    },
  }
}

const statesOf = async (jobs: Jobs, name: string) =>
  (await jobs.boss.findJobs<{ n: number }>(name)).map((job) => job.state)

describe('job queue: batch workers (batchSize)', () => {
  it('keeps `concurrency` jobs running and refills a freed slot while slow jobs hold only theirs', async (t) => {
    const name = queueName('batch')
    const gated = gatedHandler()
    const jobs = await startWith(t, { name, concurrency: 3, batchSize: 2, handler: gated.handler })

    await sendMany(
      jobs,
      name,
      Array.from({ length: 7 }, (_, n) => ({ n })),
    )
    await eventually(
      async () => gated.started.length,
      (count) => count === 3,
      'three jobs running',
    )
    const [first] = gated.started
    gated.release(first!)
    // The two still running hold their slots; the freed one takes the next job.
    await eventually(
      async () => gated.started.length,
      (count) => count === 4,
      'a fourth job running',
    )
    assert.equal(gated.current, 3)
    // The rest, as slots free up.
    const released = new Set([first!])
    await eventually(
      async () => {
        for (const n of gated.started) {
          if (released.has(n)) continue
          released.add(n)
          gated.release(n)
        }
        return statesOf(jobs, name)
      },
      (states) => states.length === 7 && states.every((state) => state === 'completed'),
      'every job completed',
    )
    assert.deepEqual(
      [...gated.started].sort((a, b) => a - b),
      [0, 1, 2, 3, 4, 5, 6],
      'each job ran once',
    )
    assert.equal(gated.peak, 3, 'never more than `concurrency` at once')
  })

  it('a failing handler fails its job, which pg-boss retries; the others complete', async (t) => {
    const name = queueName('batch-retry')
    const attempts = new Map<number, number>()
    const jobs = await startWith<{ n: number }>(t, {
      name,
      concurrency: 4,
      batchSize: 4,
      retryLimit: 1,
      retryDelaySeconds: 0,
      retryBackoff: false,
      handler: async ({ n }) => {
        attempts.set(n, (attempts.get(n) ?? 0) + 1)
        if (n === 1 && attempts.get(n) === 1) throw new Error('the first attempt fails')
      },
    })
    await sendMany(jobs, name, [{ n: 0 }, { n: 1 }, { n: 2 }])
    const found = await eventually(
      () => jobs.boss.findJobs<{ n: number }>(name),
      (list) => list.length === 3 && list.every((job) => job.state === 'completed'),
      'every job completed',
    )
    assert.deepEqual(Object.fromEntries(attempts), { 0: 1, 1: 2, 2: 1 })
    assert.equal(found.find((job) => job.data.n === 1)?.retryCount, 1)
  })

  it('stop waits for running jobs up to its timeout, then fails those still running so they are retried', async (t) => {
    const name = queueName('batch-stop')
    const gated = gatedHandler()
    const jobs = await startWith(t, {
      name,
      concurrency: 2,
      batchSize: 2,
      retryLimit: 2,
      handler: gated.handler,
    })
    await sendMany(jobs, name, [{ n: 0 }, { n: 1 }])
    await eventually(
      async () => gated.started.length,
      (count) => count === 2,
      'both jobs running',
    )

    const stopped = jobs.stop(500)
    gated.release(0)
    await within(stopped, 'stop')
    // The queue's connections are closed: read the jobs with a fresh queue on the same database.
    const reader = jobsFor(t)
    await reader.start()
    const byN = new Map((await reader.boss.findJobs<{ n: number }>(name)).map((job) => [job.data.n, job]))
    assert.equal(byN.get(0)?.state, 'completed', 'the job that ended in time completed')
    assert.equal(byN.get(1)?.state, 'retry', 'the job still running was failed, to run again')
    // Its handler ending after the stop writes nothing and throws nothing.
    gated.release(1)
    assert.equal((await reader.boss.getJobById(name, byN.get(1)!.id))?.state, 'retry')
  })

  it('sendMany enqueues in the caller’s transaction: all or none, with startAfter', async (t) => {
    const name = queueName('send-many')
    const ran: number[] = []
    const jobs = await startWith<{ n: number }>(t, {
      name,
      batchSize: 5,
      handler: async ({ n }) => {
        ran.push(n)
      },
    })
    const { db } = databases.platform
    await assert.rejects(
      db.transaction(async (tx) => {
        await sendMany(jobs, name, [{ n: 1 }, { n: 2 }], { tx })
        throw new Error('the state change failed')
      }),
      /the state change failed/,
    )
    assert.deepEqual(await jobs.boss.findJobs(name), [])

    const later = new Date(Date.now() + 3_600_000)
    await db.transaction((tx) =>
      sendMany(jobs, name, [{ n: 3 }, { n: 4 }, { n: 5 }], { tx, startAfter: later }),
    )
    const found = await jobs.boss.findJobs<{ n: number }>(name)
    assert.deepEqual(found.map((job) => job.data.n).sort(), [3, 4, 5])
    for (const job of found) {
      assert.equal(job.state, 'created')
      assert.equal(new Date(job.startAfter).getTime(), later.getTime())
    }
    // Nothing to send is not a statement at all.
    await sendMany(jobs, name, [])
    assert.equal((await jobs.boss.findJobs(name)).length, 3)
    assert.deepEqual(ran, [])
  })

  it('expireInSeconds is the queue’s, also for a queue that already exists', async (t) => {
    const name = queueName('expiry')
    const first = await startWith(t, { name, expireInSeconds: 40, batchSize: 1, handler: async () => {} })
    assert.equal((await first.boss.getQueue(name))?.expireInSeconds, 40)
    await first.stop(1000)
    const second = await startWith(t, { name, expireInSeconds: 55, batchSize: 1, handler: async () => {} })
    assert.equal((await second.boss.getQueue(name))?.expireInSeconds, 55)
  })

  it('on Postgres, fetches on a connection of its own', NEEDS_POSTGRES, async (t) => {
    const name = queueName('fetch-connection')
    const ran = Promise.withResolvers<void>()
    const jobs = await startWith(t, { name, batchSize: 1, handler: async () => ran.resolve() })
    await jobs.send(name, {})
    await within(ran.promise, 'the job’s run')
    const result = await databases.platform.db.execute(
      sql`select query from pg_stat_activity
          where application_name = 'curio-platform_jobs-fetch' and datname = current_database()`,
    )
    const rows = (result as unknown as { rows: { query: string }[] }).rows
    assert.equal(rows.length, 1, 'one fetch connection')
    assert.match(rows[0]!.query, /skip locked/i, 'its last statement is the fetch')
  })
})

describe('job queue: wake-ups', () => {
  /**
   * A queue that looks for due jobs only every 60 s, and whose workers fetch on their own every 30 s: a job
   * that runs within WAIT_MS was woken by the notification its insert sent.
   */
  function listeningJobs(t: TestContext): Jobs {
    const log = createLogger('silent')
    const jobs = createJobs({ database: databases.platform, log, pollingIntervalSeconds: 60 })
    const notifications = createNotifications(databases.platform.source, log)
    jobs.wakeOn(notifications)
    t.after(async () => {
      await jobs.stop(1000)
      await notifications.close()
    })
    return jobs
  }

  for (const [kind, batchSize] of [
    ['pg-boss workers', undefined],
    ['batch workers', 2],
  ] as const) {
    it(`a job enqueued to run now wakes the workers of every instance at once, not at their next poll (${kind})`, async (t) => {
      const name = queueName('notified')
      const ran = Promise.withResolvers<string>()
      // The instance that works the queue, and another that only enqueues (as a second instance would).
      const worker = listeningJobs(t)
      worker.define({
        name,
        ...(batchSize ? { batchSize } : {}),
        handler: async (_data, job) => ran.resolve(job.id),
      })
      await worker.start()
      const sender = listeningJobs(t)
      await sender.start()

      const id = await databases.platform.db.transaction((tx) => sender.send(name, {}, { tx }))
      assert.equal(await within(ran.promise, 'the notified run'), id)
    })
  }

  it('a job enqueued while nothing listens is found by the look every polling interval', async (t) => {
    const name = queueName('unheard')
    const ran = Promise.withResolvers<string>()
    // No LISTEN connection (as while it reconnects): workers fetch on their own only every 30 s.
    const jobs = await startWith(
      t,
      { name, handler: async (_data, job) => ran.resolve(job.id) },
      { listen: false },
    )
    const id = await jobs.send(name, {})
    assert.equal(await within(ran.promise, 'the run of the unheard job'), id)
  })

  it('a job enqueued with startAfter runs once due, found by the look every polling interval', async (t) => {
    const name = queueName('delayed')
    const ran = Promise.withResolvers<number>()
    // No LISTEN connection: the look alone finds it (workers fetch on their own only every 30 s).
    const jobs = await startWith(t, { name, handler: async () => ran.resolve(Date.now()) }, { listen: false })
    const due = new Date(Date.now() + 1500)
    await jobs.send(name, {}, { startAfter: due })

    const ranAt = await within(ran.promise, 'the delayed run')
    // The database's clock decides; it and this process' may differ by a little.
    assert.ok(ranAt >= due.getTime() - 250, `ran ${due.getTime() - ranAt} ms before it was due`)
  })

  it('a queue takes its definition’s retry settings at the next start', async (t) => {
    const name = queueName('settings')
    const first = await startWith(t, { name, retryLimit: 1, retryDelaySeconds: 5, handler: async () => {} })
    await first.stop(1000)
    const second = await startWith(t, { name, retryLimit: 4, retryDelaySeconds: 7, handler: async () => {} })
    const queue = await second.boss.getQueue(name)
    assert.equal(queue?.retryLimit, 4)
    assert.equal(queue?.retryDelay, 7)
    assert.equal(queue?.notify, true, 'its inserts notify the workers')
  })
})

describe('job queue: notification wake-ups are throttled per queue', () => {
  it('the first wakes at once; more within the gap are one wake-up at its end; other queues are apart', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] })
    const woken: string[] = []
    const throttled = throttledPerQueue(
      (queue) => woken.push(queue),
      () => 500,
    )

    throttled.wake('a')
    assert.deepEqual(woken, ['a'])
    throttled.wake('a')
    throttled.wake('a')
    throttled.wake('b')
    assert.deepEqual(woken, ['a', 'b'], 'b is another queue: at once')
    t.mock.timers.tick(499)
    assert.deepEqual(woken, ['a', 'b'])
    t.mock.timers.tick(1)
    assert.deepEqual(woken, ['a', 'b', 'a'], 'the two within the gap: one wake-up at its end')
    t.mock.timers.tick(500)
    throttled.wake('a')
    assert.deepEqual(woken, ['a', 'b', 'a', 'a'], 'a gap later: at once again')
    throttled.wake('a')
    throttled.stop()
    t.mock.timers.tick(1000)
    assert.deepEqual(woken, ['a', 'b', 'a', 'a'], 'stopped: the pending one is dropped')
  })
})

describe('job queue: metrics', () => {
  /** curio_jobs_total of the platform's queue `name` for `outcome`. */
  const counted = async (name: string, outcome: 'completed' | 'failed') =>
    (await jobsTotal.get()).values.find(
      ({ labels }) => labels.service === 'platform' && labels.queue === name && labels.outcome === outcome,
    )?.value ?? 0

  for (const [kind, batchSize] of [
    ['pg-boss workers', undefined],
    ['batch workers', 2],
  ] as const) {
    it(`counts each attempt as completed or failed in curio_jobs_total (${kind})`, async (t) => {
      const name = queueName('counted')
      let attempts = 0
      const jobs = await startWith(t, {
        name,
        ...(batchSize ? { batchSize } : {}),
        retryLimit: 1,
        retryDelaySeconds: 0,
        retryBackoff: false,
        handler: async () => {
          attempts++
          if (attempts === 1) throw new Error('the first attempt fails')
        },
      })
      await jobs.send(name, {})
      await eventually(
        async () => [await counted(name, 'failed'), await counted(name, 'completed')],
        ([failed, completed]) => failed === 1 && completed === 1,
        'one failed and one completed attempt counted',
      )
    })
  }
})
