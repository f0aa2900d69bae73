import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { asc, inArray } from 'drizzle-orm'
import { createEventBus } from '../../src/db/event-bus.ts'
import type { DbOrTx } from '../../src/db/index.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { createTestDatabases, type TestDatabases } from '../helpers/database.ts'

let databases: TestDatabases
before(async () => {
  databases = await createTestDatabases()
})
after(() => databases.close())

type TestEvent = { type: 'work.created'; prefix: string } | { type: 'work.deleted'; prefix: string }

interface LogLine {
  level: number
  msg: string
  event?: string
  err?: { message?: string }
}

/** A logger that keeps its lines in memory. */
function memoryLog() {
  const lines: LogLine[] = []
  const log = createLogger('info', { write: (line: string) => lines.push(JSON.parse(line) as LogLine) })
  return { log, lines }
}

const at = new Date('2026-01-01T00:00:00Z')

async function insertUser(executor: DbOrTx, email: string) {
  await executor.insert(users).values({ email, passwordHash: 'not-a-hash', createdAt: at, updatedAt: at })
}

/** Which of `emails` exist as `executor` sees them, in order. */
async function existing(executor: DbOrTx, emails: string[]): Promise<string[]> {
  const rows = await executor
    .select({ email: users.email })
    .from(users)
    .where(inArray(users.email, emails))
    .orderBy(asc(users.email))
  return rows.map((row) => row.email)
}

describe('event bus', () => {
  it('runs listeners in the order they were added, inside the emitter’s transaction', async () => {
    const { log } = memoryLog()
    const bus = createEventBus<TestEvent>(log)
    const p = 'order'
    const emails = [`${p}-0-emitter@example.com`, `${p}-1@example.com`, `${p}-2@example.com`]
    const seen: string[][] = []
    bus.on('work.created', async (event, tx) => {
      seen.push(await existing(tx, emails))
      await insertUser(tx, `${event.prefix}-1@example.com`)
    })
    bus.on('work.created', async (event, tx) => {
      seen.push(await existing(tx, emails))
      await insertUser(tx, `${event.prefix}-2@example.com`)
    })
    let seenByEmitter: string[] = []
    await databases.platform.db.transaction(async (tx) => {
      await insertUser(tx, emails[0]!)
      await bus.emit({ type: 'work.created', prefix: p }, { tx })
      seenByEmitter = await existing(tx, emails)
    })
    assert.deepEqual(seen, [[emails[0]], [emails[0], emails[1]]])
    assert.deepEqual(seenByEmitter, emails)
    assert.deepEqual(await existing(databases.platform.db, emails), emails)
  })

  it('calls only the listeners of the emitted type', async () => {
    const { log } = memoryLog()
    const bus = createEventBus<TestEvent>(log)
    const heard: string[] = []
    bus.on('work.created', (event) => {
      heard.push(`created ${event.prefix}`)
    })
    bus.on('work.deleted', (event) => {
      heard.push(`deleted ${event.prefix}`)
    })
    await databases.platform.db.transaction(async (tx) => {
      await bus.emit({ type: 'work.deleted', prefix: 'w1' }, { tx })
    })
    assert.deepEqual(heard, ['deleted w1'])
  })

  it('listeners’ writes roll back with the emitter’s transaction when it throws after emit', async () => {
    const { log } = memoryLog()
    const bus = createEventBus<TestEvent>(log)
    const p = 'rollback'
    const emails = [`${p}-0-emitter@example.com`, `${p}-1@example.com`, `${p}-2@example.com`]
    bus.on('work.created', (event, tx) => insertUser(tx, `${event.prefix}-1@example.com`))
    bus.on('work.created', (event, tx) => insertUser(tx, `${event.prefix}-2@example.com`))
    await assert.rejects(
      databases.platform.db.transaction(async (tx) => {
        await insertUser(tx, emails[0]!)
        await bus.emit({ type: 'work.created', prefix: p }, { tx })
        assert.deepEqual(await existing(tx, emails), emails)
        throw new Error('the change failed after the event')
      }),
      /the change failed after the event/,
    )
    assert.deepEqual(await existing(databases.platform.db, emails), [])
  })

  it('a listener that throws after writing is rolled back alone and logged; the rest commits', async () => {
    const { log, lines } = memoryLog()
    const bus = createEventBus<TestEvent>(log)
    const p = 'failing'
    const emitter = `${p}-0-emitter@example.com`
    const earlier = `${p}-1-earlier@example.com`
    const failed = `${p}-2-failed@example.com`
    const afterIt = `${p}-3-after@example.com`
    const all = [emitter, earlier, failed, afterIt]
    bus.on('work.created', (_event, tx) => insertUser(tx, earlier))
    bus.on('work.created', async (_event, tx) => {
      await insertUser(tx, failed)
      throw new Error('listener broke')
    })
    let seenByLast: string[] = []
    bus.on('work.created', async (_event, tx) => {
      seenByLast = await existing(tx, all)
      await insertUser(tx, afterIt)
    })
    await databases.platform.db.transaction(async (tx) => {
      await insertUser(tx, emitter)
      await bus.emit({ type: 'work.created', prefix: p }, { tx })
    })
    assert.deepEqual(seenByLast, [emitter, earlier])
    assert.deepEqual(await existing(databases.platform.db, all), [emitter, earlier, afterIt])
    const failures = lines.filter((line) => line.msg === 'event listener failed')
    assert.equal(failures.length, 1)
    assert.equal(failures[0]!.event, 'work.created')
    assert.equal(failures[0]!.err?.message, 'listener broke')
    assert.equal(failures[0]!.level, 50)
  })

  it('a listener whose statement fails in the database is rolled back alone; the transaction goes on', async () => {
    const { log, lines } = memoryLog()
    const bus = createEventBus<TestEvent>(log)
    const emitter = 'db-failure-0-emitter@example.com'
    const duplicate = 'db-failure-1-duplicate@example.com'
    const afterIt = 'db-failure-2-after@example.com'
    await insertUser(databases.platform.db, duplicate)
    bus.on('work.created', (_event, tx) => insertUser(tx, duplicate))
    bus.on('work.created', (_event, tx) => insertUser(tx, afterIt))
    await databases.platform.db.transaction(async (tx) => {
      await insertUser(tx, emitter)
      await bus.emit({ type: 'work.created', prefix: 'db-failure' }, { tx })
      await insertUser(tx, 'db-failure-3-emitter-later@example.com')
    })
    assert.deepEqual(
      await existing(databases.platform.db, [
        emitter,
        duplicate,
        afterIt,
        'db-failure-3-emitter-later@example.com',
      ]),
      [emitter, duplicate, afterIt, 'db-failure-3-emitter-later@example.com'],
    )
    assert.equal(lines.filter((line) => line.msg === 'event listener failed').length, 1)
  })
})
