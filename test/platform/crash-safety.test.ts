import assert from 'node:assert/strict'
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { eq, sql } from 'drizzle-orm'
import { jsonb, pgSchema, text, uuid } from 'drizzle-orm/pg-core'
import { loadConfig } from '../../src/config.ts'
import { type Databases, openDatabases } from '../../src/db/index.ts'
import { createLogger } from '../../src/lib/logger.ts'
import { ANALYTICS_FORWARD_JOB } from '../../src/platform/activity-log/forwarding.ts'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { works } from '../../src/platform/works/tables.ts'
import { migrateAll } from '../../src/runtime.ts'
import { createTestDatabases, TEST_DATABASE_URL } from '../helpers/database.ts'

const SERVICE_SCRIPT = fileURLToPath(new URL('../fixtures/crash-child.ts', import.meta.url))
const TEST_TIMEOUT_MS = 60_000
const ANNOUNCEMENT_TIMEOUT_MS = 45_000
const log = createLogger('silent')

/** The columns of pg-boss's job table (in the platform's `platform_jobs` schema) that the checks read. */
const bossJobs = pgSchema('platform_jobs').table('job', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  data: jsonb('data').$type<{ activityId?: string }>(),
})

/** A database that outlives the processes using it: a data folder (PGlite on disk) or one on the server. */
interface DurableDatabase {
  /** The settings that point a service process at it. */
  env: Record<string, string>
  /** Opens it as a restarted service does. */
  open(): Promise<Databases>
  drop(): Promise<void>
}

async function durableDatabase(): Promise<DurableDatabase> {
  if (TEST_DATABASE_URL) {
    const test = await createTestDatabases()
    assert.ok(test.url)
    const env = { DATABASE_URL: test.url }
    return { env, open: () => openDatabases(loadConfig(env), { log }), drop: () => test.close() }
  }
  const dir = mkdtempSync(join(tmpdir(), 'curio-crash-'))
  const env = { DATA_DIR: dir }
  const open = () => openDatabases(loadConfig(env), { log })
  const databases = await open()
  try {
    await migrateAll(databases, ['platform'], log)
  } finally {
    await databases.close()
  }
  return { env, open, drop: async () => rmSync(dir, { recursive: true, force: true }) }
}

const running = new Set<ChildProcess>()
after(() => {
  for (const child of running) child.kill('SIGKILL')
})

type CrashPoint = 'before-commit' | 'after-commit' | 'every-commit'

interface ServiceProcess {
  /** The next line it announces; fails with its stderr when it exits or stays silent instead. */
  announcement(what: string): Promise<string>
  /** Kills it with SIGKILL and waits until it is gone. */
  kill(): Promise<void>
  /** What it wrote to stderr so far, for failure messages. */
  stderr(): string
}

/** Starts the platform in a process of its own (test/fixtures/crash-child.ts), analytics forwarding on. */
function startService(
  database: DurableDatabase,
  crash: { point: CrashPoint; email: string; workName: string },
): ServiceProcess {
  const child = spawn(process.execPath, [SERVICE_SCRIPT], {
    env: {
      PATH: process.env.PATH ?? '',
      ...database.env,
      CRASH_POINT: crash.point,
      CRASH_EMAIL: crash.email,
      CRASH_WORK_NAME: crash.workName,
      // Nothing listens there: the forwarding jobs are enqueued, and their attempts fail and retry.
      ANALYTICS_WRITE_KEY: 'phc_test',
      ANALYTICS_HOST: 'http://127.0.0.1:9',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  const exit = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  exit.then(
    () => running.delete(child),
    () => running.delete(child),
  )
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity })[Symbol.asyncIterator]()

  return {
    stderr: () => stderr,
    async announcement(what) {
      let timer: NodeJS.Timeout | undefined
      const silence = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`The service announced no ${what} within ${ANNOUNCEMENT_TIMEOUT_MS} ms:\n${stderr}`),
            ),
          ANNOUNCEMENT_TIMEOUT_MS,
        )
      })
      try {
        const next = await Promise.race([lines.next(), silence])
        if (next.done) {
          const [code, signal] = await exit
          throw new Error(`The service exited (${signal ?? code}) before announcing ${what}:\n${stderr}`)
        }
        return next.value
      } finally {
        clearTimeout(timer)
      }
    },
    async kill() {
      assert.ok(child.kill('SIGKILL'), `the service was running when killed:\n${stderr}`)
      const [, signal] = await exit
      assert.equal(signal, 'SIGKILL', `the service died of the kill:\n${stderr}`)
    },
  }
}

interface AccountState {
  works: { id: string; name: string }[]
  rows: { id: string; actionType: string; workId: string | null }[]
  /** The `analytics-forward` jobs naming each of the account's rows. */
  jobsByRow: Map<string, number>
  /** `analytics-forward` jobs in the database that name no row at all. */
  orphanJobs: number
}

