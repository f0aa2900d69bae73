import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { sql } from 'drizzle-orm'
import { createNotifications, type Notifications, notify } from '../../src/db/notifications.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { createTestDatabases, TEST_DATABASE_URL, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

/** Resolves with the next value `register` hands to its callback. */
function next<T>(register: (callback: (value: T) => void) => void): Promise<T> {
  return new Promise((resolve) => register(resolve))
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
  if (TEST_DATABASE_URL) {
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
  }
})
