import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { createNotifications, type Notifications, notify } from '../../src/db/notifications.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createTestDatabases, NEEDS_POSTGRES, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

/** Resolves with the next value `register` hands to its callback. */
function next<T>(register: (callback: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve) => register(resolve))
}

/** A handler that records every payload it hears; `heard(n)` resolves once it has heard `n` in all. */
function recorder() {
  const payloads: string[] = []
  const waiting: { count: number; resolve: () => void }[] = []
  return {
    payloads,
    onMessage(payload: string) {
      payloads.push(payload)
      for (const wait of waiting.filter((w) => payloads.length >= w.count)) {
        waiting.splice(waiting.indexOf(wait), 1)
        wait.resolve()
      }
    },
    heard(count: number): Promise<void> {
      if (payloads.length >= count) return Promise.resolve()
      return new Promise((resolve) => waiting.push({ count, resolve }))
    },
  }
}

/** A logger that keeps its lines in memory. */
function memoryLog() {
  const lines: { msg: string; channel?: string; err?: { message?: string } }[] = []
  return { log: createLogger('info', { write: (line: string) => lines.push(JSON.parse(line)) }), lines }
}

describe('notifications between instances', () => {
  it('a notification sent in a transaction arrives once the transaction commits, not if it rolls back', async () => {
    const notifications = createNotifications(databases.directory.source, createLogger('silent'))
    try {
      const received: string[] = []
      let onMessage: (payload: string) => void = () => {}
      await notifications.listen('curio_test_channel', (payload) => {
        received.push(payload)
        onMessage(payload)
      })
      const db = databases.directory.db
      await db
        .transaction(async (tx) => {
          await notify(tx, 'curio_test_channel', 'rolled back')
          throw new Error('roll back')
        })
        .catch(() => {})
      const arrived = next<string>((callback) => {
        onMessage = callback
      })
      await db.transaction(async (tx) => notify(tx, 'curio_test_channel', 'committed'))
      assert.equal(await arrived, 'committed')
      assert.deepEqual(received, ['committed'])
    } finally {
      await notifications.close()
    }
  })

  // Only a server connection can drop; the embedded database lives in this process.
  describe('on a Postgres server', NEEDS_POSTGRES, () => {
    it('a dropped connection runs onLost, the reconnection onReconnect, and notifications flow again', async () => {
      const notifications: Notifications = createNotifications(
        databases.directory.source,
        createLogger('silent'),
      )
      try {
        let lost: () => void = () => {}
        let reconnected: () => void = () => {}
        let message: (payload: string) => void = () => {}
        await notifications.listen('curio_test_drop', (payload) => message(payload), {
          onLost: () => lost(),
          onReconnect: () => reconnected(),
        })
        const wasLost = next<void>((callback) => {
          lost = callback
        })
        const isBack = next<void>((callback) => {
          reconnected = callback
        })
        const db = databases.directory.db
        await db.execute(sql`
          select pg_terminate_backend(pid) from pg_stat_activity
          where datname = current_database() and application_name = 'curio-listen'
            and query ilike 'listen%curio_test_drop%'`)
        await wasLost
        await isBack
        const arrived = next<string>((callback) => {
          message = callback
        })
        await notify(db, 'curio_test_drop', 'after the drop')
        assert.equal(await arrived, 'after the drop')
      } finally {
        await notifications.close()
      }
    })
  })
})

describe('handlers of one channel', () => {
  it('two handlers of one channel both receive every message', async () => {
    const notifications = createNotifications(databases.directory.source, createLogger('silent'))
    try {
      const first = recorder()
      const second = recorder()
      await notifications.listen('curio_test_two', first.onMessage)
      await notifications.listen('curio_test_two', second.onMessage)
      const db = databases.directory.db
      await notify(db, 'curio_test_two', 'one')
      await db.transaction(async (tx) => notify(tx, 'curio_test_two', 'two'))
      await Promise.all([first.heard(2), second.heard(2)])
      assert.deepEqual(first.payloads, ['one', 'two'])
      assert.deepEqual(second.payloads, ['one', 'two'])
    } finally {
      await notifications.close()
    }
  })

  it('removing one handler leaves the other receiving', async () => {
    const notifications = createNotifications(databases.directory.source, createLogger('silent'))
    try {
      const removed = recorder()
      const kept = recorder()
      const remove = await notifications.listen('curio_test_remove', removed.onMessage)
      await notifications.listen('curio_test_remove', kept.onMessage)
      const db = databases.directory.db
      await notify(db, 'curio_test_remove', 'both')
      await Promise.all([removed.heard(1), kept.heard(1)])
      await remove()
      // Removing it again is harmless and removes nothing else.
      await remove()
      await notify(db, 'curio_test_remove', 'kept only')
      await notify(db, 'curio_test_remove', 'still kept')
      await kept.heard(3)
      assert.deepEqual(kept.payloads, ['both', 'kept only', 'still kept'])
      assert.deepEqual(removed.payloads, ['both'])
    } finally {
      await notifications.close()
    }
  })

  it('after the last handler of a channel is removed nothing is received, until one is added again', async () => {
    const notifications = createNotifications(databases.directory.source, createLogger('silent'))
    try {
      const marker = recorder()
      await notifications.listen('curio_test_marker', marker.onMessage)
      const first = recorder()
      const second = recorder()
      const removeFirst = await notifications.listen('curio_test_last', first.onMessage)
      const removeSecond = await notifications.listen('curio_test_last', second.onMessage)
      await removeFirst()
      await removeSecond()
      const db = databases.directory.db
      await notify(db, 'curio_test_last', 'nobody listens')
      // Messages reach this process in the order they were sent: once the marker is heard, the first would have been.
      await notify(db, 'curio_test_marker', 'after')
      await marker.heard(1)
      assert.deepEqual(first.payloads, [])
      assert.deepEqual(second.payloads, [])

      const again = recorder()
      await notifications.listen('curio_test_last', again.onMessage)
      await notify(db, 'curio_test_last', 'listening again')
      await again.heard(1)
      assert.deepEqual(again.payloads, ['listening again'])
      assert.deepEqual(first.payloads, [])
    } finally {
      await notifications.close()
    }
  })

  it('a handler that throws does not stop the others, and is logged', async () => {
    const { log, lines } = memoryLog()
    const notifications = createNotifications(databases.directory.source, log)
    try {
      const earlier = recorder()
      const later = recorder()
      await notifications.listen('curio_test_throw', earlier.onMessage)
      await notifications.listen('curio_test_throw', () => {
        throw new Error('handler broke')
      })
      await notifications.listen('curio_test_throw', later.onMessage)
      const db = databases.directory.db
      await notify(db, 'curio_test_throw', 'one')
      await notify(db, 'curio_test_throw', 'two')
      await Promise.all([earlier.heard(2), later.heard(2)])
      assert.deepEqual(earlier.payloads, ['one', 'two'])
      assert.deepEqual(later.payloads, ['one', 'two'])
      const failures = lines.filter((line) => line.msg === 'notification handler failed')
      assert.equal(failures.length, 2)
      assert.equal(failures[0]!.channel, 'curio_test_throw')
      assert.equal(failures[0]!.err?.message, 'handler broke')
    } finally {
      await notifications.close()
    }
  })
})