/** Opens the database again after the kill and reads what the account has. */
async function afterRestart(database: DurableDatabase, email: string): Promise<AccountState> {
  const databases = await database.open()
  try {
    const db = databases.platform.db
    const [user] = await db.select({ id: users.id }).from(users).where(eq(users.email, email))
    assert.ok(user, `the account registered before the kill exists after the restart (${email})`)
    const accountWorks = await db
      .select({ id: works.id, name: works.name })
      .from(works)
      .where(eq(works.ownerId, user.id))
    const rows = await db
      .select({ id: activityLog.id, actionType: activityLog.actionType, workId: activityLog.workId })
      .from(activityLog)
      .where(eq(activityLog.userId, user.id))
    const allRows = new Set((await db.select({ id: activityLog.id }).from(activityLog)).map((row) => row.id))
    const jobs = await db
      .select({ activityId: sql<string | null>`${bossJobs.data}->>'activityId'` })
      .from(bossJobs)
      .where(eq(bossJobs.name, ANALYTICS_FORWARD_JOB))
    const jobsByRow = new Map(rows.map((row) => [row.id, 0]))
    let orphanJobs = 0
    for (const { activityId } of jobs) {
      if (!activityId || !allRows.has(activityId)) orphanJobs++
      else if (jobsByRow.has(activityId)) jobsByRow.set(activityId, jobsByRow.get(activityId)! + 1)
    }
    return { works: accountWorks, rows, jobsByRow, orphanJobs }
  } finally {
    await databases.close()
  }
}

function assertEveryRowHasOneJob(state: AccountState, why: string) {
  assert.equal(state.orphanJobs, 0, `no analytics-forward job names a row that does not exist${why}`)
  for (const row of state.rows) {
    assert.equal(state.jobsByRow.get(row.id), 1, `the ${row.actionType} row ${row.id} has one job${why}`)
  }
}

const crashOf = (point: CrashPoint) => {
  const id = randomBytes(5).toString('hex')
  return { point, email: `crash-${id}@example.com`, workName: `Crash ${id}` }
}

describe('crash safety: a change and its consequences survive a kill together or not at all', () => {
  it('killed inside the transaction after its listeners: neither the work nor its activity row nor its job exists after a restart', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const database = await durableDatabase()
    try {
      const crash = crashOf('before-commit')
      const service = startService(database, crash)
      const line = await service.announcement('READY')
      const ready = /^READY (\S+) (\d+) (\d+) (.+)$/.exec(line)
      assert.ok(ready, `announced "${line}"`)
      const [, workId, rowsInTransaction, jobsInTransaction, name] = ready
      assert.equal(name, `${crash.workName} 1`)
      // Every listener before the last ran: the row and its job were written in the open transaction.
      assert.equal(rowsInTransaction, '1', 'the work_created row existed in the transaction at the kill')
      assert.equal(jobsInTransaction, '1', 'its analytics-forward job existed in the transaction at the kill')
      await service.kill()

      const state = await afterRestart(database, crash.email)
      const why = `\n${service.stderr()}`
      assert.deepEqual(state.works, [], `no work survived the kill${why}`)
      assert.deepEqual(
        state.rows.map((row) => row.actionType),
        ['user_signup'],
        `only the signup's row remains, none for work ${workId}${why}`,
      )
      assertEveryRowHasOneJob(state, why)
    } finally {
      await database.drop()
    }
  })

  it('killed right after the create answered: the work, its one activity row and that row’s one job all exist after a restart', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const database = await durableDatabase()
    try {
      const crash = crashOf('after-commit')
      const service = startService(database, crash)
      const line = await service.announcement('CREATED')
      const created = /^CREATED (\S+) (.+)$/.exec(line)
      assert.ok(created, `announced "${line}"`)
      const [, workId, name] = created
      assert.equal(name, `${crash.workName} 1`)
      await service.kill()

      const state = await afterRestart(database, crash.email)
      const why = `\n${service.stderr()}`
      assert.deepEqual(state.works, [{ id: workId, name }], `the created work survived the kill${why}`)
      const workRows = state.rows.filter((row) => row.actionType === 'work_created')
      assert.equal(workRows.length, 1, `exactly one work_created row${why}`)
      assert.equal(workRows[0]!.workId, workId, 'the row points at the work')
      assertEveryRowHasOneJob(state, why)
    } finally {
      await database.drop()
    }
  })

  it('killed after a random number of creates, restart after restart: every work has one activity row with one job, and every row its work', {
    timeout: TEST_TIMEOUT_MS,
  }, async () => {
    const database = await durableDatabase()
    try {
      for (let round = 1; round <= 2; round++) {
        const crash = crashOf('every-commit')
        const killAfter = randomInt(1, 9)
        const service = startService(database, crash)
        const announced: { id: string; name: string }[] = []
        while (announced.length < killAfter) {
          const line = await service.announcement(`CREATED ${announced.length + 1} of ${killAfter}`)
          const created = /^CREATED (\S+) (.+)$/.exec(line)
          assert.ok(created, `announced "${line}"`)
          announced.push({ id: created[1]!, name: created[2]! })
        }
        // The kill lands wherever the next create happens to be: before, inside or after its transaction.
        await service.kill()

        const state = await afterRestart(database, crash.email)
        const why = ` (round ${round}, killed after ${killAfter} creates)\n${service.stderr()}`
        const survived = new Map(state.works.map((work) => [work.id, work.name]))
        for (const work of announced) {
          assert.equal(survived.get(work.id), work.name, `an answered create survived the kill${why}`)
        }
        const numbers = state.works
          .map((work) => Number(work.name.slice(crash.workName.length + 1)))
          .sort((a, b) => a - b)
        assert.deepEqual(
          numbers,
          numbers.map((_, index) => index + 1),
          `the works are the first creates, without gaps${why}`,
        )
        const workRows = state.rows.filter((row) => row.actionType === 'work_created')
        for (const work of state.works) {
          const rows = workRows.filter((row) => row.workId === work.id)
          assert.equal(rows.length, 1, `"${work.name}" has exactly one work_created row${why}`)
        }
        for (const row of workRows) {
          assert.ok(
            row.workId && survived.has(row.workId),
            `the work_created row ${row.id} has its work${why}`,
          )
        }
        assertEveryRowHasOneJob(state, why)
      }
    } finally {
      await database.drop()
    }
  })
})
