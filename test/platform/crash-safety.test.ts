import assert from 'node:assert/strict'
import { randomBytes, randomInt } from 'node:crypto'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { eq, sql } from 'drizzle-orm'
import { jsonb, pgSchema, text, uuid } from 'drizzle-orm/pg-core'
import { ANALYTICS_FORWARD_JOB } from '../../src/platform/activity-log/forwarding.ts'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { users } from '../../src/platform/auth/tables.ts'
import { works } from '../../src/platform/works/tables.ts'
import {
  type DurableDatabase,
  durableDatabase,
  type ServiceProcess,
  startServiceProcess,
} from '../helpers/processes.ts'

const SERVICE_SCRIPT = fileURLToPath(new URL('../fixtures/crash-child.ts', import.meta.url))
const TEST_TIMEOUT_MS = 60_000

/** The columns of pg-boss's job table (in the platform's `platform_jobs` schema) that the checks read. */
const bossJobs = pgSchema('platform_jobs').table('job', {
  id: uuid('id').primaryKey(),
  name: text('name').notNull(),
  data: jsonb('data').$type<{ activityId?: string }>(),
})

type CrashPoint = 'before-commit' | 'after-commit' | 'every-commit'

/** Starts the platform in a process of its own (test/fixtures/crash-child.ts), analytics forwarding on. */
function startService(
  database: DurableDatabase,
  crash: { point: CrashPoint; email: string; workName: string },
): ServiceProcess {
  return startServiceProcess(SERVICE_SCRIPT, {
    ...database.env,
    CRASH_POINT: crash.point,
    CRASH_EMAIL: crash.email,
    CRASH_WORK_NAME: crash.workName,
    // Nothing listens there: the forwarding jobs are enqueued, and their attempts fail and retry.
    ANALYTICS_WRITE_KEY: 'phc_test',
    ANALYTICS_HOST: 'http://127.0.0.1:9',
  })
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
