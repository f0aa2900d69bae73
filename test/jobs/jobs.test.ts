import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it, type TestContext } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import { sql } from 'drizzle-orm'
import { createJobs, type JobDefinition, type Jobs } from '../../src/jobs/index.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

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

/** A job queue on the platform's database, stopped when the test ends. */
function jobsFor(t: TestContext): Jobs {
  const jobs = createJobs({
    database: databases.platform,
    log: createLogger('silent'),
    pollingIntervalSeconds: 0.5,
  })
  t.after(() => jobs.stop(1000))
  return jobs
}

async function startWith<T extends object>(t: TestContext, definition: JobDefinition<T>): Promise<Jobs> {
  const jobs = jobsFor(t)
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
