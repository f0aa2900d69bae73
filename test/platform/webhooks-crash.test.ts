import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { eq } from 'drizzle-orm'
import { users } from '../../src/platform/auth/tables.ts'
import { works } from '../../src/platform/works/tables.ts'
import { startReceiver } from '../fakes/receiver.ts'
import { startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { eventually } from '../helpers/platform.ts'
import { durableDatabase, startServiceProcess } from '../helpers/processes.ts'

const SERVICE_SCRIPT = fileURLToPath(new URL('../fixtures/crash-child.ts', import.meta.url))
const WORKS_BEFORE_KILL = 12
/**
 * A job taken by the killed process before it claimed its delivery runs again once pg-boss expires it: the
 * attempt's lease (this timeout + 30 s) after it started, at the restarted queue's next supervision.
 */
const ALLOWED = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '1000' }

describe('webhooks: a process killed while it creates works and delivers their events', () => {
  it('loses no event: after a restart every work’s work.created arrives at least once', {
    timeout: 150_000,
  }, async () => {
    const receiver = await startReceiver()
    const database = await durableDatabase()
    try {
      const email = uniqueEmail('crash')
      const child = startServiceProcess(SERVICE_SCRIPT, {
        ...database.env,
        ...ALLOWED,
        CRASH_POINT: 'every-commit',
        CRASH_EMAIL: email,
        CRASH_WORK_NAME: `Crash ${randomBytes(3).toString('hex')}`,
        CRASH_WEBHOOK_URL: receiver.url,
      })
      for (let n = 0; n < WORKS_BEFORE_KILL; n++) {
        assert.match(await child.announcement(`work ${n + 1}`), /^CREATED /)
      }
      // Killed at whatever instant it has reached: creating a work, delivering, or recording an attempt.
      await child.kill()

      const databases = await database.openForHarness()
      try {
        const db = databases.platform.db
        const [account] = await db.select({ id: users.id }).from(users).where(eq(users.email, email))
        assert.ok(account)
        const created = await db.select({ id: works.id }).from(works).where(eq(works.ownerId, account.id))
        assert.ok(created.length >= WORKS_BEFORE_KILL, `${created.length} works committed`)

        // Restarted after any attempt in flight at the kill could still be running: its recovery takes it.
        const h = await startPlatform({
          databases,
          env: ALLOWED,
          clockStart: Date.now() + 10 * 60_000,
          superviseIntervalSeconds: 1,
        })
        try {
          const deliveredWorks = () =>
            new Set(
              receiver.received
                .filter((request) => request.json.event === 'work.created')
                .map((request) => String(request.json.workId)),
            )
          await eventually(
            async () => deliveredWorks(),
            (delivered) => created.every((work) => delivered.has(work.id)),
            75_000,
          ).catch((error: Error) => {
            const missing = created.filter((work) => !deliveredWorks().has(work.id)).length
            throw new Error(`${missing} of ${created.length} works without work.created: ${error.message}`)
          })
          const deliveryIds = receiver.received.map((request) =>
            String(request.headers['x-service-delivery']),
          )
          const duplicates = deliveryIds.length - new Set(deliveryIds).size
          assert.ok(
            duplicates <= 1,
            `at most the one attempt in flight at the kill is sent twice (${duplicates} duplicates)`,
          )
        } finally {
          await h.close()
        }
      } finally {
        await databases.close()
      }
    } finally {
      await receiver.close()
      await database.drop()
    }
  })
})
