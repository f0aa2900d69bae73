import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { sql } from 'drizzle-orm'
import { rowsOf } from '../../src/db/queries.ts'
import { IMPORT_STALLED_MS } from '../../src/directory/imports/service.ts'
import { startDirectory } from '../helpers/apps.ts'
import { durableDatabase, startServiceProcess } from '../helpers/processes.ts'

const CHILD_SCRIPT = fileURLToPath(new URL('../fixtures/import-child.ts', import.meta.url))
const ITEMS = 5000
const BATCH = 100

interface Progress {
  status: string
  progress: { done: number; total: number }
  result?: { created: number }
}

describe('an import whose process is killed by SIGKILL mid-run', () => {
  it('leaves each batch whole or absent, and the restarted instance resumes it to the end', {
    timeout: 180_000,
  }, async () => {
    const database = await durableDatabase()
    try {
      const child = startServiceProcess(CHILD_SCRIPT, {
        ...database.env,
        IMPORT_BATCH_SIZE: String(BATCH),
        CHILD_ITEMS: String(ITEMS),
      })
      const [word, port, importId, cookie] = (await child.announcement('STARTED')).split(' ')
      assert.equal(word, 'STARTED')
      // Killed once a few batches are in, well before the end.
      const deadline = Date.now() + 60_000
      for (;;) {
        const res = await fetch(`http://127.0.0.1:${port}/api/admin/imports/${importId}`, {
          headers: { cookie: cookie! },
        })
        const data = ((await res.json()) as { data: Progress }).data
        if (data.progress.done >= 3 * BATCH) {
          assert.ok(data.progress.done < ITEMS, 'the import is still running when killed')
          break
        }
        assert.ok(Date.now() < deadline, `the import made no progress in 60 s: ${JSON.stringify(data)}`)
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      await child.kill()

      const databases = await database.openForHarness()
      try {
        const db = databases.directory.db
        const [run] = await rowsOf<{ status: string; done: number; created: number; total: number }>(
          db,
          sql`select status, done, created, total from directory.imports where id = ${importId}`,
        )
        const [{ items } = { items: -1 }] = await rowsOf<{ items: number }>(
          db,
          sql`select count(*)::int as items from directory.items`,
        )
        assert.equal(run?.status, 'running', 'the kill left the import running')
        assert.equal(run?.total, ITEMS)
        assert.ok(run && run.done < ITEMS && run.done % BATCH === 0, `whole batches done: ${run?.done}`)
        // The items are exactly those of the batches whose progress committed: nothing half-applied.
        assert.equal(items, run?.done)
        assert.equal(run?.created, run?.done)

        // Restarted later than the stall limit: its start-up sweep sends the step again, from the last batch.
        const h = await startDirectory({
          databases,
          env: { IMPORT_BATCH_SIZE: String(BATCH) },
          clockStart: Date.now() + IMPORT_STALLED_MS + 1000,
        })
        try {
          const end = Date.now() + 120_000
          let data: Progress
          for (;;) {
            const res = await h.app.inject({
              url: `/api/admin/imports/${importId}`,
              headers: { cookie: cookie! },
            })
            data = res.json().data as Progress
            if (data.status !== 'running') break
            assert.ok(
              Date.now() < end,
              `the import did not finish after the restart: ${JSON.stringify(data)}`,
            )
            await new Promise((resolve) => setTimeout(resolve, 50))
          }
          assert.equal(data.status, 'completed')
          assert.deepEqual(data.progress, { done: ITEMS, total: ITEMS })
          assert.equal(data.result?.created, ITEMS)
          const [counts] = await rowsOf<{ items: number; slugs: number }>(
            db,
            sql`select count(*)::int as items, count(distinct slug)::int as slugs from directory.items`,
          )
          assert.deepEqual(counts, { items: ITEMS, slugs: ITEMS })
          const [category] = await rowsOf<{ item_count: number }>(
            db,
            sql`select item_count from directory.categories where id = 'survivors'`,
          )
          assert.equal(category?.item_count, ITEMS)
        } finally {
          await h.close()
        }
      } finally {
        await databases.close()
      }
    } finally {
      await database.drop()
    }
  })
})
