import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { eq } from 'drizzle-orm'
import { activityLog } from '../../src/platform/activity-log/tables.ts'
import { workGenerations } from '../../src/platform/generation/tables.ts'
import { startOpenAiFake } from '../fakes/openai.ts'
import { startPlatform, uniqueEmail } from '../helpers/apps.ts'
import { bearer, eventually } from '../helpers/platform.ts'
import { durableDatabase, startServiceProcess } from '../helpers/processes.ts'

const CHILD_SCRIPT = fileURLToPath(new URL('../fixtures/generation-child.ts', import.meta.url))
const STALE_MS = 60_000

describe('generation: a process killed in the middle of a run', () => {
  it('the restarted instance finds the run without a worker and resumes it to COMPLETED', {
    timeout: 90_000,
  }, async () => {
    const fake = await startOpenAiFake()
    const database = await durableDatabase()
    try {
      fake.next({ hang: true })
      const arrived = fake.waitForRequest()
      const settings = {
        OPENAI_API_URL: fake.url,
        AI_PROVIDER_MAX_RETRIES: '0',
        GENERATION_STALE_MS: String(STALE_MS),
      }
      const child = startServiceProcess(CHILD_SCRIPT, {
        ...database.env,
        ...settings,
        CHILD_EMAIL: uniqueEmail('crash'),
        CHILD_AI_KEY: fake.apiKey,
      })
      const [word, workId, token] = (await child.announcement('STARTED')).split(' ')
      assert.equal(word, 'STARTED')
      // The child's worker is waiting for the provider's answer when it dies.
      await arrived
      await child.kill()
      fake.release()

      const databases = await database.openForHarness()
      try {
        const [orphan] = await databases.platform.db
          .select()
          .from(workGenerations)
          .where(eq(workGenerations.workId, workId!))
        assert.equal(orphan?.status, 'GENERATING', 'the kill left the run GENERATING')

        // Restarted later than the stale limit: its start-up recovery queues the run again.
        const h = await startPlatform({ databases, env: settings, clockStart: Date.now() + STALE_MS + 1000 })
        try {
          const work = await eventually(
            async () => (await h.app.inject({ url: `/api/works/${workId}`, headers: bearer(token!) })).json(),
            (current) => ['COMPLETED', 'ERROR', 'CANCELLED'].includes(current.generateStatus?.status),
            30_000,
          )
          assert.equal(work.generateStatus.status, 'COMPLETED', work.generateStatus.recentLogs.join('\n'))
          assert.equal(work.generateStatus.itemsCount, 5)
          assert.ok(work.generateStatus.recentLogs.some((line: string) => line.includes('Resuming')))
          const items = await h.app.inject({ url: `/api/works/${workId}/items`, headers: bearer(token!) })
          assert.equal(items.json().items.length, 5)

          const [run] = await databases.platform.db
            .select()
            .from(workGenerations)
            .where(eq(workGenerations.id, orphan.id))
          assert.equal(run?.attempts, 2)
          const rows = await databases.platform.db
            .select({ status: activityLog.status })
            .from(activityLog)
            .where(eq(activityLog.workId, workId!))
          assert.deepEqual(
            rows.map((row) => row.status).sort(),
            ['completed', 'completed'],
            'the work_created row and the one generation row, closed in place',
          )
        } finally {
          await h.close()
        }
      } finally {
        await databases.close()
      }
    } finally {
      await fake.close()
      await database.drop()
    }
  })
})
