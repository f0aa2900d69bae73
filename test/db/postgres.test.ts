import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { DatabaseUnavailableError, databaseUnavailable } from '../../src/db/errors.ts'
import type { DatabaseSource } from '../../src/db/index.ts'
import { createNotifications } from '../../src/db/notifications.ts'
import { createPool, type DatabasePool, drizzleOnPool } from '../../src/db/postgres.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createTestDatabases, NEEDS_POSTGRES, type TestDatabases } from '../helpers/database.ts'
import { type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.ts'

/**
 * The pool's promises, through a proxy that fails the link: no fault ends the process (a connection
 * that dies while in use has a listener), every failure is a DatabaseUnavailableError within the
 * timeouts, and a connection that failed is closed, never lent again.
 */

const log = createLogger('silent')
const TIMEOUTS = { connectTimeoutMs: 500, queryTimeoutMs: 500 }

let databases: TestDatabases
let proxy: FaultProxy
const pools: DatabasePool[] = []

before(async () => {
  if (!NEEDS_POSTGRES.skip) {
    databases = await createTestDatabases()
    proxy = await startFaultProxy(databases.url!)
  }
})
after(async () => {
  for (const pool of pools) await pool.end().catch(() => {})
  await proxy?.close()
  await databases?.close()
})

function poolThroughProxy(max: number) {
  const pool = createPool(proxy.url, max, log, TIMEOUTS)
  pools.push(pool)
  return { pool, db: drizzleOnPool(pool) }
}

/**
 * The error `work` fails with. Which timeout or refusal ended it is read from the error's reason
 * (`no answer within 500 ms`, `connection refused`), never from a stopwatch.
 */
async function failure(work: () => Promise<unknown>): Promise<{ error: unknown }> {
  try {
    await work()
  } catch (error) {
    return { error }
  }
  assert.fail('it succeeded')
}

describe('the Postgres pool when the link fails', NEEDS_POSTGRES, () => {
  it('a connection reset inside a transaction fails that transaction as unavailable; the next one works', async () => {
    const { pool, db } = poolThroughProxy(2)
    const { error } = await failure(() =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`)
        proxy.reset()
        await tx.execute(sql`select pg_sleep(0.05)`)
      }),
    )
    assert.ok(databaseUnavailable(error), String(error))
    const [row] = (await db.execute(sql`select 2 as two`)).rows
    assert.deepEqual(row, { two: 2 })
    assert.ok(pool.totalCount <= 2)
  })

  it('a statement without an answer fails after the query timeout, and its connection is closed', async () => {
    const { pool, db } = poolThroughProxy(1)
    await db.execute(sql`select 1`)
    proxy.blackhole()
    try {
      const { error } = await failure(() => db.execute(sql`select 1`))
      assert.equal(databaseUnavailable(error), 'no answer within 500 ms')
      await new Promise((resolve) => setImmediate(resolve))
      assert.equal(pool.totalCount, 0, 'the connection that did not answer is closed')
    } finally {
      await proxy.restore()
    }
    assert.deepEqual((await db.execute(sql`select 3 as three`)).rows, [{ three: 3 }])
  })

  it('transactions whose begin gets no answer give their connection back: a pool of one still works after', async () => {
    const { db } = poolThroughProxy(1)
    await db.execute(sql`select 1`)
    proxy.blackhole()
    try {
      for (let n = 0; n < 3; n++) {
        const { error } = await failure(() => db.transaction(async (tx) => tx.execute(sql`select 1`)))
        assert.ok(error instanceof DatabaseUnavailableError || databaseUnavailable(error), String(error))
      }
    } finally {
      await proxy.restore()
    }
    const result = await db.transaction(async (tx) => (await tx.execute(sql`select 4 as four`)).rows)
    assert.deepEqual(result, [{ four: 4 }])
  })

  it('a refused connection fails at once as unavailable, naming the refusal', async () => {
    const { db } = poolThroughProxy(2)
    await proxy.refuse()
    try {
      // Refused, not timed out: the reason names the refusal, so no timeout was waited for.
      const { error } = await failure(() => db.execute(sql`select 1`))
      assert.equal(databaseUnavailable(error), 'connection refused')
    } finally {
      await proxy.restore()
    }
    assert.deepEqual((await db.execute(sql`select 5 as five`)).rows, [{ five: 5 }])
  })

  it('waiting for a connection of a full pool ends at the connect timeout', async () => {
    const { db } = poolThroughProxy(1)
    const held = db.transaction(async (tx) => {
      await tx.execute(sql`select pg_sleep(1.2)`)
    })
    // The statement outlives the query timeout, so the holder fails too; the waiter fails first.
    const { error } = await failure(() => db.execute(sql`select 1`))
    assert.equal(databaseUnavailable(error), 'no connection within the connect timeout')
    await held.catch(() => {})
  })

  it('a failed rollback closes the connection rather than lending it again', async () => {
    const { pool, db } = poolThroughProxy(1)
    await failure(() =>
      db.transaction(async (tx) => {
        await tx.execute(sql`select 1`)
        proxy.reset()
        throw new Error('the work failed')
      }),
    )
    await new Promise((resolve) => setImmediate(resolve))
    assert.equal(pool.idleCount, 0, 'no idle connection is left from the reset one')
    assert.deepEqual((await db.execute(sql`select 6 as six`)).rows, [{ six: 6 }])
  })

  it('the notification connection notices a blackhole by its heartbeat, and reconnects after', async () => {
    // The listening connection is its own, made from the URL: here the proxy's.
    const notifications = createNotifications(
      { ...(databases.source as Extract<DatabaseSource, { kind: 'postgres' }>), url: proxy.url },
      log,
      { intervalMs: 100, timeoutMs: 300 },
    )
    const events: string[] = []
    let lost = () => {}
    let back = () => {}
    const wasLost = new Promise<void>((resolve) => {
      lost = resolve
    })
    const wasBack = new Promise<void>((resolve) => {
      back = resolve
    })
    try {
      await notifications.listen('curio_heartbeat_test', () => {}, {
        onLost: () => {
          events.push('lost')
          lost()
        },
        onReconnect: () => {
          events.push('back')
          back()
        },
      })
      proxy.blackhole()
      // Noticed by the heartbeat (the connection itself never errs on a blackhole), then back after the restore.
      await wasLost
      await proxy.restore()
      await wasBack
      assert.deepEqual(events, ['lost', 'back'])
    } finally {
      await proxy.restore()
      await notifications.close()
    }
  })
})
